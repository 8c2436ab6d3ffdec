"""The asyncio mode's popper: keeps the worker's slots full, sleeps smartly when idle.

One coroutine pops as many jobs as there are free slots (at most ``max_batch`` a call,
queues in the reserver's order) and hands them to the worker, which registers each lease
at once and starts a task per job. When a pop finds nothing it reads the queues' due times
and whether a job waits (``lookout``, on the worker's chores thread) and sleeps until the
listener's notice of work, a schedule change, the earliest due time or the safety
interval, by the rules an idle runner thread of the threaded mode follows (``IdleSpell``;
the notices it counts on are the same, and so is the news decision: ``PopMarks``).

After connection trouble (a failed pop, a run left unsettled) the first pop that works
is followed by adoption: the jobs the core lists under this worker's name that nothing
here holds are taken back and run. The popper sees its worker through ``Host``.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from qless_py.calls.base import Call
from qless_py.calls.worker import RawJob, pop_call
from qless_py.reservers import Reserver
from qless_py.workers.base import State
from qless_py.workers.logs import flush_logs
from qless_py.workers.lookout import Idleness, IdleSpell, Look
from qless_py.workers.outage import Outage
from qless_py.workers.pops import PopAttempt
from qless_py.workers.waker import MarkSet, PopMarks


class Host(State, Protocol):
    """What the popper asks of the worker it runs in (besides its state)."""

    @property
    def burst(self) -> bool: ...

    @property
    def interval(self) -> float: ...

    @property
    def max_batch(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def running(self) -> int:
        """Jobs running now."""

    def free(self) -> int:
        """Slots free for new jobs (a recycle's budget counted)."""

    def start_adopted(self, free: int) -> bool:
        """Start up to ``free`` of the jobs adoption took; False if it took none."""

    async def take(self, raws: list[RawJob], part: Any) -> None:
        """Start a run of each job popped in ``part``'s namespace (None: the only one)."""

    async def adopt(self, why: str) -> None:
        """Take back jobs leased to this worker's name that nothing here knows of."""

    async def look(self) -> Look:
        """The queues' earliest due time and whether a job waits (one round trip)."""

    def popper_done(self) -> None:
        """The popper has returned (drained, or stopping)."""


class Core(Protocol):
    """What the popper pops through: the worker's async core."""

    async def send(self, call: Call[list[RawJob]]) -> list[RawJob]: ...


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

    def __init__(self, host: Host, reserver: Reserver, core: Core, marks: PopMarks | MarkSet,
                 *, several: bool = False) -> None:
        self.host, self.reserver, self.core, self.marks = host, reserver, core, marks
        # several namespaces: each queue pops through its own namespace's core
        self.several = several
        self.wake = Wake()
        self.backoff = 0.0
        self.outage = Outage("pop")
        self.unsettled = False  # a run ended unsettled: adopt after the next pop
        self.idleness = Idleness()
        self.done = False
        self._want_slot = False
        self._ended = 0  # runs ended so far (a burst pops again after one ends)

    def slot_freed(self) -> None:
        """A run ended: wake the popper if it waits for a free slot."""
        self._ended += 1
        if self._want_slot:
            self._want_slot = False
            self.wake.notify()

    async def run(self) -> None:
        host, wake = self.host, self.wake
        try:
            while host.stopping is None:
                seen, ended = wake.generation, self._ended
                if host.paused:  # no new pops; running jobs go on
                    flush_logs()
                    await wake.wait(seen, None)
                    continue
                free = host.free()
                if free <= 0:
                    self._want_slot = True
                    await wake.wait(seen, None)
                    continue
                if host.start_adopted(free):
                    continue
                popped = await self._pop(min(free, host.max_batch))
                if popped is None:  # connection trouble: wait, then retry
                    await wake.wait(seen, self.backoff)
                    continue
                raws, part = popped
                if self.backoff or self.unsettled or host.adoption_due:
                    self.outage.ok()
                    self.backoff, self.unsettled = 0.0, False
                    await host.adopt("adopting (their pop or settle reply was lost)")
                if raws:
                    self.idleness.missed = False
                    await host.take(raws, part)
                    continue
                if host.start_adopted(0):
                    continue
                if host.burst:
                    if host.running:  # a running job may make more work (next stage)
                        self._want_slot = True
                        await wake.wait(seen, None)
                        continue
                    if self._ended != ended:  # one ended during the pop: its next stage
                        continue  # may have landed after the pop looked
                    return
                await self._idle(seen)
        finally:
            self.done = True
            host.popper_done()

    async def _pop(self, count: int) -> tuple[list[RawJob], Any] | None:
        """Raw jobs from the first queue (reserver's order) that gives any, and its
        namespace's part (None with one namespace); None on trouble."""
        host = self.host
        attempt = PopAttempt(self.marks, self.outage, self.backoff)
        with attempt:
            popped: tuple[list[RawJob], Any] = [], None
            if self.several:
                popped = await self._pop_across(count)
            else:
                for queue in self.reserver.order():
                    raws = await self.core.send(pop_call(queue.name, host.name, count))
                    if raws:
                        popped = raws, None
                        break
            attempt.mark = host.mark()  # before anything else: the notices sent by now
            return popped
        self.backoff = attempt.backoff
        return None

    async def _pop_across(self, count: int) -> tuple[list[RawJob], Any]:
        """Several namespaces: the threaded runner's ``_pop_across``, through each
        namespace's own core."""
        for queue in self.reserver.order():
            part = queue.part  # type: ignore[attr-defined]  # (a PartQueue)
            if part.rest.resting:
                continue
            try:
                raws = await part.core.send(pop_call(queue.name, self.host.name, count))
            except Exception as exc:
                part.rest.failed(exc)
                continue
            if part.rest.ok():
                self.unsettled = True  # adoption looks at what its lost replies left
            if raws:
                return raws, part
        return [], None

    async def _idle(self, seen: int) -> None:
        """Sleep until work may be there (the threaded runner's rules, in the loop)."""
        flush_logs()
        host, wake = self.host, self.wake
        host.idling.enter()
        try:
            if not host.tracking_ready():  # as the threaded runner: wait for the
                await wake.wait(seen, host.interval)  # subscription, then pop again
                return
            spell = IdleSpell(self.idleness, host.interval)
            while True:
                schedules = wake.schedules
                timeout = spell.timeout(await host.look())
                if timeout is None:
                    return
                await wake.wait(seen, timeout, schedules)
                if wake.generation != seen or wake.schedules == schedules:
                    return  # new work, or the time to pop has come
                if host.stopping is not None or not spell.rescheduled():
                    return
                await wake.wait(seen, 0.01)  # coalesce bursts of schedule changes
                if wake.generation != seen:
                    return
        finally:
            host.idling.leave()
