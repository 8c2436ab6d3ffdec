"""The leases a worker process holds: one entry per job, from its pop to its settling.

Every lease is registered here at once, when a pop returns it or adoption takes it, whether
it runs at once or waits in a thread's small batch: its lock is renewed at a third of its
length and it is given back on shutdown. There is one entry per jid, because the core
leases a job to one worker name at a time and checks nothing but that name.

When a pop returns a jid that already has an entry:

* if that entry's run has ended its lease (its handler completed, failed, retried or moved
  the job, or sent such a command whose reply was lost), or has lost it, or the job comes
  from another queue, the pop is a new lease (the next stage of a pipeline, say). It
  replaces the entry; the earlier run finishes untracked.
* otherwise that run still holds the job in the same queue: its lock ran out (a frozen
  process, a long outage) and this process's own pop took the job again. The running
  handler carries the new lease (its heartbeats and its complete are the same commands),
  so the popped copy is not run a second time. This is logged.

Adoption (taking jobs the core lists under this worker's name that nothing here holds)
only fills gaps: it never replaces an entry whose run is in progress.

A run whose outcome is unknown (a complete, say, whose connection dropped) leaves its entry
*unsettled*: still heartbeated, so the lease is kept if the command never ran, until
adoption looks at the core and either runs the job again or forgets it.

A refused heartbeat or a ``lock_lost``/``canceled`` notice marks a job lost: its
``stop_event`` is set and it is never heartbeated or completed by this worker again.

Each entry carries the time its lock is next renewed; the heartbeat thread
(``qless_py.workers.heartbeat``) waits here for the earliest one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Generic, TypeVar

from qless_py import clock
from qless_py.calls.job import JobBase

log = logging.getLogger("qless_py.worker")

MIN_BEAT = 0.05
NEVER = float("inf")

# The job objects a registry holds: the sync client's (threaded worker), or either
# client's (asyncio worker: async handlers get async jobs, thread-pool handlers sync ones).
J = TypeVar("J", bound=JobBase)


@dataclass
class Lease(Generic[J]):
    job: J
    next_beat: float
    running_since: float | None = None
    lost_at: float | None = None
    lost_reason: str = ""
    # Set when the run ended with its outcome unknown: the registry's sequence number then,
    # so adoption knows whether the core's listing it read came after.
    unsettled_seq: int | None = None
    unsettled_runs: int = 0  # runs of this job here in a row that ended unsettled
    recheck: bool = False  # adoption found another lease of this jid while this run ended


def beat_after(expires_at: float, now: float) -> float:
    return now + max(MIN_BEAT, (expires_at - now) / 3.0)


def _carries(current: Lease[J], popped: J) -> bool:
    """Whether ``current``'s run goes on holding the lease ``popped`` came with: it is in
    progress, has not ended or lost its lease, and the job comes from the same queue."""
    return (current.lost_at is None and current.unsettled_seq is None
            and bool(current.job.lease_open) and current.job.queue_name == popped.queue_name)


class Leases(Generic[J]):
    """Thread-safe registry of the leases this process holds.

    ``on_lost(lease)`` runs when a lease is lost (on the thread that found out);
    ``on_sooner()`` when a lease is added whose renewal is due before the time the
    heartbeat's latest ``due_now`` said it would sleep until (the asyncio worker's
    heartbeat task waits on it; the thread waits on a condition here)."""

    def __init__(self, on_lost: Callable[[Lease[J]], None] | None = None,
                 on_sooner: Callable[[], None] | None = None) -> None:
        self._jobs: dict[str, Lease[J]] = {}
        self._detached: list[Lease[J]] = []  # lost runs replaced by a newer lease, still running
        self._cond = threading.Condition()
        self._wake_at = NEVER
        self._seq = 0
        # While adoption reads the core: the jids whose entry went away meanwhile (the
        # read may be older than that run's last command), and whether one was refused.
        self._removed: set[str] | None = None
        self._stale = False
        self._closed = False
        self._on_lost = on_lost
        self._on_sooner = on_sooner

    # -- taking leases -------------------------------------------------------------------
    def add(self, job: J) -> bool:
        """Hold a lease a pop just returned; False if a run here already carries it.

        The second case is logged; see the module's docstring for both.
        """
        job.stop_event  # noqa: B018 - create it now, in one thread, before anyone waits on it
        now = clock.now()
        held = Lease(job, beat_after(float(job.expires_at), now))
        with self._cond:
            current = self._jobs.get(job.jid)
            carried = current is not None and _carries(current, job)
            if not carried:
                self._jobs[job.jid] = held
                if held.next_beat < self._wake_at:
                    self._sooner()
        if carried:
            log.warning("job %s: popped from %s while this process already holds it "
                        "(adopted a moment earlier, or its lock ran out and this process "
                        "took it again); the run holding it carries the lease",
                        job.jid, job.queue_name)
            return False
        if (current is not None and current.lost_at is None
                and current.unsettled_seq is None and current.job.lease_open):
            self._detach(current, f"moved to queue {job.queue_name!r} and popped here again")
        elif current is not None and current.lost_at is not None:
            self._keep_if_running(current)
        return True

    def _sooner(self) -> None:
        """A renewal is due before the heartbeat means to wake (lock held)."""
        self._cond.notify()
        if self._on_sooner is not None:
            self._wake_at = NEVER  # told once: it reads due_now again
            self._on_sooner()

    def _detach(self, held: Lease[J], reason: str) -> None:
        """A run whose lease a newer one replaced: tell it to stop, keep it for stuck checks."""
        with self._cond:
            held.lost_at, held.lost_reason, held.next_beat = clock.now(), reason, NEVER
        self._keep_if_running(held)
        held.job.stop_event.set()
        log.warning("job %s lost (%s): stopping the run that held it, it will not be "
                    "completed by that run", held.job.jid, reason)
        if self._on_lost is not None:
            self._on_lost(held)

    def _keep_if_running(self, held: Lease[J]) -> None:
        """A lost run a newer lease replaced stays visible to ``stuck_lost`` until it returns."""
        with self._cond:
            if held.running_since is not None:
                self._detached.append(held)

    def open_adoption(self) -> int:
        """Adoption is about to read the core: a point in the registry's history, and from
        now on removed entries are noted, so that ``adopt`` refuses what a run settled
        after the read began."""
        with self._cond:
            self._removed, self._stale = set(), False
            return self._seq

    def close_adoption(self) -> bool:
        """Adoption is done; True if it refused a job its read may have seen too early."""
        with self._cond:
            stale, self._removed, self._stale = self._stale, None, False
            return stale

    def _drop(self, jid: str) -> None:
        del self._jobs[jid]
        if self._removed is not None:
            self._removed.add(jid)

    def wants(self, jid: str, since: int) -> bool:
        """Whether adoption may take ``jid``: nothing here holds it, or only a run that
        ended unsettled before ``since``."""
        with self._cond:
            held = self._jobs.get(jid)
            return held is None or (held.unsettled_seq is not None
                                    and held.unsettled_seq <= since)

    def adopt(self, job: J, since: int) -> Lease[J] | None:
        """Hold a lease the core lists under this worker's name (read after ``since``).

        None when an entry is in the way: a run in progress carries it, or, if that run has
        ended its own lease, the job is looked at again once that run returns (``recheck``).
        An unsettled entry from before ``since`` is replaced, its count carried over.
        """
        job.stop_event  # noqa: B018 - as in add()
        held = Lease(job, clock.now())  # beat at once: the lock may be close to running out
        with self._cond:
            if self._removed is not None and job.jid in self._removed:
                self._stale = True  # a run here settled it after the read: look again
                return None
            current = self._jobs.get(job.jid)
            if current is not None:
                seq = current.unsettled_seq
                if seq is None or seq > since:
                    if current.lost_at is not None or not current.job.lease_open:
                        current.recheck = True
                    return None
                held.unsettled_runs = current.unsettled_runs
            self._jobs[job.jid] = held
            self._sooner()
        return held

    # -- runs ----------------------------------------------------------------------------
    def started(self, job: J) -> None:
        with self._cond:
            held = self._jobs.get(job.jid)
            if held is not None and held.job is job:
                held.running_since = clock.now()

    def ended(self, job: J, *, unsettled: bool = False) -> bool:
        """The run of ``job`` returned; True if adoption should look at the core again.

        A settled run's entry goes; an unsettled one stays (heartbeated) until adoption.
        """
        with self._cond:
            if self._detached:
                self._detached = [h for h in self._detached if h.job is not job]
            held = self._jobs.get(job.jid)
            if held is None or held.job is not job:
                return False
            recheck, held.recheck = held.recheck, False
            if unsettled:
                self._seq += 1
                held.unsettled_seq, held.running_since = self._seq, None
                held.unsettled_runs += 1
                return True
            self._drop(job.jid)
            return recheck

    def remove(self, job: J) -> Lease[J] | None:
        """Drop ``job``'s entry (only if it is still this object's); the entry removed."""
        with self._cond:
            held = self._jobs.get(job.jid)
            if held is not None and held.job is job:
                self._drop(job.jid)
                return held
            return None

    def forget_unsettled(self, listed: Collection[str], since: int) -> list[Lease[J]]:
        """Drop unsettled entries (from before ``since``) whose jid the core, read after
        ``since``, no longer lists under this worker: their lease is over."""
        with self._cond:
            gone = [h for jid, h in self._jobs.items()
                    if h.unsettled_seq is not None and h.unsettled_seq <= since
                    and jid not in listed]
            for held in gone:
                self._drop(held.job.jid)
        return gone

    def get(self, jid: str) -> Lease[J] | None:
        with self._cond:
            return self._jobs.get(jid)

    def snapshot(self) -> list[Lease[J]]:
        with self._cond:
            return list(self._jobs.values())

    def __len__(self) -> int:
        with self._cond:
            return len(self._jobs)

    # -- losing leases -------------------------------------------------------------------
    def lose(self, jid: str, reason: str) -> Lease[J] | None:
        """Mark the lease of ``jid`` lost (a notice): stop heartbeating it, stop its handler."""
        with self._cond:
            held = self._jobs.get(jid)
        return None if held is None else self.lose_lease(held, reason)

    def lose_lease(self, held: Lease[J], reason: str) -> Lease[J] | None:
        """Mark this entry's lease lost (a refused heartbeat), unless it was replaced."""
        job = held.job
        with self._cond:
            if self._jobs.get(job.jid) is not held or held.lost_at is not None:
                return None
            if held.unsettled_seq is not None:  # its run is over: nothing to stop
                self._drop(job.jid)
                log.info("job %s: no longer leased to this worker (%s); the command whose "
                         "outcome was unknown took effect, or its lock was lost", job.jid, reason)
                return None
            held.lost_at = clock.now()
            held.lost_reason = reason
            held.next_beat = NEVER
        if job.finished:
            return None
        job.stop_event.set()
        log.warning("job %s lost (%s): stopping it, it will not be completed here",
                    job.jid, reason)
        if self._on_lost is not None:
            self._on_lost(held)
        return held

    def stuck_lost(self, grace: float) -> list[Lease[J]]:
        """Running jobs lost more than ``grace`` seconds ago whose handler has not returned."""
        now = clock.now()
        with self._cond:
            return [h for h in [*self._jobs.values(), *self._detached]
                    if h.lost_at is not None and h.running_since is not None
                    and now - h.lost_at >= grace]

    # -- for the heartbeat thread ---------------------------------------------------------
    def due(self) -> list[Lease[J]]:
        """Block until some lock is due for renewal (those entries), or [] once closed."""
        with self._cond:
            while not self._closed:
                due, wake_at = self.due_now()
                if due:
                    return due
                self._cond.wait(None if wake_at == NEVER else wake_at - clock.now())
                self._wake_at = NEVER
            return []

    def due_now(self) -> tuple[list[Lease[J]], float]:
        """The entries due for renewal now, and (when there are none) the time the next
        one is due (``NEVER``: none held). Does not block: the asyncio worker's heartbeat
        task sleeps on its own until then, or until ``on_sooner``."""
        with self._cond:
            now = clock.now()
            due = [h for h in self._jobs.values() if h.next_beat <= now]
            if due:
                return due, now
            self._wake_at = min((h.next_beat for h in self._jobs.values()), default=NEVER)
            return [], self._wake_at

    def beat_at(self, held: Lease[J], when: float, *, unless_lost: bool = False) -> None:
        """Renew this entry's lock next at ``when`` (``NEVER``: not again)."""
        with self._cond:
            if not (unless_lost and held.lost_at is not None):
                held.next_beat = when

    def close(self) -> None:
        """Release the heartbeat thread from ``due``."""
        with self._cond:
            self._closed = True
            self._cond.notify()
