"""A runner thread's loop: reserve, run, settle; sleep until work may be there.

Runners pop a small batch when jobs are short, register every popped job with the lease
registry, and, when idle, wait for the listener's notice of new work, a schedule change or
the earliest due time of their queues (one pipelined read, ``lookout``), capped by the
worker's safety interval.

A runner sees its worker through ``Host``: the worker's state (stopping, paused), the jobs
adoption took, its job budget and outcome count, adoption, and its reads of the queues.
Everything else it is handed: its settings, the waker, the lease registry, its reserver
and its work directory.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Protocol

from qless_py.client.job import Job
from qless_py.reservers import Reserver
from qless_py.workers.base import State
from qless_py.workers.jobrun import Outcome, run_job
from qless_py.workers.leases import Leases
from qless_py.workers.logs import flush_logs
from qless_py.workers.lookout import Idleness, IdleSpell, Look
from qless_py.workers.outage import Outage
from qless_py.workers.pops import PopAttempt, pop_size
from qless_py.workers.waker import MarkSet, Waker
from qless_py.workers.workdir import Workdir

log = logging.getLogger("qless_py.worker")


class Host(State, Protocol):
    """What a runner asks of the worker it runs in (besides its state)."""

    def adopted(self) -> Job | None:
        """A job adoption took (leased to this worker, known to no run), to run next."""

    def budget(self) -> int | None:
        """How many more jobs may be popped before the worker recycles (None: no limit)."""

    def count(self, outcome: Outcome) -> None:
        """A run ended with ``outcome``."""

    def may_start(self, job: Job) -> bool:
        """Whether a run may start ``job`` now (then it is marked running)."""

    def run_ended(self, job: Job, outcome: Outcome) -> bool:
        """Release the run's entry; True if adoption should look at the core again."""

    def adopt_orphans(self) -> None:
        """Take back jobs leased to this worker's name that nothing here knows of."""

    def look(self) -> Look:
        """The queues' earliest due time and whether a job waits (one round trip)."""

    def leases_of(self, job: Job) -> Leases[Job]:
        """The lease registry of ``job``'s namespace (a worker serving several)."""


@dataclass(frozen=True)
class RunnerSettings:
    worker: str  # the name pops lease jobs to
    interval: float  # seconds an idle runner sleeps at most
    max_batch: int  # jobs one pop may take
    burst: bool  # return once nothing can be popped
    relay: bool  # other runners share the process: pass the baton on when there is work


class Runner:
    """One runner thread's loop: reserve, run, repeat; sleep smartly when idle."""

    def __init__(self, host: Host, settings: RunnerSettings, waker: Waker, leases: Leases[Job],
                 reserver: Reserver, workdir: Workdir, outage: Outage,
                 marks: MarkSet | None = None) -> None:
        self.host, self.settings = host, settings
        self.outage = outage  # the worker's pops' outage, shared by its runners
        self.waker, self.leases = waker, leases
        # A worker serving several namespaces: its pops mark every listener's stream, and
        # a popped job's lease goes to its namespace's registry (else: waker, leases).
        self.marks: Waker | MarkSet = waker if marks is None else marks
        self.several = marks is not None
        self.reserver = reserver
        self.workdir = workdir
        self.buffer: deque[Job] = deque()
        self.avg = 1.0  # seconds per job, smoothed; starts pessimistic: no batches
        self.backoff = 0.0
        self.unsettled = False
        self.idleness = Idleness()

    def loop(self) -> None:
        host, waker = self.host, self.waker
        while host.stopping is None:
            if host.paused:  # no new pops; jobs this thread already popped still run
                if self.buffer:
                    self._run(self.buffer.popleft())
                    continue
                flush_logs()
                seen = waker.generation
                if host.paused and host.stopping is None:
                    waker.wait(seen, None)
                continue
            seen = waker.generation
            job = self._next_job()
            if job is not None:
                self._run(job)
                continue
            if self.backoff:  # connection trouble: wait, then retry
                waker.wait(seen, self.backoff)
                continue
            if self.settings.burst:
                return
            self._idle(seen)
        # jobs still in the buffer stay held: the control loop gives them back

    def _next_job(self) -> Job | None:
        if self.buffer:
            return self.buffer.popleft()
        adopted = self.host.adopted()
        if adopted is not None:
            return adopted
        jobs = self._pop()
        if jobs is None:
            return None
        leases = self.host.leases_of(jobs[0]) if self.several and jobs else self.leases
        jobs = [job for job in jobs if leases.add(job)]  # add() logs what it refuses
        if self.backoff or self.unsettled or self.host.adoption_due:
            self.outage.ok()
            self.backoff, self.unsettled = 0.0, False
            self.host.adopt_orphans()
        if not jobs:
            return self.host.adopted()  # adopted just now
        self.idleness.missed = False
        if self.settings.relay:
            self.waker.notify_one()  # there was work: another idle runner may find more
        self.buffer.extend(jobs[1:])
        return jobs[0]

    def _pop(self) -> list[Job] | None:
        """Jobs from the reserver, as many as the recent pace suggests; None on trouble."""
        count = pop_size(self.avg, self.settings.max_batch, self.host.budget())
        attempt = PopAttempt(self.marks, self.outage, self.backoff)
        with attempt:
            if self.several:
                jobs = self._pop_across(count)
            else:
                jobs = list(self.reserver.reserve(count, worker=self.settings.worker))
            attempt.mark = self.host.mark()  # before anything else: the notices sent by now
            return jobs
        self.backoff = attempt.backoff
        return None

    def _pop_across(self, count: int) -> list[Job]:
        """Several namespaces: jobs from the first queue (the reserver's order over every
        namespace's queues) that gives any; a namespace whose pop fails rests (``Rest``)
        while the others' go on."""
        for queue in self.reserver.order():
            rest = queue.part.rest  # type: ignore[attr-defined]  # (a PartQueue)
            if rest.resting:
                continue
            try:
                jobs = queue.pop(count, worker=self.settings.worker)
            except Exception as exc:
                rest.failed(exc)
                continue
            if rest.ok():
                self.unsettled = True  # adoption looks at what its lost replies left
            if jobs:
                return list(jobs)
        return []

    def _run(self, job: Job) -> None:
        if not self.host.may_start(job):
            return
        started = time.monotonic()
        outcome: Outcome = "crashed"
        try:
            outcome = run_job(job, self.workdir)
        finally:
            if self.host.run_ended(job, outcome):
                self.unsettled = True
        self.avg = 0.8 * self.avg + 0.2 * (time.monotonic() - started)
        self.idleness.streak = 0
        self.host.count(outcome)

    def _idle(self, seen: int) -> None:
        """Sleep until work may be there: new work noticed, the earliest due time, or the
        interval.

        Before it sleeps it reads the due times and whether a job waits (``lookout``): a
        write whose notice came before the reply to its pop is no news to the listener
        (``Waker.is_news``), so this read is what finds it. A changed schedule makes the
        runner read again; it pops when something becomes due (at once when the change
        brought a due time that has passed: a recurring job made due now, say), or at
        the safety interval.
        """
        flush_logs()
        host, waker = self.host, self.waker
        host.idling.enter()
        try:
            if not host.tracking_ready():
                # a busy process's listener did not track the keys of new work; it does
                # again once it has subscribed again, which wakes every runner to pop once
                # more (so a write after the pop that found nothing is never missed)
                waker.wait(seen, self.settings.interval)
                return
            spell = IdleSpell(self.idleness, self.settings.interval)
            while True:
                schedules = waker.schedules
                timeout = spell.timeout(host.look())
                if timeout is None:
                    return
                waker.wait(seen, timeout, schedules)
                if waker.generation != seen or waker.schedules == schedules:
                    return  # new work, or the time to pop has come
                if host.stopping is not None or not spell.rescheduled():
                    return
                # coalesce bursts of schedule changes: at most one re-read per 10 ms
                waker.wait(seen, 0.01)
                if waker.generation != seen:
                    return
        finally:
            host.idling.leave()
