"""Error replies from a real server lead back to the line of lua/ that raised them:
qless_py.lua.where(), `python -m qless_py.lua --where`, and CoreError.source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis

from qless_py import lua
from qless_py.errors import CoreError, error_from_reply
from tests.core.support import T0, Core

ROOT = Path(__file__).resolve().parents[2]


def line_of(text: str) -> str:
    """`lua/<file>:<line>` of the one source line that holds `text` (that is `text`, when it
    starts with a blank)."""
    found = [f"{path.relative_to(ROOT).as_posix()}:{n}"
             for path in (ROOT / "lua").rglob("*.lua")
             for n, line in enumerate(path.read_text().split("\n"), 1)
             if line == text or (text in line and not text.startswith(" "))]
    assert len(found) == 1, (text, found)
    return found[0]


def reply_of(core: Core, *call: object) -> str:
    with pytest.raises(redis.ResponseError) as info:
        core(*call)  # type: ignore[arg-type]
    return str(info.value)


# (call, the source text that raises its error). The first two run in copies of their
# functions in the dispatcher (--@inline); the next two in lazily created functions; then
# the dispatcher's own code.
CASES = [
    (("complete", T0, "nope", "w", "q", "{}"),
     "'Complete(): Job ' .. jid .. ' does not exist'"),
    (("put", T0, "w", "q", "j", "K", "{}", "soon"), "'Put(): Arg \"delay\" not a number: '"),
    (("priority", T0, "j", "high"), "'Priority(): Arg \"priority\" missing or not a number: '"),
    (("pause", T0), "'Wrong number of args calling Redis command from script'"),
    (("bogus", T0), "error('Unknown command ' .. cmd)"),
]


@pytest.mark.parametrize("call, text", CASES)
def test_an_error_reply_names_the_source_line_that_raised_it(
        core: Core, call: tuple[object, ...], text: str) -> None:
    reply = reply_of(core, *call)
    assert lua.where(reply) == line_of(text), reply
    error = error_from_reply(reply, str(call[0]))
    assert isinstance(error, CoreError) and error.source == line_of(text)


def test_an_error_raised_by_a_redis_call_names_that_call(core: Core) -> None:
    # Redis raises this one itself (the stored budget is not a number), from inside the copy
    # of retry in the dispatcher; the reply then names the line only as `@user_script:<n>`.
    core("put", T0, "w", "q", "j", "K", "{}", 0)
    core("pop", T0 + 1, "q", "w", 1)
    core.conn.hset("ql:j:j", "remaining", "many")
    reply = reply_of(core, "retry", T0 + 2, "j", "q", "w")
    assert "not a float" in reply
    assert lua.where(reply) == line_of(
        "  local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))")


def test_command_line_prints_the_source_line(core: Core) -> None:
    reply = reply_of(core, "complete", T0, "nope", "w", "q", "{}")
    out = subprocess.run([sys.executable, "-m", "qless_py.lua", "--where", reply],
                         capture_output=True, text=True, check=True)
    assert out.stdout == line_of("'Complete(): Job ' .. jid .. ' does not exist'") + "\n"
    number = reply.split("user_script:")[1].split(":")[0]
    for given in (f"user_script:{number}", number):
        out = subprocess.run([sys.executable, "-m", "qless_py.lua", "--where", given],
                             capture_output=True, text=True, check=True)
        assert out.stdout == line_of("'Complete(): Job ' .. jid .. ' does not exist'") + "\n"


# Redis 7 and 8, and Valkey 8, name the script's SHA in the reply (Valkey 9 does not).
OTHER = "0" * 40
OF_ANOTHER_SCRIPT = [f"ERR user_script:N: Unknown command x script: {OTHER}, on @user_script:N.",
                     f"ERR Error running script (call to f_{OTHER}): @user_script:N: "
                     "user_script:N: Unknown command x"]


@pytest.mark.parametrize("template", OF_ANOTHER_SCRIPT)
def test_a_reply_of_another_script_is_not_mapped(template: str) -> None:
    line = next(n for n in range(1, 100) if lua.source_line(n) is not None)
    reply = template.replace(":N", f":{line}")
    assert lua.where(reply) is None
    assert lua.where(reply.replace(OTHER, lua.SHA)) == lua.source_line(line) is not None
    error = error_from_reply(reply)
    assert isinstance(error, CoreError) and error.source is None
    out = subprocess.run([sys.executable, "-m", "qless_py.lua", "--where", reply],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1
    assert out.stderr == f"qless_py.lua: the reply names script {OTHER}, not {lua.SHA} " \
                         "(--script)\n"


def test_lines_the_build_wrote_have_no_source() -> None:
    lines = lua.SOURCE.decode().split("\n")
    define = lines.index("local function define(M, name)") + 1
    assert lua.source_line(define) is None
    assert lua.source_line(1) is None  # the header
    assert lua.source_line(len(lines) + 10) is None
    assert lua.source_line(define + 1) is None  # an alias of the prelude, declared again
    marker = next(k for k, line in enumerate(lines) if line.startswith("--@ lua/prelude.lua:1-"))
    assert lua.source_line(marker + 2) == "lua/prelude.lua:1"
    assert lua.source_line(marker + 1) is None  # the marker itself
    assert lua.where("ERR something went wrong") is None
    assert isinstance(error_from_reply("ERR something went wrong"), CoreError)


def test_command_line_prints_a_namespace_script_and_maps_its_lines() -> None:
    from qless_py import lua

    out = subprocess.run([sys.executable, "-m", "qless_py.lua", "--namespace", "billing"],
                         capture_output=True, check=True)
    assert out.stdout == lua.namespace_script("billing")[0]
    sha = lua.namespace_script("billing")[1]
    reply = f"ERR user_script:12: x script: {sha}, on @user_script:12."
    shipped = subprocess.run([sys.executable, "-m", "qless_py.lua", "--where", reply],
                             capture_output=True, text=True, check=False)
    assert shipped.returncode == 1 and "names script" in shipped.stderr
    script = lua.namespace_script("billing")[0]
    line = next(n for n in range(1, script.count(b"\n")) if lua.source_line(n, script))
    reply = f"ERR user_script:{line}: x script: {sha}, on @user_script:{line}."
    own = subprocess.run([sys.executable, "-m", "qless_py.lua", "--namespace", "billing",
                          "--where", reply], capture_output=True, text=True, check=True)
    assert own.stdout == f"{lua.source_line(line, script)}\n"
    bad = subprocess.run([sys.executable, "-m", "qless_py.lua", "--namespace", "a{b"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("qless_py.lua: invalid namespace")
    assert bad.stdout == ""
