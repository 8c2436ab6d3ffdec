"""complete, fail, retry (3.6-3.8), failures and retries accounting (2.5, 4.3)."""

from __future__ import annotations

import pytest

from tests.core.support import DAY, T0, Arg, Core, running

DAY0 = int(T0 // DAY * DAY)


def test_complete_final(core: Core) -> None:
    running(core)
    assert core("complete", T0 + 5, "a", "w", "q", '{"out":1}') == b"complete"
    job = core.job("a")
    assert job["state"] == "complete" and job["queue"] == "" and job["worker"] == ""
    assert job["data"] == '{"out":1}' and job["expires"] == 0 and job["failure"] == {}
    assert job["history"][-1] == {"when": int(T0) + 5, "what": "done"}
    assert core.zset("ql:completed") == [("a", T0 + 5)]
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:w:w:jobs") == []
    assert float(core.hget("ql:j:a", "time") or 0) == T0 + 5


def test_complete_next_waiting(core: Core) -> None:
    running(core)
    assert core("complete", T0 + 5, "a", "w", "q", "{}", "next", "q2") == b"waiting"
    job = core.job("a")
    assert job["state"] == "waiting" and job["queue"] == "q2" and job["worker"] == ""
    assert [h["what"] for h in job["history"]] == ["put", "popped", "done", "put"]
    assert job["history"][-1]["q"] == "q2"
    assert [j for j, _ in core.zset("ql:q:q2-work")] == ["a"]
    assert "q2" in dict(core.zset("ql:queues"))
    assert core.zset("ql:completed") == []


def test_complete_next_with_delay_is_scheduled_but_says_waiting(core: Core) -> None:
    running(core)
    assert core("complete", T0 + 5, "a", "w", "q", "{}", "next", "q2", "delay", 10) == b"scheduled"
    assert core.zset("ql:q:q2-scheduled") == [("a", T0 + 15)]
    assert core.hget("ql:j:a", "state") == "waiting"  # quirk 4


def test_complete_next_with_depends(core: Core) -> None:
    core.put("b", T0, "other")
    running(core)
    reply = core(
        "complete", T0 + 5, "a", "w", "q", "{}", "next", "q2", "depends", '["b"]', "delay", 7
    )
    assert reply == b"depends"
    assert core.job("a")["state"] == "depends"
    assert core.zset("ql:q:q2-depends") == [("a", T0 + 5)]
    assert float(core.hget("ql:j:a", "scheduled") or 0) == T0 + 12


def test_complete_next_with_depends_on_done_jobs_ignores_delay(core: Core) -> None:
    running(core)
    reply = core(
        "complete", T0 + 5, "a", "w", "q", "{}", "next", "q2", "depends", '["zz"]', "delay", 7
    )
    assert reply == b"waiting"
    assert [j for j, _ in core.zset("ql:q:q2-work")] == ["a"]


def test_complete_dangling_option_ignored(core: Core) -> None:
    running(core)
    assert core("complete", T0 + 5, "a", "w", "q", "{}", "next") == b"complete"


def test_complete_releases_dependents(core: Core) -> None:
    running(core)
    core.put("d", T0, "q2", "depends", '["a"]')
    core("complete", T0 + 5, "a", "w", "q", "{}")
    assert core.job("d")["state"] == "waiting"
    assert [j for j, _ in core.zset("ql:q:q2-work")] == ["d"]
    assert core.zset("ql:q:q2-depends") == []
    assert core.conn.exists("ql:j:a-dependents") == 0
    assert core.conn.exists("ql:j:d-dependencies") == 0


def test_advance_does_not_release_dependents(core: Core) -> None:
    running(core)
    core.put("d", T0, "q2", "depends", '["a"]')
    core("complete", T0 + 5, "a", "w", "q", "{}", "next", "q3")
    assert core.job("d")["state"] == "depends"


def test_complete_records_run_stat(core: Core) -> None:
    running(core, now=T0 + 100)
    core("complete", T0 + 112.5, "a", "w", "q", "{}")
    assert float(core.hget(f"ql:s:run:{DAY0}:q", "total") or 0) == 1
    assert float(core.hget(f"ql:s:run:{DAY0}:q", "mean") or 0) == 12.5
    assert core.hget(f"ql:s:run:{DAY0}:q", "s12") == "1"


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        ((), "Job(): no jid provided"),
        (("a",), 'Complete(): Arg "worker" missing'),
        (("a", "w"), 'Complete(): Arg "queue" missing'),
        (("a", "w", "q"), ("decode", 'Complete(): Arg "data" missing or not JSON')),
        (("a", "w", "q", "false"), 'Complete(): Arg "data" missing or not JSON: false'),
        (("a", "w", "q", "{}", "next", "n", "delay", "x"), "assertion failed!"),
        (
            ("a", "w", "q", "{}", "next", "n", "depends", "false"),
            'Complete(): Arg "depends" not JSON: false',
        ),
        (("a", "w", "q", "{}", "delay", 0), 'Complete(): "delay" cannot be used without a "next".'),
        (
            ("a", "w", "q", "{}", "depends", "[]"),
            'Complete(): "depends" cannot be used without a "next".',
        ),
        (("zz", "w", "q", "{}"), "Complete(): Job zz does not exist"),
        (("a", "w2", "q", "{}"), "Complete(): Job a has been handed out to another worker: w"),
        (("a", "w", "q9", "{}"), "Complete(): Job a running in another queue: q"),
    ],
)
def test_complete_errors(core: Core, args: tuple[Arg, ...], phrase: str) -> None:
    running(core)
    core.rejects(phrase, "complete", T0 + 1, *args)


def test_complete_not_running(core: Core) -> None:
    core.put("a")
    core.rejects(
        "Complete(): Job a is not currently running: waiting", "complete", T0, "a", "w", "q", "{}"
    )


def test_fail(core: Core) -> None:
    running(core, "a", "w", T0, "tags", '["t"]')
    assert core("fail", T0 + 3.7, "a", "w", "grp", "bad thing", '{"k": [], "u": "a/b"}') == b"a"
    job = core.job("a")
    assert job["state"] == "failed" and job["worker"] == "" and job["queue"] == "q"
    assert job["failure"] == {
        "group": "grp",
        "message": "bad thing",
        "when": int(T0) + 3,
        "worker": "w",
    }
    assert job["history"][-1] == {
        "when": int(T0) + 3,
        "what": "failed",
        "worker": "w",
        "group": "grp",
    }
    assert core.hget("ql:j:a", "expires") == ""
    # data was re-encoded by cjson
    assert job["data"] in ('{"k":{},"u":"a\\/b"}', '{"u":"a\\/b","k":{}}')
    assert core.members("ql:failures") == {"grp"}
    assert core.conn.lrange("ql:f:grp", 0, -1) == [b"a"]
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:w:w:jobs") == []
    stats = core.conn.hgetall(f"ql:s:stats:{DAY0}:q")
    assert stats[b"failures"] == b"1" and stats[b"failed"] == b"1"
    assert job["expires"] == 0


def test_fail_false_data_ignored(core: Core) -> None:
    running(core)
    core("fail", T0, "a", "w", "g", "m", "false")
    assert core.job("a")["data"] == "{}"


def test_fail_newest_first(core: Core) -> None:
    for jid in ("a", "b"):
        running(core, jid)
        core("fail", T0, jid, "w", "g", "m")
    assert core.conn.lrange("ql:f:g", 0, -1) == [b"b", b"a"]


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        ((), "Job(): no jid provided"),
        (("a",), 'Fail(): Arg "worker" missing'),
        (("a", "w"), 'Fail(): Arg "group" missing'),
        (("a", "w", "g"), 'Fail(): Arg "message" missing'),
        (("a", "w", "g", "m", "{bad"), "Expected"),
        (("zz", "w", "g", "m"), "Fail(): Job zzdoes not exist"),
        (("a", "w2", "g", "m"), "Fail(): Job a running with another worker: w"),
    ],
)
def test_fail_errors(core: Core, args: tuple[Arg, ...], phrase: str) -> None:
    running(core)
    core.rejects(phrase, "fail", T0 + 1, *args)


def test_fail_not_running(core: Core) -> None:
    core.put("a")
    core.rejects("Fail(): Job anot currently running: waiting", "fail", T0, "a", "w", "g", "m")


def test_retry_gives_back(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 2)
    assert core("retry", T0 + 5, "a", "q", "w") == 1
    job = core.job("a")
    assert job["state"] == "waiting" and job["remaining"] == 1
    assert job["worker"] == "w"  # quirk 10
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:w:w:jobs") == []
    [(jid, score)] = core.zset("ql:q:q-work")
    assert jid == "a" and score == pytest.approx(-(T0 + 5) / 1e10, abs=1e-9)


def test_retry_with_delay(core: Core) -> None:
    running(core)
    assert core("retry", T0 + 5, "a", "q", "w", 30) == 4
    assert core.zset("ql:q:q-scheduled") == [("a", T0 + 35)]
    assert core.job("a")["state"] == "scheduled"


def test_retry_with_group_and_message_stores_failure(core: Core) -> None:
    running(core)
    core("retry", T0 + 5.5, "a", "q", "w", 0, "grp", "msg")
    assert core.job("a")["failure"] == {
        "group": "grp",
        "message": "msg",
        "when": int(T0) + 5,
        "worker": "w",
    }
    assert core.job("a")["state"] == "waiting"


def test_retry_exhaustion_without_message(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 0)
    assert core("retry", T0 + 5.25, "a", "q", "w") == -1
    job = core.job("a")
    assert job["state"] == "failed" and job["worker"] == ""
    assert job["failure"] == {
        "group": "failed-retries-q",
        "message": 'Job exhausted retries in queue "q"',
        "when": T0 + 5.25,
        "worker": "",
    }
    assert job["history"][-1] == {
        "when": int(T0) + 5,
        "what": "failed",
        "group": "failed-retries-q",
    }
    assert core.conn.lrange("ql:f:failed-retries-q", 0, -1) == [b"a"]
    assert core.hget(f"ql:s:stats:{DAY0}:q", "failures") == "1"
    assert core.hget(f"ql:s:stats:{DAY0}:q", "failed") == "1"
    assert core.hget("ql:j:a", "expires") == ""


def test_retry_exhaustion_with_group_and_message(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 0)
    core("retry", T0 + 5.25, "a", "q", "w", 0, "mygroup", "why")
    job = core.job("a")
    assert job["failure"] == {
        "group": "mygroup",
        "message": "why",
        "when": int(T0) + 5,
        "worker": "w",
    }
    assert core.members("ql:failures") == {"mygroup"}


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        ((), "Job(): no jid provided"),
        (("a",), 'Retry(): Arg "queue" missing'),
        (("a", "q"), 'Retry(): Arg "worker" missing'),
        (("a", "q", "w", "later"), 'Retry(): Arg "delay" not a number: later'),
        (("zz", "q", "w"), "Retry(): Job zz does not exist"),
        (("a", "q", "w2"), "Retry(): Job a has been given to another worker: w"),
    ],
)
def test_retry_errors(core: Core, args: tuple[Arg, ...], phrase: str) -> None:
    running(core)
    core.rejects(phrase, "retry", T0 + 1, *args)


def test_retry_not_running(core: Core) -> None:
    core.put("a")
    core.rejects("Retry(): Job a is not currently running: waiting", "retry", T0, "a", "q", "w")


def _retried_into_q2(core: Core) -> None:
    """Job `a` of queue `q` retried into `q2` and popped there by `w`: it keeps its `queue`
    field (3.8 quirk), so a later retry cleans the locks set of `q`, not the lock in q2."""
    running(core)
    assert core("retry", T0 + 1, "a", "q2", "w") == 4
    assert core.pop("q2", "w", 1, now=T0 + 2)[0]["jid"] == "a"


def _reclaimed_while_listed(core: Core, delay: int = 0) -> float:
    """A job handed out again while still listed in its own queue (protocol-legal calls).

    After a retry back into `q`, the lock left in q2 later expires and pop on q2 reclaims
    the job for w2, while the job also waits (or is scheduled) in `q`. Returns the time of
    the reclaiming pop.
    """
    _retried_into_q2(core)
    assert core("retry", T0 + 3, "a", "q", "w", delay) == 3
    assert core.pop("q2", "w2", 1, now=T0 + 100) == []  # courtesy step: lock + grace
    assert core.pop("q2", "w2", 1, now=T0 + 200)[0]["jid"] == "a"
    listed = "ql:q:q-scheduled" if delay else "ql:q:q-work"
    assert [j for j, _ in core.zset(listed)] == ["a"]
    return T0 + 200


@pytest.mark.parametrize("delay", [0, 50])
@pytest.mark.parametrize(("finish", "reply", "state"), [
    (("complete", "a", "w2", "q", "{}"), b"complete", "complete"),
    (("fail", "a", "w2", "g", "boom"), b"a", "failed"),
])
def test_complete_and_fail_remove_the_job_from_its_queues_work_and_scheduled_sets(
        core: Core, delay: int, finish: tuple[str, ...], reply: bytes, state: str) -> None:
    # Protocol 3.6 effect 3 and 3.7 effect 6: work, locks and scheduled sets, not only the
    # locks. Without it the finished job would be popped (and run) a second time.
    now = _reclaimed_while_listed(core, delay)
    assert core(finish[0], now + 1, *finish[1:]) == reply
    assert core.zset("ql:q:q-work") == [] and core.zset("ql:q:q-scheduled") == []
    assert core.pop("q", "w3", 5, now=now + 1000) == []
    assert core.job("a")["state"] == state


def test_pop_removes_a_reclaimed_job_from_the_work_set(core: Core) -> None:
    # Protocol 3.3, step 10: every handed-out jid leaves the work set, reclaimed ones too.
    _retried_into_q2(core)
    # Back into q2's work set while its q2 lock stays (the retry cleaned q's locks).
    assert core("retry", T0 + 3, "a", "q2", "w") == 3
    assert [j for j, _ in core.zset("ql:q:q2-locks")] == ["a"]
    assert [j for j, _ in core.zset("ql:q:q2-work")] == ["a"]
    # No grace period: the expired lock is reclaimed in one pass and fills the pop.
    core("config.set", T0, "grace-period", 0)
    assert [j["jid"] for j in core.pop("q2", "w2", 1, now=T0 + 100)] == ["a"]
    assert core.zset("ql:q:q2-work") == []
    assert core.pop("q2", "w3", 5, now=T0 + 101) == []
