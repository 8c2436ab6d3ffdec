"""One database, two cores: ours and the throttle dialect's own (reqless 0.13.3's bundled
qless.lua), called in turn on the same keys.

A database written by a dialect core works with ours and the other way round: jobs put by
either run under the other's pops, locks taken by either are given back by the other, and
either reads the other's job objects. Where the dialect's data is left inconsistent (a put
that moves a running job keeps its lock), our core recovers.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.core.support import T0, Core, as_list
from tests.replies import text


def pop(core: Core, queue: str = "q", count: int = 10, now: float = T0 + 1,
        worker: str = "w") -> list[str]:
    return [j["jid"] for j in as_list(core.json("pop", now, queue, worker, count))]


def locks(core: Core, tid: str) -> list[str]:
    return sorted(text(j) for j in core.conn.zrange(f"ql:th:{tid}-locks", 0, -1))


def check_locks(core: Core, tid: str, maximum: int) -> None:
    """Never more lock holders than the maximum, and every holder is running."""
    holders = locks(core, tid)
    assert len(holders) <= maximum, holders
    for jid in holders:
        assert core.hget(f"ql:j:{jid}", "state") == "running", jid


def test_the_dialect_core_runs_on_our_servers(dialect: Core) -> None:
    assert dialect("put", T0, "w", "q", "a", "K", "{}", 0, "throttles", '["t"]') == b"a"
    assert json.loads(dialect.hget("ql:j:a", "throttles") or "") == ["t", "ql:q:q"]


def test_throttle_commands_agree(core: Core, dialect: Core) -> None:
    dialect("throttle.set", T0, "t", 3, 50)
    assert core.json("throttle.get", T0, "t") == dialect.json("throttle.get", T0, "t") \
        == {"id": "t", "maximum": 3}
    assert 0 < core("throttle.ttl", T0, "t") <= 50
    core("queue.throttle.set", T0, "q", 2)
    assert dialect.json("queue.throttle.get", T0, "q") == {"id": "ql:q:q", "maximum": 2}
    core("throttle.delete", T0, "t")
    assert dialect.json("throttle.get", T0, "t") == {"id": "t", "maximum": 0}


def test_job_objects_each_way(core: Core, dialect: Core) -> None:
    dialect("put", T0, "w", "q", "plain", "K", "{}", 0)
    dialect("put", T0, "w", "q", "named", "K", "{}", 0, "throttles", '["t"]')
    # ours shows throttles only for a job with a named throttle
    assert "throttles" not in core.job("plain")
    assert core.job("named")["throttles"] == ["t", "ql:q:q"]
    core.put("ours", T0, "q")
    core.put("ours_t", T0, "q", "throttles", '["t"]', "key", "k", "ttl", 60)
    theirs = dialect.job("ours")
    assert theirs["throttles"] == {} and theirs["state"] == "waiting"
    assert dialect.job("ours_t")["throttles"] == ["t", "ql:q:q"]


def test_a_dialect_throttled_job_is_handed_out_by_our_release(core: Core,
                                                              dialect: Core) -> None:
    dialect("throttle.set", T0, "t", 1)
    dialect("put", T0, "w", "q", "a", "K", "{}", 0, "throttles", '["t"]')
    assert pop(dialect) == ["a"]
    dialect("put", T0 + 1, "w", "q", "b", "K", "{}", 0, "throttles", '["t"]')
    assert dialect.job("b")["state"] == "throttled"
    # our complete of the dialect's running job gives its locks back and lets b in
    assert core("complete", T0 + 2, "a", "w", "q", "{}") == b"complete"
    assert locks(core, "t") == [] and core("throttle.pending", T0, "t") == []
    assert pop(core, now=T0 + 3) == ["b"]
    assert locks(core, "t") == ["b"]
    assert dialect("complete", T0 + 4, "b", "w", "q", "{}") == b"complete"
    assert locks(core, "t") == []


def test_our_jobs_run_under_the_dialects_pop(core: Core, dialect: Core) -> None:
    core("throttle.set", T0, "t", 1)
    core.put("a", T0, "q", "throttles", '["t"]')
    core.put("b", T0 + 1, "q", "throttles", '["t"]')
    assert pop(dialect) == ["a"]
    check_locks(core, "t", 1)
    assert dialect("complete", T0 + 2, "a", "w", "q", "{}") == b"complete"
    # the dialect's release handed b out; either core pops it now
    assert pop(core, now=T0 + 3) == ["b"]
    check_locks(core, "t", 1)
    core("complete", T0 + 4, "b", "w", "q", "{}")
    assert locks(core, "t") == []
    # a's admission, taken up by the dialect's pop unseen, is dropped when it is in the way
    core.put("c", T0 + 5, "q", "throttles", '["t"]')
    assert [text(j) for j in core.conn.zrange("ql:th:t-ready", 0, -1)] == ["c"]
    assert pop(core, now=T0 + 6) == ["c"]


def test_a_lock_the_dialect_leaves_behind_is_recovered(core: Core, dialect: Core) -> None:
    dialect("throttle.set", T0, "t", 1)
    dialect("put", T0, "w", "q", "a", "K", "{}", 0, "throttles", '["t"]')
    assert pop(dialect) == ["a"]
    # the dialect's put moves the running job and keeps its lock
    dialect("put", T0 + 1, "w", "q2", "a", "K", "{}", 0)
    assert locks(core, "t") == ["a"]
    core.put("b", T0 + 2, "q", "throttles", '["t"]')
    assert pop(core, now=T0 + 3) == ["b"]
    check_locks(core, "t", 1)


def test_the_queue_throttle_of_the_dialect_gates_our_pop(core: Core, dialect: Core) -> None:
    dialect("queue.throttle.set", T0, "q", 1)
    for i in range(3):
        dialect("put", T0 + i, "w", "q", f"j{i}", "K", "{}", 0)
    assert pop(dialect, count=1) == ["j0"]
    assert pop(core, now=T0 + 4) == []
    dialect("complete", T0 + 5, "j0", "w", "q", "{}")
    assert pop(core, now=T0 + 6) == ["j1"]
    core("complete", T0 + 7, "j1", "w", "q", "{}")
    assert pop(dialect, now=T0 + 8) == ["j2"]


def test_a_dialect_template_spawns_under_our_core(core: Core, dialect: Core) -> None:
    dialect("throttle.set", T0, "t", 1)
    dialect("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "throttles", '["t"]')
    assert core.json("recur.get", T0, "r")["throttles"] == ["t", "ql:q:q"]
    assert pop(core, now=T0 + 125) == ["r-1"]
    assert core.job("r-2")["state"] == "throttled"
    check_locks(core, "t", 1)


@pytest.mark.parametrize("seed", range(8))
def test_both_cores_in_turn_never_exceed_a_maximum(core: Core, dialect: Core,
                                                   seed: int) -> None:
    rng = random.Random(seed)
    cores = [core, dialect]
    rng.choice(cores)("throttle.set", T0, "t", 2)
    jobs = [f"j{i}" for i in range(12)]
    now = T0
    for jid in jobs:
        now += 0.01
        rng.choice(cores)("put", now, "w", "q", jid, "K", "{}", 0, "throttles", '["t"]')
    done: set[str] = set()
    running: list[str] = []
    for _ in range(400):
        if len(done) == len(jobs):
            break
        now += 0.01
        actor = rng.choice(cores)
        if running and rng.random() < 0.5:
            jid = running.pop(rng.randrange(len(running)))
            actor("complete", now, jid, "w", "q", "{}")
            done.add(jid)
        else:
            running += pop(actor, count=rng.randint(1, 3), now=now)
        check_locks(core, "t", 2)
    else:  # pragma: no cover - a failure path
        raise AssertionError(f"jobs left: {sorted(set(jobs) - done)}")
    assert locks(core, "t") == []
    assert core.conn.zcard("ql:q:q-throttled") == 0


def test_a_database_of_the_dialect_is_finished_by_ours(core: Core, dialect: Core) -> None:
    """Switch cores on a live database: the dialect's running, waiting and throttled jobs
    all finish under ours."""
    dialect("throttle.set", T0, "t", 2)
    for i in range(6):
        dialect("put", T0 + i / 10, "w", "q", f"j{i}", "K", "{}", 0, "throttles", '["t"]')
    running = pop(dialect, count=6)
    assert len(running) == 2
    waiting: list[Any] = []
    now = T0 + 5
    while running or waiting:
        for jid in running:
            now += 1
            core("complete", now, jid, "w", "q", "{}")
        now += 1
        running = pop(core, count=6, now=now)
        check_locks(core, "t", 2)
        waiting = as_list(core("jobs", now, "throttled", "q")) + \
            [j for j, _ in core.zset("ql:q:q-work")]
        assert running or not waiting, waiting
    assert all(core.job(f"j{i}")["state"] == "complete" for i in range(6))


# -- a job moved by put -----------------------------------------------------------------------

def test_a_job_moved_by_put_leaves_the_old_queues_full_throttle(core: Core, dialect: Core) -> None:
    """A dialect client moves a job by putting it into its new queue with its stored list:
    put through our core, the job leaves queue a's throttle (full: the dialect's pop counts
    x in its locks), and either core's pop of b gives it."""
    dialect("queue.throttle.set", T0, "a", 1)
    dialect("put", T0, "w", "a", "x", "K", "{}", 0)
    assert pop(dialect, "a", count=1) == ["x"]
    dialect("put", T0 + 1, "w", "a", "j", "K", "{}", 0, "throttles", '["partner-api"]')
    listed = dialect.hget("ql:j:j", "throttles") or ""
    assert json.loads(listed) == ["partner-api", "ql:q:a"]
    core("put", T0 + 2, "w", "b", "j", "K", "{}", 0, "throttles", listed)
    assert json.loads(core.hget("ql:j:j", "throttles") or "") == ["partner-api", "ql:q:b"]
    assert core.job("j")["state"] == "waiting"
    assert pop(dialect, "b", now=T0 + 3) == ["j"]  # it checks every tid of the list
    assert pop(dialect, "a", now=T0 + 3) == []  # a's throttle is still full
    core("put", T0 + 4, "w", "c", "j", "K", "{}", 0, "throttles",
         core.hget("ql:j:j", "throttles") or "")
    assert pop(core, "c", now=T0 + 5) == ["j"]
    assert locks(core, "partner-api") == ["j"]


# The stored list, sent again the way the dialect's clients move a job.
STORED = object()
PUT_A = ("put", "w", "a", "j", "K", "{}", 0, "throttles", '["t"]')


def put_b(throttles: Any = STORED, queue: str = "b") -> tuple[Any, ...]:
    return ("put", "w", queue, "j", "K", "{}", 0, "throttles", throttles)


POP_A = ("pop", "a", "w", 1)
# Calls that end with a put of job j (no put of j before "new job"); the interop cases avoid
# the lists where the cores differ on purpose (a named tid twice, the new queue's tid named):
# docs/compatibility.md.
PUT_CALLS: dict[str, list[tuple[Any, ...]]] = {
    "new job": [put_b('["t","ql:q:a"]')],
    "move": [PUT_A, put_b()],
    "same queue": [PUT_A, put_b(queue="a")],
    "list without the old tid": [PUT_A, put_b('["t"]')],
    "old tid first": [PUT_A, put_b('["ql:q:a","t"]')],
    "old tid alone": [PUT_A, put_b('["ql:q:a"]')],
    "old tid twice apart": [PUT_A, put_b('["ql:q:a","t","ql:q:a"]')],
    "another queue's tid": [PUT_A, put_b('["t","ql:q:c","ql:q:a"]')],
    "no throttles given": [PUT_A, ("put", "w", "b", "j", "K", "{}", 0)],
    "running job": [PUT_A, POP_A, put_b()],
    "failed job": [PUT_A, POP_A, ("fail", "j", "w", "g", "m"), put_b()],
    "completed job": [PUT_A, POP_A, ("complete", "j", "w", "a", "{}"), put_b('["t","ql:q:a"]')],
    "two moves": [PUT_A, put_b(), put_b(queue="c")],
}


def listed(core: Core) -> list[str]:
    """Job j's stored throttle list as the dialect has it (ours writes no field for a job
    that names no throttle besides its queue's own)."""
    text = core.hget("ql:j:j", "throttles")
    if text is None:
        return [f"ql:q:{core.hget('ql:j:j', 'queue')}"]
    result: list[str] = json.loads(text)
    return result


def stored_after(core: Core, calls: list[tuple[Any, ...]]) -> list[str]:
    for i, (command, *args) in enumerate(calls):
        args = [json.dumps(listed(core)) if a is STORED else a for a in args]
        core(command, T0 + i, *args)
    return listed(core)


@pytest.mark.parametrize("case", sorted(PUT_CALLS))
def test_both_cores_store_the_same_list_when_put_moves_a_job(core: Core, dialect: Core,
                                                            case: str) -> None:
    theirs = stored_after(dialect, PUT_CALLS[case])
    core.conn.flushdb()
    assert stored_after(core, PUT_CALLS[case]) == theirs
