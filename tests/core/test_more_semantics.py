"""Finer points of pop/retry/pagination that the per-command files do not reach."""

from __future__ import annotations

from tests.core.support import DAY, T0, Core

DAY0 = int(T0 // DAY * DAY)


def test_paused_pop_does_not_reclaim(core: Core) -> None:
    core.put("a")
    core.pop("q", "w1", 1, now=T0)
    core("pause", T0, "q")
    before = core.digest()
    assert core("pop", T0 + 100, "q", "w2", 1) == b"{}"
    assert core.digest() == before


def test_max_concurrency_full_still_registers_worker(core: Core) -> None:
    core("config.set", T0, "q-max-concurrency", 1)
    core.put("a")
    core.put("b", T0 + 1)
    core.pop("q", "w1", 1, now=T0 + 1)
    assert core("pop", T0 + 2, "q", "w2", 1) == b"{}"
    assert dict(core.zset("ql:workers"))["w2"] == T0 + 2


def test_max_concurrency_caps_count(core: Core) -> None:
    core("config.set", T0, "q-max-concurrency", 3)
    for i in range(5):
        core.put(f"j{i}", T0 + i)
    core.pop("q", "w", 1, now=T0 + 10)
    assert len(core.pop("q", "w", 10, now=T0 + 10)) == 2


def test_retry_group_without_message_stores_no_failure(core: Core) -> None:
    core.put("a")
    core.pop(now=T0)
    core("retry", T0 + 1, "a", "q", "w", 0, "grp")
    assert core.job("a")["failure"] == {}


def test_retry_exhausted_with_group_only(core: Core) -> None:
    core.put("a", T0, "q", "retries", 0)
    core.pop(now=T0)
    core("retry", T0 + 1.5, "a", "q", "w", 0, "grp")
    assert core.job("a")["failure"] == {
        "group": "grp",
        "message": 'Job exhausted retries in queue "q"',
        "when": T0 + 1.5,
        "worker": "",
    }
    assert core.conn.lrange("ql:f:grp", 0, -1) == [b"a"]


def test_retry_exhaustion_group_uses_argument_queue(core: Core) -> None:
    core.put("a", T0, "q", "retries", 0)
    core.pop(now=T0)
    core("retry", T0 + 1, "a", "elsewhere", "w")
    failure = core.job("a")["failure"]
    assert failure["group"] == "failed-retries-elsewhere"
    assert failure["message"] == 'Job exhausted retries in queue "q"'
    assert core.zset("ql:q:q-locks") == []
    assert core.hget(f"ql:s:stats:{DAY0}:elsewhere", "failed") == "1"


def test_pagination_past_the_end(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["t"]')
    core.pop(now=T0)
    core("fail", T0, "a", "w", "g", "m")
    assert core.json("tag", T0, "get", "t", 5, 5) == {"total": 1, "jobs": {}}
    assert core.json("failed", T0, "g", 5, 5) == {"total": 1, "jobs": {}}
    assert core("jobs", T0, "complete", 5, 5) == []
    assert core("jobs", T0, "running", "q", 5, 5) == []


def test_peek_and_pop_count_zero(core: Core) -> None:
    core.put("a")
    assert core("peek", T0, "q", 0) == b"{}"
    assert core("pop", T0, "q", "w", 0) == b"{}"
    assert core.job("a")["state"] == "waiting"


def test_timeout_several_jobs_in_order(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0 + 1)
    core.pop("q", "w", 2, now=T0 + 1)
    assert core("timeout", T0 + 2, "a", "b") is None
    assert core.job("a")["state"] == "stalled" and core.job("b")["state"] == "stalled"
    # both at +inf: equal scores pop in reverse lexicographic order
    assert [j["jid"] for j in core.pop("q", "w", 2, now=T0 + 3)] == ["b", "a"]


def test_heartbeat_registers_worker(core: Core) -> None:
    core.put("a")
    core.pop("q", "w", 1, now=T0)
    core("worker.deregister", T0, "w")
    core("heartbeat", T0 + 5, "a", "w")
    assert core.json("workers", T0 + 6) == [{"name": "w", "jobs": 1, "stalled": 0}]


def test_job_object_tracked_in_pop_reply(core: Core) -> None:
    core.put("a")
    core("track", T0, "track", "a")
    assert core.pop(now=T0)[0]["tracked"] is True


def test_put_into_depends_then_scheduled_after_release_keeps_time(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q", "depends", '["b"]', delay=30)
    core.pop(now=T0)
    core("complete", T0 + 40, "b", "w", "q", "{}")
    # the stored eligibility time is already past: it is promoted by the next pop
    assert core.job("a")["state"] == "scheduled"
    assert [j["jid"] for j in core.pop("q", "w", 1, now=T0 + 41)] == ["a"]


def test_stats_date_uses_day_bin(core: Core) -> None:
    core.put("a", T0 + 100)
    core.pop("q", "w", 1, now=T0 + 103)
    assert core.json("stats", T0, "q", T0 + DAY - 1)["wait"]["count"] == 1
    assert core.json("stats", T0, "q", T0 + DAY)["wait"]["count"] == 0
    assert core.json("stats", T0, "q", T0 - 1)["wait"]["count"] == 0
