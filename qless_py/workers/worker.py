"""The in-process worker: T runner threads that pop and run jobs, and one control loop.

The thread that calls ``run()`` is the control loop: it reads signals (as bytes on a pipe),
pauses, stops and gives jobs back. Runner threads pop (a small batch when jobs are short),
run each job and, when idle, sleep until the listener notices new work in their queues,
until the earliest scheduled job / lock expiry / recurring slot of their queues, or at
most ``interval``. The listener and a heartbeat thread complete the process.
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

from qless_py import Client, QlessConnectionError, QlessError
from qless_py.client.job import Job
from qless_py.connect.resp import Transport
from qless_py.reservers import ORDERS, make_reserver
from qless_py.workers.giveback import give_back
from qless_py.workers.heartbeat import Heartbeat
from qless_py.workers.jobrun import Outcome, note_connection_error
from qless_py.workers.leases import Lease, Leases
from qless_py.workers.listener import Listener, loses_lease
from qless_py.workers.logs import flush_logs
from qless_py.workers.lookout import Look, look
from qless_py.workers.outage import Outage
from qless_py.workers.runner import Runner, RunnerSettings, Stop
from qless_py.workers.signals import NUDGE, SignalPipe
from qless_py.workers.waker import Waker
from qless_py.workers.workdir import Workdir

log = logging.getLogger("qless_py.worker")

MAX_BATCH = 16
# Runs of one job in a row that may end unsettled (connection errors) before adoption
# spends one of its retries instead of running it again.
MAX_UNSETTLED_RUNS = 5
ADOPTION_ROUNDS = 5  # rounds one adopt_orphans call may run back to back
# Seconds a runner waits awake for a command's reply before it sleeps in recv (see
# qless_py.resp). Off by default: measured interleaved on a 2-core VM, sleeping at once
# drained no-op jobs faster in 8 rounds of 10 with 1 and with 2 processes, for 35-50 us
# less worker CPU per job (docs/workers.md, "Throughput path").
SPIN = 0.0


@dataclass
class Stats:
    jobs: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    spin_hits: int = 0  # replies the runner threads caught while spinning
    spin_misses: int = 0  # spins that ended without one

    def count(self, outcome: Outcome) -> None:
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
    lost job that would not stop. ``spin`` is how long (seconds) a thread waits awake for
    a reply from the server before it sleeps; 0 always sleeps at once.
    """

    EXIT_DONE, EXIT_RECYCLE, EXIT_STUCK = 0, 3, 4

    def __init__(self, client: Client, queues: Sequence[str], *, threads: int = 1,
                 order: str = "ordered", interval: float = 5.0, workdir: str | None = None,
                 max_jobs: int = 0, resume: bool = False, burst: bool = False,
                 isolated: bool = False, lost_grace: float = 5.0, stop_grace: float = 2.0,
                 handle_signals: bool | None = None, max_batch: int = MAX_BATCH,
                 spin: float = SPIN) -> None:
        if not queues:
            raise ValueError("a worker needs at least one queue")
        if threads < 1:
            raise ValueError("threads must be at least 1")
        if interval <= 0:
            raise ValueError("interval must be positive")
        if not 0 <= spin <= 0.1:
            raise ValueError("spin must be between 0 and 0.1 seconds")
        self.client = client
        # Core calls and the worker's own reads go through qless_py.resp, not redis-py.
        client.core.go_direct(client.endpoint(), spin)
        # A handler's calls that fail on the connection must not fail its job (jobrun).
        client.core.on_connection_error = note_connection_error
        transport = client.core.transport
        assert transport is not None  # go_direct made it
        self.transport: Transport = transport
        self.name: str = client.worker_name
        self.queue_names = list(queues)
        self.threads, self.order, self.interval = threads, order, interval
        self.workdir_root, self.max_jobs = workdir, max_jobs
        self.resume, self.burst, self.isolated = resume, burst, isolated
        self.lost_grace, self.stop_grace, self.max_batch = lost_grace, stop_grace, max_batch
        self.handle_signals = handle_signals
        if order not in ORDERS:
            raise ValueError(f"unknown queue order {order!r} (choose from {', '.join(ORDERS)})")
        self.stats = Stats()
        self.waker = Waker()
        self.leases: Leases[Job] = Leases(on_lost=self._job_lost)
        self.heartbeat = Heartbeat(self.leases)
        self.pop_outage = Outage("pop")  # shared by the runner threads
        self.pipe = SignalPipe()
        self.paused = False
        self.stopping: Stop | None = None
        self._resumed: deque[Job] = deque()
        self._lock = threading.Lock()
        self._runners: list[threading.Thread] = []
        self._active = 0
        self._adopting = False
        self._adopt_again = False
        self._exit_code = self.EXIT_DONE
        self._listener: Listener | None = None
        self._own_root = False

    # -- public --------------------------------------------------------------------------
    def run(self) -> int:
        """Work until stopped (or drained with ``burst``); returns the exit code.

        Raises ConnectionSetupError if the first connection fails for a reason retrying
        cannot mend; later connection problems are retried with backoff."""
        problem = self.client.core.check()
        if problem is not None:
            log.warning("worker %s: %s; retrying with backoff", self.name, problem)
        install = self.handle_signals
        if install is None:
            install = threading.current_thread() is threading.main_thread()
        if install:
            self.pipe.install()
        old_cwd = os.getcwd()
        root = self._make_root()
        log.info("worker %s: queues %s, %d thread(s), order %s, spin %d us", self.name,
                 ",".join(self.queue_names), self.threads, self.order,
                 round(self.transport.spin * 1e6))
        try:
            self._start_listener()
            if self.resume:
                self._resume_jobs()
            self.heartbeat.start()
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
        stats = self.stats
        log.info("worker %s: exiting after %d job(s) %s; replies caught spinning: %d of %d",
                 self.name, stats.jobs, stats.outcomes, stats.spin_hits,
                 stats.spin_hits + stats.spin_misses)
        return self._exit_code

    def stop(self, how: Stop = "now") -> None:
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
            if self.isolated and self.leases.stuck_lost(self.lost_grace):
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

    def _request_stop(self, how: Stop) -> None:
        with self._lock:
            if self.stopping != "now":
                self.stopping = how
        if how == "now":
            for held in self.leases.snapshot():
                held.job.stop_event.set()
        self.waker.notify()

    def _abandon_stuck(self) -> None:
        for held in self.leases.stuck_lost(self.lost_grace):
            log.error("job %s was lost (%s) and did not stop within %.1fs; ending this "
                      "process so it cannot run on", held.job.jid, held.lost_reason,
                      self.lost_grace)
        self._exit_code = self.EXIT_STUCK
        self._request_stop("now")

    def _job_lost(self, held: Lease[Job]) -> None:
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
        self._listener = Listener(self.transport, self.queue_names, self.name,
                                  on_work=self.waker.notify_one,
                                  is_news=self.waker.is_news,
                                  on_notice=self._on_notice,
                                  on_reconnect=self.waker.notify,
                                  on_schedule=self.waker.notify_schedule)
        # Not waited for: runners pop at once, and the subscription makes them pop again
        # (see Listener.start). Connection trouble is logged by the listener itself.
        self._listener.start(timeout=0)

    def _on_notice(self, jid: str, event: str) -> None:
        if loses_lease(self.transport, self.name, self.leases.get(jid) is not None,
                       jid, event):
            self.leases.lose(jid, event)

    def _resume_jobs(self, why: str = "resuming") -> None:
        """Take the jobs the core lists under this worker's name that nothing here holds.

        At start with ``--resume``; and after a connection problem, because a pop whose
        reply was lost leaves jobs leased to this name that no thread knows about, and a
        run left unsettled (a complete whose reply was lost, a handler whose call failed on
        the connection) waits here for the core's word. A job still leased here is run
        again, without waiting for its lock to expire and without spending a retry; an
        unsettled one the core no longer lists here is forgotten (its command took effect).
        """
        since = self.leases.open_adoption()
        try:
            self._adopt(since, why)
        finally:
            if self.leases.close_adoption():
                with self._lock:
                    self._adopt_again = self._adopting  # the running round looks again

    def _adopt(self, since: int, why: str) -> None:
        try:
            mine = self.client.workers[self.name]
            listed = [*mine.get("jobs", []), *mine.get("stalled", [])]
            jids = [jid for jid in listed if self.leases.wants(jid, since)]
            jobs = self.client.jobs.get(*jids) if jids else []
        except QlessConnectionError as exc:  # the server went away again: look once more
            log.warning("worker %s: could not read the jobs it holds yet (%s); looking again "
                        "after the next pop", self.name, exc)
            with self._lock:
                self._adopt_again = True
            return
        except QlessError as exc:
            log.error("worker %s: could not read the jobs it holds: %s", self.name, exc)
            return
        ours = [job for job in jobs if job.state == "running" and job.worker_name == self.name]
        for gone in self.leases.forget_unsettled({job.jid for job in ours}, since):
            log.info("job %s: no longer leased to this worker; %s", gone.job.jid,
                     f"its {gone.job.settling} took effect (or its lock was lost)"
                     if gone.job.settling else "its lock was lost or it was moved")
        taken = []
        for job in ours:
            adopted = self.leases.adopt(job, since)
            if adopted is None:
                continue  # a run here holds it or settled it (then the core is read again)
            if adopted.unsettled_runs >= MAX_UNSETTLED_RUNS:
                self._retry_unsettled(job, adopted.unsettled_runs)
                continue
            taken.append(job)
        self._resumed.extend(taken)
        if taken:
            log.warning("worker %s: %s %d job(s): %s", self.name, why, len(taken),
                        " ".join(j.jid for j in taken))
        self.waker.notify()

    def _retry_unsettled(self, job: Job, runs: int) -> None:
        """A job whose runs keep ending unsettled spends a retry, as a lock expiry would:
        a handler whose own calls always fail on the connection must not loop for ever."""
        message = (f"its last {runs} runs on worker {self.name} ended with the outcome of a "
                   "core call unknown (connection errors)")
        try:
            left = job.retry(group=f"failed-retries-{job.queue_name}", message=message)
        except QlessConnectionError as exc:
            log.warning("could not retry %s (%s); looking again later", job.jid, exc)
            self.leases.ended(job, unsettled=True)
            return
        except QlessError as exc:
            log.warning("could not retry %s: %s", job.jid, exc)
        else:
            log.error("job %s: %s; retried (%s)", job.jid, message,
                      "no retries left: failed" if left < 0 else f"{left} retries left")
        self.leases.remove(job)

    def adopt_orphans(self) -> None:
        """After a connection problem: take back jobs leased to this name but unknown here.

        One round at a time; a request during a round (or a round whose read may have been
        too early for a job) makes it go again, a few times at most; what is left then
        is picked up by the next runner that pops (``adoption_due``).
        """
        with self._lock:
            if self._adopting:
                self._adopt_again = True
                return
            self._adopting, self._adopt_again = True, False
        try:
            for _ in range(ADOPTION_ROUNDS):
                self._resume_jobs("adopting (their pop or settle reply was lost)")
                with self._lock:
                    if not self._adopt_again:
                        break
                    self._adopt_again = False
        finally:
            with self._lock:
                self._adopting = False

    @property
    def adoption_due(self) -> bool:
        """A round was asked for and none is running."""
        return self._adopt_again and not self._adopting

    def _shutdown(self) -> None:
        if self.stopping is None:
            self._request_stop("drain")
        deadline = time.monotonic() + (self.stop_grace if self.stopping == "now" else 1e9)
        if self.stopping == "now":
            # Tell running handlers to stop, and give their jobs back only once they have
            # returned (or the grace ran out): a job given back while its handler still
            # ran could start elsewhere meanwhile, twice at once, and past its throttle.
            for held in self.leases.snapshot():
                held.job.stop_event.set()
        for thread in self._runners:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.heartbeat.stop()
        self._give_back_all()
        if self._listener is not None:
            self._listener.stop()
        try:
            self.client.core.call("worker.deregister", self.name)
        except QlessError as exc:
            log.warning("worker %s: could not deregister: %s", self.name, exc)

    def _give_back_all(self) -> None:
        for held in self.leases.snapshot():
            job = held.job
            if job.finished or held.lost_at is not None:
                self.leases.remove(job)  # not this worker's any more: nothing to give back
                continue
            job.stop_event.set()
            try:
                if give_back(self.client, job.jid, self.name):
                    log.info("gave %s back to its queue", job.jid)
                else:
                    log.info("job %s is no longer leased to this worker; nothing to give "
                             "back", job.jid)
                self.leases.remove(job)
            except Exception as exc:
                log.error("could not give %s back (%s); its lock will expire", job.jid, exc)

    # -- runner threads ------------------------------------------------------------------
    def _runner(self, index: int, root: str) -> None:
        workdir = Workdir(os.path.join(root, f"t{index}"), chdir=self.threads == 1)
        reserver = make_reserver(self.order,
                                 [self.client.queues[name] for name in self.queue_names])
        settings = RunnerSettings(worker=self.name, interval=self.interval,
                                  max_batch=self.max_batch, burst=self.burst,
                                  relay=self.threads > 1)
        runner = Runner(self, settings, self.waker, self.leases, reserver, workdir,
                        self.pop_outage)
        try:
            runner.loop()
        except Exception:  # pragma: no cover - a bug: log it, do not hang the process
            log.exception("runner %d crashed", index)
        finally:
            workdir.remove()
            conn = self.transport.connection()  # this runner thread's
            with self._lock:
                self._active -= 1
                self.stats.spin_hits += conn.spin_hits
                self.stats.spin_misses += conn.spin_misses
            self.pipe.nudge()

    # -- what runners ask of the worker (runner.Host) ------------------------------------
    def adopted(self) -> Job | None:
        try:
            return self._resumed.popleft()
        except IndexError:
            return None

    def budget(self) -> int | None:
        return self.max_jobs - self.stats.jobs if self.max_jobs else None

    def look(self) -> Look:
        caps = self._listener.caps if self._listener is not None else {}
        return look(self.transport, self.queue_names, caps)

    def mark(self) -> int:
        return self._listener.mark() if self._listener is not None else -1

    def count(self, outcome: Outcome) -> None:
        with self._lock:
            self.stats.count(outcome)
            if self.max_jobs and self.stats.jobs >= self.max_jobs and self.stopping is None:
                log.info("worker %s: %d jobs done, recycling", self.name, self.stats.jobs)
                self._exit_code = self.EXIT_RECYCLE
                self.stopping = "drain"
                self.waker.notify()
