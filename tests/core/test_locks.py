"""heartbeat, timeout and lock expiry with the grace period (3.5, 3.9, 4.2)."""

from __future__ import annotations

import pytest

from tests.core.support import DAY, T0, Arg, Core, EventRecorder, running

DAY0 = int(T0 // DAY * DAY)


def test_heartbeat_extends_lock_and_replies_integer(core: Core) -> None:
    running(core)
    reply = core("heartbeat", T0 + 10.75, "a", "w")
    assert reply == int(T0) + 70 and isinstance(reply, int)
    assert core.zset("ql:q:q-locks") == [("a", T0 + 70.75)]
    assert core.zset("ql:w:w:jobs") == [("a", T0 + 70.75)]
    assert core.zset("ql:workers") == [("w", T0 + 10.75)]
    assert core.job("a")["expires"] == T0 + 70.75


def test_heartbeat_with_data_reencodes(core: Core) -> None:
    running(core)
    core("heartbeat", T0 + 1, "a", "w", '{ "p" : "x/y" }')
    assert core.job("a")["data"] == '{"p":"x\\/y"}'
    core("heartbeat", T0 + 2, "a", "w", "false")
    assert core.job("a")["data"] == '{"p":"x\\/y"}'


def test_heartbeat_uses_queue_heartbeat(core: Core) -> None:
    core("config.set", T0, "q-heartbeat", 7)
    running(core)
    assert core("heartbeat", T0 + 1, "a", "w") == int(T0) + 8


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        ((), "Job(): no jid provided"),
        (("a",), 'Heatbeat(): Arg "worker" missing'),
        (("a", "w", "{nope"), "Expected"),
        (("zz", "w"), "Heartbeat(): Job zz does not exist"),
        (("a", "other"), "Heartbeat(): Job a given out to another worker: w"),
    ],
)
def test_heartbeat_errors(core: Core, args: tuple[Arg, ...], phrase: str) -> None:
    running(core)
    core.rejects(phrase, "heartbeat", T0 + 1, *args)


def test_heartbeat_not_running(core: Core) -> None:
    core.put("a")
    core.rejects("Heartbeat(): Job a not currently running: waiting", "heartbeat", T0, "a", "w")


def test_timeout_stalls_job_to_front(core: Core) -> None:
    running(core, "a", "w", T0 + 1)
    core.put("other", T0, "q", "priority", 100)
    assert core("timeout", T0 + 2, "a") is None
    job = core.job("a")
    assert job["state"] == "stalled" and job["expires"] == 0 and job["worker"] == "w"
    assert job["remaining"] == 5
    assert job["history"][-1] == {"when": int(T0) + 2, "what": "timed-out"}
    assert core.zset("ql:q:q-work")[-1] == ("a", float("inf"))
    assert core.zset("ql:q:q-locks") == []
    assert [j for j, _ in core.zset("ql:w:w:jobs")] == ["a"]  # quirk 14
    assert [j["jid"] for j in core.pop("q", "w2", 2, now=T0 + 3)] == ["a", "other"]


def test_timeout_errors(populated: Core) -> None:
    populated.rejects("Timeout(): Job zz does not exist", "timeout", T0, "zz")
    populated.rejects("Timeout(): Job wait1 not running", "timeout", T0, "wait1")


def test_timeout_validates_every_jid_first(populated: Core) -> None:
    # deviation: the reference times out run1 before failing on wait1
    populated.rejects("Timeout(): Job wait1 not running", "timeout", T0 + 3, "run1", "wait1")
    assert populated.job("run1")["state"] == "running"


def test_grace_period_courtesy_then_reclaim(core: Core) -> None:
    running(core, "a", "w1", T0)
    core.put("b", T0 + 1)
    # lock expires at T0+60: the first pop after that sends the courtesy notice
    got = core.pop("q", "w2", 1, now=T0 + 61)
    assert [j["jid"] for j in got] == ["b"]
    job = core.job("a")
    assert job["state"] == "running" and job["worker"] == "w1" and job["remaining"] == 5
    assert job["history"][-1] == {"when": int(T0) + 61, "what": "timed-out"}
    assert core.hget("ql:j:a", "grace") == "1"
    assert core.zset("ql:q:q-locks")[0] == ("a", T0 + 71)
    assert core.zset("ql:w:w1:jobs") == []
    assert core.hget(f"ql:s:stats:{DAY0}:q", "retries") == "1"
    # still inside the grace period: nothing
    assert core("pop", T0 + 70, "q", "w2", 1) == b"{}"
    # the original worker may still heartbeat during grace... but here it does not
    got = core.pop("q", "w3", 1, now=T0 + 72)
    assert [j["jid"] for j in got] == ["a"]
    job = core.job("a")
    assert job["worker"] == "w3" and job["remaining"] == 4 and job["state"] == "running"
    assert core.conn.hexists("ql:j:a", "grace") is False
    assert core.zset("ql:w:w3:jobs") == [("a", T0 + 132)]
    # the old worker lost it
    core.rejects(
        "Complete(): Job a has been handed out to another worker: w3",
        "complete",
        T0 + 73,
        "a",
        "w1",
        "q",
        "{}",
    )


def test_grace_zero_reclaims_in_one_pass(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    running(core, "a", "w1", T0)
    got = core.pop("q", "w2", 1, now=T0 + 61)
    assert [j["jid"] for j in got] == ["a"]
    hist = [h["what"] for h in core.job("a")["history"]]
    assert hist == ["put", "popped", "timed-out", "popped"]
    assert core.job("a")["remaining"] == 4


def test_lock_expiry_exhausts_retries(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    running(core, "a", "w1", T0, "retries", 0)
    assert core("pop", T0 + 61, "q", "w2", 1) == b"{}"
    job = core.job("a")
    assert job["state"] == "failed" and job["worker"] == ""
    assert job["failure"] == {
        "group": "failed-retries-q",
        "message": 'Job exhausted retries in queue "q"',
        "when": T0 + 61,
        "worker": "",
    }
    assert core.hget("ql:j:a", "expires") == ""
    assert core.conn.lrange("ql:f:failed-retries-q", 0, -1) == [b"a"]
    assert core.zset("ql:q:q-locks") == []
    stats = core.conn.hgetall(f"ql:s:stats:{DAY0}:q")
    assert stats[b"failures"] == b"1" and stats[b"failed"] == b"1" and stats[b"retries"] == b"1"


def test_heartbeat_in_grace_keeps_flag_and_next_expiry_is_silent(core: Core) -> None:
    running(core, "a", "w1", T0)
    core.pop("q", "w2", 1, now=T0 + 61)  # courtesy
    assert core("heartbeat", T0 + 62, "a", "w1") == int(T0) + 122
    assert core.hget("ql:j:a", "grace") == "1"
    got = core.pop("q", "w2", 1, now=T0 + 123)
    assert [j["jid"] for j in got] == ["a"]
    assert [h["what"] for h in core.job("a")["history"]].count("timed-out") == 1


def test_reclaimed_jobs_come_before_work(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    running(core, "a", "w1", T0)
    core.put("b", T0 + 1, "q", "priority", 50)
    got = core.pop("q", "w2", 2, now=T0 + 61)
    assert [j["jid"] for j in got] == ["a", "b"]


def test_dangling_lock_of_a_cancelled_job_is_dropped(core: Core, events: EventRecorder) -> None:
    # retry into another queue keeps the job's `queue` field (a protocol quirk), so cancel
    # cleans the old queue's sets and leaves the new queue's lock behind
    running(core, "a", "w1", T0)
    core("retry", T0 + 1, "a", "q2", "w1", 0)
    assert [j["jid"] for j in core.pop("q2", "w2", 1, now=T0 + 2)] == ["a"]
    assert core("cancel", T0 + 3, "a") == [b"a"]
    assert [m for m, _ in core.zset("ql:q:q2-locks")] == ["a"]
    with events.record() as got:
        assert core("pop", T0 + 100, "q2", "w3", 1) == b"{}"
    assert got == []
    assert core.zset("ql:q:q2-locks") == []
    assert core.conn.keys("ql:j:a*") == [] and core.conn.keys("ql:f:*") == []


@pytest.mark.parametrize("count", [1, 3])
def test_pop_stores_the_lock_expiry_as_redis_formats_a_number(core: Core, count: int) -> None:
    # Pop formats the expiry once (%.17g, as Redis formats a Lua number argument) and
    # writes that text to the job hash and both lock sets: a timestamp with 17 significant
    # digits must round-trip exactly, in the single-job path and the batch path alike.
    now = 1795324863.4103928
    for jid in ("a", "b", "c"):
        core.put(jid, now=now - 1)
    popped = core.pop(count=count, now=now)
    expires = now + 60
    assert len(popped) == count
    for job in popped:
        assert core.hget(f"ql:j:{job['jid']}", "expires") == f"{expires:.17g}"
        assert job["expires"] == pytest.approx(expires)
    want = sorted((job["jid"], expires) for job in popped)
    assert sorted(core.zset("ql:q:q-locks")) == want
    assert sorted(core.zset("ql:w:w:jobs")) == want
