"""The worker skeleton both modes share: options, signals, stopping, the stuck-job rule,
the work directory, the listener's wiring, counting and recycling, adoption's decisions,
give-back and deregistration, and what a run's end does to its lease.

``WorkerBase`` decides; a mode (``qless_py.workers.threaded.Worker``, runner threads, or
``qless_py.workers.aio.AsyncWorker``, an event loop) sends. The decisions that need the
core are Calls or Steps (``qless_py.calls``): the threaded mode sends them with
``client.core``, the asyncio mode awaits them on its async core. A mode gives the skeleton
five hooks (``_wake``, ``_nudge``, ``_stop_runs``, ``_lose``, ``_stacks``), the
``notices`` its listener calls, and ``_running``.

A worker serves one namespace or several (``namespaces=``): one ``Part`` each
(``qless_py.workers.parts``), with the namespace's client, transport and leases. What is
said to the core about a job goes through its part; adoption, give-back and
deregistration are done in each part; one listener hears the namespaces of one master.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, Literal, Protocol, TypedDict

from qless_py import Client, QlessConnectionError, QlessError
from qless_py.calls.base import Call, Steps
from qless_py.calls.worker import RawJob, deregister_call, giveback_call, listed_steps
from qless_py.connect.resp import Transport
from qless_py.reservers import ORDERS
from qless_py.workers.jobrun import Outcome
from qless_py.workers.leases import J, Lease, Leases
from qless_py.workers.listener import Listener, loses_lease
from qless_py.workers.listeners import Listeners, Notices
from qless_py.workers.lookout import Look
from qless_py.workers.memory import warn_if_evicting
from qless_py.workers.parts import Part, PartQueue, look_all, part_clients
from qless_py.workers.relay import RelayThread
from qless_py.workers.signals import NUDGE
from qless_py.workers.waker import Idling

log = logging.getLogger("qless_py.worker")

Stop = Literal["now", "drain"]  # TERM/INT: give jobs back; QUIT, burst, max-jobs: end them

# Runs of one job in a row that may end unsettled (connection errors) before adoption
# spends one of its retries instead of running it again.
MAX_UNSETTLED_RUNS = 5
ADOPTION_ROUNDS = 5  # rounds one adoption may run back to back
# Seconds a runner waits awake for a command's reply before it sleeps in recv (see
# qless_py.connect.resp). Off by default: measured interleaved on a 2-core VM, sleeping at once
# drained no-op jobs faster in 8 rounds of 10 with 1 and with 2 processes, for 35-50 us
# less worker CPU per job (docs/workers.md, "Throughput path").
SPIN = 0.0
UNSETTLED: tuple[Outcome, ...] = ("unsettled", "crashed")  # crashed: a bug in the worker


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


class Options(TypedDict, total=False):
    """The options both modes take (see ``Worker``); each mode adds its own."""

    namespaces: Sequence[str | None] | None
    order: str
    interval: float
    workdir: str | None
    max_jobs: int
    resume: bool
    burst: bool
    isolated: bool
    lost_grace: float
    stop_grace: float
    handle_signals: bool | None
    spin: float


class State(Protocol):
    """What a mode's popping part (a runner thread, the asyncio popper) reads of the
    skeleton's state."""

    @property
    def stopping(self) -> Stop | None: ...

    @property
    def paused(self) -> bool: ...

    @property
    def adoption_due(self) -> bool:
        """An adoption round was asked for and none is running."""

    @property
    def idling(self) -> Idling:
        """Where idle runners (or the idle popper) say so (see ``Listener``)."""

    def mark(self) -> int:
        """How far the listener's notices reached just now (see ``PopMarks.is_news``)."""

    def tracking_ready(self) -> bool:
        """Whether the keys of new work are tracked; if not, they soon are, and the
        subscription again wakes every runner (``WorkerBase.tracking_ready``)."""


class WorkerBase(Generic[J]):
    """The state and the rules of one worker process's worker, whatever runs its jobs.

    ``run()`` returns an exit code: 0 done, 3 recycled after ``max_jobs``, 4 abandoned a
    lost job that would not stop."""

    EXIT_DONE, EXIT_RECYCLE, EXIT_STUCK = 0, 3, 4
    leases: Leases[J]

    def __init__(self, client: Client, queues: Sequence[str], *, max_batch: int,
                 namespaces: Sequence[str | None] | None = None,
                 order: str | None = None, interval: float = 5.0, workdir: str | None = None,
                 max_jobs: int = 0, resume: bool = False, burst: bool = False,
                 isolated: bool = False, lost_grace: float = 5.0, stop_grace: float = 2.0,
                 handle_signals: bool | None = None, spin: float = SPIN) -> None:
        if not queues:
            raise ValueError("a worker needs at least one queue")
        if interval <= 0:
            raise ValueError("interval must be positive")
        if order is not None and order not in ORDERS:
            raise ValueError(f"unknown queue order {order!r} (choose from {', '.join(ORDERS)})")
        if not 0 <= spin <= 0.1:
            raise ValueError("spin must be between 0 and 0.1 seconds")
        shards = getattr(client, "shards", None)
        shard_clients = getattr(client, "clients", None)
        if shards is not None and isinstance(shard_clients, list):
            # a sharded namespace's client: serve every shard (docs/cluster.md)
            if namespaces is not None:
                raise ValueError("a worker of a sharded namespace serves its shards: give "
                                 "namespaces= or a ShardedClient, not both")
            client, namespaces = shard_clients[0], list(shards.names)
            order = order or "round-robin"  # every shard served evenly, as with --shards
        order = order or "ordered"
        self.client = client
        self.parts: list[Part[J]] = [Part(c, spin) for c in part_clients(client, namespaces)]
        for part in self.parts:
            part.watch.on_notice = partial(self._on_notice, part)
        # job's namespace -> its part; None with one namespace (then parts[0] holds all)
        self._by_namespace: dict[str | None, Part[J]] | None = (
            {part.namespace: part for part in self.parts} if len(self.parts) > 1 else None)
        self._made = [p.client for p in self.parts if p.client is not client]
        self.transport: Transport = self.parts[0].transport
        self.name: str = client.worker_name
        self.queue_names = list(queues)
        self.order, self.interval = order, interval
        self.workdir_root, self.max_jobs = workdir, max_jobs
        self.resume, self.burst, self.isolated = resume, burst, isolated
        self.lost_grace, self.stop_grace, self.max_batch = lost_grace, stop_grace, max_batch
        self.handle_signals = handle_signals
        self.stats = Stats()
        self.paused = False
        self.stopping: Stop | None = None
        self._lock = threading.Lock()
        self._adopting = False
        self._adopt_again = False
        self._exit_code = self.EXIT_DONE
        self.listeners = Listeners(self.queue_names, self.name,
                                   several=self._by_namespace is not None)
        self.idling = Idling()  # whether a runner (or the popper) is idle: Listener
        self._own_root = False

    # -- the mode's hooks -----------------------------------------------------------------
    def _wake(self) -> None:
        """Make the idle runners (or the popper) look at the worker's state again."""
        raise NotImplementedError

    def _nudge(self) -> None:
        """Make the control loop look at the worker's state again (any thread)."""
        raise NotImplementedError

    def _stop_runs(self) -> None:
        """TERM/INT: stop what runs beyond setting the jobs' stop events."""

    def _lose(self, part: Part[J], jid: str, event: str) -> None:
        """On the listener's thread: mark ``jid``'s lease in ``part`` lost (where the
        registry lives)."""
        raise NotImplementedError

    def _stacks(self) -> str:
        """The stacks USR1 logs."""
        return f"stacks of every thread:\n{dump_stacks()}"

    def _running(self) -> int:
        """Jobs started and not yet counted (they count against ``max_jobs``)."""
        return 0

    def notices(self) -> Notices:
        """What the listener calls when it learns of work or of a schedule change."""
        raise NotImplementedError

    # -- signals and stopping ---------------------------------------------------------------
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
            log.warning("worker %s: %s", self.name, self._stacks())
        elif signum == signal.SIGUSR2:
            log.info("worker %s: SIGUSR2, paused (SIGCONT resumes)", self.name)
            self.paused = True
        elif signum == signal.SIGCONT:
            if self.paused:
                log.info("worker %s: SIGCONT, resuming", self.name)
            self.paused = False
            self._wake()

    def _request_stop(self, how: Stop) -> None:
        with self._lock:
            if self.stopping != "now":
                self.stopping = how
        if how == "now":
            for held in self.held():
                held.job.stop_event.set()
            self._stop_runs()
        self._wake()
        self._nudge()

    def _stuck(self) -> bool:
        """Isolated, a lost job did not stop within ``lost_grace``: end the process."""
        stuck = ([held for part in self.parts for held in part.leases.stuck_lost(
            self.lost_grace)] if self.isolated else [])
        for held in stuck:
            log.error("job %s was lost (%s) and did not stop within %.1fs; ending this "
                      "process so it cannot run on", held.job.jid, held.lost_reason,
                      self.lost_grace)
        if stuck:
            self._exit_code = self.EXIT_STUCK
            self._request_stop("now")
        return bool(stuck)

    def _job_lost(self, held: Lease[J]) -> None:
        if self.isolated:
            self._nudge()

    def _check_servers(self) -> None:
        """The first look at each namespace's server (``core.check()``): a connection
        problem is retried; a server that answers and may evict keys at its memory limit
        is warned about once (``memory.warn_if_evicting``). Blocking."""
        for part in self.parts:
            self._server_checked(part.client.core.check(), part.transport)

    def _server_checked(self, problem: QlessConnectionError | None,
                        transport: Transport) -> None:
        if problem is not None:
            log.warning("worker %s: %s; retrying with backoff", self.name, problem)
        else:
            warn_if_evicting(lambda: transport.call("INFO", "memory"))

    def _make_root(self) -> str:
        """This worker's private directory (removed at exit): under ``workdir`` or a temp dir."""
        self._own_root = True
        if self.workdir_root:
            root = os.path.join(self.workdir_root, self.name)
            os.makedirs(root, exist_ok=True)
            return root
        return tempfile.mkdtemp(prefix="qless-py-")

    # -- the listeners ------------------------------------------------------------------
    @property
    def _listener(self) -> Listener | None:
        """The first listener (the only one when the namespaces share one master)."""
        return self.listeners.first

    def tracking_ready(self) -> bool:
        """Before an idle runner's (or the popper's) last look: whether the listeners
        track the keys of new work; those that do not start to, and their subscriptions
        again wake every runner (``Listeners.want_tracking``)."""
        return self.listeners.want_tracking()

    def _start_listener(self) -> None:
        # the relay first: it hooks the listener's outbox notices (qless_py.workers.relay)
        self.relay = RelayThread(self.parts)
        self.relay.start()
        self.listeners.start(self.notices(), self.parts)

    def _stop_relay(self) -> None:
        """Stop the relay thread, then relay once more what the last settles queued."""
        relay: RelayThread | None = getattr(self, "relay", None)
        if relay is not None:
            relay.stop()
            for part in self.parts:
                relay.drain(part)

    def _on_notice(self, part: Part[J], jid: str, event: str) -> None:
        """On the listener's thread: decide there (it may read the job), lose via ``_lose``."""
        if loses_lease(part.client.core, self.name, part.leases.get(jid) is not None,
                       jid, event):
            self._lose(part, jid, event)

    def mark(self) -> int:
        """How far the listener's notices reached just now (see ``Waker.is_news``); with
        several namespaces, 0: ``MarkSet`` reads each listener's mark itself."""
        listeners = self.listeners
        if listeners.marks is not None:
            return 0
        return listeners.first.mark() if listeners.first is not None else -1

    def look_now(self) -> Look:
        """The queues' earliest due time and whether a job waits (blocking: one round trip
        per namespace)."""
        return look_all(self.parts, self.queue_names)

    # -- parts ------------------------------------------------------------------------------
    def part_of(self, job: J) -> Part[J]:
        """The part of ``job``'s namespace."""
        if self._by_namespace is None:
            return self.parts[0]
        return self._by_namespace[job.client.keys.namespace]

    def reserved_queues(self, client_of: Callable[[Part[J]], Any]) -> list[Any]:
        """The queues a reserver orders, from each part's client (``client_of``: the sync
        or the async one): the client's queues with one namespace, ``PartQueue``s of every
        namespace's queues with several."""
        if self._by_namespace is None:
            client = client_of(self.parts[0])
            return [client.queues[name] for name in self.queue_names]
        return [PartQueue(part, client_of(part).queues[name]) for part in self.parts
                for name in self.queue_names]

    def in_namespaces(self) -> str:
        """For the start line: the namespaces served, when there are several."""
        if self._by_namespace is None:
            return ""
        return " in namespaces " + ",".join(str(part.namespace) for part in self.parts)

    def heartbeat_name(self, part: Part[J]) -> str:
        """The name of ``part``'s heartbeat thread or task."""
        if self._by_namespace is None:
            return "qless-heartbeat"
        return f"qless-heartbeat-{part.namespace}"

    def held(self) -> list[Lease[J]]:
        """Every lease held, in every namespace."""
        return [held for part in self.parts for held in part.leases.snapshot()]

    def _close_made(self) -> None:
        """Close the clients the worker made for the namespaces besides its client's."""
        for client in self._made:
            client.close()

    # -- counting ---------------------------------------------------------------------------
    def budget(self) -> int | None:
        """Jobs that may still be started before the worker recycles (None: no limit)."""
        if not self.max_jobs:
            return None
        return max(0, self.max_jobs - self.stats.jobs - self._running())

    def count(self, outcome: Outcome) -> None:
        """A run ended with ``outcome``; after ``max_jobs`` the worker recycles."""
        with self._lock:
            self.stats.count(outcome)
            if self.max_jobs and self.stats.jobs >= self.max_jobs and self.stopping is None:
                log.info("worker %s: %d jobs done, recycling", self.name, self.stats.jobs)
                self._exit_code = self.EXIT_RECYCLE
                self.stopping = "drain"
                self._wake()

    # -- runs ---------------------------------------------------------------------------------
    def may_start(self, job: J) -> bool:
        """Whether a run may start ``job`` now (then it is marked running)."""
        if self.stopping == "now":  # stays held: the shutdown gives it back
            return False
        leases = self.part_of(job).leases
        if job.stop_event.is_set():
            lease = leases.remove(job)
            log.info("job %s was lost before it started (%s); not running it", job.jid,
                     lease.lost_reason if lease is not None else "lost")
            return False
        leases.started(job)
        return True

    def run_ended(self, job: J, outcome: Outcome) -> bool:
        """Release the run's entry; an unsettled one stays held until adoption decides.
        True if adoption should look at the core after the next pop."""
        leases = self.part_of(job).leases
        if outcome in UNSETTLED:
            return leases.ended(job, unsettled=True)
        if self.stopping == "now" and not job.finished:
            return False  # it stays held: stopped by TERM/INT, the shutdown gives it back
        return leases.ended(job)  # True: adoption skipped a lease of this job meanwhile

    # -- adoption -----------------------------------------------------------------------------
    @property
    def adoption_due(self) -> bool:
        """A round was asked for and none is running."""
        return self._adopt_again and not self._adopting

    def _adoption_steps(self, part: Part[J], since: int) -> Steps[list[RawJob]]:
        """The jobs the core lists under this worker's name in ``part``'s namespace that
        nothing here holds (read after ``since``); the unsettled runs it no longer lists
        are forgotten."""
        leases = part.leases
        ours = yield from listed_steps(self.name, lambda jid: leases.wants(jid, since))
        for gone in leases.forget_unsettled({raw["jid"] for raw in ours}, since):
            log.info("job %s: no longer leased to this worker; %s", gone.job.jid,
                     f"its {gone.job.settling} took effect (or its lock was lost)"
                     if gone.job.settling else "its lock was lost or it was moved")
        return ours

    def _adoption_failed(self, exc: QlessError) -> None:
        if isinstance(exc, QlessConnectionError):  # the server went away again: look once more
            log.warning("worker %s: could not read the jobs it holds yet (%s); looking again "
                        "after the next pop", self.name, exc)
            with self._lock:
                self._adopt_again = True
        else:
            log.error("worker %s: could not read the jobs it holds: %s", self.name, exc)

    def _adopts(self, job: J, since: int) -> Call[int] | bool:
        """Whether adoption takes ``job`` (True: run it), leaves it (False: a run here holds
        it or settled it; then the core is read again), or spends a retry of it (a Call
        to send as its holder, then ``_retried``): a job whose runs keep ending unsettled
        must not loop for ever (a handler whose own calls always fail on the connection)."""
        adopted = self.part_of(job).leases.adopt(job, since)
        if adopted is None:
            return False
        runs = adopted.unsettled_runs
        if runs < MAX_UNSETTLED_RUNS:
            return True
        message = (f"its last {runs} runs on worker {self.name} ended with the outcome of a "
                   "core call unknown (connection errors)")
        return job._retry_call(0, f"failed-retries-{job.queue_name}", message)

    def _retried(self, job: J, call: Call[int], left: int | QlessError) -> None:
        """What became of ``_adopts``'s retry ``call``: the retries ``left``, or its error."""
        if isinstance(left, QlessConnectionError):
            log.warning("could not retry %s (%s); looking again later", job.jid, left)
            self.part_of(job).leases.ended(job, unsettled=True)
            return
        if isinstance(left, QlessError):
            log.warning("could not retry %s: %s", job.jid, left)
        else:
            log.error("job %s: %s; retried (%s)", job.jid, call[1][-1],
                      "no retries left: failed" if left < 0 else f"{left} retries left")
        self.part_of(job).leases.remove(job)

    def _adopted(self, why: str, jids: Sequence[str]) -> None:
        if jids:
            log.warning("worker %s: %s %d job(s): %s", self.name, why, len(jids),
                        " ".join(jids))

    # -- shutdown -----------------------------------------------------------------------------
    def _to_give_back(self) -> list[J]:
        """The held jobs to give back at shutdown (their stop events set); the entries of
        jobs that are not this worker's any more are dropped."""
        jobs = []
        for held in self.held():
            job = held.job
            if job.finished or held.lost_at is not None:
                self.part_of(job).leases.remove(job)  # not this worker's any more
                continue
            job.stop_event.set()
            jobs.append(job)
        return jobs

    def _give_back_call(self, job: J) -> Call[None]:
        """``qlpy.giveback`` of ``job``; its reply is logged and drops the entry."""
        command, args, given = giveback_call(job.jid, self.name)

        def read(reply: object) -> None:
            if given(reply):
                log.info("gave %s back to its queue", job.jid)
            else:
                log.info("job %s is no longer leased to this worker; nothing to give back",
                         job.jid)
            self.part_of(job).leases.remove(job)

        return (command, args, read)

    @staticmethod
    def _give_back_failed(job: J, exc: Exception) -> None:
        log.error("could not give %s back (%s); its lock will expire", job.jid, exc)

    def _deregister_call(self) -> Call[None]:
        return deregister_call((self.name,))

    def _deregister_failed(self, part: Part[J], exc: QlessError) -> None:
        where = "" if self._by_namespace is None else f" in namespace {part.namespace}"
        log.warning("worker %s: could not deregister%s: %s", self.name, where, exc)
