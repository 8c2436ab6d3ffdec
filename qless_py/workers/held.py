"""Jobs a worker process holds (popped, not yet finished) and the thread that keeps their locks.

Every popped job is registered here at once, whether it is running or still waiting in a
thread's small batch, so its lock is renewed at a third of its length and it can be given
back on shutdown. A refused heartbeat or a ``lock_lost``/``canceled`` notice marks the job
lost: its ``stop_event`` is set and it is never heartbeated or completed by this worker again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qless_py import QlessConnectionError, QlessError, clock

log = logging.getLogger("qless_py.worker")

MIN_BEAT = 0.05


@dataclass
class Held:
    job: Any
    next_beat: float
    running_since: float | None = None
    lost_at: float | None = None
    lost_reason: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


def _beat_after(expires_at: float, now: float) -> float:
    return now + max(MIN_BEAT, (expires_at - now) / 3.0)


class HeldJobs:
    """Thread-safe registry of held jobs plus the heartbeat thread."""

    def __init__(self, on_lost: Callable[[Held], None] | None = None) -> None:
        self._jobs: dict[str, Held] = {}
        self._cond = threading.Condition()
        self._wake_at = float("inf")
        self._stop = False
        self._on_lost = on_lost
        self._thread = threading.Thread(target=self._run, name="qless-heartbeat", daemon=True)

    # -- registry ------------------------------------------------------------------------
    def add(self, job: Any, *, beat_now: bool = False) -> bool:
        """Hold ``job``; False if this process already holds that jid (and has not lost it).

        Two holders of one jid in one process can only come from adopting jobs whose pop
        reply was lost while another thread's pop of the same jid is being registered:
        the first to register runs it, the other drops its copy.
        """
        job.stop_event  # noqa: B018 - create it now, in one thread, before anyone waits on it
        now = clock.now()
        when = now if beat_now else _beat_after(float(job.expires_at), now)
        with self._cond:
            current = self._jobs.get(job.jid)
            if current is not None and current.lost_at is None:
                return False
            self._jobs[job.jid] = Held(job, when)
            if when < self._wake_at:
                self._cond.notify()
        return True

    def started(self, job: Any) -> None:
        with self._cond:
            held = self._jobs.get(job.jid)
            if held is not None:
                held.running_since = clock.now()

    def remove(self, job: Any) -> None:
        with self._cond:
            held = self._jobs.get(job.jid)
            if held is not None and held.job is job:
                del self._jobs[job.jid]

    def get(self, jid: str) -> Held | None:
        with self._cond:
            return self._jobs.get(jid)

    def snapshot(self) -> list[Held]:
        with self._cond:
            return list(self._jobs.values())

    def __len__(self) -> int:
        with self._cond:
            return len(self._jobs)

    def lose(self, jid: str, reason: str) -> Held | None:
        """Mark a job lost: stop heartbeating it and tell its handler to stop."""
        with self._cond:
            held = self._jobs.get(jid)
            if held is None or held.lost_at is not None:
                return None
            held.lost_at = clock.now()
            held.lost_reason = reason
            held.next_beat = float("inf")
        if getattr(held.job, "finished", False):
            return None
        held.job.stop_event.set()
        log.warning("job %s lost (%s): stopping it, it will not be completed here",
                    jid, reason)
        if self._on_lost is not None:
            self._on_lost(held)
        return held

    def stuck_lost(self, grace: float) -> list[Held]:
        """Running jobs lost more than ``grace`` seconds ago whose handler has not returned."""
        now = clock.now()
        with self._cond:
            return [h for h in self._jobs.values()
                    if h.lost_at is not None and h.running_since is not None
                    and now - h.lost_at >= grace]

    # -- heartbeat thread ----------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _due(self) -> list[Held]:
        with self._cond:
            while not self._stop:
                now = clock.now()
                due = [h for h in self._jobs.values() if h.next_beat <= now]
                if due:
                    return due
                self._wake_at = min((h.next_beat for h in self._jobs.values()),
                                    default=float("inf"))
                timeout = None if self._wake_at == float("inf") else self._wake_at - now
                self._cond.wait(timeout)
                self._wake_at = float("inf")
            return []

    def _run(self) -> None:
        while True:
            due = self._due()
            if not due:
                return
            for held in due:
                self._beat(held)

    def _beat(self, held: Held) -> None:
        job = held.job
        if getattr(job, "finished", False):
            self.remove(job)
            return
        try:
            expires = float(job.heartbeat())
        except QlessConnectionError as exc:
            log.warning("heartbeat of %s failed (%s); retrying", job.jid, exc)
            with self._cond:
                held.next_beat = clock.now() + 0.5
            return
        except QlessError as exc:
            if getattr(job, "finished", False):
                self.remove(job)
                return
            self.lose(job.jid, f"heartbeat refused: {exc}")
            return
        except Exception:  # never let a bug end all heartbeats
            log.exception("heartbeat of %s raised", job.jid)
            with self._cond:
                held.next_beat = clock.now() + 1.0
            return
        with self._cond:
            if held.lost_at is None:
                held.next_beat = _beat_after(expires, clock.now())
