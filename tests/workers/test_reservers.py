"""Queue order strategies, without Redis: fake queues that pop from lists."""

from __future__ import annotations

import random

import pytest

from qless_py.reservers import (
    Ordered,
    Reserver,
    RoundRobin,
    ShuffledRoundRobin,
    make_reserver,
)


class FakeQueue:
    def __init__(self, name: str, jobs: list[str]) -> None:
        self.name = name
        self.jobs = list(jobs)
        self.pops: list[tuple[int, str | None]] = []

    def pop(self, count: int, *, worker: str | None = None) -> list[str]:
        self.pops.append((count, worker))
        taken, self.jobs = self.jobs[:count], self.jobs[count:]
        return taken


def queues() -> list[FakeQueue]:
    return [FakeQueue("a", ["a1", "a2", "a3"]), FakeQueue("b", ["b1", "b2"]),
            FakeQueue("c", ["c1"])]


def drain(reserver: Reserver, count: int = 1) -> list[str]:
    out: list[str] = []
    while jobs := reserver.reserve(count):
        out.extend(jobs)
    return out


def test_ordered_always_takes_the_first_queue_with_work() -> None:
    assert drain(Ordered(queues())) == ["a1", "a2", "a3", "b1", "b2", "c1"]


def test_round_robin_rotates_through_the_queues() -> None:
    assert drain(RoundRobin(queues())) == ["a1", "b1", "c1", "a2", "b2", "a3"]


def test_round_robin_skips_empty_queues_without_losing_its_turn() -> None:
    qs = [FakeQueue("a", []), FakeQueue("b", ["b1", "b2"]), FakeQueue("c", ["c1"])]
    assert drain(RoundRobin(qs)) == ["b1", "b2", "c1"]


def test_shuffled_round_robin_visits_every_queue_each_turn_in_varying_order() -> None:
    qs = [FakeQueue(n, [f"{n}{i}" for i in range(20)]) for n in "abcd"]
    reserver = ShuffledRoundRobin(qs, rng=random.Random(7))
    taken = [reserver.reserve(1)[0] for _ in range(40)]
    turns = [taken[i:i + 4] for i in range(0, 40, 4)]
    for turn in turns:  # every queue exactly once per full turn
        assert sorted(j[0] for j in turn) == list("abcd")
    orders = {"".join(j[0] for j in turn) for turn in turns}
    assert len(orders) > 1  # reshuffled between turns


def test_batches_come_from_one_queue_and_pass_the_worker_name() -> None:
    qs = queues()
    reserver = Ordered(qs)
    assert reserver.reserve(5, worker="w1") == ["a1", "a2", "a3"]
    assert qs[0].pops == [(5, "w1")]
    assert reserver.reserve(5, worker="w1") == ["b1", "b2"]


def test_nothing_anywhere_gives_an_empty_list() -> None:
    assert RoundRobin([FakeQueue("a", [])]).reserve(3) == []


def test_make_reserver_by_name_and_bad_input() -> None:
    assert isinstance(make_reserver("ordered", queues()), Ordered)
    assert isinstance(make_reserver("round-robin", queues()), RoundRobin)
    assert isinstance(make_reserver("shuffled", queues()), ShuffledRoundRobin)
    with pytest.raises(ValueError, match="unknown queue order 'fifo'"):
        make_reserver("fifo", queues())
    with pytest.raises(ValueError, match="at least one queue"):
        Ordered([])


def test_tracking_prefixes_never_overlap() -> None:
    from qless_py.workers.listener import _disjoint

    assert _disjoint(["ql:q:a-scheduled", "ql:q:a-scheduled-scheduled", "ql:q:b-recur",
                      "ql:q:a-scheduled"]) == ["ql:q:b-recur", "ql:q:a-scheduled"]
