"""The asyncio worker: up to ``concurrency`` jobs at once in one process's event loop.

``AsyncWorker`` takes the arguments of ``Worker`` (a sync ``Client``, the queues and the
same options) plus ``concurrency``. In its loop run:

* the popper (``qless_py.workers.aio.popper``): pops as many jobs as there are free
  slots, starts a task for each, and, when there is nothing to pop, sleeps until a
  notice of work, the queues' earliest due time, or the safety interval;
* one task per job: an ``async def`` handler is awaited in it with a job of the async
  client (``qless_py.aio.Job``); a plain function runs in a bounded pool of threads with
  a job of the sync client, whose calls work from that thread;
* the heartbeat task (``qless_py.workers.aio.heartbeat``), and the control coroutine:
  signals (through ``loop.add_signal_handler``), stopping, giving jobs back, the stuck-job
  check.

Its core calls go through one pipelined connection on the worker's endpoint
(``aio_resp``); ``job.client.redis`` is the async client's ``redis.asyncio``. Serving
several namespaces, it has one of each per namespace (its ``Part``: async client,
pipelined core, heartbeat task), and a job's calls go through its own namespace's.
Two threads besides the handler pool: the notice listener of the threaded worker
(``qless_py.workers.listener``, key tracking, unchanged: its callbacks are handed to the
loop) and one for the worker's own blocking reads (due times, whether a job waits). The
skeleton (``qless_py.workers.base``: signals, stopping, adoption, give-back, counting),
the lease registry, the settle rules, the heartbeat rules, the lock_lost rule and the news
decision are shared with the threaded mode.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import shutil
import signal
import threading
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar, Unpack

import qless_py.workers.aio.jobrun as jobrun
from qless_py import Client, QlessError
from qless_py.aio.client import AsyncClient
from qless_py.aio.core import LeanCore
from qless_py.aio.job import Job as AsyncJob
from qless_py.calls.base import Call
from qless_py.calls.job import JobBase
from qless_py.calls.worker import RawJob
from qless_py.client.job import Job
from qless_py.connect.aio_redis_clients import make_async_redis
from qless_py.connect.aio_resp import PipelinedConnection
from qless_py.reservers import make_reserver
from qless_py.workers.aio.heartbeat import AsyncHeartbeat
from qless_py.workers.aio.jobrun import Handler, Handlers, Run, send_held
from qless_py.workers.aio.popper import Popper
from qless_py.workers.aio.threads import DaemonPool
from qless_py.workers.base import (
    ADOPTION_ROUNDS,
    Options,
    Stop,
    WorkerBase,
    dump_stacks,
)
from qless_py.workers.jobrun import Outcome, run_job
from qless_py.workers.leases import Lease, Leases
from qless_py.workers.listeners import Notices
from qless_py.workers.logs import flush_logs
from qless_py.workers.lookout import Look
from qless_py.workers.parts import Part
from qless_py.workers.waker import PopMarks
from qless_py.workers.workdir import Workdir

log = logging.getLogger("qless_py.worker")

T = TypeVar("T")

MAX_BATCH = 100  # jobs one pop takes at most (a pop of many jobs holds the server longer)
GIVE_BACK_AT_ONCE = 64
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
           signal.SIGCONT)

Adopted = tuple[JobBase, Handler, bool]  # a job, its handler, whether it runs in a thread


def task_stacks() -> str:
    """Every task of the running loop, with its stack (USR1)."""
    parts = []
    for task in asyncio.all_tasks():
        out = io.StringIO()
        task.print_stack(file=out)
        parts.append(f"--- task {task.get_name()} ---\n{out.getvalue()}")
    return "\n".join(parts)


def _aclient(part: Part[JobBase]) -> AsyncClient:
    """The namespace's async client (made when the worker starts)."""
    assert part.aclient is not None, "the worker is not running"
    return part.aclient


class AsyncWorker(WorkerBase[JobBase]):
    """Pops and runs jobs from ``queues`` in an event loop, ``concurrency`` at a time.

    The options are ``Worker``'s (``namespaces``, ``burst``, ``max_jobs``, ``resume``,
    ``interval``, ``order``, ``workdir``, ``lost_grace``, ``isolated``, ``handle_signals``,
    ``spin``);
    ``threads`` is the size of the pool that runs plain-function handlers (default:
    ``min(concurrency, 8)``). ``run()`` runs a new event loop and returns the exit code;
    ``await worker.work()`` runs in the current one.
    """

    def __init__(self, client: Client, queues: Sequence[str], *, concurrency: int = 10,
                 threads: int | None = None, max_batch: int = MAX_BATCH,
                 **options: Unpack[Options]) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        # Thread-pool handlers, the listener and the worker's plain reads use the sync
        # client through qless_py.connect.resp; the loop's calls go through the async client.
        super().__init__(client, queues, max_batch=max_batch, **options)
        self.concurrency = concurrency
        self.threads = threads or min(concurrency, 8)
        self.marks = PopMarks()
        for part in self.parts:
            part.leases = Leases(on_lost=self._job_lost,
                                 on_sooner=partial(self._beat_sooner, part))
        self.leases = self.parts[0].leases
        self.runs: set[Run] = set()
        self._by_job: dict[int, Run] = {}  # id(job) -> its run
        self._resumed: deque[Adopted] = deque()
        self._aclient: AsyncClient | None = None
        self._handlers: Handlers | None = None
        self._heartbeat: AsyncHeartbeat | None = None
        self._popper: Popper | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._control_event: asyncio.Event | None = None
        self._signals: deque[int] = deque()
        self._pool = DaemonPool(self.threads, "qless-runner")
        self._chores = DaemonPool(1, "qless-chores")
        self._thread_workdirs = threading.local()
        self._root = ""

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
        await loop.run_in_executor(self._chores, self._check_servers)
        for part in self.parts:
            self._connect(part)
        self._aclient = self.parts[0].aclient
        core = self.parts[0].core
        self._handlers = Handlers(self.chore)
        install = self.handle_signals
        if install is None:
            install = threading.current_thread() is threading.main_thread()
        if install:
            for signum in SIGNALS:
                loop.add_signal_handler(signum, self._signal, signum)
        self._root = await loop.run_in_executor(self._chores, self._make_root)
        log.info("worker %s: queues %s%s, asyncio, concurrency %d, %d thread(s) for plain "
                 "handlers, order %s", self.name, ",".join(self.queue_names),
                 self.in_namespaces(),
                 self.concurrency, self.threads, self.order)
        tasks: list[asyncio.Task[None]] = []
        try:
            reserver = make_reserver(self.order, self.reserved_queues(_aclient))
            # first: the listener's notices wake it
            self._popper = Popper(self, reserver, core, self.listeners.marks or self.marks,
                                  several=self._by_namespace is not None)
            self._start_listener()
            for part in self.parts:
                part.heartbeat = AsyncHeartbeat(part.leases, part.core)
                tasks.append(loop.create_task(part.heartbeat.run(),
                                              name=self.heartbeat_name(part)))
            self._heartbeat = self.parts[0].heartbeat
            if self.resume:
                await self.adopt("resuming")
            tasks.append(loop.create_task(self._popper.run(), name="qless-popper"))
            await self._control()
        finally:
            await self._shutdown(tasks)
            if install:
                for signum in SIGNALS:
                    loop.remove_signal_handler(signum)
            if self._own_root:
                await loop.run_in_executor(self._chores, shutil.rmtree, self._root, True)
            for part in self.parts:
                await part.core.conn.aclose()
                await _aclient(part).redis.aclose(close_connection_pool=True)
            self._pool.shutdown()
            self._chores.shutdown()
            self._close_made()
        log.info("worker %s: exiting after %d job(s) %s", self.name, self.stats.jobs,
                 self.stats.outcomes)
        return self._exit_code

    def _connect(self, part: Part[JobBase]) -> None:
        """The namespace's async client, whose core calls (the worker's and its jobs') go
        through one pipelined connection (aio_resp: measured leaner than the pool);
        job.client.redis stays redis.asyncio."""
        client = part.client
        endpoint = client.endpoint()
        aclient = AsyncClient(redis_client=make_async_redis(endpoint), worker_name=self.name,
                              codec=client.codec, namespace=client.keys.namespace)
        core = LeanCore(PipelinedConnection(endpoint), client.core.source, client.core.sha)
        core.confirm = client.core.confirm
        core.keys = client.core.keys
        core.on_connection_error = jobrun.note_connection_error
        aclient.core = core
        part.aclient, part.core = aclient, core

    def stop(self, how: Stop = "now") -> None:
        """Ask the worker to stop (thread-safe): ``now`` gives jobs back, ``drain`` ends them."""
        loop = self._loop
        if loop is None:  # not started: it stops as soon as it does
            self.stopping = how
            return
        loop.call_soon_threadsafe(self._request_stop, how)

    # -- the skeleton's hooks -------------------------------------------------------------
    def _wake(self) -> None:
        if self._popper is not None:
            self._popper.wake.notify()

    def _nudge(self) -> None:
        if self._control_event is not None:
            self._control_event.set()

    def _stop_runs(self) -> None:
        for run in list(self.runs):
            run.cancel()

    def _lose(self, part: Part[JobBase], jid: str, event: str) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(part.leases.lose, jid, event)

    def _stacks(self) -> str:
        return (f"stacks of every task:\n{task_stacks()}\n"
                f"stacks of every thread:\n{dump_stacks()}")

    def _running(self) -> int:
        return len(self.runs)

    def notices(self) -> Notices:
        loop = self._loop
        assert loop is not None

        def in_loop(callback: Callable[[], None]) -> Callable[[], None]:
            def call() -> None:
                loop.call_soon_threadsafe(callback)
            return call

        return Notices(on_work=in_loop(self._wake), is_news=self.marks.is_news,
                       on_reconnect=in_loop(self._wake),
                       on_schedule=in_loop(self._schedule_changed),
                       busy=self.idling.busy)

    def _schedule_changed(self) -> None:
        if self._popper is not None:
            self._popper.wake.notify_schedule()

    def _job_lost(self, held: Lease[JobBase]) -> None:
        """A lease was lost (loop thread): its handler's task is cancelled; a thread-pool
        handler has only its stop event (set by the registry)."""
        run = self._by_job.get(id(held.job))
        if run is not None:
            run.cancel()
        super()._job_lost(held)

    def _beat_sooner(self, part: Part[JobBase]) -> None:
        if part.heartbeat is not None:
            part.heartbeat.sooner()

    # -- control -------------------------------------------------------------------------
    def _signal(self, signum: int) -> None:
        """A signal, delivered by the loop (not inside the signal handler): noted for the
        control coroutine."""
        self._signals.append(signum)
        self._nudge()

    async def _control(self) -> None:
        event = self._control_event
        assert event is not None
        while True:
            event.clear()
            while self._signals:
                self._on_signal(self._signals.popleft())
            flush_logs()
            if self._stuck():
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
        jobs = self._to_give_back()
        for start in range(0, len(jobs), GIVE_BACK_AT_ONCE):
            await asyncio.gather(*(self._give_back(job)
                                   for job in jobs[start:start + GIVE_BACK_AT_ONCE]))
        await loop.run_in_executor(self._chores, self.listeners.stop)
        await loop.run_in_executor(self._chores, self._stop_relay)
        for part in self.parts:
            try:
                await part.core.send(self._deregister_call())
            except QlessError as exc:
                self._deregister_failed(part, exc)

    async def _give_back(self, job: JobBase) -> None:
        try:
            await self.part_of(job).core.send(self._give_back_call(job))
        except Exception as exc:
            self._give_back_failed(job, exc)

    # -- runs ----------------------------------------------------------------------------
    async def take(self, raws: list[RawJob], part: Part[JobBase] | None) -> None:
        """Start a run of each job a pop returned in ``part``'s namespace (None: the only
        one; the popper checked the slots)."""
        part = part or self.parts[0]
        for raw in raws:
            job, handler, threaded = await self._job(raw, part)
            if part.leases.add(job):  # add() logs what it refuses
                self.start(job, handler, threaded)

    async def _job(self, raw: RawJob, part: Part[JobBase]) -> Adopted:
        """A job object for a popped or adopted job of ``part``'s namespace, its handler,
        whether it runs in the pool: the async client's job for a handler awaited in the
        loop, the sync client's for one run in the thread pool."""
        assert self._handlers is not None
        handler, threaded = await self._handlers.find(raw)
        if threaded:
            return Job(part.client, raw, self.name), handler, True
        return AsyncJob(part.aclient, raw, self.name), handler, False

    def start(self, job: JobBase, handler: Handler, threaded: bool) -> None:
        """Run ``job`` in a task of its own (the popper checked that a slot is free)."""
        run = Run(job, threaded)
        self.runs.add(run)
        self._by_job[id(job)] = run
        assert self._loop is not None
        run.task = self._loop.create_task(self._run(run, handler))

    def start_adopted(self, free: int) -> bool:
        """Start up to ``free`` of the jobs adoption took; False if it took none."""
        if not self._resumed:
            return False
        while self._resumed and free > 0:
            self.start(*self._resumed.popleft())
            free -= 1
        return True

    async def _run(self, run: Run, handler: Handler) -> None:
        job = run.job
        try:
            if not self.may_start(job):
                return
            outcome: Outcome = "crashed"
            try:
                if isinstance(job, Job):  # a plain function: the thread pool
                    assert self._loop is not None
                    outcome = await self._loop.run_in_executor(self._pool, self._in_thread,
                                                               job)
                else:
                    outcome = await jobrun.run_async_job(run, handler,
                                                         self.part_of(job).core)
            except Exception:  # a bug here must not lose the lease silently
                log.exception("job %s: the run crashed", job.jid)
            finally:
                self._ended(job, outcome)
            self.count(outcome)
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
        if self.run_ended(job, outcome):
            popper.unsettled = True
        if outcome in ("unsettled", "crashed"):
            popper.unsettled = True
            popper.wake.notify()  # pop, so that adoption looks at the core

    # -- adoption ------------------------------------------------------------------------
    async def adopt(self, why: str) -> None:
        """Take back jobs leased to this worker's name that nothing here knows of; a round
        whose read may have been too early for a job is run again, a few times at most
        (then the next pop looks again: ``adoption_due``)."""
        self._adopt_again = False
        for part in self.parts:
            if part.rest.resting:  # its pops fail: adoption looks once they work again
                continue
            for _ in range(ADOPTION_ROUNDS):
                since = part.leases.open_adoption()
                try:
                    await self._adopt_round(part, since, why)
                finally:
                    stale = part.leases.close_adoption()
                if not stale:
                    break
            else:
                self._adopt_again = True

    async def _adopt_round(self, part: Part[JobBase], since: int, why: str) -> None:
        """Jobs the core lists under this worker's name in ``part``'s namespace that
        nothing here holds (see ``Worker._resume_jobs``): taken into the registry, to be
        run next."""
        try:
            raws = await part.core.run(self._adoption_steps(part, since))
        except QlessError as exc:
            self._adoption_failed(exc)
            return
        taken: list[Adopted] = []
        for raw in raws:
            job, handler, threaded = await self._job(raw, part)
            decided = self._adopts(job, since)
            if decided is True:
                taken.append((job, handler, threaded))
            elif decided is not False:
                await self._retry(job, decided)
        self._resumed.extend(taken)
        self._adopted(why, [job.jid for job, _, _ in taken])

    async def _retry(self, job: JobBase, call: Call[int]) -> None:
        try:
            left = await send_held(self.part_of(job).core, job, call, ends=True)
        except QlessError as exc:
            self._retried(job, call, exc)
        else:
            self._retried(job, call, left)

    # -- what the popper asks (popper.Host) ---------------------------------------------------
    def free(self) -> int:
        """Slots free for new jobs (a recycle's budget counted)."""
        free = self.concurrency - len(self.runs)
        budget = self.budget()
        return free if budget is None else min(free, budget)

    async def look(self) -> Look:
        """The queues' due times and whether a job waits (on the chores thread)."""
        return await self.chore(self.look_now)

    def popper_done(self) -> None:
        self._nudge()

    async def chore(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking call of the worker's own on its chores thread."""
        assert self._loop is not None
        return await self._loop.run_in_executor(self._chores, fn, *args)

    @property
    def running(self) -> int:
        return len(self.runs)

    def __repr__(self) -> str:
        return f"<AsyncWorker {self.name} queues={','.join(self.queue_names)}>"
