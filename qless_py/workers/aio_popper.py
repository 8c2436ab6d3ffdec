"""The asyncio worker's popper: keeps the worker's slots full, sleeps smartly when idle.

One coroutine pops as many jobs as there are free slots (at most ``max_batch`` a call,
queues in the reserver's order), registers each lease at once and starts a task per
job. When a pop finds nothing it reads the queues' due times and whether a job waits
(``lookout``, on the worker's chores thread) and sleeps until the listener's notice of
work, a schedule change, the earliest due time or the safety interval, as an idle runner
thread of the threaded worker does (``Runner._idle``; the notices it counts on are the
same, and so is the news decision: ``PopMarks``).

After connection trouble (a failed pop, a run left unsettled) the first pop that works
is followed by adoption: the jobs the core lists under this worker's name that nothing
here holds are taken back and run (``AsyncWorker.adopt_round``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from typing import TYPE_CHECKING, Any

from qless_py.calls.job import JobBase, json_list
from qless_py.handlers import HandlerError, find_handler
from qless_py.reservers import make_reserver
from qless_py.workers.logs import flush_logs
from qless_py.workers.lookout import Idleness, IdleSpell, look
from qless_py.workers.outage import Outage
from qless_py.workers.runner import pop_backoff
from qless_py.workers.worker import ADOPTION_ROUNDS

if TYPE_CHECKING:
    from qless_py.workers.aio import AsyncWorker

log = logging.getLogger("qless_py.worker")


class Wake:
    """What the popper sleeps on: ``generation`` moves when there may be work to pop (or
    the worker's state changed), ``schedules`` when a due time may have moved. Loop
    thread only (the listener's thread hands its notices over with
    ``call_soon_threadsafe``)."""

    def __init__(self) -> None:
        self.generation = 0
        self.schedules = 0
        self._event = asyncio.Event()

    def notify(self) -> None:
        self.generation += 1
        self._event.set()

    def notify_schedule(self) -> None:
        self.schedules += 1
        self._event.set()

    async def wait(self, seen: int, timeout: float | None, schedules: int | None = None) -> None:
        """Sleep until a move past ``seen`` (or ``schedules``), at most ``timeout`` s."""
        if self.generation != seen or (schedules is not None and self.schedules != schedules):
            return
        self._event.clear()
        try:
            async with asyncio.timeout(timeout):
                await self._event.wait()
        except TimeoutError:
            pass


class Popper:
    """The popping coroutine of one ``AsyncWorker``."""

    def __init__(self, worker: AsyncWorker) -> None:
        self.worker = worker
        self.wake = Wake()
        self.reserver = make_reserver(worker.order,
                                      [worker.aclient.queues[n] for n in worker.queue_names])
        self.backoff = 0.0
        self.outage = Outage("pop")
        self.unsettled = False  # a run ended unsettled: adopt after the next pop
        self.adopt_due = False  # adoption's rounds ran out: look again after the next pop
        self.idleness = Idleness()
        self.done = False
        self.adopted: deque[tuple[JobBase, Any, bool]] = deque()
        self._handlers: dict[tuple[str, str], tuple[Any, bool]] = {}
        self._want_slot = False

    def slot_freed(self) -> None:
        """A run ended: wake the popper if it waits for a free slot."""
        if self._want_slot:
            self._want_slot = False
            self.wake.notify()

    async def run(self) -> None:
        worker, wake = self.worker, self.wake
        try:
            while worker.stopping is None:
                seen = wake.generation
                if worker.paused:  # no new pops; running jobs go on
                    flush_logs()
                    await wake.wait(seen, None)
                    continue
                free = worker.concurrency - worker.running
                budget = worker.budget()
                if budget is not None:  # do not pop what a recycle would give back
                    free = min(free, budget)
                if free <= 0:
                    self._want_slot = True
                    await wake.wait(seen, None)
                    continue
                if self.adopted:
                    while self.adopted and free > 0:
                        worker.start(*self.adopted.popleft())
                        free -= 1
                    continue
                raws = await self._pop(min(free, worker.max_batch))
                if raws is None:  # connection trouble: wait, then retry
                    await wake.wait(seen, self.backoff)
                    continue
                if self.backoff or self.unsettled or self.adopt_due:
                    self.outage.ok()
                    self.backoff, self.unsettled, self.adopt_due = 0.0, False, False
                    await self.adopt("adopting (their pop or settle reply was lost)")
                if raws:
                    self.idleness.missed = False
                    await self._start(raws)
                    continue
                if self.adopted:
                    continue
                if worker.burst:
                    if worker.running:  # a running job may make more work (next stage)
                        self._want_slot = True
                        await wake.wait(seen, None)
                        continue
                    return
                await self._idle(seen)
        finally:
            self.done = True
            worker._nudge()

    async def _pop(self, count: int) -> list[dict[str, Any]] | None:
        """Raw jobs from the first queue (reserver's order) that gives any; None on trouble."""
        worker = self.worker
        core = worker.aclient.core
        worker.marks.pop_started()
        mark = -1
        try:
            raws: list[dict[str, Any]] = []
            for queue in self.reserver.order():
                raws = json_list(await core.call("pop", queue.name, worker.name, count))
                if raws:
                    break
            mark = worker.mark()  # before anything else: the notices sent by now
            return raws
        except Exception as exc:  # anything (a bug, an odd reply) must not end the popper
            self.backoff = pop_backoff(exc, self.backoff, self.outage)
        finally:
            worker.marks.pop_ended(mark)
        return None

    async def _start(self, raws: list[dict[str, Any]]) -> None:
        worker = self.worker
        for raw in raws:
            handler, threaded = await self.handler(raw)
            job = worker.make_job(raw, threaded)
            if worker.leases.add(job):  # add() logs what it refuses
                worker.start(job, handler, threaded)

    async def handler(self, raw: dict[str, Any]) -> tuple[Any, bool]:
        """The job's handler (or why there is none) and whether it runs in the thread
        pool. The class is imported on the chores thread (an import reads files), once
        per class and queue."""
        key = (str(raw["klass"]), str(raw.get("queue") or ""))
        found = self._handlers.get(key)
        if found is None:
            try:
                handler = await self.worker.chore(find_handler, *key)
            except HandlerError as exc:
                return exc, False  # fails in the loop; the next job of the class tries again
            # a plain wrapper of an async def (functools.wraps) returns its coroutine:
            # awaited too, never run in a thread where nothing would await it
            awaited = inspect.iscoroutinefunction(handler) or \
                inspect.iscoroutinefunction(inspect.unwrap(handler))
            found = (handler, not awaited)
            self._handlers[key] = found
        return found

    async def adopt(self, why: str) -> None:
        """Take back jobs leased to this worker's name that nothing here knows of; a round
        whose read may have been too early for a job is run again, a few times at most."""
        leases = self.worker.leases
        for _ in range(ADOPTION_ROUNDS):
            since = leases.open_adoption()
            try:
                self.adopted.extend(await self.worker.adopt_round(since, why))
            finally:
                stale = leases.close_adoption()
            if not stale:
                return
        self.adopt_due = True

    async def _idle(self, seen: int) -> None:
        """Sleep until work may be there (``Runner._idle``'s rules, in the loop)."""
        flush_logs()
        worker, wake = self.worker, self.wake
        spell = IdleSpell(self.idleness, worker.interval)
        while True:
            schedules = wake.schedules
            timeout = spell.timeout(await worker.chore(look, worker.transport,
                                                       worker.queue_names, worker.caps))
            if timeout is None:
                return
            await wake.wait(seen, timeout, schedules)
            if wake.generation != seen or wake.schedules == schedules:
                return  # new work, or the time to pop has come
            if worker.stopping is not None or not spell.rescheduled():
                return
            await wake.wait(seen, 0.01)  # coalesce bursts of schedule changes
            if wake.generation != seen:
                return
