"""The asyncio worker: up to ``concurrency`` jobs at once in one process's event loop.

``AsyncWorker`` takes the arguments of ``Worker`` (a sync ``Client``, the queues and the
same options) plus ``concurrency``. In its loop run:

* the popper (``qless_py.workers.aio_popper``): pops as many jobs as there are free
  slots, starts a task for each, and, when there is nothing to pop, sleeps until a
  notice of work, the queues' earliest due time, or the safety interval;
* one task per job: an ``async def`` handler is awaited in it with a job of the async
  client (``qless_py.aio.Job``); a plain function runs in a bounded pool of threads with
  a job of the sync client, whose calls work from that thread;
* the heartbeat task (``aio_heartbeat``), and the control coroutine: signals (through
  ``loop.add_signal_handler``), stopping, giving jobs back, the stuck-job check.

Its core calls go through one pipelined connection on the worker's endpoint
(``aio_resp``); ``job.client.redis`` is the async client's ``redis.asyncio``.
Two threads besides the handler pool: the notice listener of the threaded worker
(``qless_py.workers.listener``, key tracking, unchanged: its callbacks are handed to the
loop) and one for the worker's own blocking reads (due times, whether a job waits). The
lease registry, the settle rules, the heartbeat rules, the lock_lost rule and the news
decision are the threaded worker's.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from qless_py import Client, QlessConnectionError, QlessError
from qless_py.aio.client import AsyncClient
from qless_py.aio.core import LeanCore
from qless_py.aio.job import Job as AsyncJob
from qless_py.calls.job import JobBase, json_list
from qless_py.client.job import Job
from qless_py.connect.aio_redis_clients import make_async_redis
from qless_py.connect.aio_resp import PipelinedConnection
from qless_py.reservers import ORDERS
from qless_py.workers import aio_jobrun
from qless_py.workers.aio_heartbeat import AsyncHeartbeat
from qless_py.workers.aio_jobrun import Run, send_held
from qless_py.workers.aio_popper import Popper, Wake
from qless_py.workers.aio_threads import DaemonPool
from qless_py.workers.jobrun import Outcome, note_connection_error, run_job
from qless_py.workers.leases import Lease, Leases
from qless_py.workers.listener import Listener, loses_lease
from qless_py.workers.logs import flush_logs
from qless_py.workers.runner import Stop
from qless_py.workers.waker import PopMarks
from qless_py.workers.workdir import Workdir
from qless_py.workers.worker import (
    MAX_UNSETTLED_RUNS,
    SPIN,
    Stats,
    Worker,
    dump_stacks,
)

log = logging.getLogger("qless_py.worker")

MAX_BATCH = 100  # jobs one pop takes at most (a pop of many jobs holds the server longer)
GIVE_BACK_AT_ONCE = 64
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
           signal.SIGCONT)


def task_stacks() -> str:
    """Every task of the running loop, with its stack (USR1)."""
    parts = []
    for task in asyncio.all_tasks():
        out = io.StringIO()
        task.print_stack(file=out)
        parts.append(f"--- task {task.get_name()} ---\n{out.getvalue()}")
    return "\n".join(parts)


class AsyncWorker:
    """Pops and runs jobs from ``queues`` in an event loop, ``concurrency`` at a time.

    The options are ``Worker``'s (``burst``, ``max_jobs``, ``resume``, ``interval``,
    ``order``, ``workdir``, ``lost_grace``, ``isolated``, ``handle_signals``, ``spin``);
    ``threads`` is the size of the pool that runs plain-function handlers (default:
    ``min(concurrency, 8)``). ``run()`` runs a new event loop and returns the exit code;
    ``await worker.work()`` runs in the current one.
    """

    EXIT_DONE, EXIT_RECYCLE, EXIT_STUCK = Worker.EXIT_DONE, Worker.EXIT_RECYCLE, Worker.EXIT_STUCK

    def __init__(self, client: Client, queues: Sequence[str], *, concurrency: int = 10,
                 threads: int | None = None, order: str = "ordered", interval: float = 5.0,
                 workdir: str | None = None, max_jobs: int = 0, resume: bool = False,
                 burst: bool = False, isolated: bool = False, lost_grace: float = 5.0,
                 stop_grace: float = 2.0, handle_signals: bool | None = None,
                 max_batch: int = MAX_BATCH, spin: float = SPIN) -> None:
        if not queues:
            raise ValueError("a worker needs at least one queue")
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        if interval <= 0:
            raise ValueError("interval must be positive")
        if order not in ORDERS:
            raise ValueError(f"unknown queue order {order!r} (choose from {', '.join(ORDERS)})")
        if not 0 <= spin <= 0.1:
            raise ValueError("spin must be between 0 and 0.1 seconds")
        self.client = client
        # Thread-pool handlers, the listener and the worker's plain reads use the sync
        # client through qless_py.resp; the loop's calls go through the async client.
        client.core.go_direct(client.endpoint(), spin)
        client.core.on_connection_error = note_connection_error
        transport = client.core.transport
        assert transport is not None
        self.transport = transport
        self.name: str = client.worker_name
        self.queue_names = list(queues)
        self.concurrency = concurrency
        self.threads = threads or min(concurrency, 8)
        self.order, self.interval = order, interval
        self.workdir_root, self.max_jobs = workdir, max_jobs
        self.resume, self.burst, self.isolated = resume, burst, isolated
        self.lost_grace, self.stop_grace, self.max_batch = lost_grace, stop_grace, max_batch
        self.handle_signals = handle_signals
        self.stats = Stats()
        self.marks = PopMarks()
        self.leases: Leases[JobBase] = Leases(on_lost=self._job_lost,
                                              on_sooner=self._beat_sooner)
        self.paused = False
        self.stopping: Stop | None = None
        self.runs: set[Run] = set()
        self._by_job: dict[int, Run] = {}  # id(job) -> its run
        self._exit_code = self.EXIT_DONE
        self._listener: Listener | None = None
        self._aclient: AsyncClient | None = None
        self._heartbeat: AsyncHeartbeat | None = None
        self._popper: Popper | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._control_event: asyncio.Event | None = None
        self._signals: deque[int] = deque()
        self._pool = DaemonPool(self.threads, "qless-runner")
        self._chores = DaemonPool(1, "qless-chores")
        self._thread_workdirs = threading.local()
        self._root = ""
        self._own_root = False

    # -- public --------------------------------------------------------------------------
    @property
    def aclient(self) -> AsyncClient:
        """The async client the loop's calls go through (made when the worker starts)."""
        assert self._aclient is not None, "the worker is not running"
        return self._aclient

    def run(self) -> int:
        """Run the worker in a new event loop until stopped; returns the exit code (0 done,
        3 recycled after ``max_jobs``, 4 abandoned a lost job that would not stop)."""
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            return loop.run_until_complete(self.work())
        finally:
            # Not asyncio.run, which waits for every task: a handler that will not stop
            # (it swallows its cancellation) is left behind, as the threaded worker leaves
            # a runner thread that will not return. Told once more, it gets a moment.
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.wait(left, timeout=0.1))
            loop.run_until_complete(loop.shutdown_asyncgens())
            asyncio.set_event_loop(None)
            loop.close()

    async def work(self) -> int:
        """Run the worker in the running loop until stopped; returns the exit code.

        Raises ConnectionSetupError if the first connection fails for a reason retrying
        cannot mend; later connection problems are retried with backoff."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._control_event = asyncio.Event()
        problem = await loop.run_in_executor(self._chores, self.client.core.check)
        if problem is not None:
            log.warning("worker %s: %s; retrying with backoff", self.name, problem)
        endpoint = self.client.endpoint()
        self._aclient = AsyncClient(redis_client=make_async_redis(endpoint),
                                    worker_name=self.name, codec=self.client.codec)
        # Core calls (the worker's and its jobs') go through one pipelined connection
        # (aio_resp: measured leaner than the pool); job.client.redis stays redis.asyncio.
        core = LeanCore(PipelinedConnection(endpoint), self.client.core.source,
                        self.client.core.sha)
        core.confirm = self.client.core.confirm
        core.on_connection_error = aio_jobrun.note_connection_error
        self._aclient.core = core
        install = self.handle_signals
        if install is None:
            install = threading.current_thread() is threading.main_thread()
        if install:
            for signum in SIGNALS:
                loop.add_signal_handler(signum, self._signal, signum)
        self._root = await loop.run_in_executor(self._chores, self._make_root)
        log.info("worker %s: queues %s, asyncio, concurrency %d, %d thread(s) for plain "
                 "handlers, order %s", self.name, ",".join(self.queue_names),
                 self.concurrency, self.threads, self.order)
        tasks: list[asyncio.Task[None]] = []
        try:
            self._popper = Popper(self)  # first: the listener's notices wake it
            self._start_listener()
            self._heartbeat = AsyncHeartbeat(self.leases, self._aclient.core)
            tasks.append(loop.create_task(self._heartbeat.run(), name="qless-heartbeat"))
            if self.resume:
                await self._popper.adopt("resuming")
            tasks.append(loop.create_task(self._popper.run(), name="qless-popper"))
            await self._control()
        finally:
            await self._shutdown(tasks)
            if install:
                for signum in SIGNALS:
                    loop.remove_signal_handler(signum)
            if self._own_root:
                await loop.run_in_executor(self._chores, shutil.rmtree, self._root, True)
            await core.conn.aclose()
            await self._aclient.redis.aclose(close_connection_pool=True)
            self._pool.shutdown()
            self._chores.shutdown()
        log.info("worker %s: exiting after %d job(s) %s", self.name, self.stats.jobs,
                 self.stats.outcomes)
        return self._exit_code

    def stop(self, how: Stop = "now") -> None:
        """Ask the worker to stop (thread-safe): ``now`` gives jobs back, ``drain`` ends them."""
        loop = self._loop
        if loop is None:  # not started: it stops as soon as it does
            self.stopping = how
            return
        loop.call_soon_threadsafe(self._request_stop, how)

    # -- control -------------------------------------------------------------------------
    def _signal(self, signum: int) -> None:
        """A signal, delivered by the loop (not inside the signal handler): noted for the
        control coroutine."""
        self._signals.append(signum)
        self._nudge()

    def _nudge(self) -> None:
        if self._control_event is not None:
            self._control_event.set()

    async def _control(self) -> None:
        event = self._control_event
        assert event is not None
        while True:
            event.clear()
            while self._signals:
                self._on_signal(self._signals.popleft())
            flush_logs()
            if self.isolated and self.leases.stuck_lost(self.lost_grace):
                self._abandon_stuck()
                return
            if self.stopping == "now":
                return
            if self._popper is not None and self._popper.done and not self.runs:
                return  # drained: burst, QUIT, max-jobs
            timeout = 1.0 if (self.isolated or self.stopping) else None
            try:
                async with asyncio.timeout(timeout):
                    await event.wait()
            except TimeoutError:
                pass

    def _on_signal(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if signum in (signal.SIGTERM, signal.SIGINT):
            log.info("worker %s: %s, stopping now", self.name, name)
            self._request_stop("now")
        elif signum == signal.SIGQUIT:
            log.info("worker %s: SIGQUIT, finishing current jobs", self.name)
            self._request_stop("drain")
        elif signum == signal.SIGUSR1:
            log.warning("worker %s: stacks of every task:\n%s\nstacks of every thread:\n%s",
                        self.name, task_stacks(), dump_stacks())
        elif signum == signal.SIGUSR2:
            log.info("worker %s: SIGUSR2, paused (SIGCONT resumes)", self.name)
            self.paused = True
        elif signum == signal.SIGCONT:
            if self.paused:
                log.info("worker %s: SIGCONT, resuming", self.name)
            self.paused = False
            self.wake.notify()

    def _request_stop(self, how: Stop) -> None:
        if self.stopping != "now":
            self.stopping = how
        if how == "now":
            for held in self.leases.snapshot():
                held.job.stop_event.set()
            for run in list(self.runs):
                run.cancel()
        if self._popper is not None:
            self.wake.notify()
        self._nudge()

    def _abandon_stuck(self) -> None:
        for held in self.leases.stuck_lost(self.lost_grace):
            log.error("job %s was lost (%s) and did not stop within %.1fs; ending this "
                      "process so it cannot run on", held.job.jid, held.lost_reason,
                      self.lost_grace)
        self._exit_code = self.EXIT_STUCK
        self._request_stop("now")

    def _job_lost(self, held: Lease[JobBase]) -> None:
        """A lease was lost (loop thread): its handler's task is cancelled; a thread-pool
        handler has only its stop event (set by the registry)."""
        run = self._by_job.get(id(held.job))
        if run is not None:
            run.cancel()
        if self.isolated:
            self._nudge()

    def _beat_sooner(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.sooner()

    # -- start and stop ------------------------------------------------------------------
    def _make_root(self) -> str:
        self._own_root = True
        if self.workdir_root:
            root = os.path.join(self.workdir_root, self.name)
            os.makedirs(root, exist_ok=True)
            return root
        return tempfile.mkdtemp(prefix="qless-py-")

    @property
    def wake(self) -> Wake:
        assert self._popper is not None
        return self._popper.wake

    def _start_listener(self) -> None:
        loop = self._loop
        assert loop is not None

        def in_loop(callback: Any) -> Any:
            return lambda *args: loop.call_soon_threadsafe(callback, *args)

        self._listener = Listener(
            self.transport, self.queue_names, self.name,
            on_work=in_loop(lambda: self.wake.notify()),
            is_news=self.marks.is_news,
            on_notice=self._on_notice,
            on_reconnect=in_loop(lambda: self.wake.notify()),
            on_schedule=in_loop(lambda: self.wake.notify_schedule()))
        self._listener.start(timeout=0)

    def _on_notice(self, jid: str, event: str) -> None:
        """On the listener's thread: decide there (it may read the job), lose in the loop."""
        if loses_lease(self.transport, self.name, self.leases.get(jid) is not None,
                       jid, event):
            assert self._loop is not None
            self._loop.call_soon_threadsafe(self.leases.lose, jid, event)

    async def _shutdown(self, tasks: list[asyncio.Task[None]]) -> None:
        loop = asyncio.get_running_loop()
        if self.stopping is None:
            self._request_stop("drain")
        grace = self.stop_grace if self.stopping == "now" else None
        popper = tasks[-1] if len(tasks) > 1 else None
        if popper is not None:
            # not cancelled: a pop cut off mid-flight would leave jobs leased to nobody
            await asyncio.wait([popper])
        # Handlers were told to stop (TERM/INT: cancelled, or their stop event set); their
        # jobs go back only once they have returned, or the grace ran out: a job given
        # back while its handler still ran could start elsewhere meanwhile, twice at once,
        # and past its throttle.
        running = [run.task for run in self.runs if run.task is not None]
        if running:
            await asyncio.wait(running, timeout=grace)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._give_back_all()
        if self._listener is not None:
            await loop.run_in_executor(self._chores, self._listener.stop)
        try:
            await self.aclient.workers.deregister(self.name)
        except QlessError as exc:
            log.warning("worker %s: could not deregister: %s", self.name, exc)

    async def _give_back_all(self) -> None:
        held = self.leases.snapshot()
        for start in range(0, len(held), GIVE_BACK_AT_ONCE):
            await asyncio.gather(*(self._give_back(lease)
                                   for lease in held[start:start + GIVE_BACK_AT_ONCE]))

    async def _give_back(self, held: Lease[JobBase]) -> None:
        job = held.job
        if job.finished or held.lost_at is not None:
            self.leases.remove(job)  # not this worker's any more: nothing to give back
            return
        job.stop_event.set()
        try:
            if await self.aclient.core.call("qlpy.giveback", job.jid, self.name):
                log.info("gave %s back to its queue", job.jid)
            else:
                log.info("job %s is no longer leased to this worker; nothing to give back",
                         job.jid)
            self.leases.remove(job)
        except Exception as exc:
            log.error("could not give %s back (%s); its lock will expire", job.jid, exc)

    # -- runs ----------------------------------------------------------------------------
    def make_job(self, raw: dict[str, Any], threaded: bool) -> JobBase:
        """A job object for a popped or adopted job: the async client's for a handler
        awaited in the loop, the sync client's for one run in the thread pool."""
        if threaded:
            return Job(self.client, raw, self.name)
        return AsyncJob(self.aclient, raw, self.name)

    def start(self, job: JobBase, handler: Any, threaded: bool) -> None:
        """Run ``job`` in a task of its own (the popper checked that a slot is free)."""
        run = Run(job, threaded)
        self.runs.add(run)
        self._by_job[id(job)] = run
        assert self._loop is not None
        run.task = self._loop.create_task(self._run(run, handler))

    async def _run(self, run: Run, handler: Any) -> None:
        job = run.job
        try:
            if self.stopping == "now":  # stays held: the shutdown gives it back
                return
            if job.stop_event.is_set():
                lease = self.leases.remove(job)
                log.info("job %s was lost before it started (%s); not running it", job.jid,
                         lease.lost_reason if lease is not None else "lost")
                return
            self.leases.started(job)
            outcome: Outcome = "crashed"
            try:
                if isinstance(job, Job):  # a plain function: the thread pool
                    assert self._loop is not None
                    outcome = await self._loop.run_in_executor(self._pool, self._in_thread,
                                                               job)
                else:
                    outcome = await aio_jobrun.run_async_job(run, handler, self.aclient.core)
            except Exception:  # a bug here must not lose the lease silently
                log.exception("job %s: the run crashed", job.jid)
            finally:
                self._ended(job, outcome)
            self._count(outcome)
        finally:
            self.runs.discard(run)
            if self._by_job.get(id(job)) is run:
                del self._by_job[id(job)]
            if self._popper is not None:
                self._popper.slot_freed()
            if not self.runs:
                self._nudge()

    def _in_thread(self, job: Job) -> Outcome:
        """A plain-function handler, on a pool thread, in that thread's work directory."""
        workdir: Workdir | None = getattr(self._thread_workdirs, "workdir", None)
        if workdir is None:
            name = threading.current_thread().name.rsplit("-", 1)[-1]
            workdir = Workdir(os.path.join(self._root, f"t{name}"), chdir=False)
            self._thread_workdirs.workdir = workdir
        return run_job(job, workdir)

    def _ended(self, job: JobBase, outcome: Outcome) -> None:
        """Release the run's entry; an unsettled one stays held until adoption decides."""
        popper = self._popper
        assert popper is not None
        if outcome in ("unsettled", "crashed"):
            self.leases.ended(job, unsettled=True)
            popper.unsettled = True
            self.wake.notify()  # pop, so that adoption looks at the core
        elif self.stopping == "now" and not job.finished:
            pass  # it stays held: stopped by TERM/INT, the shutdown gives it back
        elif self.leases.ended(job):
            popper.unsettled = True  # adoption skipped a lease of this job meanwhile

    def _count(self, outcome: Outcome) -> None:
        self.stats.count(outcome)
        if self.max_jobs and self.stats.jobs >= self.max_jobs and self.stopping is None:
            log.info("worker %s: %d jobs done, recycling", self.name, self.stats.jobs)
            self._exit_code = self.EXIT_RECYCLE
            self.stopping = "drain"
            self.wake.notify()

    # -- adoption ------------------------------------------------------------------------
    async def adopt_round(self, since: int, why: str) -> list[tuple[JobBase, Any, bool]]:
        """Jobs the core lists under this worker's name that nothing here holds (see
        ``Worker._resume_jobs``): taken into the registry, returned to be run."""
        aclient = self.aclient
        popper = self._popper
        assert popper is not None
        try:
            mine = await aclient.workers[self.name]
            listed = [*mine.get("jobs", []), *mine.get("stalled", [])]
            jids = [jid for jid in listed if self.leases.wants(jid, since)]
            raws = json_list(await aclient.core.call("multiget", *jids)) if jids else []
        except QlessConnectionError as exc:  # the server went away again: look once more
            log.warning("worker %s: could not read the jobs it holds yet (%s); looking again "
                        "after the next pop", self.name, exc)
            popper.adopt_due = True
            return []
        except QlessError as exc:
            log.error("worker %s: could not read the jobs it holds: %s", self.name, exc)
            return []
        ours = [raw for raw in raws
                if raw.get("state") == "running" and raw.get("worker") == self.name]
        for gone in self.leases.forget_unsettled({raw["jid"] for raw in ours}, since):
            log.info("job %s: no longer leased to this worker; %s", gone.job.jid,
                     f"its {gone.job.settling} took effect (or its lock was lost)"
                     if gone.job.settling else "its lock was lost or it was moved")
        taken: list[tuple[JobBase, Any, bool]] = []
        for raw in ours:
            handler, threaded = await popper.handler(raw)
            job = self.make_job(raw, threaded)
            adopted = self.leases.adopt(job, since)
            if adopted is None:
                continue  # a run here holds it or settled it (then the core is read again)
            if adopted.unsettled_runs >= MAX_UNSETTLED_RUNS:
                await self._retry_unsettled(job, adopted.unsettled_runs)
                continue
            taken.append((job, handler, threaded))
        if taken:
            log.warning("worker %s: %s %d job(s): %s", self.name, why, len(taken),
                        " ".join(job.jid for job, _, _ in taken))
        return taken

    async def _retry_unsettled(self, job: JobBase, runs: int) -> None:
        """As ``Worker._retry_unsettled``: a job whose runs keep ending unsettled spends a
        retry, as a lock expiry would."""
        message = (f"its last {runs} runs on worker {self.name} ended with the outcome of a "
                   "core call unknown (connection errors)")
        try:
            left = await send_held(self.aclient.core, job, job._retry_call(
                0, f"failed-retries-{job.queue_name}", message), ends=True)
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

    # -- what the popper asks -------------------------------------------------------------
    def mark(self) -> int:
        return self._listener.mark() if self._listener is not None else -1

    @property
    def caps(self) -> dict[str, float]:
        return self._listener.caps if self._listener is not None else {}

    def budget(self) -> int | None:
        """Jobs that may still be started before the worker recycles (None: no limit)."""
        if not self.max_jobs:
            return None
        return max(0, self.max_jobs - self.stats.jobs - len(self.runs))

    async def chore(self, fn: Any, *args: Any) -> Any:
        """Run a blocking call of the worker's own on its chores thread."""
        assert self._loop is not None
        return await self._loop.run_in_executor(self._chores, fn, *args)

    @property
    def running(self) -> int:
        return len(self.runs)

    def __repr__(self) -> str:
        return f"<AsyncWorker {self.name} queues={','.join(self.queue_names)}>"

