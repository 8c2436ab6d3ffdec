"""Throttles, the qless throttle dialect (docs/protocol.md "Throttles"), with explicit `now`.

A throttle is a maximum on the jobs that hold one of its locks. These tests check the
dialect's commands and keys, the `throttled` state, release on every way a job stops
running, and what qless_py does better than the dialect: admission (the work set never
holds more jobs of a throttle than it has room for), hand-out on a raised maximum, and
recovery of locks whose holder stopped without releasing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.core.support import T0, Core, as_list, decoded
from tests.replies import text


def put(core: Core, jid: str, *throttles: str, queue: str = "q", now: float = T0,
        opts: tuple[Any, ...] = ()) -> Any:
    return core.put(jid, now, queue, "throttles", json.dumps(list(throttles)), *opts)


def locks(core: Core, tid: str) -> list[str]:
    return [text(j) for j in core("throttle.locks", T0, tid)]


def pending(core: Core, tid: str) -> list[str]:
    return [text(j) for j in core("throttle.pending", T0, tid)]


def ready(core: Core, tid: str) -> list[str]:
    return [text(j) for j in core.conn.zrange(f"ql:th:{tid}-ready", 0, -1)]


def work(core: Core, queue: str = "q") -> list[str]:
    return [j for j, _ in core.zset(f"ql:q:{queue}-work")]


def throttled(core: Core, queue: str = "q") -> list[str]:
    return [text(j) for j in core("jobs", T0, "throttled", queue)]


def popped(core: Core, queue: str = "q", count: int = 10, now: float = T0 + 1,
           worker: str = "w") -> list[str]:
    return [j["jid"] for j in core.pop(queue, worker, count, now=now)]


# -- commands ---------------------------------------------------------------------------------

def test_set_get_delete_and_ttl(core: Core) -> None:
    assert core.json("throttle.get", T0, "t") == {"id": "t", "maximum": 0}
    assert core("throttle.ttl", T0, "t") == -2
    assert core("throttle.set", T0, "t", 3) is None
    assert core.conn.hgetall("ql:th:t") == {b"id": b"t", b"maximum": b"3"}
    assert core.json("throttle.get", T0, "t") == {"id": "t", "maximum": 3}
    assert core("throttle.ttl", T0, "t") == -1
    core("throttle.set", T0, "t", 4, 100)
    assert 0 < core("throttle.ttl", T0, "t") <= 100
    assert core("throttle.delete", T0, "t") is None
    assert core.conn.exists("ql:th:t") == 0
    assert core.json("throttle.get", T0, "t")["maximum"] == 0


def test_set_floors_a_fractional_maximum(core: Core) -> None:
    core("throttle.set", T0, "t", 2.7)
    assert core.json("throttle.get", T0, "t") == {"id": "t", "maximum": 2}


def test_zero_expiration_sets_no_ttl(core: Core) -> None:
    core("throttle.set", T0, "t", 1, 0)
    assert core("throttle.ttl", T0, "t") == -1


def test_queue_throttle_is_the_queue_tid(core: Core) -> None:
    assert core.json("queue.throttle.get", T0, "q") == {"id": "ql:q:q", "maximum": 0}
    core("queue.throttle.set", T0, "q", 2)
    assert core.conn.hgetall("ql:th:ql:q:q") == {b"id": b"ql:q:q", b"maximum": b"2"}
    assert core.json("throttle.get", T0, "ql:q:q") == {"id": "ql:q:q", "maximum": 2}
    assert core("throttle.ttl", T0, "ql:q:q") == -1


@pytest.mark.parametrize(("command", "args", "phrase"), [
    ("throttle.set", (), "Throttle(): no tid provided"),
    ("throttle.set", ("t",), 'Throttle(): Arg "maximum" missing or not a number: nil'),
    ("throttle.set", ("t", "x"), 'Throttle(): Arg "maximum" missing or not a number: x'),
    ("throttle.set", ("t", "inf"), 'Throttle(): Arg "maximum" missing or not a number: inf'),
    ("throttle.set", ("t", -1), 'Throttle(): Arg "maximum" must not be negative: -1'),
    ("throttle.set", ("t", 1, "soon"), 'Throttle(): Arg "expiration" not a number: soon'),
    ("throttle.get", (), "Throttle(): no tid provided"),
    ("throttle.delete", (), "Throttle(): no tid provided"),
    ("throttle.locks", (), "Throttle(): no tid provided"),
    ("throttle.pending", (), "Throttle(): no tid provided"),
    ("throttle.ttl", (), "Throttle(): no tid provided"),
    ("throttle.release", (), "Throttle(): no tid provided"),
    ("queue.throttle.get", (), "Queue(): no queue name provided"),
    ("queue.throttle.set", (), "Queue(): no queue name provided"),
    ("queue.throttle.set", ("q",), 'Throttle(): Arg "maximum" missing or not a number: nil'),
    ("queue.throttle.set", ("q", -2), 'Throttle(): Arg "maximum" must not be negative: -2'),
])
def test_command_errors_write_nothing(core: Core, command: str, args: tuple[Any, ...],
                                      phrase: str) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    core.rejects(phrase, command, T0, *args)


def test_put_with_malformed_throttles_is_refused(core: Core) -> None:
    for value in ('"t"', "{", '{"a":1}', "[1,[2]]", "null"):
        core.rejects(f'Put(): Arg "throttles" not JSON array: {value}', "put", T0, "", "q",
                     "a", "K", "{}", 0, "throttles", value)


# -- put: the stored list, the throttled state ------------------------------------------------

def test_put_stores_named_throttles_then_the_queue_tid(core: Core) -> None:
    put(core, "a", "t", "u", "t", "ql:q:q")
    assert json.loads(core.hget("ql:j:a", "throttles") or "") == ["t", "u", "ql:q:q"]
    assert core.job("a")["throttles"] == ["t", "u", "ql:q:q"]


def test_a_job_without_named_throttles_keeps_qless_cores_shape(core: Core) -> None:
    core.put("plain", T0, "q")
    put(core, "empty", queue="q")
    put(core, "own", "ql:q:q")
    for jid in ("plain", "empty", "own"):
        assert core.hget(f"ql:j:{jid}", "throttles") is None
        assert "throttles" not in core.job(jid)


def test_a_full_throttle_makes_put_throttle_the_job(core: Core, events: Any) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    with events.record() as seen:
        put(core, "b", "t", now=T0 + 1)
    assert decoded(seen) == [("ql:log", {"jid": "b", "event": "put", "queue": "q"})]
    job = core.job("b")
    assert job["state"] == "throttled"
    assert job["history"][-1] == {"when": int(T0 + 1), "what": "throttled", "queue": "q"}
    assert pending(core, "t") == ["b"] and throttled(core) == ["b"]
    assert core.zset("ql:th:t-pending") == [("b", T0 + 1)]
    assert core.zset("ql:q:q-throttled") == [("b", T0 + 1)]
    assert work(core) == ["a"] and ready(core, "t") == ["a"]


def test_counts_show_throttled_only_when_there_are_some(core: Core) -> None:
    core.put("plain", T0, "q")
    counts = core.json("queues", T0, "q")
    assert "throttled" not in counts
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    put(core, "b", "t")
    assert core.json("queues", T0, "q")["throttled"] == 1
    assert core.json("queues", T0)[0]["throttled"] == 1


def test_jobs_throttled_pages_oldest_first(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    for i, jid in enumerate("abcd"):
        put(core, jid, "t", now=T0 + i)
    assert throttled(core) == ["b", "c", "d"]
    assert as_list(core("jobs", T0, "throttled", "q", 1, 1)) == [b"c"]


def test_an_unlimited_or_missing_throttle_never_throttles(core: Core) -> None:
    for i in range(5):
        put(core, f"j{i}", "nothrottle", now=T0 + i)
    core("throttle.set", T0, "zero", 0)
    put(core, "z", "zero", now=T0 + 10)
    assert throttled(core) == []
    assert popped(core) == ["j0", "j1", "j2", "j3", "j4", "z"]
    assert locks(core, "nothrottle") == ["j0", "j1", "j2", "j3", "j4"]


# -- admission: the work set holds no job that cannot run --------------------------------------

def test_a_burst_of_puts_admits_only_what_the_throttle_has_room_for(core: Core) -> None:
    core("throttle.set", T0, "t", 2)
    for i in range(10):
        put(core, f"j{i}", "t", now=T0 + i / 100)
    core.put("plain", T0 + 1, "q", "priority", -1)
    assert work(core) == ["plain", "j1", "j0"]
    assert sorted(ready(core, "t")) == ["j0", "j1"]
    assert len(pending(core, "t")) == 8
    # pop finds the plain job behind the two admitted ones at once
    assert popped(core, count=5) == ["j0", "j1", "plain"]
    assert locks(core, "t") == ["j0", "j1"] and ready(core, "t") == []


def test_every_throttle_of_a_job_must_have_room(core: Core) -> None:
    core("throttle.set", T0, "t", 5)
    core("throttle.set", T0, "u", 1)
    put(core, "a", "t", "u")
    put(core, "b", "t", "u")
    put(core, "c", "t")
    assert pending(core, "u") == ["b"] and pending(core, "t") == []
    assert sorted(ready(core, "t")) == ["a", "c"]


def test_several_full_throttles_pend_only_on_the_first(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    core("throttle.set", T0, "u", 1)
    put(core, "a", "t", "u")
    put(core, "b", "u", "t")
    assert pending(core, "u") == ["b"] and pending(core, "t") == []


# -- pop --------------------------------------------------------------------------------------

def test_pop_takes_a_lock_of_every_named_throttle(core: Core) -> None:
    put(core, "a", "t", "u")
    [job] = core.pop("q", "w", 1, now=T0 + 1)
    assert job["throttles"] == ["t", "u", "ql:q:q"] and job["state"] == "running"
    assert core.zset("ql:th:t-locks") == [("a", 1.0)]
    assert locks(core, "u") == ["a"]
    assert core.conn.exists("ql:th:ql:q:q-locks") == 0


def test_pop_throttles_a_job_whose_throttle_filled_behind_its_back(core: Core) -> None:
    core("throttle.set", T0, "t", 2)
    put(core, "a", "t")
    put(core, "b", "t", now=T0 + 0.1)
    core("throttle.set", T0, "t", 1)  # lowering never takes locks away
    assert popped(core, count=1) == ["a"]
    assert popped(core, count=1, now=T0 + 2) == []
    job = core.job("b")
    assert job["state"] == "throttled" and job["history"][-1]["what"] == "throttled"
    assert pending(core, "t") == ["b"] and ready(core, "t") == [] and work(core) == []


def test_max_pop_retry_looks_further(core: Core) -> None:
    core("throttle.set", T0, "t", 3)
    for i in range(3):
        put(core, f"t{i}", "t", now=T0 + i / 10, opts=("priority", 5))
    core.put("p", T0, "q")
    core("throttle.set", T0, "t", 1)
    assert popped(core, count=2) == ["t0"]  # t1 throttled; one round by default
    core("config.set", T0, "q-max-pop-retry", 2)
    assert popped(core, count=1, now=T0 + 2) == ["p"]  # t2 throttled, then p
    assert sorted(pending(core, "t")) == ["t1", "t2"]


def test_global_max_pop_retry(core: Core) -> None:
    core("throttle.set", T0, "t", 2)
    put(core, "a", "t", opts=("priority", 5))
    put(core, "b", "t", now=T0 + 0.1, opts=("priority", 5))
    core.put("p", T0, "q")
    core("throttle.set", T0, "t", 0)
    core("throttle.set", T0, "t", 1)
    core("config.set", T0, "max-pop-retry", 3)
    assert popped(core, count=2) == ["a", "p"]


def test_queue_throttle_gates_pop_like_a_concurrency_cap(core: Core) -> None:
    core("queue.throttle.set", T0, "q", 2)
    for i in range(4):
        core.put(f"j{i}", T0 + i, "q")
    assert popped(core, count=4) == ["j0", "j1"]
    assert popped(core, count=4, now=T0 + 2) == []
    # jobs stay waiting in the work set, in priority order (the dialect throttles them)
    assert core.job("j2")["state"] == "waiting" and throttled(core) == []
    core("complete", T0 + 3, "j0", "w", "q", "{}")
    assert popped(core, count=4, now=T0 + 4) == ["j2"]


def test_queue_throttle_counts_stalled_jobs_until_they_are_reclaimed(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    core("queue.throttle.set", T0, "q", 1)
    core.put("a", T0, "q")
    core.put("b", T0 + 0.1, "q")
    assert popped(core, count=1) == ["a"]
    assert popped(core, count=1, now=T0 + 30) == []
    # the expired lock is reclaimed and handed out again; b still waits
    assert popped(core, count=2, now=T0 + 62) == ["a"]


def test_max_concurrency_still_applies_beside_throttles(core: Core) -> None:
    core("config.set", T0, "q-max-concurrency", 1)
    put(core, "a", "t")
    put(core, "b", "t", now=T0 + 0.1)
    assert popped(core, count=5) == ["a"]
    assert ready(core, "t") == ["b"]


@pytest.mark.parametrize(("throttle", "concurrency"), [(3, 2), (2, 3)])
def test_the_smaller_of_queue_throttle_and_max_concurrency_wins(
        core: Core, throttle: int, concurrency: int) -> None:
    core("queue.throttle.set", T0, "q", throttle)
    core("config.set", T0, "q-max-concurrency", concurrency)
    for i in range(5):
        core.put(f"j{i}", T0 + i * 0.1, "q")
    assert len(popped(core, count=5, now=T0 + 1)) == 2


def test_queue_throttle_raised_wakes_pop(core: Core) -> None:
    core("queue.throttle.set", T0, "q", 1)
    core.put("a", T0, "q")
    core.put("b", T0 + 0.1, "q")
    assert popped(core, count=2) == ["a"]
    core("queue.throttle.set", T0, "q", 0)
    assert popped(core, count=2, now=T0 + 2) == ["b"]


# -- release ----------------------------------------------------------------------------------

def release_setup(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    put(core, "b", "t", now=T0 + 0.5)
    assert popped(core, count=1) == ["a"]
    assert pending(core, "t") == ["b"]


# How the running job `a` stops, and whether it then waits for the throttle again itself.
RELEASES: dict[str, tuple[tuple[Any, ...], list[str]]] = {
    "complete": (("complete", "a", "w", "q", "{}"), []),
    "advance": (("complete", "a", "w", "q", "{}", "next", "q2"), ["a"]),
    "fail": (("fail", "a", "w", "g", "m"), []),
    "retry": (("retry", "a", "q", "w", 5), []),
    "timeout": (("timeout", "a"), ["a"]),
    "cancel": (("cancel", "a"), []),
    "put": (("put", "w", "q2", "a", "K", "{}", 0), []),
    "giveback": (("qlpy.giveback", "a", "w"), ["a"]),
}


@pytest.mark.parametrize("how", sorted(RELEASES))
def test_a_job_that_stops_running_releases_and_hands_out(core: Core, how: str) -> None:
    release_setup(core)
    (command, *args), waits = RELEASES[how]
    core(command, T0 + 2, *args)
    assert "a" not in locks(core, "t")
    assert pending(core, "t") == waits and ready(core, "t") == ["b"]
    job = core.job("b")
    assert job["state"] == "waiting" and "b" in work(core)
    assert throttled(core) + throttled(core, "q2") == waits


def test_retry_takes_its_lock_again_behind_the_waiting_job(core: Core) -> None:
    release_setup(core)
    core("retry", T0 + 2, "a", "q", "w")
    assert core.job("a")["state"] == "throttled"
    assert pending(core, "t") == ["a"] and work(core) == ["b"]


def test_retries_exhausted_by_lock_loss_release(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t", opts=("retries", 0))
    put(core, "b", "t", now=T0 + 0.1)
    assert popped(core, count=1) == ["a"]
    # a's retries run out: it fails, and the pop hands b out in its place
    assert popped(core, count=1, now=T0 + 100) == ["b"]
    assert core.job("a")["state"] == "failed"
    assert locks(core, "t") == ["b"] and ready(core, "t") == []


def test_a_job_whose_lock_is_lost_gives_back_its_throttles(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    put(core, "b", "t", now=T0 + 0.1)
    assert popped(core, count=1, worker="w1") == ["a"]
    # reclaimed, a releases its lock; b, waiting longer, takes the room; a waits
    assert popped(core, count=2, now=T0 + 100, worker="w2") == ["b"]
    assert locks(core, "t") == ["b"] and pending(core, "t") == ["a"]
    job = core.job("a")
    assert job["state"] == "throttled" and job["worker"] == "" and job["remaining"] == 4
    assert core.zset("ql:q:q-locks") == [("b", T0 + 160)]
    assert core.zset("ql:w:w1:jobs") == []


def test_a_reclaimed_job_with_room_is_handed_out_again(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    assert popped(core, count=1, worker="w1") == ["a"]
    assert popped(core, count=1, now=T0 + 100, worker="w2") == ["a"]
    assert locks(core, "t") == ["a"] and core.job("a")["worker"] == "w2"


def test_release_command(core: Core) -> None:
    release_setup(core)
    put(core, "c", "t", now=T0 + 0.7)
    assert core("throttle.release", T0 + 2, "t", "a") is None
    assert locks(core, "t") == [] and ready(core, "t") == ["b"] and pending(core, "t") == ["c"]
    core("throttle.release", T0 + 3, "t", "c")
    assert pending(core, "t") == []
    core("throttle.release", T0 + 3, "t")  # no jids: nothing to do


def test_raising_the_maximum_hands_out_at_once(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    for i in range(4):
        put(core, f"j{i}", "t", now=T0 + i)
    core("throttle.set", T0 + 5, "t", 3)
    assert pending(core, "t") == ["j3"] and sorted(ready(core, "t")) == ["j0", "j1", "j2"]
    core("throttle.delete", T0 + 6, "t")
    assert pending(core, "t") == [] and throttled(core) == []
    assert popped(core, now=T0 + 7) == ["j0", "j1", "j2", "j3"]


def test_a_hand_out_checks_the_other_throttles(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    core("throttle.set", T0, "u", 1)
    put(core, "x", "u")
    put(core, "a", "t")
    put(core, "b", "t", "u")
    assert pending(core, "t") == ["b"]
    assert popped(core, count=1) == ["x"]
    core("complete", T0 + 2, "x", "w", "q", "{}")
    assert pending(core, "t") == ["b"]  # u's release finds b waiting for t
    core("throttle.set", T0 + 3, "t", 2)
    assert pending(core, "t") == [] and ready(core, "u") == ["b"] and "b" in work(core)


# -- lost locks --------------------------------------------------------------------------------

def test_a_lock_held_by_a_vanished_job_is_recovered(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    assert popped(core, count=1) == ["a"]
    put(core, "b", "t")
    # another program deletes the running job without a release
    core.conn.delete("ql:j:a", "ql:j:a-history")
    core.conn.zrem("ql:q:q-locks", "a")
    assert pending(core, "t") == ["b"]
    # a pop that comes up short looks at b again; the gate drops a's lock
    assert popped(core, count=1, now=T0 + 2) == []
    assert locks(core, "t") == [] and ready(core, "t") == ["b"]
    assert popped(core, count=1, now=T0 + 3) == ["b"]


def test_a_lock_of_a_job_that_no_longer_runs_is_recovered(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    popped(core, count=1)
    # a dialect core's put moves a running job without returning its lock
    core.conn.hset("ql:j:a", mapping={"state": "waiting", "worker": ""})
    core.conn.zrem("ql:q:q-locks", "a")
    core.conn.zadd("ql:q:q-work", {"a": 0})
    put(core, "b", "t", now=T0 + 2)
    assert locks(core, "t") == [] and sorted(ready(core, "t")) == ["b"]


def test_a_stale_admission_is_recovered(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    # another core's pop takes the admitted job without knowing of admissions
    core.conn.zrem("ql:q:q-work", "a")
    core.conn.hset("ql:j:a", "state", "running")
    put(core, "b", "t", now=T0 + 1)
    assert ready(core, "t") == ["b"] and pending(core, "t") == []


# -- recurring templates ----------------------------------------------------------------------

def test_recur_spawns_jobs_with_the_templates_throttles(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "throttles", '["t"]')
    tmpl = core.json("recur.get", T0, "r")
    assert tmpl["throttles"] == ["t", "ql:q:q"]
    assert popped(core, count=3, now=T0 + 121) == ["r-1"]
    assert core.job("r-2")["state"] == "throttled"
    assert locks(core, "t") == ["r-1"] and pending(core, "t") == ["r-2", "r-3"]


def test_recur_update_changes_and_moves_the_throttles(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    assert "throttles" not in core.json("recur.get", T0, "r")
    core("recur.update", T0, "r", "throttles", '["t","u"]')
    assert core.json("recur.get", T0, "r")["throttles"] == ["t", "u", "ql:q:q"]
    core("recur.update", T0, "r", "queue", "q2")
    assert core.json("recur.get", T0, "r")["throttles"] == ["t", "u", "ql:q:q2"]
    core("recur.update", T0, "r", "throttles", "[]")
    assert "throttles" not in core.json("recur.get", T0, "r")
    core.rejects('Recur(): Arg "throttles" is not JSON-encoded: 5', "recur.update", T0, "r",
                 "priority", 1, "throttles", "5")
    core.rejects('Recur(): Arg "throttles" not JSON array: x', "recur", T0, "q", "r", "K", "{}",
                 "interval", 60, 0, "throttles", "x")


def test_advancing_moves_the_queue_tid(core: Core) -> None:
    put(core, "a", "t")
    popped(core, count=1)
    assert core("complete", T0 + 2, "a", "w", "q", "{}", "next", "q2") == b"waiting"
    assert core.job("a")["throttles"] == ["t", "ql:q:q2"]
    assert ready(core, "t") == ["a"]


def test_advancing_into_a_full_throttle_replies_throttled(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    popped(core, count=1)
    put(core, "b", "t", queue="q2")
    assert core("complete", T0 + 2, "a", "w", "q", "{}", "next", "q3") == b"throttled"
    assert core.job("a")["state"] == "throttled" and pending(core, "t") == ["a"]


def test_unfail_brings_the_throttles_along(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    put(core, "a", "t")
    popped(core, count=1)
    core("fail", T0 + 2, "a", "w", "g", "m")
    put(core, "b", "t", queue="q2")
    assert core("unfail", T0 + 3, "q2", "g") == 1
    job = core.job("a")
    assert job["throttles"] == ["t", "ql:q:q2"] and job["state"] == "throttled"


def stored(core: Core, jid: str) -> Any:
    return json.loads(core.hget(f"ql:j:{jid}", "throttles") or "null")


def test_a_put_that_moves_a_job_drops_the_old_queues_tid(core: Core) -> None:
    """The dialect's clients move a job by putting it into its new queue with its stored
    list; the old queue's tid goes, as the dialect's put drops it."""
    put(core, "j", "partner-api", queue="a")
    assert stored(core, "j") == ["partner-api", "ql:q:a"]
    core.put("j", T0 + 1, "b", "throttles", json.dumps(stored(core, "j")))
    assert stored(core, "j") == ["partner-api", "ql:q:b"]
    assert core.job("j")["throttles"] == ["partner-api", "ql:q:b"]


# A put of job j, after j was put into queue a with throttles ["t"] (or, for "new", with no
# job j before): the throttles it is given, its queue, and the list stored (None: no field,
# the plain job's shape).
PUT_MOVES: dict[str, tuple[list[str] | None, str, list[str] | None]] = {
    "new": (["t", "ql:q:a"], "b", ["t", "ql:q:a", "ql:q:b"]),
    "same queue": (["t", "ql:q:a"], "a", ["t", "ql:q:a"]),
    "list without the old tid": (["t"], "b", ["t", "ql:q:b"]),
    "old tid first": (["ql:q:a", "t"], "b", ["t", "ql:q:b"]),
    "old tid alone": (["ql:q:a"], "b", None),
    "old tid twice": (["ql:q:a", "t", "ql:q:a"], "b", ["t", "ql:q:b"]),
    # the dialect keeps one of two neighbours (it removes entries while it walks the list)
    "old tid twice in a row": (["t", "ql:q:a", "ql:q:a"], "b", ["t", "ql:q:b"]),
    "another queue's tid": (["t", "ql:q:c", "ql:q:a"], "b", ["t", "ql:q:c", "ql:q:b"]),
    "no throttles given": (None, "b", None),
}


@pytest.mark.parametrize("case", sorted(PUT_MOVES))
def test_put_drops_only_the_tid_of_the_queue_the_job_leaves(core: Core, case: str) -> None:
    given, queue, expected = PUT_MOVES[case]
    if case != "new":
        put(core, "j", "t", queue="a")
    opts = () if given is None else ("throttles", json.dumps(given))
    core.put("j", T0 + 1, queue, *opts)
    assert stored(core, "j") == expected


def test_a_put_into_another_queue_of_a_completed_job_keeps_the_list(core: Core) -> None:
    """A completed job is in no queue (its queue field is empty): nothing is dropped."""
    put(core, "j", "t", queue="a")
    popped(core, "a", count=1)
    core("complete", T0 + 2, "j", "w", "a", "{}")
    core.put("j", T0 + 3, "b", "throttles", '["t","ql:q:a"]')
    assert stored(core, "j") == ["t", "ql:q:a", "ql:q:b"]


def test_a_job_moved_by_put_is_not_held_by_its_old_queues_throttle(core: Core) -> None:
    core("queue.throttle.set", T0, "a", 1)
    core("throttle.set", T0, "partner-api", 5)
    core.put("x", T0, "a")
    assert popped(core, "a", count=1) == ["x"]  # queue a's throttle is full now
    for i, jid in enumerate(("j1", "j2")):
        put(core, jid, "partner-api", queue="a", now=T0 + 1 + i / 10)
    assert popped(core, "a", now=T0 + 2) == []
    for jid in ("j1", "j2"):
        core.put(jid, T0 + 3, "b", "throttles", json.dumps(stored(core, jid)))
        assert core.job(jid)["state"] == "waiting"
    assert sorted(popped(core, "b", now=T0 + 4)) == ["j1", "j2"]
    assert sorted(locks(core, "partner-api")) == ["j1", "j2"]
    for suffix in ("-locks", "-pending", "-ready"):
        assert core.conn.zcard(f"ql:th:ql:q:a{suffix}") == 0


def test_a_put_that_moves_a_job_checks_its_arguments_first(core: Core) -> None:
    put(core, "j", "t", queue="a")
    core.rejects('Put(): Arg "throttles" not JSON array: ["t",1', "put", T0 + 1, "", "b", "j",
                 "K", "{}", 0, "throttles", '["t",1')


def test_throttle_locks_of_a_queue_tid_name_the_queues_running_jobs(core: Core) -> None:
    core.put("a", T0, "q")
    core.put("b", T0, "q")
    popped(core, count=2)
    assert sorted(locks(core, "ql:q:q")) == ["a", "b"]
