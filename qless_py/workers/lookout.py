"""What a worker reads about its queues without popping: when they next need a pop, and
whether one may have a job to pop now.

Both are plain reads (``qless_py.workers.reads.look``), pipelined into one round trip: the
lowest score of each queue's scheduled, lock and recurring sets (a job becoming due, a lock
running out, a recurring slot), and each queue's waiting count, paused flag and, for a
queue with a concurrency cap, its unexpired locks. They cost the server far less than an
empty pop, which runs the core and writes the worker's last-seen time.

``IdleSpell`` turns what a look found into how long an idle runner (or the asyncio
worker's popper) sleeps before it pops again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

import qless_py.workers.reads as reads
from qless_py import clock
from qless_py.connect.resp import ConnectionFailed, Transport, UnexpectedReply
from qless_py.keys import DEFAULT, Keys
from qless_py.workers.reads import Look

__all__ = ["IdleSpell", "Idleness", "Look", "look"]

log = logging.getLogger("qless_py.worker")


def look(transport: Transport, queues: Sequence[str], caps: Mapping[str, float], *,
         due: bool = True, names: Keys = DEFAULT) -> Look:
    """Read the due times (unless ``due`` is False) and whether a job waits that a pop
    could take, on the calling thread's connection, in one round trip (``reads.look``)."""
    try:
        return reads.send(transport, reads.look(queues, caps, due=due, names=names))
    except (ConnectionFailed, OSError) as exc:  # the pops that follow say it, once
        log.debug("could not read the queues: %s", exc)
    except UnexpectedReply as exc:
        log.warning("could not read the queues: %s", exc)
    return Look(None, True)  # unknown: pop, and the interval is the safety net


class Idleness:
    """What an idle runner carries from one idle spell to the next."""

    def __init__(self) -> None:
        self.missed = False  # a job waited after a pop that found nothing: popped again
        self.streak = 0  # due times in a row that had nothing to pop


class IdleSpell:
    """One idle wait of at most ``interval`` seconds: each look says whether to pop now
    or how long to sleep; a schedule changed while asleep makes the caller look again."""

    def __init__(self, idleness: Idleness, interval: float) -> None:
        self.idleness, self.interval = idleness, interval
        self.deadline = time.monotonic() + interval
        self.due: float | None = None  # the due time the last look went by
        self.known: float | None = None  # the due time read before the schedule changed
        self.changed = False
        self.awaited: float | None = None  # the due time this spell slept until

    def timeout(self, seen: Look) -> float | None:
        """Seconds to sleep after ``seen``, or None: pop now."""
        idle = self.idleness
        due, timeout = seen.due, self.deadline - time.monotonic()
        if seen.poppable:
            if not idle.missed:  # another worker took the job first, or one came since
                idle.missed = True
                return None
            due = clock.now()  # again: something the read counts that no pop takes
        else:
            idle.missed = False
        self.due = due
        if due is not None:
            wait = due - clock.now()
            if wait <= 0 and ((self.changed and due != self.known) or due == self.awaited):
                return None  # it is due now: pop
            if wait <= 0:
                # due but nothing to pop (paused queue, concurrency limit, grace period):
                # back off instead of spinning
                idle.streak += 1
                wait = min(0.01 * 2 ** min(idle.streak, 10), self.interval)
            else:
                idle.streak = 0
                self.awaited = due
                wait += 0.001  # land just after the due time, not just before it
            timeout = min(timeout, wait)
        return max(0.0, timeout)

    def rescheduled(self) -> bool:
        """The schedule changed during the sleep: True to look again, False when the
        spell's interval is over (pop)."""
        if time.monotonic() >= self.deadline:
            return False
        self.known, self.changed = self.due, True
        return True
