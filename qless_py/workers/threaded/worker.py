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
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Unpack

from qless_py import Client, QlessError
from qless_py.job import Job
from qless_py.reservers import make_reserver
from qless_py.workers.base import (
    ADOPTION_ROUNDS,
    Options,
    Stop,
    WorkerBase,
)
from qless_py.workers.leases import Leases
from qless_py.workers.listeners import Notices
from qless_py.workers.logs import flush_logs
from qless_py.workers.lookout import Look
from qless_py.workers.outage import Outage
from qless_py.workers.parts import Part
from qless_py.workers.signals import SignalPipe
from qless_py.workers.threaded.heartbeat import Heartbeat
from qless_py.workers.threaded.runner import Runner, RunnerSettings
from qless_py.workers.waker import Waker
from qless_py.workers.workdir import Workdir

log = logging.getLogger("qless_py.worker")

MAX_BATCH = 16


class Worker(WorkerBase[Job]):
    """Pops and runs jobs from ``queues`` in this process, with ``threads`` runner threads.

    ``burst=True`` drains the queues and returns. ``max_jobs`` > 0 returns after that many
    jobs. ``isolated=True`` (set by the forking supervisor in its children) lets a process
    end itself when a job whose lock was lost does not stop within ``lost_grace`` seconds.
    ``run()`` returns an exit code: 0 done, 3 recycled after ``max_jobs``, 4 abandoned a
    lost job that would not stop. ``spin`` is how long (seconds) a thread waits awake for
    a reply from the server before it sleeps; 0 always sleeps at once. The other options
    (``order``, ``interval``, ``workdir``, ``resume``, ``stop_grace``, ``handle_signals``)
    are ``base.Options``. ``namespaces`` (names; None is the default namespace) makes
    it serve the queues in each of those namespaces instead of the client's alone (the
    client gives the server, its settings and the worker name); ``order`` then runs over
    every namespace's queues, namespace by namespace in the order given.
    """

    def __init__(self, client: Client, queues: Sequence[str], *, threads: int = 1,
                 max_batch: int = MAX_BATCH, **options: Unpack[Options]) -> None:
        if threads < 1:
            raise ValueError("threads must be at least 1")
        super().__init__(client, queues, max_batch=max_batch, **options)
        self.threads = threads
        self.waker = Waker()
        for part in self.parts:
            part.leases = Leases(on_lost=self._job_lost)
            part.heartbeat = Heartbeat(part.leases, name=self.heartbeat_name(part))
        self.leases = self.parts[0].leases
        self.heartbeat: Heartbeat = self.parts[0].heartbeat
        self.pop_outage = Outage("pop")  # shared by the runner threads
        self.pipe = SignalPipe()
        self._resumed: deque[Job] = deque()
        self._runners: list[threading.Thread] = []
        self._active = 0

    # -- public --------------------------------------------------------------------------
    def run(self) -> int:
        """Work until stopped (or drained with ``burst``); returns the exit code.

        Raises ConnectionSetupError if the first connection fails for a reason retrying
        cannot mend; later connection problems are retried with backoff."""
        self._check_servers()
        install = self.handle_signals
        if install is None:
            install = threading.current_thread() is threading.main_thread()
        if install:
            self.pipe.install()
        old_cwd = os.getcwd()
        root = self._make_root()
        log.info("worker %s: queues %s%s, %d thread(s), order %s, spin %d us", self.name,
                 ",".join(self.queue_names), self.in_namespaces(), self.threads,
                 self.order, round(self.transport.spin * 1e6))
        try:
            self._start_listener()
            if self.resume:
                self._resume_jobs()
            for part in self.parts:
                part.heartbeat.start()
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
            self._close_made()
        stats = self.stats
        log.info("worker %s: exiting after %d job(s) %s; replies caught spinning: %d of %d",
                 self.name, stats.jobs, stats.outcomes, stats.spin_hits,
                 stats.spin_hits + stats.spin_misses)
        return self._exit_code

    def stop(self, how: Stop = "now") -> None:
        """Ask the worker to stop (thread-safe): ``now`` gives jobs back, ``drain`` ends them."""
        self._request_stop(how)

    # -- the skeleton's hooks -------------------------------------------------------------
    def _wake(self) -> None:
        self.waker.notify()

    def _nudge(self) -> None:
        self.pipe.nudge()

    def _lose(self, part: Part[Job], jid: str, event: str) -> None:
        part.leases.lose(jid, event)

    def notices(self) -> Notices:
        waker = self.waker
        return Notices(on_work=waker.notify_one, is_news=waker.is_news,
                       on_reconnect=waker.notify, on_schedule=waker.notify_schedule,
                       busy=self.idling.busy)

    # -- control loop (the thread that called run) ---------------------------------------
    def _control(self) -> None:
        while True:
            timeout = 1.0 if (self.isolated or self.stopping) else None
            for signum in self.pipe.wait(timeout):
                self._on_signal(signum)
            flush_logs()
            if self._stuck():
                return
            if self._active == 0:  # every runner has returned (burst drained, stopped)
                return
            if self.stopping == "now":
                return

    # -- adoption ------------------------------------------------------------------------
    def _resume_jobs(self, why: str = "resuming") -> None:
        """Take the jobs the core lists under this worker's name that nothing here holds.

        At start with ``--resume``; and after a connection problem, because a pop whose
        reply was lost leaves jobs leased to this name that no thread knows about, and a
        run left unsettled (a complete whose reply was lost, a handler whose call failed on
        the connection) waits here for the core's word. A job still leased here is run
        again, without waiting for its lock to expire and without spending a retry; an
        unsettled one the core no longer lists here is forgotten (its command took effect).
        """
        for part in self.parts:
            if part.rest.resting:  # its pops fail: adoption looks once they work again
                continue
            since = part.leases.open_adoption()
            try:
                self._adopt(part, since, why)
            finally:
                if part.leases.close_adoption():
                    with self._lock:
                        self._adopt_again = self._adopting  # the running round looks again

    def _adopt(self, part: Part[Job], since: int, why: str) -> None:
        try:
            raws = part.client.core.run(self._adoption_steps(part, since))
        except QlessError as exc:
            self._adoption_failed(exc)
            return
        taken = []
        for job in (Job(part.client, raw, self.name) for raw in raws):
            decided = self._adopts(job, since)
            if decided is True:
                taken.append(job)
            elif decided is not False:
                try:
                    left = job._hold(decided)
                except QlessError as exc:
                    self._retried(job, decided, exc)
                else:
                    self._retried(job, decided, left)
        self._resumed.extend(taken)
        self._adopted(why, [job.jid for job in taken])
        self.waker.notify()

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

    # -- shutdown ------------------------------------------------------------------------
    def _shutdown(self) -> None:
        if self.stopping is None:
            self._request_stop("drain")
        deadline = time.monotonic() + (self.stop_grace if self.stopping == "now" else 1e9)
        if self.stopping == "now":
            # Tell running handlers to stop, and give their jobs back only once they have
            # returned (or the grace ran out): a job given back while its handler still
            # ran could start elsewhere meanwhile, twice at once, and past its throttle.
            for held in self.held():
                held.job.stop_event.set()
        for thread in self._runners:
            thread.join(max(0.0, deadline - time.monotonic()))
        for part in self.parts:
            part.heartbeat.stop()
        for job in self._to_give_back():
            try:
                self.part_of(job).client.core.send(self._give_back_call(job))
            except Exception as exc:
                self._give_back_failed(job, exc)
        self.listeners.stop()
        self._stop_relay()
        for part in self.parts:
            try:
                part.client.core.send(self._deregister_call())
            except QlessError as exc:
                self._deregister_failed(part, exc)

    # -- runner threads ------------------------------------------------------------------
    def _runner(self, index: int, root: str) -> None:
        workdir = Workdir(os.path.join(root, f"t{index}"), chdir=self.threads == 1)
        reserver = make_reserver(self.order, self.reserved_queues(lambda part: part.client))
        settings = RunnerSettings(worker=self.name, interval=self.interval,
                                  max_batch=self.max_batch, burst=self.burst,
                                  relay=self.threads > 1)
        runner = Runner(self, settings, self.waker, self.leases, reserver, workdir,
                        self.pop_outage, self.listeners.marks)
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

    def look(self) -> Look:
        return self.look_now()

    def leases_of(self, job: Job) -> Leases[Job]:
        return self.part_of(job).leases
