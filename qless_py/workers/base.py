"""The in-process worker: T runner threads that pop and run jobs, and one control loop.

The thread that calls ``run()`` is the control loop: it reads signals (as bytes on a pipe),
pauses, stops and gives jobs back. Runner threads pop (a small batch when jobs are short),
run each job and, when idle, sleep until a wake-up arrives on pub/sub, until the earliest
scheduled job / lock expiry / recurring slot of their queues, or at most ``interval``.
A pub/sub listener and a heartbeat thread complete the process.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from qless_py import QlessConnectionError, QlessError, clock
from qless_py.reservers import Reserver, make_reserver
from qless_py.workers.giveback import give_back
from qless_py.workers.held import Held, HeldJobs
from qless_py.workers.jobrun import Workdir, run_job
from qless_py.workers.listener import Listener
from qless_py.workers.logs import flush_logs
from qless_py.workers.signals import NUDGE, SignalPipe

log = logging.getLogger("qless_py.worker")

MAX_BATCH = 16
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
        with self._cond:
            self.generation += 1
            self._cond.notify_all()

    def notify_schedule(self) -> None:
        with self._cond:
            self.schedules += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float | None, schedules: int | None = None) -> None:
        with self._cond:
            if self.generation == seen and (schedules is None or self.schedules == schedules):
                self._cond.wait(timeout)


@dataclass
class Stats:
    jobs: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def count(self, outcome: str) -> None:
        self.jobs += 1
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


def dump_stacks() -> str:
    """Every thread's current stack, as text (USR1)."""
    names = {t.ident: t.name for t in threading.enumerate()}
    parts = []
    for ident, frame in sys._current_frames().items():
        parts.append(f"--- thread {names.get(ident, '?')} ({ident}) ---\n"
                     + "".join(traceback.format_stack(frame)))
    return "\n".join(parts)


class Worker:
    """Pops and runs jobs from ``queues`` in this process, with ``threads`` runner threads.

    ``burst=True`` drains the queues and returns. ``max_jobs`` > 0 returns after that many
    jobs. ``isolated=True`` (set by the forking supervisor in its children) lets a process
    end itself when a job whose lock was lost does not stop within ``lost_grace`` seconds.
    ``run()`` returns an exit code: 0 done, 3 recycled after ``max_jobs``, 4 abandoned a
    lost job that would not stop.
    """

    EXIT_DONE, EXIT_RECYCLE, EXIT_STUCK = 0, 3, 4

    def __init__(self, client: Any, queues: Sequence[str], *, threads: int = 1,
                 order: str = "ordered", interval: float = 5.0, workdir: str | None = None,
                 max_jobs: int = 0, resume: bool = False, burst: bool = False,
                 isolated: bool = False, lost_grace: float = 5.0, stop_grace: float = 2.0,
                 handle_signals: bool | None = None, max_batch: int = MAX_BATCH) -> None:
        if not queues:
            raise ValueError("a worker needs at least one queue")
        if threads < 1:
            raise ValueError("threads must be at least 1")
        if interval <= 0:
            raise ValueError("interval must be positive")
        self.client = client
        self.name: str = client.worker_name
        self.queue_names = list(queues)
        self.threads, self.order, self.interval = threads, order, interval
        self.workdir_root, self.max_jobs = workdir, max_jobs
        self.resume, self.burst, self.isolated = resume, burst, isolated
        self.lost_grace, self.stop_grace, self.max_batch = lost_grace, stop_grace, max_batch
        self.handle_signals = handle_signals
        make_reserver(order, [_Named(q) for q in queues])  # fail early on a bad order
        self.stats = Stats()
        self.waker = Waker()
        self.held = HeldJobs(on_lost=self._job_lost)
        self.pipe = SignalPipe()
        self.paused = False
        self.stopping: str | None = None  # "now" (TERM/INT) or "drain" (QUIT, burst, max-jobs)
        self._resumed: deque[Any] = deque()
        self._lock = threading.Lock()
        self._runners: list[threading.Thread] = []
        self._active = 0
        self._exit_code = self.EXIT_DONE
        self._listener: Listener | None = None
        self._own_root = False

    # -- public --------------------------------------------------------------------------
    def run(self) -> int:
        """Work until stopped (or drained with ``burst``); returns the exit code."""
        install = self.handle_signals
        if install is None:
            install = threading.current_thread() is threading.main_thread()
        if install:
            self.pipe.install()
        old_cwd = os.getcwd()
        root = self._make_root()
        log.info("worker %s: queues %s, %d thread(s), order %s", self.name,
                 ",".join(self.queue_names), self.threads, self.order)
        try:
            self._start_listener()
            if self.resume:
                self._resume_jobs()
            self.held.start()
            self._active = self.threads
            for index in range(self.threads):
                thread = threading.Thread(target=self._runner, args=(index, root),
                                          name=f"qless-runner-{index}", daemon=True)
                self._runners.append(thread)
                thread.start()
            self._control()
        finally:
            self._shutdown()
            if install:
                self.pipe.restore()
            self.pipe.close()
            with contextlib.suppress(OSError):  # the old cwd may have vanished
                os.chdir(old_cwd)
            if self._own_root:
                shutil.rmtree(root, ignore_errors=True)
        log.info("worker %s: exiting after %d job(s) %s", self.name, self.stats.jobs,
                 self.stats.outcomes)
        return self._exit_code

    def stop(self, how: str = "now") -> None:
        """Ask the worker to stop (thread-safe): ``now`` gives jobs back, ``drain`` ends them."""
        self._request_stop(how)
        self.pipe.nudge()

    # -- control loop (the thread that called run) ---------------------------------------
    def _control(self) -> None:
        while True:
            timeout = 1.0 if (self.isolated or self.stopping) else None
            for signum in self.pipe.wait(timeout):
                self._on_signal(signum)
            flush_logs()
            if self.isolated and self.held.stuck_lost(self.lost_grace):
                self._abandon_stuck()
                return
            if self._active == 0:  # every runner has returned (burst drained, stopped)
                return
            if self.stopping == "now":
                return

    def _on_signal(self, signum: int) -> None:
        if signum == NUDGE:
            return
        name = signal.Signals(signum).name
        if signum in (signal.SIGTERM, signal.SIGINT):
            log.info("worker %s: %s, stopping now", self.name, name)
            self._request_stop("now")
        elif signum == signal.SIGQUIT:
            log.info("worker %s: SIGQUIT, finishing current jobs", self.name)
            self._request_stop("drain")
        elif signum == signal.SIGUSR1:
            log.warning("worker %s: stacks of every thread:\n%s", self.name, dump_stacks())
        elif signum == signal.SIGUSR2:
            log.info("worker %s: SIGUSR2, paused (SIGCONT resumes)", self.name)
            self.paused = True
        elif signum == signal.SIGCONT:
            if self.paused:
                log.info("worker %s: SIGCONT, resuming", self.name)
            self.paused = False
            self.waker.notify()

    def _request_stop(self, how: str) -> None:
        with self._lock:
            if self.stopping != "now":
                self.stopping = how
        if how == "now":
            for held in self.held.snapshot():
                held.job.stop_event.set()
        self.waker.notify()

    def _abandon_stuck(self) -> None:
        for held in self.held.stuck_lost(self.lost_grace):
            log.error("job %s was lost (%s) and did not stop within %.1fs; ending this "
                      "process so it cannot run on", held.job.jid, held.lost_reason,
                      self.lost_grace)
        self._exit_code = self.EXIT_STUCK
        self._request_stop("now")

    def _job_lost(self, held: Held) -> None:
        if self.isolated:
            self.pipe.nudge()

    # -- start and stop ------------------------------------------------------------------
    def _make_root(self) -> str:
        """This worker's private directory (removed at exit): under ``workdir`` or a temp dir."""
        self._own_root = True
        if self.workdir_root:
            root = os.path.join(self.workdir_root, self.name)
            os.makedirs(root, exist_ok=True)
            return root
        return tempfile.mkdtemp(prefix="qless-py-")

    def _start_listener(self) -> None:
        self._listener = Listener(self.client.redis, self.queue_names, self.name,
                                  on_wake=lambda queue: self.waker.notify(),
                                  on_notice=self._on_notice,
                                  on_reconnect=self.waker.notify,
                                  on_schedule=self.waker.notify_schedule)
        if not self._listener.start():
            log.warning("worker %s: no pub/sub yet; checking the queues every %.1fs "
                        "until it is back", self.name, self.interval)

    def _on_notice(self, jid: str, event: str) -> None:
        if event == "canceled":
            self.held.lose(jid, event)
        elif event == "lock_lost" and self.held.get(jid) is not None:
            if self._still_ours(jid):
                # A stale notice: this worker reclaimed the job itself in the same pop that
                # sent it (same name after a restart, or its own lock ran out), or the grace
                # period still leaves it ours. Heartbeats tell if that changes.
                log.info("job %s: lock_lost notice, but the job is still ours", jid)
                return
            self.held.lose(jid, event)

    def _still_ours(self, jid: str) -> bool:
        try:
            state, owner = self.client.redis.hmget(f"ql:j:{jid}", "state", "worker")
        except Exception:  # cannot tell: assume the notice is right
            return False
        return bool(state == b"running" and owner == self.name.encode())

    def _resume_jobs(self) -> None:
        try:
            mine = self.client.workers[self.name]
            jids = list(mine.get("jobs", [])) + list(mine.get("stalled", []))
            jobs = self.client.jobs.get(*jids) if jids else []
        except QlessError as exc:
            log.error("worker %s: could not read the jobs to resume: %s", self.name, exc)
            return
        for job in jobs:
            if job.state != "running" or job.worker_name != self.name:
                continue
            self.held.add(job, beat_now=True)
            self._resumed.append(job)
        if self._resumed:
            log.info("worker %s: resuming %d job(s): %s", self.name, len(self._resumed),
                     " ".join(j.jid for j in self._resumed))

    def _shutdown(self) -> None:
        if self.stopping is None:
            self._request_stop("drain")
        deadline = time.monotonic() + (self.stop_grace if self.stopping == "now" else 1e9)
        if self.stopping == "now":
            self._give_back_all()
        for thread in self._runners:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.held.stop()
        self._give_back_all()
        if self._listener is not None:
            self._listener.stop()
        try:
            self.client.core.call("worker.deregister", self.name)
        except QlessError as exc:
            log.warning("worker %s: could not deregister: %s", self.name, exc)

    def _give_back_all(self) -> None:
        for held in self.held.snapshot():
            job = held.job
            if job.finished or held.lost_at is not None:
                self.held.remove(job)
                continue
            job.stop_event.set()
            try:
                if give_back(self.client, job.jid, self.name):
                    log.info("gave %s back to queue %s", job.jid, job.queue_name)
                self.held.remove(job)
            except Exception as exc:
                log.error("could not give %s back (%s); its lock will expire", job.jid, exc)

    # -- runner threads ------------------------------------------------------------------
    def _runner(self, index: int, root: str) -> None:
        workdir = Workdir(os.path.join(root, f"t{index}"), chdir=self.threads == 1)
        reserver = make_reserver(self.order,
                                 [self.client.queues[name] for name in self.queue_names])
        runner = _Runner(self, reserver, workdir)
        try:
            runner.loop()
        except Exception:  # pragma: no cover - a bug: log it, do not hang the process
            log.exception("runner %d crashed", index)
        finally:
            workdir.remove()
            with self._lock:
                self._active -= 1
            self.pipe.nudge()

    def _count(self, outcome: str) -> None:
        with self._lock:
            self.stats.count(outcome)
            if self.max_jobs and self.stats.jobs >= self.max_jobs and self.stopping is None:
                log.info("worker %s: %d jobs done, recycling", self.name, self.stats.jobs)
                self._exit_code = self.EXIT_RECYCLE
                self.stopping = "drain"
                self.waker.notify()


class _Named:
    """A stand-in queue used only to validate the order name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def pop(self, count: int, *, worker: str | None = None) -> list[Any]:
        return []


class _Runner:
    """One runner thread's loop: reserve, run, repeat; sleep smartly when idle."""

    def __init__(self, worker: Worker, reserver: Reserver, workdir: Workdir) -> None:
        self.w = worker
        self.reserver = reserver
        self.workdir = workdir
        self.buffer: deque[Any] = deque()
        self.avg = 1.0  # seconds per job, smoothed; starts pessimistic: no batches
        self.backoff = 0.0
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
            if job is None and self.backoff:  # connection trouble: wait, then retry
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
        if self.backoff:
            log.info("pop works again")
        self.backoff = 0.0
        if not jobs:
            return None
        for job in jobs:
            self.w.held.add(job)
        self.buffer.extend(jobs[1:])
        return jobs[0]

    def _run(self, job: Any) -> None:
        w = self.w
        if w.stopping == "now":  # stays held: the control loop gives it back
            return
        if job.stop_event.is_set():  # lost before it started
            w.held.remove(job)
            return
        w.held.started(job)
        started = time.monotonic()
        try:
            outcome = run_job(job, self.workdir)
        finally:
            w.held.remove(job)
        self.avg = 0.8 * self.avg + 0.2 * (time.monotonic() - started)
        self.idle_streak = 0
        w._count(outcome)

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
            pipe = self.w.client.redis.pipeline(transaction=False)
            for name in self.w.queue_names:
                for suffix in ("-scheduled", "-locks", "-recur"):
                    pipe.zrange(f"ql:q:{name}{suffix}", 0, 0, withscores=True)
            replies = pipe.execute()
        except Exception as exc:  # connection trouble: the interval is the safety net
            log.debug("could not read due times: %s", exc)
            return None
        scores = [float(reply[0][1]) for reply in replies if reply]
        return min(scores) if scores else None
