"""Implementation checks of the build: artifact freshness, qless_py.lua, sandbox rules."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import redis

from qless_py import lua

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "scripts" / "build_lua.py"
ARTIFACT = ROOT / "qless_py" / "_lua" / "qless.lua"


def test_artifact_is_built_from_current_sources() -> None:
    result = subprocess.run([sys.executable, str(BUILD), "--check"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_check_mode_reports_a_stale_artifact(tmp_path: Path) -> None:
    # Run the build on a copy of the tree whose artifact was edited by hand.
    copy = tmp_path / "tree"
    (copy / "scripts").mkdir(parents=True)
    (copy / "lua").mkdir()
    (copy / "qless_py" / "_lua").mkdir(parents=True)
    for script in ("build_lua.py", "lua_inline.py"):
        (copy / "scripts" / script).write_text((ROOT / "scripts" / script).read_text())
    for source in (ROOT / "lua").glob("*.lua"):
        (copy / "lua" / source.name).write_text(source.read_text())
    (copy / "qless_py" / "_lua" / "qless.lua").write_text(ARTIFACT.read_text() + "-- edited\n")
    script = str(copy / "scripts" / "build_lua.py")
    stale = subprocess.run([sys.executable, script, "--check"], capture_output=True, check=False)
    assert stale.returncode == 1
    subprocess.run([sys.executable, script], check=True)
    fresh = subprocess.run([sys.executable, script, "--check"], capture_output=True, check=False)
    assert fresh.returncode == 0


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
    for source in (ROOT / "lua").glob("*.lua"):
        if source.name == "prelude.lua":
            continue
        code = [line for line in source.read_text().splitlines()
                if not line.lstrip().startswith("--")]
        for line in code:
            assert not re.search(r"'ql:[a-z]+:", line), f"{source.name}: {line.strip()}"


DEFINE_AT = "local function define(lazy_t, lazy_k)\n"
TRACE_AT = "  local lazy_f\n"  # past the outside lookups' branch: only real definitions
T = 1_700_000_000.25


def traced_script() -> bytes:
    """The artifact, changed to return the names define() created instead of its reply."""
    text = lua.SOURCE.decode()
    assert DEFINE_AT in text and TRACE_AT in text and text.endswith("return main()\n")
    text = text.replace(DEFINE_AT, "local lazy_trace = {}\n" + DEFINE_AT, 1)
    text = text.replace(TRACE_AT, TRACE_AT + "  lazy_trace[#lazy_trace + 1] = lazy_k\n", 1)
    # The inlined commands return from their own block before main().
    text, inlined = re.subn(r"(?m)^    return result$", "    return lazy_trace", text)
    assert inlined == 6
    return (text[:-len("return main()\n")] + "main()\nreturn lazy_trace\n").encode()


def test_inlined_commands_create_no_function_on_their_common_path(
        redis_conn: redis.Redis) -> None:
    # scripts/build_lua.py copies these commands, and what their common path calls, into
    # the script body (INLINE); a call the copy leaves as a call is defined lazily, and
    # shows up here. What only the first sample of a day (the stats hash's expiry) needs
    # stays a call on purpose: it is paid once per day.
    script = traced_script()

    def lazy(*args: object) -> list[str]:
        return [name.decode() for name in redis_conn.eval(script, 0, *args)]

    # A call that found no config hash reads no config field, so it needs less.
    first_sample = ["Stats_expire", "Stats_ttl", "P_config_number", "P_config_raw", "P_num"]
    no_config = ["Stats_expire", "Stats_ttl", "P_config_number"]
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
    # A command outside the list still works, through define().
    assert lazy("get", T, "a") == ["Api_get", "Job_get", "Job_render", "Job_fetch",
                                   "P_num_json", "P_jstr"]
