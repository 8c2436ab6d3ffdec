"""Section 1: calling convention, dispatch order and reply types."""

from __future__ import annotations

import pytest
import redis

from tests.core.support import T0, Arg, Core

COMMANDS = [
    "get",
    "multiget",
    "config.get",
    "config.set",
    "config.unset",
    "queues",
    "complete",
    "failed",
    "fail",
    "jobs",
    "retry",
    "depends",
    "heartbeat",
    "workers",
    "track",
    "tag",
    "stats",
    "priority",
    "log",
    "peek",
    "pop",
    "pause",
    "unpause",
    "cancel",
    "timeout",
    "put",
    "requeue",
    "unfail",
    "recur",
    "unrecur",
    "recur.get",
    "recur.update",
    "recur.tag",
    "recur.untag",
    "length",
    "worker.deregister",
    "queue.forget",
]


def raw_error(core: Core, numkeys: int, *argv: Arg) -> str:
    with pytest.raises(redis.ResponseError) as info:
        core.raw(numkeys, *argv)
    return str(info.value)


def test_keys_are_refused(core: Core) -> None:
    assert "No Keys should be provided" in raw_error(core, 1, "ql:x", "get", T0, "a")


def test_empty_argv_is_refused(core: Core) -> None:
    assert "Must provide a command" in raw_error(core, 0)


def test_unknown_command_names_itself(core: Core) -> None:
    assert "Unknown command frobnicate" in raw_error(core, 0, "frobnicate", T0)


def test_empty_command_name(core: Core) -> None:
    assert "Unknown command " in raw_error(core, 0, "", T0)


def test_command_names_are_case_sensitive(core: Core) -> None:
    assert "Unknown command GET" in raw_error(core, 0, "GET", T0, "a")


def test_unknown_command_reported_before_bad_now(core: Core) -> None:
    assert "Unknown command nope" in raw_error(core, 0, "nope", "soon")


def test_absent_now_is_refused(core: Core) -> None:
    text = raw_error(core, 0, "get")
    # the reference reports Lua's tonumber message; a validating core may use the catalogue text
    assert "bad argument #1 to 'tonumber'" in text or 'Arg "now" missing or not a number' in text


@pytest.mark.parametrize("now", ["soon", "", "nan", "inf", "-inf", "1e999", "12abc"])
def test_bad_now_is_refused_with_nil(core: Core, now: str) -> None:
    assert 'Arg "now" missing or not a number: nil' in raw_error(core, 0, "get", now, "a")


@pytest.mark.parametrize("now", ["0x10", " 5 ", "1e3", "-3", "1893456000.123456"])
def test_lua_numbers_are_accepted_for_now(core: Core, now: str) -> None:
    assert core("get", now, "missing") is None


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_of_the_table_exists(core: Core, command: str) -> None:
    try:
        core(command, T0)
    except redis.ResponseError as exc:
        assert "Unknown command" not in str(exc)


def test_bad_now_leaves_keyspace_alone(populated: Core) -> None:
    before = populated.digest()
    for command in ("put", "pop", "complete", "config.set", "cancel"):
        with pytest.raises(redis.ResponseError):
            populated(command, "x", "w", "q", "j", "K", "{}", 0)
    assert populated.digest() == before


def test_eval_with_source_is_equivalent(core: Core) -> None:
    assert core.conn.eval(core.source.decode(), 0, "put", T0, "", "q", "a", "K", "{}", 0) == b"a"
    assert core("get", T0, "a") is not None


def test_script_has_no_shebang(core: Core) -> None:
    # a shebang would make Redis 7 enforce declared keys and flags (protocol 8.2)
    assert not core.source.startswith(b"#!")


@pytest.mark.parametrize("data", ["null", "[]", "5", '"text"', '{"a":{"b":[1,2,{}]}}'])
def test_any_json_document_is_accepted_as_data(core: Core, data: str) -> None:
    assert core("put", T0, "", "q", "a", "K", data, 0) == b"a"
    assert core.job("a")["data"] == data
