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
