"""Protocol sections 4-7 (cross-cutting semantics, statistics, pub/sub, config).

Rules that no other test checked, each asserted as the protocol states it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.core.support import DAY, T0, Core, EventRecorder, as_list, decoded, running

DAY0 = int(T0 // DAY * DAY)


def wait_stats(core: Core, date: float = T0, queue: str = "q") -> Any:
    return core.json("stats", T0, queue, date)["wait"]


def hist_index(v: float) -> int:
    f = math.floor(v)
    if f < 60:
        return f
    if f < 3600:
        return 59 + f // 60
    if f < 86400:
        return 118 + f // 3600
    return 141 + f // 86400


def histogram_of(*values: float) -> list[int]:
    out = [0] * 148
    for v in values:
        out[hist_index(v)] += 1
    return out


# ---------------------------------------------------------------- 4.1 ordering


def test_released_dependent_sorts_by_release_time(core: Core) -> None:
    core.put("x", T0, "q")
    core.put("z", T0, "other")
    core.put("y", T0 + 1, "q", "depends", '["z"]')
    core.pop("other", "w", 1, now=T0 + 2)
    core.put("v", T0 + 3, "q")
    core("complete", T0 + 5, "z", "w", "other", "{}")
    score = dict(core.zset("ql:q:q-work"))["y"]
    assert score == pytest.approx(0 - (T0 + 5) / 1e10, abs=0)
    assert [j["jid"] for j in core.pop("q", "w", 3, now=T0 + 6)] == ["x", "v", "y"]


def test_retried_job_sorts_by_retry_time(core: Core) -> None:
    core.put("a", T0, "q")
    core.put("b", T0 + 1, "q")
    assert core.pop("q", "w", 1, now=T0 + 2)[0]["jid"] == "a"
    assert core("retry", T0 + 3, "a", "q", "w") == 4
    assert [j["jid"] for j in core.pop("q", "w", 2, now=T0 + 4)] == ["b", "a"]


def test_spawned_jobs_sort_by_slot_before_later_puts(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 100, 0)
    core.put("p", T0 + 50, "q")
    # slots T0, T0+100 are due at T0+150; p (t = T0+50) sits between them
    got = [j["jid"] for j in core.pop("q", "w", 3, now=T0 + 150)]
    assert got == ["r-1", "p", "r-2"]


# ---------------------------------------------------------------- 4.2 locks


def test_reclaim_limit_is_the_pop_count(core: Core) -> None:
    running(core, "a", "w1", T0)
    running(core, "b", "w1", T0 + 1)
    core.put("c", T0 + 2, "q")
    got = core.pop("q", "w2", 1, now=T0 + 100)
    # only the earliest expired lock is looked at (courtesy step), so c fills the request
    assert [j["jid"] for j in got] == ["c"]
    assert [h["what"] for h in core.job("a")["history"]] == ["put", "popped", "timed-out"]
    assert [h["what"] for h in core.job("b")["history"]] == ["put", "popped"]
    assert core.hget("ql:j:b", "grace") is None
    assert core.hget(f"ql:s:stats:{DAY0}:q", "retries") == "1"


def test_courtesy_untracked_job_sends_only_lock_lost(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    with events.record() as got:
        assert core("pop", T0 + 61, "q", "w2", 1) == b"{}"
    assert decoded(got) == [
        ("ql:w:w1", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
        ("ql:log", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
    ]


def test_exhaustion_after_grace_events_and_failure(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1", T0, "retries", 0)
    core("track", T0, "track", "a")
    core.pop("q", "w2", 1, now=T0 + 61)  # courtesy step
    with events.record() as got:
        assert core("pop", T0 + 72.5, "q", "w2", 1) == b"{}"
    assert decoded(got) == [
        ("ql:failed", "a"),
        (
            "ql:log",
            {
                "jid": "a",
                "event": "failed",
                "group": "failed-retries-q",
                "worker": "w1",
                "message": 'Job exhausted retries in queue "q"',
            },
        ),
    ]
    job = core.job("a")
    assert job["state"] == "failed" and job["worker"] == "" and job["expires"] == 0
    assert job["failure"] == {
        "group": "failed-retries-q",
        "message": 'Job exhausted retries in queue "q"',
        "when": T0 + 72.5,
        "worker": "",
    }
    assert job["history"][-1] == {
        "when": int(T0) + 72,
        "what": "failed",
        "group": "failed-retries-q",
    }
    assert core.hget("ql:j:a", "grace") is None
    assert core.hget("ql:j:a", "remaining") in ("-1", "-1.0")
    stats = core.json("stats", T0, "q", T0)
    assert (stats["retries"], stats["failures"], stats["failed"]) == (1, 1, 1)
    assert core.members("ql:failures") == {"failed-retries-q"}


def test_heartbeat_in_grace_then_silent_reclaim_publishes_and_counts_nothing(
    core: Core, events: EventRecorder
) -> None:
    running(core, "a", "w1", T0)
    core("track", T0, "track", "a")
    core.pop("q", "w2", 1, now=T0 + 61)  # courtesy
    core("heartbeat", T0 + 62, "a", "w1")
    with events.record() as got:
        got_jobs = core.pop("q", "w3", 1, now=T0 + 123)
    assert [j["jid"] for j in got_jobs] == ["a"]
    assert got == [("ql:popped", "a")]
    assert core.hget(f"ql:s:stats:{DAY0}:q", "retries") == "1"
    assert core.job("a")["remaining"] == 4


def test_put_keeps_grace_flag(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1", T0)
    core.pop("q", "w2", 1, now=T0 + 61)  # courtesy: grace = 1
    core.put("a", T0 + 62, "q")
    assert core.hget("ql:j:a", "grace") == "1"
    assert core.pop("q", "w3", 1, now=T0 + 63)[0]["jid"] == "a"
    with events.record() as got:
        again = core.pop("q", "w4", 1, now=T0 + 124)
    # grace already sent: reclaimed at once, silently
    assert [j["jid"] for j in again] == ["a"]
    assert got == []
    assert core.job("a")["worker"] == "w4"


def test_complete_during_grace_by_original_worker_keeps_grace_field(core: Core) -> None:
    running(core, "a", "w1", T0)
    core.pop("q", "w2", 1, now=T0 + 61)  # courtesy
    assert core("complete", T0 + 65, "a", "w1", "q", "{}") == b"complete"
    assert core.hget("ql:j:a", "grace") == "1"
    assert core.zset("ql:q:q-locks") == []


def test_original_worker_refused_after_repop(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    running(core, "a", "w1", T0)
    assert core.pop("q", "w2", 1, now=T0 + 61)[0]["jid"] == "a"
    core.rejects(
        "Heartbeat(): Job a given out to another worker: w2", "heartbeat", T0 + 62, "a", "w1"
    )
    core.rejects(
        "Fail(): Job a running with another worker: w2", "fail", T0 + 62, "a", "w1", "g", "m"
    )
    core.rejects(
        "Retry(): Job a has been given to another worker: w2", "retry", T0 + 62, "a", "q", "w1"
    )


def test_expired_lock_not_reclaimed_by_peek_or_queues(core: Core) -> None:
    running(core, "a", "w1", T0)
    before = core.digest()
    assert [j["jid"] for j in core.peek("q", 5, now=T0 + 100)] == ["a"]
    counts = core.json("queues", T0 + 100, "q")
    assert (counts["stalled"], counts["running"]) == (1, 0)
    assert core("jobs", T0 + 100, "stalled", "q") == [b"a"]
    assert core.json("workers", T0 + 100) == [{"name": "w1", "jobs": 0, "stalled": 1}]
    assert core.digest() == before


# ---------------------------------------------------------------- 4.3 retries


def test_complete_final_and_next_reset_remaining(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 3)
    core("retry", T0 + 1, "a", "q", "w")
    assert core.pop("q", "w", 1, now=T0 + 2)[0]["remaining"] == 2
    core("complete", T0 + 3, "a", "w", "q", "{}", "next", "q")
    assert core.job("a")["remaining"] == 3
    core.pop("q", "w", 1, now=T0 + 4)
    core("retry", T0 + 5, "a", "q", "w")
    core.pop("q", "w", 1, now=T0 + 6)
    core("complete", T0 + 7, "a", "w", "q", "{}")
    assert core.job("a")["remaining"] == 3


def test_unfail_resets_remaining(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 2)
    core("retry", T0 + 1, "a", "q", "w")
    core.pop("q", "w", 1, now=T0 + 2)
    core("fail", T0 + 3, "a", "w", "g", "m")
    assert core.job("a")["remaining"] == 1
    assert core("unfail", T0 + 4, "q", "g") == 1
    assert core.job("a")["remaining"] == 2


def test_fail_consumes_no_retry(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 0)
    core("fail", T0 + 1, "a", "w", "g", "m")
    assert core.job("a")["remaining"] == 0


def test_recurring_children_default_to_zero_retries(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    child = core.pop("q", "w", 1, now=T0)[0]
    assert (child["retries"], child["remaining"]) == (0, 0)
    assert core("retry", T0 + 1, "r-1", "q", "w") == -1
    assert core.job("r-1")["state"] == "failed"


# ---------------------------------------------------------------- 4.4 / 4.12 time field


def test_retry_keeps_time_so_next_wait_counts_from_pop(core: Core) -> None:
    core.put("a", T0, "q")
    core.pop("q", "w", 1, now=T0 + 10)
    core("retry", T0 + 20, "a", "q", "w")
    core.pop("q", "w", 1, now=T0 + 30)
    w = wait_stats(core)
    assert (w["count"], w["mean"]) == (2, 15)
    assert w["histogram"] == histogram_of(10, 20)


def test_timeout_keeps_time_so_next_wait_counts_from_pop(core: Core) -> None:
    core.put("a", T0, "q")
    core.pop("q", "w", 1, now=T0 + 10)
    core("timeout", T0 + 15, "a")
    core.pop("q", "w", 1, now=T0 + 40)
    assert wait_stats(core)["histogram"] == histogram_of(10, 30)


def test_unfail_keeps_time_so_next_wait_counts_from_pop(core: Core) -> None:
    core.put("a", T0, "q")
    core.pop("q", "w", 1, now=T0 + 10)
    core("fail", T0 + 12, "a", "w", "g", "m")
    core("unfail", T0 + 20, "q", "g")
    core.pop("q", "w", 1, now=T0 + 50)
    assert wait_stats(core)["histogram"] == histogram_of(10, 40)


def test_release_keeps_time_so_wait_counts_from_put(core: Core) -> None:
    core.put("z", T0, "q")
    core.put("y", T0, "q", "depends", '["z"]')
    core.pop("q", "w", 1, now=T0 + 5)
    core("complete", T0 + 6, "z", "w", "q", "{}")
    core.pop("q", "w", 1, now=T0 + 9)
    assert wait_stats(core)["histogram"] == histogram_of(5, 9)


def test_spawned_child_wait_counts_from_its_slot(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    got = core.pop("q", "w", 3, now=T0 + 150)
    assert [j["jid"] for j in got] == ["r-1", "r-2", "r-3"]
    w = wait_stats(core)
    assert w["count"] == 3 and w["mean"] == 90
    assert w["histogram"] == histogram_of(150, 90, 30)
    assert core.hget("ql:j:r-1", "time") == "%.20f" % (T0 + 150)


def test_complete_run_sample_measures_from_pop(core: Core) -> None:
    core.put("a", T0, "q")
    core.pop("q", "w", 1, now=T0 + 100)
    core("complete", T0 + 107.5, "a", "w", "q", "{}", "next", "q2")
    run = core.json("stats", T0, "q", T0)["run"]
    assert (run["count"], run["mean"]) == (1, 7.5)
    assert core.json("stats", T0, "q2", T0)["run"]["count"] == 0
    assert core.hget("ql:j:a", "time") == "%.20f" % (T0 + 107.5)


def test_reclaimed_courtesy_retries_use_day_of_notice(core: Core) -> None:
    day1 = T0 + DAY
    core.put("a", day1 - 30, "q")
    core.pop("q", "w1", 1, now=day1 - 30)  # expires day1 + 30
    core.pop("q", "w2", 1, now=day1 + 31)  # courtesy on the next day
    assert core.pop("q", "w2", 1, now=day1 + 41)[0]["jid"] == "a"
    assert core.json("stats", T0, "q", T0)["retries"] == 0
    nxt = core.json("stats", T0, "q", day1)
    assert nxt["retries"] == 1
    assert nxt["wait"]["count"] == 1 and nxt["wait"]["mean"] == 71


# ---------------------------------------------------------------- 4.6 recurring


def test_spawn_tags_are_scored_with_now_and_counted(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "tags", '["t"]')
    core.peek("q", 3, now=T0 + 150)
    assert core.zset("ql:t:t") == [("r-1", T0 + 150), ("r-2", T0 + 150), ("r-3", T0 + 150)]
    assert core.zset("ql:tags") == [("t", 3.0)]
    assert core.job("r-2")["tags"] == ["t"]
    assert core.job("r-2")["history"] == [{"when": int(T0) + 60, "what": "put", "q": "q"}]
    assert core.zset("ql:q:q-recur") == [("r", T0 + 180)]


def test_respawn_after_unrecur_overwrites_fields_and_appends_history(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 1000, 0)
    core.pop("q", "w", 1, now=T0)
    core("fail", T0 + 1, "r-1", "w", "g", "m")
    core("unrecur", T0 + 2, "r")
    core("recur", T0 + 3, "q", "r", "K2", "{}", "interval", 1000, 0)
    got = core.pop("q", "w2", 1, now=T0 + 3)
    assert got[0]["jid"] == "r-1" and got[0]["klass"] == "K2"
    job = core.job("r-1")
    assert job["failure"]["group"] == "g"  # not cleaned up
    assert core.conn.lrange("ql:f:g", 0, -1) == [b"r-1"]
    assert [h["what"] for h in job["history"]] == ["put", "popped", "failed", "put", "popped"]


def test_backlog_with_now_on_slot_boundary_spawns_b_plus_one(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 10, 0, "backlog", 2)
    core.peek("q", 1, now=T0)  # slot T0 spawned, next at T0+10
    core.peek("q", 100, now=T0 + 100)
    slots = sorted(float(core.hget(f"ql:j:r-{i}", "time") or "nan") for i in (2, 3, 4))
    assert slots == [T0 + 80, T0 + 90, T0 + 100]
    assert core.conn.exists("ql:j:r-5") == 0
    assert core.zset("ql:q:q-recur") == [("r", T0 + 110)]


def test_spawn_does_not_register_forgotten_queue(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    core("queue.forget", T0, "q")
    core.pop("q", "w", 1, now=T0 + 1)
    assert core.zset("ql:queues") == []


# ---------------------------------------------------------------- 4.7 expiry


def test_expiry_keeps_tracking_and_untrack_is_refused(core: Core) -> None:
    core("config.set", T0, "jobs-history", 100)
    running(core, "a", "w", T0, "tags", '["t"]')
    core("track", T0, "track", "a")
    core("complete", T0 + 1, "a", "w", "q", "{}")
    running(core, "b", "w", T0 + 200)
    core("complete", T0 + 201, "b", "w", "q", "{}")
    assert core("get", T0, "a") is None
    assert core.zset("ql:t:t") == []
    assert core.zset("ql:tags") == [("t", 0.0)]
    assert core.json("track", T0 + 202) == {"jobs": {}, "expired": ["a"]}
    core.rejects("Track(): Job does not exist", "track", T0 + 202, "untrack", "a")


def test_expiry_age_boundary_is_inclusive(core: Core) -> None:
    core("config.set", T0, "jobs-history", 100)
    running(core, "a", "w", T0)
    core("complete", T0, "a", "w", "q", "{}")
    running(core, "b", "w", T0 + 99)
    core("complete", T0 + 99, "b", "w", "q", "{}")
    assert core("get", T0, "a") is not None
    running(core, "c", "w", T0 + 100)
    core("complete", T0 + 100, "c", "w", "q", "{}")
    assert core("get", T0, "a") is None


def test_negative_history_count_deletes_zrange_0_to_minus_n_minus_1(core: Core) -> None:
    # 4.7 step 3: ZRANGE 0 .. -N-1. With N = -2 that is ZRANGE 0 1: only the two oldest
    # completed jobs are deleted, whatever the size of ql:completed.
    for i, jid in enumerate(("a", "b", "c", "d")):
        running(core, jid, "w", T0 + i)
        core("complete", T0 + i, jid, "w", "q", "{}")
    core("config.set", T0, "jobs-history-count", -2)
    running(core, "e", "w", T0 + 10)
    core("complete", T0 + 10, "e", "w", "q", "{}")
    assert [j for j, _ in core.zset("ql:completed")] == ["c", "d", "e"]
    assert core("get", T0, "a") is None and core("get", T0, "c") is not None


# ---------------------------------------------------------------- 4.9 workers


def test_workers_entry_expiring_exactly_now_is_both_jobs_and_stalled(core: Core) -> None:
    running(core, "a", "w", T0)
    assert core.json("workers", T0 + 60) == [{"name": "w", "jobs": 1, "stalled": 1}]
    assert core.json("workers", T0 + 60, "w") == {"jobs": ["a"], "stalled": ["a"]}


def test_workers_purge_boundary_is_inclusive_and_drops_job_set(core: Core) -> None:
    running(core, "a", "w", T0)
    assert core.json("workers", T0 + DAY - 0.5) == [{"name": "w", "jobs": 0, "stalled": 1}]
    assert core.json("workers", T0 + DAY) == {}
    assert core.conn.exists("ql:w:w:jobs") == 0
    assert core.job("a")["worker"] == "w"  # the job itself is untouched


def test_workers_listing_most_recent_first(core: Core) -> None:
    core("pop", T0, "q", "w1", 1)
    core("pop", T0 + 2, "q", "w2", 1)
    core("pop", T0 + 1, "q", "w3", 1)
    assert [w["name"] for w in as_list(core.json("workers", T0 + 3))] == ["w2", "w3", "w1"]


def test_put_by_same_worker_drops_job_set_entry(core: Core) -> None:
    running(core, "a", "w1", T0)
    core.put("a", T0 + 1, "q", worker="w1")
    assert core.zset("ql:w:w1:jobs") == []


def test_deregister_keeps_job_set(core: Core) -> None:
    running(core, "a", "w1", T0)
    core("worker.deregister", T0, "w1")
    assert core.zset("ql:workers") == []
    assert core.zset("ql:w:w1:jobs") == [("a", T0 + 60)]
    assert core.json("workers", T0 + 1, "w1") == {"jobs": ["a"], "stalled": {}}


# ---------------------------------------------------------------- 4.10 pause / concurrency


def test_paused_queue_still_peeks_promotes_and_spawns(core: Core) -> None:
    core("pause", T0, "q")
    core.put("s", T0, "q", delay=10)
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    assert core("pop", T0 + 20, "q", "w", 5) == b"{}"
    assert core.hget("ql:j:s", "state") == "scheduled"
    got = {j["jid"] for j in core.peek("q", 5, now=T0 + 20)}
    assert got == {"s", "r-1"}
    assert core.hget("ql:j:s", "state") == "waiting"
    assert core.json("queues", T0 + 20, "q")["paused"] is True


def test_paused_queue_allows_heartbeat_and_complete(core: Core) -> None:
    running(core, "a", "w", T0)
    core("pause", T0, "q")
    assert core("heartbeat", T0 + 1, "a", "w") == int(T0) + 61
    assert core("complete", T0 + 2, "a", "w", "q", "{}") == b"complete"


def test_lowering_concurrency_keeps_running_jobs(core: Core) -> None:
    for i, jid in enumerate(("a", "b", "c")):
        core.put(jid, T0 + i * 0.001, "q")
    core.pop("q", "w", 2, now=T0)
    core("config.set", T0, "q-max-concurrency", 1)
    assert core("pop", T0 + 1, "q", "w", 1) == b"{}"
    assert core("heartbeat", T0 + 2, "a", "w") == int(T0) + 62
    core("complete", T0 + 3, "a", "w", "q", "{}")
    assert core("pop", T0 + 4, "q", "w", 1) == b"{}"  # b still holds the only slot
    core("complete", T0 + 5, "b", "w", "q", "{}")
    assert [j["jid"] for j in core.pop("q", "w", 5, now=T0 + 6)] == ["c"]


def test_concurrency_cap_counts_lock_expiring_exactly_now(core: Core) -> None:
    core("config.set", T0, "q-max-concurrency", 1)
    running(core, "a", "w", T0)
    core.put("b", T0, "q")
    # the lock of a expires exactly at T0+60: it still counts as running (score >= now)
    assert core("pop", T0 + 60, "q", "w", 1) == b"{}"


# ---------------------------------------------------------------- 4.11 queue.forget


def test_forget_then_reregistered_with_new_score(core: Core) -> None:
    core.put("a", T0, "q")
    core.put("b", T0 + 1, "z")
    core("queue.forget", T0 + 2, "q")
    assert core.zset("ql:queues") == [("z", T0 + 1)]
    core.pop("z", "w", 1, now=T0 + 3)
    core("complete", T0 + 4, "b", "w", "z", "{}", "next", "q")
    assert core.zset("ql:queues") == [("z", T0 + 1), ("q", T0 + 4)]
    core("queue.forget", T0 + 5, "q")
    core("recur", T0 + 6, "z", "r", "K", "{}", "interval", 60, 10)
    core("recur.update", T0 + 7, "r", "queue", "q")
    assert core.zset("ql:queues") == [("z", T0 + 1), ("q", T0 + 7)]


# ---------------------------------------------------------------- 5 statistics


def test_stats_reply_numbers_are_cjson_formatted(core: Core) -> None:
    for i, wait in enumerate((1, 2, 2)):
        core.put(f"j{i}", T0, "q")
        core.pop("q", "w", 1, now=T0 + wait)
    raw = core("stats", T0, "q", T0).decode()
    assert '"count":3' in raw
    assert '"mean":1.6666666666667' in raw
    assert '"std":0.57735026918963' in raw
    assert '"retries":0' in raw and '"failed":0' in raw and '"failures":0' in raw
    got = json.loads(raw)
    assert set(got) == {"retries", "failed", "failures", "wait", "run"}
    assert set(got["wait"]) == {"count", "mean", "std", "histogram"}
    assert got["run"] == {"count": 0, "mean": 0, "std": 0, "histogram": [0] * 148}


def test_stats_fractional_samples_use_exact_value_for_mean(core: Core) -> None:
    for i, wait in enumerate((0.25, 0.75, 59.999)):
        core.put(f"j{i}", T0, "q")
        core.pop("q", "w", 1, now=T0 + wait)
    w = wait_stats(core)
    assert w["mean"] == pytest.approx((0.25 + 0.75 + 59.999) / 3, rel=1e-8)
    assert w["histogram"] == histogram_of(0, 0, 59)


def test_day_bin_of_negative_time_is_floored(core: Core) -> None:
    core.put("a", -200.5, "q")
    core.pop("q", "w", 1, now=-100.5)
    assert core.conn.exists("ql:s:wait:-86400:q") == 1
    w = core.json("stats", -100, "q", -1)["wait"]
    assert (w["count"], w["mean"]) == (1, 100)


def test_stats_day_bin_fractional_now(core: Core) -> None:
    core.put("a", T0 + 0.5, "q")
    core.pop("q", "w", 1, now=T0 + DAY - 0.25)
    assert core.conn.exists(f"ql:s:wait:{DAY0}:q") == 1
    assert core.json("stats", T0, "q", T0 + DAY - 0.001)["wait"]["count"] == 1
    assert core.json("stats", T0, "q", T0 + DAY)["wait"]["count"] == 0


def test_failed_counter_decrement_uses_failure_day(core: Core) -> None:
    running(core, "a", "w", T0)
    core("fail", T0 + 5, "a", "w", "g", "m")
    core.put("a", T0 + DAY + 5, "q")  # decrements the bin of the failure day
    assert core.json("stats", T0, "q", T0)["failed"] == 0
    assert core.json("stats", T0, "q", T0)["failures"] == 1
    assert core.conn.hget(f"ql:s:stats:{DAY0 + DAY}:q", "failed") is None


def test_unfail_does_not_decrement_failed(core: Core) -> None:
    running(core, "a", "w", T0)
    core("fail", T0 + 5, "a", "w", "g", "m")
    core("unfail", T0 + 6, "q", "g")
    assert core.json("stats", T0, "q", T0)["failed"] == 1


def test_retry_calls_do_not_count_as_retries(core: Core) -> None:
    running(core, "a", "w", T0)
    core("retry", T0 + 1, "a", "q", "w")
    assert core.json("stats", T0, "q", T0)["retries"] == 0


# ---------------------------------------------------------------- 6 pub/sub


def test_advance_of_tracked_job_publishes_completed_then_advanced(
    core: Core, events: EventRecorder
) -> None:
    running(core, "a")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("complete", T0 + 1, "a", "w", "q", "{}", "next", "q2", "delay", 5)
    assert decoded(got) == [
        ("ql:completed", "a"),
        ("ql:log", {"jid": "a", "event": "advanced", "queue": "q", "to": "q2"}),
    ]


def test_unfail_and_spawn_publish_nothing_even_when_tracked(
    core: Core, events: EventRecorder
) -> None:
    running(core, "a")
    core("track", T0, "track", "a")
    core("fail", T0 + 1, "a", "w", "g", "m")
    core("recur", T0, "q", "r", "K", "{}", "interval", 1000, 0)
    core.pop("q", "w", 1, now=T0)
    core("track", T0, "track", "r-1")
    core("unrecur", T0, "r")
    core("recur", T0 + 2, "q", "r", "K", "{}", "interval", 1000, 0)
    with events.record() as got:
        core("unfail", T0 + 2, "q", "g")
        core.peek("q", 5, now=T0 + 2)  # respawns r-1 (tracked)
    assert got == []


def test_fail_untracked_publishes_log_only(core: Core, events: EventRecorder) -> None:
    running(core)
    with events.record() as got:
        core("fail", T0 + 1, "a", "w", "g", "m", '{"x":1}')
    assert decoded(got) == [
        ("ql:log", {"jid": "a", "event": "failed", "worker": "w", "group": "g", "message": "m"})
    ]


def test_put_of_waiting_tracked_job_event_order(core: Core, events: EventRecorder) -> None:
    core.put("a", T0, "q")
    core("track", T0, "track", "a")
    with events.record() as got:
        core.put("a", T0 + 1, "q2", delay=5)
    assert decoded(got) == [
        ("ql:log", {"jid": "a", "event": "put", "queue": "q2"}),
        ("ql:put", "a"),
    ]


def test_timeout_of_tracked_job_publishes_no_job_channel(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("timeout", T0 + 1, "a")
    assert [c for c, _ in got] == ["ql:w:w1", "ql:log"]


def test_cancel_of_waiting_tracked_job_has_no_worker_channel(
    core: Core, events: EventRecorder
) -> None:
    core.put("a", T0, "q")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("cancel", T0, "a")
    assert decoded(got) == [
        ("ql:log", {"jid": "a", "worker": "", "event": "canceled", "queue": "q"}),
        ("ql:canceled", "a"),
    ]


def test_cancel_of_timed_out_job_notifies_its_worker(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    core("timeout", T0 + 1, "a")
    with events.record() as got:
        core("cancel", T0 + 2, "a")
    payload = {"jid": "a", "worker": "w1", "event": "canceled", "queue": "q"}
    assert decoded(got) == [("ql:log", payload), ("ql:w:w1", payload)]
    assert core.zset("ql:w:w1:jobs") == []


def test_config_set_event_value_is_the_text_sent(core: Core, events: EventRecorder) -> None:
    with events.record() as got:
        core("config.set", T0, "heartbeat", "0030")
    assert decoded(got) == [
        ("ql:log", {"event": "config_set", "option": "heartbeat", "value": "0030"})
    ]
    assert core("config.get", T0, "heartbeat") == b"0030"


# ---------------------------------------------------------------- 7 configuration


def test_default_heartbeat_and_queue_override_on_pop(core: Core) -> None:
    core.put("a", T0, "q")
    assert core.pop("q", "w", 1, now=T0)[0]["expires"] == T0 + 60
    core("config.set", T0, "heartbeat", 30)
    core.put("b", T0, "q")
    assert core.pop("q", "w", 1, now=T0)[0]["expires"] == T0 + 30
    core("config.set", T0, "q-heartbeat", 5)
    core.put("c", T0, "q")
    assert core.pop("q", "w", 1, now=T0)[0]["expires"] == T0 + 5
    core.put("d", T0, "other")
    assert core.pop("other", "w", 1, now=T0)[0]["expires"] == T0 + 30


def test_grace_period_config_changes_courtesy_length(core: Core) -> None:
    core("config.set", T0, "grace-period", 3)
    running(core, "a", "w1", T0)
    core.pop("q", "w2", 1, now=T0 + 61)
    assert core.zset("ql:q:q-locks") == [("a", T0 + 64)]
    assert core("pop", T0 + 63.9, "q", "w2", 1) == b"{}"
    assert core.pop("q", "w2", 1, now=T0 + 64)[0]["jid"] == "a"


def test_stats_history_and_histogram_history_are_listed_defaults(core: Core) -> None:
    assert core("config.get", T0, "stats-history") == 30
    assert core("config.get", T0, "histogram-history") == 7
    assert core("config.get", T0, "jobs-history") == 604800
    assert core("config.get", T0, "jobs-history-count") == 50000
    assert core("config.get", T0, "application") == b"qless"
    assert core("config.get", T0, "q-heartbeat") is None


# ---------------------------------------------------------------- further edge rules


def test_stale_scheduled_field_survives_put_and_is_used_by_release(core: Core) -> None:
    core.put("z", T0, "q")
    core.put("y", T0, "q")
    core.put("a", T0, "q", "depends", '["z"]', delay=100)
    assert core.hget("ql:j:a", "scheduled") is not None
    core("depends", T0 + 1, "a", "off", "z")  # quirk 22: stale scheduled field stays
    assert core.hget("ql:j:a", "state") == "waiting"
    core.put("a", T0 + 2, "q", "depends", '["y"]')  # put keeps the field (quirk 6)
    assert core.hget("ql:j:a", "state") == "depends"
    core.pop("q", "w", 2, now=T0 + 3)
    core("complete", T0 + 4, "y", "w", "q", "{}")
    assert core.hget("ql:j:a", "state") == "scheduled"
    assert core.zset("ql:q:q-scheduled") == [("a", T0 + 100)]
    assert core.hget("ql:j:a", "scheduled") is None


def test_unfail_does_not_register_queue(core: Core) -> None:
    running(core, "a", "w", T0)
    core("fail", T0 + 1, "a", "w", "g", "m")
    core("unfail", T0 + 2, "fresh", "g")
    assert [q for q, _ in core.zset("ql:queues")] == ["q"]
    assert [j["jid"] for j in core.peek("fresh", 5, now=T0 + 3)] == ["a"]


def test_lock_expiry_exhaustion_message_names_the_popping_queue(
    core: Core, events: EventRecorder
) -> None:
    # 4.2: group = failed-retries-<job's queue>, but the message, the sets and the stats
    # use "the queue" (the one being popped). They differ after `retry` into another queue
    # (3.8 quirk: the job's queue field is never changed).
    core("config.set", T0, "grace-period", 0)
    core.put("a", T0, "q1", "retries", 1)
    core.pop("q1", "w1", 1, now=T0)
    assert core("retry", T0 + 1, "a", "q2", "w1") == 0
    assert core.pop("q2", "w2", 1, now=T0 + 2)[0]["jid"] == "a"
    with events.record() as got:
        assert core("pop", T0 + 100, "q2", "w3", 1) == b"{}"
    failed = [p for c, p in decoded(got) if c == "ql:log" and p.get("event") == "failed"]
    assert failed == [
        {
            "jid": "a",
            "event": "failed",
            "group": "failed-retries-q1",
            "worker": "w2",
            "message": 'Job exhausted retries in queue "q2"',
        }
    ]
    failure = core.job("a")["failure"]
    assert failure["group"] == "failed-retries-q1"
    assert failure["message"] == 'Job exhausted retries in queue "q2"'
    assert core.json("stats", T0, "q2", T0)["failures"] == 1


def test_zero_interval_with_backlog_spawns_nothing(core: Core) -> None:
    # 4.6 step 3 with interval 0 (recur.update has no > 0 check): n = (now - s) / 0 = inf >
    # backlog, so s advances by ceil(inf) * 0 = nan and the loop `s <= now` never runs.
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "backlog", 1)
    core("recur.update", T0, "r", "interval", 0)
    assert core.zset("ql:q:q-recur") == [("r", T0 - 60)]
    assert core("pop", T0 + 10, "q", "w", 3) == b"{}"
    assert core.conn.exists("ql:j:r-1") == 0
    assert core.zset("ql:q:q-recur") == [("r", T0 - 60)]
