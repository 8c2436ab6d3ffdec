"""cancel, depends, priority and log (3.10-3.13)."""

from __future__ import annotations

import pytest

from tests.core.support import DAY, T0, Core

DAY0 = int(T0 // DAY * DAY)


def test_cancel_replies_all_jids_in_order(core: Core) -> None:
    core.put("a")
    assert core("cancel", T0, "zz", "a") == [b"zz", b"a"]
    assert core("cancel", T0) == []


def test_cancel_removes_everything(core: Core) -> None:
    core.put("dep")
    core.put("a", T0, "q", "tags", '["t"]', "depends", '["dep"]')
    core("track", T0, "track", "a")
    core("cancel", T0 + 1, "a")
    assert core.conn.exists("ql:j:a", "ql:j:a-history", "ql:j:a-dependencies") == 0
    assert core.zset("ql:q:q-depends") == []
    assert core.conn.exists("ql:j:dep-dependents") == 0
    assert core.zset("ql:t:t") == []
    assert core.zset("ql:tags") == [("t", 0.0)]
    assert [j for j, _ in core.zset("ql:tracked")] == ["a"]  # quirk 15


def test_cancel_running_job(core: Core) -> None:
    core.put("a")
    core.pop("q", "w", now=T0)
    core("cancel", T0, "a")
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:w:w:jobs") == []


def test_cancel_failed_job_updates_failure_index_and_stats(core: Core) -> None:
    core.put("a")
    core.pop("q", "w", now=T0)
    core("fail", T0, "a", "w", "g", "m")
    core("cancel", T0 + 1, "a")
    assert core.conn.exists("ql:f:g") == 0 and core.members("ql:failures") == set()
    assert core.hget(f"ql:s:stats:{DAY0}:q", "failed") == "0"
    assert core.hget(f"ql:s:stats:{DAY0}:q", "failures") == "1"


def test_cancel_complete_job_is_skipped(core: Core) -> None:
    core.put("a")
    core.pop("q", "w", now=T0)
    core("complete", T0, "a", "w", "q", "{}")
    assert core("cancel", T0, "a") == [b"a"]
    assert core.job("a")["state"] == "complete"


def test_cancel_refuses_unlisted_dependent(populated: Core) -> None:
    populated.rejects(
        "Cancel(): wait2 is a dependency of dep1 but is not mentioned to be canceled",
        "cancel",
        T0,
        "wait2",
    )


def test_cancel_with_dependent_listed(populated: Core) -> None:
    assert populated("cancel", T0, "wait2", "dep1") == [b"wait2", b"dep1"]
    assert populated("get", T0, "dep1") is None and populated("get", T0, "wait2") is None


def test_depends_on_and_off(core: Core) -> None:
    core.put("b")
    core.put("c")
    core.put("a", T0, "q", "depends", '["b"]')
    assert core("depends", T0, "a", "on", "c", "ghost") == 1
    assert sorted(core.job("a")["dependencies"]) == ["b", "c"]
    assert core.job("c")["dependents"] == ["a"]
    core("depends", T0 + 1, "a", "off", "b")
    assert core.job("a")["state"] == "depends"
    core("depends", T0 + 2, "a", "off", "c")
    job = core.job("a")
    assert job["state"] == "waiting" and job["dependencies"] == {}
    [score] = [s for j, s in core.zset("ql:q:q-work") if j == "a"]
    assert score == pytest.approx(-(T0 + 2) / 1e10, abs=1e-9)
    assert core.zset("ql:q:q-depends") == []


def test_depends_off_all(core: Core) -> None:
    core.put("b")
    core.put("c")
    core.put("a", T0, "q", "depends", '["b","c"]', delay=50)
    core("depends", T0 + 1, "a", "off", "all")
    assert core.job("a")["state"] == "waiting"
    assert core.job("b")["dependents"] == {} and core.job("c")["dependents"] == {}
    assert core.conn.hexists("ql:j:a", "scheduled")  # quirk 22: stale field remains


def test_depends_errors(populated: Core) -> None:
    populated.rejects("Job(): no jid provided", "depends", T0)
    populated.rejects('Depends(): Arg "command" missing', "depends", T0, "dep1")
    populated.rejects(
        "Depends(): Job wait1 not in the depends state: waiting",
        "depends",
        T0,
        "wait1",
        "on",
        "wait2",
    )
    populated.rejects(
        "Depends(): Job zz not in the depends state: false", "depends", T0, "zz", "on", "wait2"
    )
    populated.rejects(
        'Depends(): Argument "command" must be "on" or "off"', "depends", T0, "dep1", "ON", "wait2"
    )


def test_priority_rescores_waiting_job(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0 + 1, "q", "priority", 2)
    assert core("priority", T0, "a", "3.7") == 3
    assert dict(core.zset("ql:q:q-work"))["a"] == pytest.approx(3.7)
    assert core.job("a")["priority"] == 3.7
    assert core("priority", T0, "b", "-2.9") == -2


def test_priority_on_running_job_only_changes_field(core: Core) -> None:
    core.put("a")
    core.pop(now=T0)
    assert core("priority", T0, "a", 9) == 9
    assert core.zset("ql:q:q-work") == [] and core.job("a")["priority"] == 9


def test_priority_errors(populated: Core) -> None:
    populated.rejects(
        'Priority(): Arg "priority" missing or not a number: x', "priority", T0, "wait1", "x"
    )
    populated.rejects('Priority(): Arg "priority" missing or not a number', "priority", T0, "wait1")
    populated.rejects("Priority(): Job zz does not exist", "priority", T0, "zz", 1)


def test_log_appends_history(core: Core) -> None:
    core.put("a")
    assert core("log", T0 + 3, "a", "note", '{"x": 1, "what": "ignored"}') is None
    assert core.job("a")["history"][-1] == {"when": int(T0) + 3, "what": "note", "x": 1}
    core("log", T0 + 4, "a", "plain")
    assert core.job("a")["history"][-1] == {"when": int(T0) + 4, "what": "plain"}


def test_log_errors(populated: Core) -> None:
    populated.rejects("Log(): Argument 'jid' missing", "log", T0)
    populated.rejects("Log(): Argument 'message' missing", "log", T0, "wait1")
    populated.rejects("Log(): Argument 'data' not cjson: false", "log", T0, "wait1", "m", "false")
    populated.rejects("Expected", "log", T0, "wait1", "m", "{bad")
    populated.rejects("Log(): Job zz does not exist", "log", T0, "zz", "m")


def test_depends_state_checked_before_subcommand(populated: Core) -> None:
    populated.rejects(
        "Depends(): Job wait1 not in the depends state: waiting", "depends", T0, "wait1", "sideways"
    )
