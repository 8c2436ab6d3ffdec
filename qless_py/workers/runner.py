"""A runner thread's loop: reserve, run, settle; sleep until work may be there.

Runners pop a small batch when jobs are short, register every popped job for heartbeats,
and, when idle, wait for a wake-up, a schedule change or the earliest due time of their
queues (one pipelined read), capped by the worker's safety interval.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from qless_py import QlessConnectionError, QlessError, clock
from qless_py.reservers import Reserver
from qless_py.workers.jobrun import Workdir, run_job
from qless_py.workers.logs import flush_logs

if TYPE_CHECKING:
    from qless_py.workers.base import Worker

log = logging.getLogger("qless_py.worker")

BATCH_WINDOW = 0.02  # pop a batch only if it is expected to run within this many seconds


class Waker:
    """Generation counters: waiters sleep until one moves past the value they saw.

    ``generation`` moves when there may be work to pop (or the worker's state changed);
    ``schedules`` moves when a due time may have changed (only the due times are re-read).
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.generation = 0
        self.schedules = 0

    def notify(self) -> None:
        """Wake every runner (state changes: stop, resume, reconnection)."""
        with self._cond:
            self.generation += 1
            self._cond.notify_all()

    def notify_one(self) -> None:
        """Wake one idle runner (a wake-up from the core, or the baton passed on).

        A runner that finds work passes the baton to the next idle one, so one wake-up
        costs a process at most one empty pop however many threads sleep.
        """
        with self._cond:
            self.generation += 1
            self._cond.notify()

    def notify_schedule(self) -> None:
        with self._cond:
            self.schedules += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float | None, schedules: int | None = None) -> None:
        with self._cond:
            if self.generation == seen and (schedules is None or self.schedules == schedules):
                self._cond.wait(timeout)


class Runner:
    """One runner thread's loop: reserve, run, repeat; sleep smartly when idle."""

    def __init__(self, worker: Worker, reserver: Reserver, workdir: Workdir) -> None:
        self.w = worker
        self.reserver = reserver
        self.workdir = workdir
        self.buffer: deque[Any] = deque()
        self.avg = 1.0  # seconds per job, smoothed; starts pessimistic: no batches
        self.backoff = 0.0
        self.unsettled = False
        self.idle_streak = 0

    def loop(self) -> None:
        w = self.w
        while w.stopping is None:
            if w.paused:  # no new pops; jobs this thread already popped still run
                if self.buffer:
                    self._run(self.buffer.popleft())
                    continue
                flush_logs()
                seen = w.waker.generation
                if w.paused and w.stopping is None:
                    w.waker.wait(seen, None)
                continue
            seen = w.waker.generation
            job = self._next_job()
            if job is not None:
                self._run(job)
                continue
            if self.backoff:  # connection trouble: wait, then retry
                w.waker.wait(seen, self.backoff)
                continue
            if w.burst:
                return
            self._idle(seen)
        # jobs still in the buffer stay held: the control loop gives them back

    def _next_job(self) -> Any | None:
        if self.buffer:
            return self.buffer.popleft()
        try:
            return self.w._resumed.popleft()
        except IndexError:
            pass
        count = 1 if self.avg > BATCH_WINDOW else max(
            1, min(self.w.max_batch, int(BATCH_WINDOW / max(self.avg, 1e-5))))
        if self.w.max_jobs:  # do not pop what a recycle would have to give back
            count = max(1, min(count, self.w.max_jobs - self.w.stats.jobs))
        try:
            jobs = self.reserver.reserve(count, worker=self.w.name)
        except QlessConnectionError as exc:
            self.backoff = min(max(self.backoff * 2, 0.1), 5.0)
            log.warning("pop failed (%s); retrying in %.1fs", exc, self.backoff)
            return None
        except QlessError as exc:
            self.backoff = min(max(self.backoff * 2, 0.5), 5.0)
            log.error("pop refused (%s); retrying in %.1fs", exc, self.backoff)
            return None
        except Exception:  # anything else (a bug, an odd reply) must not end the thread
            self.backoff = min(max(self.backoff * 2, 0.5), 5.0)
            log.exception("pop failed unexpectedly; retrying in %.1fs", self.backoff)
            return None
        jobs = [job for job in jobs if self.w.held.add(job)]  # add() logs what it refuses
        if self.backoff or self.unsettled or self.w.adoption_due:
            if self.backoff:
                log.info("pop works again")
            self.backoff, self.unsettled = 0.0, False
            self.w.adopt_orphans()
        if not jobs:
            try:
                return self.w._resumed.popleft()  # adopted just now
            except IndexError:
                return None
        if self.w.threads > 1:
            self.w.waker.notify_one()  # there was work: another idle runner may find more
        self.buffer.extend(jobs[1:])
        return jobs[0]

    def _run(self, job: Any) -> None:
        w = self.w
        if w.stopping == "now":  # stays held: the control loop gives it back
            return
        if job.stop_event.is_set():
            held = w.held.remove(job)
            log.info("job %s was lost before it started (%s); not running it", job.jid,
                     held.lost_reason if held is not None else "lost")
            return
        w.held.started(job)
        started = time.monotonic()
        outcome = "crashed"
        try:
            outcome = run_job(job, self.workdir)
        finally:
            self._ended(job, outcome)
        self.avg = 0.8 * self.avg + 0.2 * (time.monotonic() - started)
        self.idle_streak = 0
        w._count(outcome)

    def _ended(self, job: Any, outcome: str) -> None:
        """Release the run's entry; an unsettled one stays held until adoption decides."""
        w = self.w
        if outcome in ("unsettled", "crashed"):  # crashed: a bug in the runner, not the job
            self.unsettled = w.held.ended(job, unsettled=True)
        elif w.stopping == "now" and not job.finished:
            pass  # it stays held: stopped by TERM/INT, the control loop gives it back
        elif w.held.ended(job):
            self.unsettled = True  # adoption skipped a lease of this job meanwhile

    def _idle(self, seen: int) -> None:
        """Sleep until work may be there: a wake-up, the earliest due time, or the interval.

        A changed schedule only makes the runner re-read the due times; it pops again
        when something is due, when a wake-up arrives, or at the safety interval.
        """
        flush_logs()
        waker = self.w.waker
        deadline = time.monotonic() + self.w.interval
        while True:
            schedules = waker.schedules
            due = self._next_due()
            timeout = deadline - time.monotonic()
            if due is not None:
                wait = due - clock.now()
                if wait <= 0:
                    # due but nothing to pop (paused queue, concurrency limit, grace
                    # period): back off instead of spinning
                    self.idle_streak += 1
                    wait = min(0.01 * 2 ** min(self.idle_streak, 10), self.w.interval)
                else:
                    self.idle_streak = 0
                    wait += 0.001  # land just after the due time, not just before it
                timeout = min(timeout, wait)
            waker.wait(seen, max(0.0, timeout), schedules)
            if waker.generation != seen or waker.schedules == schedules:
                return  # a wake-up, or the time to pop has come
            if self.w.stopping is not None or time.monotonic() >= deadline:
                return
            # coalesce bursts of schedule changes: at most one re-read per 10 ms
            waker.wait(seen, 0.01)
            if waker.generation != seen:
                return

    def _next_due(self) -> float | None:
        """Earliest of the lowest scores of the scheduled, locks and recur sets (one trip)."""
        try:
            replies = self.w.transport.pipeline([
                ["ZRANGE", f"ql:q:{name}{suffix}", 0, 0, "WITHSCORES"]
                for name in self.w.queue_names for suffix in ("-scheduled", "-locks", "-recur")])
        except Exception as exc:  # connection trouble: the interval is the safety net
            log.debug("could not read due times: %s", exc)
            return None
        scores = [float(reply[1]) for reply in replies if isinstance(reply, list) and reply]
        return min(scores) if scores else None
