"""Reading data other cores may have written (2.3, 2.9), and the project's sane handling of
corrupt data and odd-but-valid input where the reference raised Lua errors."""

from __future__ import annotations

import json

import pytest
import redis

from tests.core.support import DAY, T0, Core

DAY0 = int(T0 // DAY * DAY)


def test_tags_stored_as_empty_array_are_read(core: Core) -> None:
    core.put("a")
    core.conn.hset("ql:j:a", "tags", "[]")
    assert core.job("a")["tags"] == {}
    assert json.loads(core("tag", T0, "add", "a", "x")) == ["x"]


def test_recurring_template_without_backlog_field(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    core.conn.hdel("ql:r:r", "backlog")
    assert core.json("recur.get", T0, "r")["backlog"] == 0
    assert [j["jid"] for j in core.peek("q", 5, now=T0 + 130)] == ["r-1", "r-2", "r-3"]


def test_long_float_fields_are_parsed_as_numbers(core: Core) -> None:
    core.put("a")
    core.conn.hset("ql:j:a", mapping={"priority": "3.7000000000000002", "retries": "5.0"})
    job = core.job("a")
    assert job["priority"] == 3.7 and job["retries"] == 5
    assert b'"priority":3.7,' in core("get", T0, "a") or b'"priority":3.7}' in core("get", T0, "a")


def test_hash_without_jid_field_does_not_exist(core: Core) -> None:
    core.conn.hset("ql:j:ghost", "state", "waiting")
    assert core("get", T0, "ghost") is None
    assert core("multiget", T0, "ghost") == b"{}"


def test_legacy_history_with_failure_stage(core: Core) -> None:
    core.put("a")
    core.conn.delete("ql:j:a-history")
    legacy = [{"q": "q", "put": 10.5, "failed": 20.9}, {"q": "r", "put": 30.1}]
    core.conn.hset("ql:j:a", "history", json.dumps(legacy))
    core("log", 40, "a", "note")
    assert [(e[0], e[1]) for e in core.history("a")] == [
        (10, "put"),
        (20, "failed"),
        (30, "put"),
        (40, "note"),
    ]


def test_recurring_spawn_scored_by_slot_time(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 10, 0, "priority", 2)
    core.peek("q", 2, now=T0 + 10)
    work = dict(core.zset("ql:q:q-work"))
    assert work["r-1"] == 2 - T0 / 1e10
    assert work["r-2"] == 2 - (T0 + 10) / 1e10
    assert float(core.hget("ql:j:r-2", "time") or 0) == T0 + 10


def test_complete_clears_old_failure(core: Core) -> None:
    core.put("a")
    core.pop(now=T0)
    core("fail", T0, "a", "w", "g", "m")
    core.put("a", T0 + 1)
    core.pop(now=T0 + 1)
    core("complete", T0 + 2, "a", "w", "q", "{}", "next", "q2")
    assert core.job("a")["failure"] == {}
    assert core.hget("ql:j:a", "failure") == "{}"


def test_chained_dependencies_release_one_level(core: Core) -> None:
    core.put("a")
    core.put("b", T0, "q", "depends", '["a"]')
    core.put("c", T0, "q", "depends", '["b"]')
    core.pop(now=T0)
    core("complete", T0 + 1, "a", "w", "q", "{}")
    assert core.job("b")["state"] == "waiting" and core.job("c")["state"] == "depends"


def test_pop_skips_work_entries_whose_job_vanished(core: Core) -> None:
    core.put("a", T0)
    core.put("gone", T0 + 1)
    core.conn.delete("ql:j:gone")
    got = core.pop("q", "w", 5, now=T0 + 2)
    assert [j["jid"] for j in got] == ["a"]


def test_unfail_skips_vanished_jobs(core: Core) -> None:
    core.put("a")
    core.put("b", T0 + 1)
    core.pop("q", "w", 2, now=T0 + 1)
    core("fail", T0 + 2, "a", "w", "g", "m")
    core("fail", T0 + 2, "b", "w", "g", "m")
    core.conn.delete("ql:j:a")
    core("unfail", T0 + 3, "q", "g", 5)
    assert core.job("b")["state"] == "waiting"
    assert core.conn.exists("ql:f:g") == 0


def test_cancel_failed_job_with_missing_stats_field(core: Core) -> None:
    core.put("a")
    core.pop(now=T0)
    core("fail", T0, "a", "w", "g", "m")
    core.conn.delete(f"ql:s:stats:{DAY0}:q")
    assert core("cancel", T0 + 1, "a") == [b"a"]
    assert core("get", T0, "a") is None and core.conn.exists("ql:f:g") == 0


@pytest.mark.parametrize("data", ["null", "[1,2]", '"text"', "7"])
def test_log_with_non_object_data_keeps_job_renderable(core: Core, data: str) -> None:
    core.put("a")
    try:
        core("log", T0 + 1, "a", "note", data)
    except redis.ResponseError as exc:  # rejecting is fine too, as long as nothing changed
        assert "Log()" in str(exc)
        assert len(core.history("a")) == 1
        return
    entry = core.job("a")["history"][-1]
    assert entry["when"] == int(T0) + 1 and entry["what"] == "note"


@pytest.mark.parametrize("key", ["heartbeat", "grace-period", "jobs-history-count"])
def test_non_numeric_config_does_not_break_commands(core: Core, key: str) -> None:
    # the reference stored anything and later commands failed; refusing it up front, or
    # falling back to the default when it is read, are both sane
    try:
        core("config.set", T0, key, "abc")
    except redis.ResponseError:
        assert core.conn.exists("ql:config") == 0
    core.put("a")
    assert [j["jid"] for j in core.pop(now=T0)] == ["a"]
    assert core("complete", T0 + 1, "a", "w", "q", "{}") == b"complete"
    assert core.pop(now=T0 + 100) == []


def put_fractional_retries(core: Core) -> bool:
    """Put a job with retries 2.5; False when the core refuses it (a clear error, no writes)."""
    before = core.digest()
    try:
        core.put("a", T0, "q", "retries", 2.5)
    except redis.ResponseError as exc:
        assert 'Put(): Arg "retries"' in str(exc)
        assert core.digest() == before
        return False
    job = core.job("a")
    assert job["retries"] == 2.5 and job["remaining"] == 2  # remaining is floored
    return True


def test_fractional_retries_then_retry(core: Core) -> None:
    if not put_fractional_retries(core):
        return
    core.pop(now=T0)
    assert core("retry", T0 + 1, "a", "q", "w") == 1  # remaining 1.5, floored
    assert core.job("a")["remaining"] == 1


def test_fractional_retries_then_lock_expiry(core: Core) -> None:
    if not put_fractional_retries(core):
        return
    core.put("b", T0 + 1)
    core.pop("q", "w", 1, now=T0)
    core.pop("q", "w2", 1, now=T0 + 61)  # courtesy step for a, b handed out
    got = core.pop("q", "w3", 1, now=T0 + 72)  # a reclaimed for w3
    assert [j["jid"] for j in got] == ["a"]
    assert core.job("a")["remaining"] == 1


def test_fractional_recur_retries_spawn_usable_jobs(core: Core) -> None:
    try:
        core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "retries", 1.5)
    except redis.ResponseError as exc:
        assert 'Recur(): Arg "retries"' in str(exc)
        return
    core.pop("q", "w", 1, now=T0)
    assert core("retry", T0 + 1, "r-1", "q", "w") == 0
