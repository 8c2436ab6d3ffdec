"""How many jobs a pop takes, and what a failed pop does: shared by the threaded mode's
runner threads and the asyncio mode's popper. A worker serving several namespaces rests
a namespace whose pops fail (``Rest``) and pops from the others meanwhile."""

from __future__ import annotations

import logging
import time
from types import TracebackType

from qless_py import QlessConnectionError, QlessError
from qless_py.workers.outage import Outage
from qless_py.workers.waker import MarkSet, PopMarks

log = logging.getLogger("qless_py.worker")

BATCH_WINDOW = 0.02  # pop a batch only if it is expected to run within this many seconds


def pop_size(avg: float, max_batch: int, budget: int | None) -> int:
    """Jobs a runner's next pop takes: a batch only when jobs are short (``avg`` seconds
    each, smoothed), never more than a recycle leaves room for (``budget``), at least 1."""
    count = 1 if avg > BATCH_WINDOW else max(
        1, min(max_batch, int(BATCH_WINDOW / max(avg, 1e-5))))
    if budget is not None:  # do not pop what a recycle would have to give back
        count = max(1, min(count, budget))
    return count


class PopAttempt:
    """One pop, bracketed for the news decision (``PopMarks.pop_started``/``pop_ended``):
    the body sets ``mark`` as soon as the reply is in; a failure (anything: a bug or an odd
    reply must not end the runner or the popper) is swallowed, and ``backoff`` is the
    wait before the next pop (``pop_backoff``)."""

    __slots__ = ("backoff", "mark", "marks", "outage")

    def __init__(self, marks: PopMarks | MarkSet, outage: Outage, backoff: float) -> None:
        self.marks, self.outage, self.backoff = marks, outage, backoff
        self.mark = -1

    def __enter__(self) -> PopAttempt:
        self.marks.pop_started()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        self.marks.pop_ended(self.mark)
        if isinstance(exc, Exception):
            self.backoff = pop_backoff(exc, self.backoff, self.outage)
            return True
        return False


def pop_backoff(exc: Exception, backoff: float, outage: Outage) -> float:
    """The wait before the next pop after ``exc``, logged: a
    server that cannot answer (unreachable, loading, busy, failing over, out of memory)
    from 0.1 s, said once per outage through ``outage``; a refusal or anything unexpected
    from 0.5 s; doubling up to 5 s."""
    if isinstance(exc, QlessConnectionError):
        backoff = min(max(backoff * 2, 0.1), 5.0)
        outage.failed(exc, "retrying the pop with backoff (0.1s doubling to 5s)")
    elif isinstance(exc, QlessError):
        backoff = min(max(backoff * 2, 0.5), 5.0)
        log.error("pop refused (%s); retrying in %.1fs", exc, backoff)
    else:
        backoff = min(max(backoff * 2, 0.5), 5.0)
        log.error("pop failed unexpectedly; retrying in %.1fs", backoff, exc_info=exc)
    return backoff


class Rest:
    """The pops of one namespace of a worker serving several: after a failure (said as
    ``pop_backoff`` says it, once per outage, through the namespace's ``Outage``) its
    queues are skipped until its backoff ends, so that the other namespaces' pops go on
    (a namespace whose master is failing over, say). Shared by a process's runners."""

    def __init__(self, namespace: str | None) -> None:
        self.outage = Outage(f"pop in namespace {namespace}")
        self.backoff = 0.0
        self.until = 0.0  # monotonic time its pops may be tried again

    @property
    def resting(self) -> bool:
        return self.backoff > 0 and time.monotonic() < self.until

    def failed(self, exc: Exception) -> None:
        self.backoff = pop_backoff(exc, self.backoff, self.outage)
        self.until = time.monotonic() + self.backoff

    def ok(self) -> bool:
        """A pop worked: True when it ends a rest (adoption should then look at the
        namespace: a pop whose reply was lost leaves jobs leased to this worker)."""
        if not self.backoff:  # the common case
            return False
        self.backoff = 0.0
        self.outage.ok()
        return True
