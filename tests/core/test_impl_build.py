"""The built script: fresh, shipped as it is, loadable anywhere, and traceable to lua/."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from qless_py import lua

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "scripts" / "build_lua.py"
ARTIFACT = ROOT / "qless_py" / "_lua" / "qless.lua"
sys.path.insert(0, str(ROOT / "scripts"))
from lua_tokens import tokens  # noqa: E402
from namespace_variants import variants  # noqa: E402

MARKER = re.compile(r"--@ (\S+):(\d+)-(\d+)")


def test_artifact_is_built_from_current_sources() -> None:
    result = subprocess.run([sys.executable, str(BUILD), "--check"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_check_mode_reports_a_stale_artifact(tmp_path: Path) -> None:
    # Run the build on a copy of the tree whose artifact was edited by hand.
    copy = tmp_path / "tree"
    (copy / "scripts").mkdir(parents=True)
    (copy / "qless_py" / "_lua").mkdir(parents=True)
    for script in ("build_lua.py", "lua_inline.py", "lua_tokens.py"):
        (copy / "scripts" / script).write_text((ROOT / "scripts" / script).read_text())
    for source in (ROOT / "lua").rglob("*.lua"):
        target = copy / source.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.read_text())
    (copy / "qless_py" / "_lua" / "qless.lua").write_text(ARTIFACT.read_text() + "-- edited\n")
    script = str(copy / "scripts" / "build_lua.py")
    stale = subprocess.run([sys.executable, script, "--check"], capture_output=True, check=False)
    assert stale.returncode == 1
    subprocess.run([sys.executable, script], check=True)
    fresh = subprocess.run([sys.executable, script, "--check"], capture_output=True, check=False)
    assert fresh.returncode == 0
    assert (copy / "qless_py" / "_lua" / "qless.lua").read_bytes() == lua.SOURCE


def test_lua_module_exposes_the_artifact_and_its_sha() -> None:
    assert ARTIFACT.read_bytes() == lua.SOURCE
    assert hashlib.sha1(lua.SOURCE).hexdigest() == lua.SHA


def test_python_m_prints_the_script() -> None:
    out = subprocess.run([sys.executable, "-m", "qless_py.lua"], capture_output=True, check=True)
    assert out.stdout == lua.SOURCE


def test_server_computes_the_same_sha(redis_conn: redis.Redis) -> None:
    assert redis_conn.script_load(lua.SOURCE) == lua.SHA


def test_script_is_a_legacy_script_without_globals() -> None:
    text = lua.SOURCE.decode()
    assert not text.startswith("#!")
    # No assignment to a global name or a standard library at the top level.
    for line in text.splitlines():
        assert not re.match(r"^(table|string|math|cjson|redis|bit|_G)\.\w+\s*=", line), line
        assert not re.match(r"^function (table|string|math|cjson|redis)\.", line), line
        assert not re.match(r"^[A-Za-z_]\w*\s*=[^=]", line), line


def test_key_names_are_spelled_only_in_the_prelude() -> None:
    for source in (ROOT / "lua").rglob("*.lua"):
        if source.name == "prelude.lua":
            continue
        for t in tokens(source.read_text()):
            if t.kind == "string":
                assert not re.match(r"""['"](ql|qlpy):""", t.text), f"{source}:{t.line}"


def mapped_lines() -> list[tuple[str, str, int]]:
    """(script line, source path, source line) for every line a marker covers."""
    lines = lua.SOURCE.decode().split("\n")
    out, k = [], 0
    while k < len(lines):
        m = MARKER.fullmatch(lines[k])
        if m:
            path, first, last = m.group(1), int(m.group(2)), int(m.group(3))
            out += [(lines[k + 1 + n], path, first + n) for n in range(last - first + 1)]
            k += last - first + 1
        k += 1
    return out


def source_text(path: str) -> list[str]:
    return (ROOT / path).read_text().split("\n")


def test_markers_give_each_line_its_source_line() -> None:
    # Comments are never rewritten, so a commented line is its source line (a declaration
    # the build folds stays as a comment); on a code line, the names, numbers and strings
    # of the source line are all there, except what the build rewrites (module functions,
    # key names, constants) and the lines an inlined call's copy begins and ends with.
    files = {p.relative_to(ROOT).as_posix(): source_text(p.relative_to(ROOT).as_posix())
             for p in (ROOT / "lua").rglob("*.lua")}
    mapped = mapped_lines()
    assert len(mapped) > 3000
    for line, path, n in mapped:
        source = files[path][n - 1]
        got, want = line.strip(), source.strip()
        if want.startswith("--") or not want:
            # a comment inside a declaration the build folds is kept commented once more
            assert got in (want, f"-- {source}".strip()), (path, n, line)
        elif got.startswith("-- "):
            assert got == f"-- {source}".strip(), (path, n, line)
        elif " repeat" not in got and not got.startswith("until true"):
            assert kept_tokens(source) <= set(t.text for t in tokens(line)), (path, n, line)


def kept_tokens(source: str) -> set[str]:
    """Tokens of a source line that the build never rewrites."""
    toks = [t for t in tokens(source) if t.code]
    out = set()
    for i, t in enumerate(toks):
        rewritten = (t.text == "key" or re.fullmatch(r"[A-Z][A-Z0-9_]*", t.text)
                     or re.fullmatch(r"[A-Z][a-z]+", t.text)
                     or (i > 1 and toks[i - 1].text in (".", "[")
                         and (toks[i - 2].text == "key" or toks[i - 2].text[:1].isupper()))
                     or t.text == "'PUBLISH'")  # PUB in the namespaced body
        if t.kind in ("name", "number", "string") and not rewritten and t.text != "return":
            out.add(t.text)
    return out


def test_every_source_line_is_in_the_script() -> None:
    seen = {(path, n) for _, path, n in mapped_lines()}
    for source in (ROOT / "lua").rglob("*.lua"):
        path = source.relative_to(ROOT).as_posix()
        for n, line in enumerate(source_text(path), 1):
            assert not line.strip() or (path, n) in seen, f"{path}:{n} {line!r}"


def test_lines_outside_the_markers_are_the_builds_scaffolding() -> None:
    lines = lua.SOURCE.decode().split("\n")
    covered = set()
    for k, line in enumerate(lines):
        m = MARKER.fullmatch(line)
        if m:
            covered |= {k} | set(range(k + 1, k + 2 + int(m.group(3)) - int(m.group(2))))
    scaffolding = re.compile("|".join([
        "", "-- .*", r"local function define\(M, name\)", r"  local [\w, ]+ = [\w., ]+",
        r"  local name_len = #name", r" *if name_len [=<]=? \d+ then", " *else",
        r" *(if|elseif) name == '\w+(\.[\w.]+)?' then", " *end", r"  return rawget\(M, name\)",
        "end", r"M.__index = define  -- .*", r"setmetatable\(M, M\)",
        # the choice of body: the default namespace (no key) or a namespace (one key)
        r"if #KEYS == 0 then", r"local P = KEYS\[1\]", r"if #KEYS ~= 1 or .* then",
        r"  error\('No Keys should be provided .*", r"local PUB = .*"]))
    for k, line in enumerate(lines):
        if k not in covered:
            assert scaffolding.fullmatch(line), (k + 1, line)


DEFINE_AT = "local function define(M, name)\n"
T = 1_700_000_000.25


def traced_script() -> str:
    """The script, changed to reply with the names define() created instead of its reply."""
    text = lua.SOURCE.decode()
    assert text.count(DEFINE_AT) == 2  # the default namespace's body, the namespaced one
    text = text.replace(DEFINE_AT, "local lazy_trace = {}\n" + DEFINE_AT
                        + "  lazy_trace[#lazy_trace + 1] = name\n")
    text, replies = re.subn(r"(?m)^(\s*)return result$", r"\1return lazy_trace", text)
    assert replies == 4  # the per-job commands' block, and every other command, twice
    return text


@pytest.mark.parametrize("keys", [(), ("ql:{ns}:",)], ids=["default", "namespace"])
def test_per_job_commands_create_no_function_on_their_common_path(
        redis_conn: redis.Redis, keys: tuple[str, ...]) -> None:
    # The dispatcher calls put, pop, complete, heartbeat, fail and retry directly, and the
    # build copies them and the --@inline functions they call into the script body. What a
    # copy still calls is created lazily and shows up here: a call that lost its copy
    # fails this test. What only the first sample of a day needs (the stats hash's expiry)
    # stays a call on purpose: it is paid once a day.
    script = traced_script()

    def lazy(*args: str | float) -> list[str]:
        return [name.decode() for name in redis_conn.eval(script, len(keys), *keys, *args)]

    # A call that found no config hash reads no config field, so it needs less.
    first_sample = ["Stats_expire", "Stats_ttl", "Config_number", "Config_raw", "Num_parse"]
    no_config = ["Stats_expire", "Stats_ttl", "Config_number"]
    assert lazy("put", T, "w", "q", "a", "K", "{}", 0) == []
    for jid in "bcdefg":
        assert lazy("put", T, "w", "q", jid, "K", '{"n":1}', 0, "priority", -1) == []
    assert lazy("pop", T + 1, "q", "w", 1) == no_config
    assert lazy("pop", T + 2, "q", "w", 1) == []
    assert lazy("pop", T + 3, "q", "w", 5) == []
    assert lazy("heartbeat", T + 4, "a", "w", "{}") == []
    assert lazy("complete", T + 5, "a", "w", "q", "{}") == no_config
    assert lazy("complete", T + 6, "b", "w", "q", '{"n":2}') == []
    assert lazy("complete", T + 7, "c", "w", "q", "{}", "next", "q2") == []
    assert lazy("fail", T + 8, "d", "w", "group", "message", "{}") == first_sample
    assert lazy("retry", T + 9, "e", "q", "w", 0, "group", "message") == []
    # Any other command goes through the command table and define().
    assert lazy("get", T, "a") == ["Api_get", "Job_get", "Job_render", "Job_fetch",
                                   "Json_number", "Json_str"]


# scripts/namespace_variants.py: the builds docs/performance.md counts, each one part of a
# namespaced call left out. Each must still run the call, with the keys it says it writes.
VARIANT_KEYS = {
    "keyed-default.lua": "ql:j:jid-1",  # the default body, for a call with a key
    "no-check.lua": "ql:{billing}:j:jid-1",  # the namespaced body as built, less its check
    "prefix-ql.lua": "ql:j:jid-1",  # P = 'ql:'
    "literal-keys.lua": "ql:j:jid-1",
}


@pytest.mark.parametrize("name", sorted(VARIANT_KEYS))
def test_namespace_variants_run_a_put_with_the_keys_they_name(
        name: str, redis_conn: redis.Redis) -> None:
    script = variants(lua.SOURCE.decode())[name]
    jid = redis_conn.eval(script, 1, "ql:{billing}:", "put", T, "w", "q", "jid-1", "K", "{}",
                          "0")
    assert jid == b"jid-1"
    assert redis_conn.keys("*j:jid-1") == [VARIANT_KEYS[name].encode()]


def test_namespace_variants_leave_the_check_out(redis_conn: redis.Redis) -> None:
    built = variants(lua.SOURCE.decode())
    with pytest.raises(redis.ResponseError, match="No Keys should be provided"):
        redis_conn.eval(lua.SOURCE.decode(), 1, "bad", "put", T, "w", "q", "j", "K", "{}", "0")
    assert redis_conn.eval(built["no-check.lua"], 1, "bad", "put", T, "w", "q", "j", "K",
                           "{}", "0") == b"j"
