"""queues, length, jobs, workers, worker.deregister, queue.forget (3.18-3.22, 3.31, 3.32)."""

from __future__ import annotations

import pytest

from tests.core.support import T0, Core

COUNT_KEYS = {
    "name",
    "waiting",
    "stalled",
    "running",
    "scheduled",
    "depends",
    "recurring",
    "paused",
}


def test_queue_counts(populated: Core) -> None:
    q = populated.json("queues", T0 + 10, "q")
    assert set(q) == COUNT_KEYS
    assert q == {
        "name": "q",
        "waiting": 2,
        "stalled": 0,
        "running": 0,
        "scheduled": 1,
        "depends": 1,
        "recurring": 1,
        "paused": False,
    }
    other = populated.json("queues", T0 + 10, "other")
    # run1, run2 running; stall1 timed out (in work); fail1 failed; done1 complete
    assert other == {
        "name": "other",
        "waiting": 1,
        "stalled": 0,
        "running": 2,
        "scheduled": 0,
        "depends": 0,
        "recurring": 0,
        "paused": False,
    }
    # other-heartbeat was set after the pops; locks expire at T0+61
    later = populated.json("queues", T0 + 100, "other")
    assert later["stalled"] == 2 and later["running"] == 0


def test_queue_counts_unknown_queue_and_paused(core: Core) -> None:
    core("pause", T0, "ghost")
    assert core.json("queues", T0, "ghost") == {
        "name": "ghost",
        "waiting": 0,
        "stalled": 0,
        "running": 0,
        "scheduled": 0,
        "depends": 0,
        "recurring": 0,
        "paused": True,
    }


def test_queues_promotes_due_jobs(core: Core) -> None:
    core.put("a", T0, "q", delay=5)
    assert core.json("queues", T0 + 6, "q")["waiting"] == 1
    assert core.hget("ql:j:a", "state") == "waiting"


def test_all_queues_in_first_seen_order(core: Core) -> None:
    assert core("queues", T0) == b"{}"
    core.put("a", T0, "zeta")
    core.put("b", T0 + 1, "alpha")
    got = core.json("queues", T0 + 2)
    assert [q["name"] for q in got] == ["zeta", "alpha"]
    assert all(set(q) == COUNT_KEYS for q in got)


def test_length(populated: Core) -> None:
    assert populated("length", T0 + 10, "q") == 3  # 2 waiting + 1 scheduled
    assert populated("length", T0 + 10, "other") == 3  # 2 locks + stall1 in work
    assert populated("length", T0, "nothing") == 0
    populated.rejects("Queue(): no queue name provided", "length", T0)


def test_queue_forget(core: Core) -> None:
    core.put("a", T0, "q")
    core.put("b", T0, "r")
    assert core("queue.forget", T0, "q", "nope") is None
    assert [q for q, _ in core.zset("ql:queues")] == ["r"]
    assert [j for j, _ in core.zset("ql:q:q-work")] == ["a"]  # nothing else removed
    core.put("c", T0 + 9, "q")
    assert core.zset("ql:queues") == [("r", T0), ("q", T0 + 9)]


def setup_jobs(core: Core) -> None:
    for i in range(4):
        core.put(f"r{i}", T0 + i, "q")
    core.pop("q", "w", 4, now=T0 + 10)  # locks at T0+70
    core("heartbeat", T0 + 20, "r3", "w")  # r3 lock at T0+80
    core("heartbeat", T0 + 15, "r2", "w")  # r2 lock at T0+75


def test_jobs_running_and_stalled(core: Core) -> None:
    setup_jobs(core)
    assert core("jobs", T0 + 30, "running", "q") == [b"r0", b"r1", b"r2", b"r3"]
    assert core("jobs", T0 + 30, "running", "q", 1, 2) == [b"r1", b"r2"]
    assert core("jobs", T0 + 30, "running", "q", 0, 0) == []
    assert core("jobs", T0 + 30, "running", "q", 1, -1) == [b"r1", b"r2", b"r3"]
    assert core("jobs", T0 + 30, "stalled", "q") == []
    assert core("jobs", T0 + 75, "stalled", "q") == [b"r0", b"r1", b"r2"]
    assert core("jobs", T0 + 75, "running", "q") == [b"r2", b"r3"]  # r2 expires exactly now
    assert core("jobs", T0 + 75, "stalled", "q", 0, 0) == []


def test_jobs_scheduled_depends_index_range(core: Core) -> None:
    for i in range(3):
        core.put(f"s{i}", T0, "q", delay=100 - i)
    core.put("d0", T0 + 1, "q", "depends", '["s0"]')
    core.put("d1", T0 + 2, "q", "depends", '["s0"]')
    assert core("jobs", T0, "scheduled", "q") == [b"s2", b"s1", b"s0"]
    assert core("jobs", T0, "scheduled", "q", 0, 0) == [b"s2", b"s1", b"s0"]
    assert core("jobs", T0, "scheduled", "q", 1, 1) == [b"s1"]
    assert core("jobs", T0, "depends", "q") == [b"d0", b"d1"]
    assert core("jobs", T0, "depends", "q", 0, 0) == [b"d0", b"d1"]
    # jobs scheduled promotes everything due
    assert core("jobs", T0 + 99, "scheduled", "q") == [b"s0"]
    assert core.hget("ql:j:s2", "state") == "waiting"


def test_jobs_complete(core: Core) -> None:
    for i in range(3):
        core.put(f"c{i}", T0)
    core.pop("q", "w", 3, now=T0)
    for i in range(3):
        core("complete", T0 + i, f"c{i}", "w", "q", "{}")
    assert core("jobs", T0, "complete") == [b"c2", b"c1", b"c0"]
    assert core("jobs", T0, "complete", 0, 0) == [b"c2", b"c1", b"c0"]
    assert core("jobs", T0, "complete", 1, 1) == [b"c1"]


def test_jobs_recurring(core: Core) -> None:
    core("recur", T0, "q", "r1", "K", "{}", "interval", 60, 100)
    core("recur", T0, "q", "r2", "K", "{}", "interval", 60, 50)
    assert core("jobs", T0, "recurring", "q") == [b"r2", b"r1"]
    assert core("jobs", T0, "recurring", "q", 0, 0) == []


def test_jobs_errors(populated: Core) -> None:
    c = populated
    c.rejects('Jobs(): Arg "state" missing', "jobs", T0)
    c.rejects('Jobs(): Arg "queue" missing', "jobs", T0, "running")
    c.rejects('Jobs(): Arg "offset" not a number: x', "jobs", T0, "running", "q", "x")
    c.rejects('Jobs(): Arg "count" not a number: y', "jobs", T0, "running", "q", 0, "y")
    c.rejects('Jobs(): Arg "offset" not a number: x', "jobs", T0, "complete", "x")
    c.rejects('Jobs(): Unknown type "waiting"', "jobs", T0, "waiting", "q")


def test_workers_listing(core: Core) -> None:
    assert core("workers", T0) == b"{}"
    core.put("a", T0)
    core.put("b", T0)
    core.pop("q", "w1", 1, now=T0)
    core.pop("q", "w2", 1, now=T0 + 5)
    core("pop", T0 + 6, "q", "w3", 1)
    got = core.json("workers", T0 + 10)
    assert got == [
        {"name": "w3", "jobs": 0, "stalled": 0},
        {"name": "w2", "jobs": 1, "stalled": 0},
        {"name": "w1", "jobs": 1, "stalled": 0},
    ]
    got = core.json("workers", T0 + 62)
    assert {w["name"]: (w["jobs"], w["stalled"]) for w in got} == {
        "w1": (0, 1),
        "w2": (1, 0),
        "w3": (0, 0),
    }


def test_worker_detail(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0 + 1)
    core.pop("q", "w1", 2, now=T0)
    core("heartbeat", T0 + 30, "b", "w1")
    assert core.json("workers", T0 + 10, "w1") == {"jobs": ["b", "a"], "stalled": {}}
    assert core.json("workers", T0 + 65, "w1") == {"jobs": ["b"], "stalled": ["a"]}
    assert core.json("workers", T0, "nobody") == {"jobs": {}, "stalled": {}}


def test_workers_purge_old(core: Core) -> None:
    core.put("a", T0)
    core.pop("q", "old", 1, now=T0)
    core("pop", T0 + 50000, "q", "young", 1)
    core("workers", T0 + 86400)
    assert [w for w, _ in core.zset("ql:workers")] == ["young"]
    assert core.conn.exists("ql:w:old:jobs") == 0


def test_workers_purge_respects_config(core: Core) -> None:
    core("config.set", T0, "max-worker-age", 100)
    core("pop", T0, "q", "w", 1)
    core("workers", T0 + 99)
    assert [w for w, _ in core.zset("ql:workers")] == ["w"]
    core("workers", T0 + 100)
    assert core.zset("ql:workers") == []


def test_worker_deregister(core: Core) -> None:
    core.put("a", T0)
    core.pop("q", "w1", 1, now=T0)
    core("pop", T0, "q", "w2", 1)
    assert core("worker.deregister", T0, "w1", "ghost") is None
    assert [w for w, _ in core.zset("ql:workers")] == ["w2"]
    assert [j for j, _ in core.zset("ql:w:w1:jobs")] == ["a"]


@pytest.mark.parametrize("state", ["running", "stalled", "scheduled", "depends", "recurring"])
def test_jobs_empty_is_empty_array(core: Core, state: str) -> None:
    assert core("jobs", T0, state, "q") == []


def test_worker_detail_orders_stalled_highest_first(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0 + 1)
    core.pop("q", "w1", 2, now=T0)
    core("heartbeat", T0 + 5, "b", "w1")  # b expires at T0+65, a at T0+60
    assert core.json("workers", T0 + 100, "w1") == {"jobs": {}, "stalled": ["b", "a"]}


def test_worker_detail_also_purges(core: Core) -> None:
    core.put("a", T0)
    core.pop("q", "old", 1, now=T0)
    assert core.json("workers", T0 + 86400, "old") == {"jobs": {}, "stalled": {}}
    assert core.zset("ql:workers") == [] and core.conn.exists("ql:w:old:jobs") == 0


def test_all_queues_counts_and_paused(populated: Core) -> None:
    got = {q["name"]: q for q in populated.json("queues", T0 + 10)}
    assert set(got) == {"q", "other"}  # paused-q was only paused, never registered
    assert got["q"]["waiting"] == 2 and got["q"]["paused"] is False
    populated("pause", T0, "other")
    got = {q["name"]: q for q in populated.json("queues", T0 + 10)}
    assert got["other"]["paused"] is True and got["q"]["paused"] is False
