"""Expiring jobs (docs/protocol.md "Expiring jobs"): `put ... ttl s`.

A job with a ttl must start within `ttl` seconds of becoming ready to run (put without delay,
end of its delay, release of its last dependency, and again after a retry or timeout), or
the core removes it as cancel would, publishes `expired` and counts it in the queue's daily
statistics. Waiting behind a throttle or an ordering key counts as waiting.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.support import DAY, T0, Core, decoded


def put(core: Core, jid: str, ttl: float = 10, now: float = T0, *opts: Any,
        queue: str = "q", delay: float = 0) -> Any:
    return core.put(jid, now, queue, "ttl", ttl, *opts, delay=delay)


def popped(core: Core, now: float, count: int = 10, queue: str = "q") -> list[str]:
    return [j["jid"] for j in core.pop(queue, "w", count, now=now)]


def exists(core: Core, jid: str) -> bool:
    return core("get", T0, jid) is not None


def expired_count(core: Core, queue: str = "q", day: float = T0) -> int:
    return int(core.hget(f"ql:s:stats:{int(day - day % DAY)}:{queue}", "expired") or 0)


def test_a_job_started_in_time_runs(core: Core) -> None:
    put(core, "a")
    assert core.job("a")["ttl"] == 10
    assert core.zset("ql:q:q-expiring") == [("a", T0 + 10)]
    assert popped(core, T0 + 9.9) == ["a"]
    assert core.zset("ql:q:q-expiring") == []
    assert core("complete", T0 + 50, "a", "w", "q", "{}") == b"complete"


def test_a_job_not_started_in_time_is_removed_with_an_event(core: Core, events: Any) -> None:
    core("track", T0, "track", "a") if exists(core, "a") else None
    put(core, "a", 10, T0, "tags", '["red"]')
    core("track", T0, "track", "a")
    with events.record() as seen:
        assert popped(core, T0 + 10) == []
    assert decoded(seen) == [
        ("ql:log", {"jid": "a", "event": "expired", "queue": "q"}),
        ("ql:expired", "a"),
    ]
    assert not exists(core, "a")
    assert core.conn.exists("ql:j:a-history", "ql:t:red") == 0
    assert core.zset("ql:q:q-work") == [] and core.zset("ql:q:q-expiring") == []
    assert expired_count(core) == 1
    assert core.json("stats", T0, "q", T0)["expired"] == 1
    assert "expired" not in core.json("stats", T0, "q", T0 - DAY)


@pytest.mark.parametrize("listing", [
    ("queues", "q"), ("queues",), ("jobs", "scheduled", "q"), ("peek", "q", 5), ("length", "q"),
])
def test_listings_remove_expired_jobs(core: Core, listing: tuple[Any, ...]) -> None:
    put(core, "a")
    core.put("b", T0, "q")
    core(listing[0], T0 + 11, *listing[1:])
    assert not exists(core, "a") and exists(core, "b")


def test_the_clock_starts_when_the_job_becomes_ready(core: Core) -> None:
    put(core, "delayed", 10, T0, delay=100)
    core.put("dep", T0, "other")
    put(core, "child", 10, T0, "depends", '["dep"]')
    assert core.zset("ql:q:q-expiring") == []
    # promoted late, the delayed job's clock started when its delay ended
    assert core.json("queues", T0 + 105, "q")["waiting"] == 1
    assert core.zset("ql:q:q-expiring") == [("delayed", T0 + 110)]
    core.pop("other", "w", 1, now=T0 + 106)
    core("complete", T0 + 107, "dep", "w", "other", "{}")
    assert ("child", T0 + 117) in core.zset("ql:q:q-expiring")
    assert popped(core, T0 + 112) == ["child"]
    assert not exists(core, "delayed")


def test_a_retry_starts_the_clock_again(core: Core) -> None:
    put(core, "a")
    popped(core, T0 + 5)
    core("retry", T0 + 100, "a", "q", "w")
    assert core.zset("ql:q:q-expiring") == [("a", T0 + 110)]
    assert popped(core, T0 + 111) == []
    assert not exists(core, "a")


def test_a_retry_with_delay_starts_the_clock_when_due(core: Core) -> None:
    put(core, "a")
    popped(core, T0 + 5)
    core("retry", T0 + 6, "a", "q", "w", 30)
    assert core.zset("ql:q:q-expiring") == []
    assert popped(core, T0 + 40) == ["a"]


def test_throttled_jobs_expire_too(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    core.put("x", T0, "q", "throttles", '["t"]')
    put(core, "a", 10, T0 + 1, "throttles", '["t"]')
    popped(core, T0 + 2)
    assert core.job("a")["state"] == "throttled"
    # it comes to a's turn only after its deadline: it is expired, not started
    core("complete", T0 + 20, "x", "w", "q", "{}")
    assert not exists(core, "a")
    assert core("throttle.pending", T0, "t") == [] and core.conn.exists("ql:th:t-ready") == 0


def test_jobs_behind_their_key_expire(core: Core) -> None:
    core.put("x", T0, "q", "key", "k")
    put(core, "a", 10, T0 + 1, "key", "k")
    popped(core, T0 + 2)
    assert core.json("queues", T0 + 12, "q").get("throttled") is None
    assert not exists(core, "a")
    assert core.zset("ql:q:q-key:k") == [("x", 1.0)]


def test_an_expired_head_lets_the_next_job_of_its_key_start(core: Core) -> None:
    put(core, "a", 10, T0, "key", "k")
    core.put("b", T0 + 1, "q", "key", "k")
    assert popped(core, T0 + 11) == ["b"]


def test_a_pop_never_starts_a_due_job_however_many_are_due(core: Core) -> None:
    for i in range(60):
        put(core, f"e{i:02}", 10, T0, "priority", 1)
    core.put("p", T0, "q")
    assert popped(core, T0 + 20, 1) == ["p"]
    assert core.json("queues", T0 + 21, "q")["waiting"] == 0


def test_dependents_of_an_expired_job_keep_waiting(core: Core) -> None:
    put(core, "a")
    core.put("b", T0, "q", "depends", '["a"]')
    popped(core, T0 + 11)
    assert not exists(core, "a")
    job = core.job("b")
    assert job["state"] == "depends" and job["dependencies"] == ["a"]


def test_put_again_without_ttl_clears_it(core: Core) -> None:
    put(core, "a")
    core.put("a", T0 + 1, "q")
    assert "ttl" not in core.job("a") and core.zset("ql:q:q-expiring") == []
    assert popped(core, T0 + 100) == ["a"]


def test_recurring_children_get_the_ttl(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "ttl", 30)
    assert core.json("recur.get", T0, "r")["ttl"] == 30
    # the slots of T0 and T0 + 60 passed more than 30 s ago at T0 + 100
    assert popped(core, T0 + 100, 1) == []
    assert not exists(core, "r-1")
    core("recur.update", T0, "r", "ttl", 0)
    assert "ttl" not in core.json("recur.get", T0, "r")


@pytest.mark.parametrize(("value", "phrase"), [
    ("x", 'Arg "ttl" not a number: x'),
    ("inf", 'Arg "ttl" not a number: inf'),
    (0, 'Arg "ttl" must be greater than 0: 0'),
    (-5, 'Arg "ttl" must be greater than 0: -5'),
])
def test_bad_ttl_is_refused(core: Core, value: Any, phrase: str) -> None:
    core.put("x", T0, "q")
    core.rejects("Put(): " + phrase, "put", T0, "", "q", "a", "K", "{}", 0, "ttl", value)
    core.rejects("Recur(): " + phrase, "recur", T0, "q", "r", "K", "{}", "interval", 60, 0,
                 "ttl", value)
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    if value != 0:
        core.rejects('Recur(): Arg "ttl" must be a number', "recur.update", T0, "r", "ttl",
                     value)
