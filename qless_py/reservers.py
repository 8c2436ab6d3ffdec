"""Queue order for workers: which queue a worker pops from next.

A reserver is a small strategy object over a list of queues. It only decides the order;
popping is the queue's business, so the strategies are testable with any object that has
a ``name`` and a ``pop(count, worker=...)`` method.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol


class PoppableQueue(Protocol):
    """What a reserver needs from a queue."""

    @property
    def name(self) -> str: ...

    def pop(self, count: int, *, worker: str | None = None) -> Any: ...


ORDERS = ("ordered", "round-robin", "shuffled")


class Reserver:
    """Base class: pop up to ``count`` jobs from the first queue, in this order, that has any."""

    def __init__(self, queues: Sequence[PoppableQueue]) -> None:
        if not queues:
            raise ValueError("a reserver needs at least one queue")
        self.queues = list(queues)

    @property
    def names(self) -> list[str]:
        return [queue.name for queue in self.queues]

    def order(self) -> list[PoppableQueue]:
        """The queues to try for the next reservation, first choice first."""
        raise NotImplementedError

    def reserve(self, count: int = 1, *, worker: str | None = None) -> list[Any]:
        """Jobs from the first queue (in this strategy's order) that gives any; [] if none."""
        for queue in self.order():
            jobs = queue.pop(count, worker=worker)
            if jobs:
                return list(jobs)
        return []


class Ordered(Reserver):
    """Always the first queue that has work: later queues only run when earlier ones are empty."""

    def order(self) -> list[PoppableQueue]:
        return self.queues


class RoundRobin(Reserver):
    """Each reservation starts one queue further along, so every queue gets its turn."""

    def __init__(self, queues: Sequence[PoppableQueue]) -> None:
        super().__init__(queues)
        self._next = 0

    def order(self) -> list[PoppableQueue]:
        start = self._next
        self._next = (start + 1) % len(self.queues)
        return self.queues[start:] + self.queues[:start]


class ShuffledRoundRobin(RoundRobin):
    """Round-robin over an order that is reshuffled after every full turn.

    Workers started at the same moment then do not all favour the same queue.
    """

    def __init__(self, queues: Sequence[PoppableQueue],
                 rng: random.Random | None = None) -> None:
        super().__init__(queues)
        self._rng = rng or random.Random()
        self._rng.shuffle(self.queues)

    def order(self) -> list[PoppableQueue]:
        if self._next == 0 and len(self.queues) > 1:
            self._rng.shuffle(self.queues)
        return super().order()


def make_reserver(order: str, queues: Sequence[PoppableQueue]) -> Reserver:
    """The reserver for an ``--order`` value: ordered, round-robin or shuffled."""
    if order == "ordered":
        return Ordered(queues)
    if order == "round-robin":
        return RoundRobin(queues)
    if order == "shuffled":
        return ShuffledRoundRobin(queues)
    raise ValueError(f"unknown queue order {order!r} (choose from {', '.join(ORDERS)})")
