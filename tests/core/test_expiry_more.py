"""Completed-job expiry (4.7, bounded batches), recurring edge cases and ordering details."""

from __future__ import annotations

import pytest

from tests.core.support import T0, Core


def complete_many(core: Core, n: int, now: float = T0, prefix: str = "c", tags: str = "[]") -> None:
    pipe = core.conn.pipeline(transaction=False)
    for i in range(n):
        pipe.evalsha(
            core.sha, 0, "put", now + i, "", "q", f"{prefix}{i}", "K", "{}", 0, "tags", tags
        )
        pipe.evalsha(core.sha, 0, "pop", now + i, "q", "w", 1)
        pipe.evalsha(core.sha, 0, "complete", now + i, f"{prefix}{i}", "w", "q", "{}")
    pipe.execute()


def test_jobs_history_count_keeps_newest(core: Core) -> None:
    core("config.set", T0, "jobs-history-count", 2)
    complete_many(core, 4, tags='["t"]')
    assert [j for j, _ in core.zset("ql:completed")] == ["c2", "c3"]
    for jid in ("c0", "c1"):
        assert core.conn.exists(f"ql:j:{jid}", f"ql:j:{jid}-history") == 0
    assert [j for j, _ in core.zset("ql:t:t")] == ["c2", "c3"]
    assert core.zset("ql:tags") == [("t", 2.0)]


def test_jobs_history_age(core: Core) -> None:
    core("config.set", T0, "jobs-history", 100)
    complete_many(core, 2, now=T0)
    complete_many(core, 1, now=T0 + 150, prefix="late")
    assert [j for j, _ in core.zset("ql:completed")] == ["late0"]
    assert core("get", T0, "c0") is None


def test_history_count_zero_deletes_at_once_but_releases(core: Core) -> None:
    core("config.set", T0, "jobs-history-count", 0)
    core.put("a")
    core.put("d", T0, "q2", "depends", '["a"]')
    core.pop(now=T0)
    assert core("complete", T0, "a", "w", "q", "{}") == b"complete"
    assert core("get", T0, "a") is None
    assert core.job("d")["state"] == "waiting"


def test_expired_tracked_job_listed_as_expired(core: Core) -> None:
    core("config.set", T0, "jobs-history-count", 0)
    core.put("a")
    core("track", T0, "track", "a")
    core.pop(now=T0)
    core("complete", T0, "a", "w", "q", "{}")
    assert core.json("track", T0) == {"jobs": {}, "expired": ["a"]}


def test_expiry_is_bounded_but_converges(core: Core) -> None:
    complete_many(core, 300)
    core("config.set", T0, "jobs-history-count", 5)
    sizes = []
    for i in range(6):
        complete_many(core, 1, now=T0 + 1000 + i, prefix=f"x{i}-")
        sizes.append(core.conn.zcard("ql:completed"))
    assert sizes[0] < 301  # each call removes something
    assert sizes[-1] == 5  # and the backlog drains within a few calls
    completed = {j for j, _ in core.zset("ql:completed")}
    # no orphans: every job hash left is either completed-and-kept or gone entirely
    for i in range(300):
        jid = f"c{i}"
        assert (jid in completed) == bool(core.conn.exists(f"ql:j:{jid}"))


def test_recur_negative_offset_backfills(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 10, -25)
    got = core.peek("q", 10, now=T0)
    assert sorted(j["history"][0]["when"] for j in got) == [int(T0) - 25, int(T0) - 15, int(T0) - 5]


def test_recur_spawn_limit_shared_across_templates(core: Core) -> None:
    core("recur", T0, "q", "r1", "K", "{}", "interval", 10, 0)
    core("recur", T0, "q", "r2", "K", "{}", "interval", 10, 0)
    got = core.pop("q", "w", 3, now=T0 + 25)
    assert len(got) == 3
    counts = core.json("recur.get", T0, "r1")["count"] + core.json("recur.get", T0, "r2")["count"]
    assert counts == 3


def test_unrecur_then_recur_restarts_count(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 10, 0)
    core.peek("q", 1, now=T0)
    core("unrecur", T0, "r")
    core("recur", T0 + 1, "q", "r", "K", "{}", "interval", 10, 0)
    assert core.json("recur.get", T0, "r")["count"] == 0
    core.peek("q", 5, now=T0 + 1)
    assert core.json("recur.get", T0, "r")["count"] == 1
    assert len(core.history("r-1")) == 2  # the collision appends to the old child's history


def test_priority_on_stalled_job_drops_infinity(core: Core) -> None:
    core.put("a")
    core.pop(now=T0)
    core("timeout", T0, "a")
    assert core.zset("ql:q:q-work") == [("a", float("inf"))]
    core("priority", T0, "a", 2)
    assert core.zset("ql:q:q-work") == [("a", 2.0)]


def test_priority_rescored_job_beats_time_scored_equal_priority(core: Core) -> None:
    core.put("early", T0, "q", "priority", 1)
    core.put("late", T0 + 5, "q")
    core("priority", T0 + 6, "late", 1)
    assert [j["jid"] for j in core.pop("q", "w", 2, now=T0 + 7)] == ["late", "early"]


@pytest.mark.parametrize("n", [1, 2])
def test_reclaim_order_earliest_expiry_first(core: Core, n: int) -> None:
    core("config.set", T0, "grace-period", 0)
    core.put("x", T0)
    core.put("y", T0 + 1)
    core.pop("q", "w1", 1, now=T0 + 2)  # x, lock T0+62
    core.pop("q", "w1", 1, now=T0 + 1)  # y, lock T0+61
    got = core.pop("q", "w2", n, now=T0 + 100)
    assert [j["jid"] for j in got] == ["y", "x"][:n]


def test_delayed_job_wait_includes_delay(core: Core) -> None:
    core.put("a", T0, "q", delay=10)
    core.pop("q", "w", 1, now=T0 + 15)
    assert core.json("stats", T0, "q", T0)["wait"]["mean"] == 15
