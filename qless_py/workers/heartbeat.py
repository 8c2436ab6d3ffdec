"""The heartbeat thread: renews the lock of every lease a worker process holds.

It sleeps until the earliest renewal that ``Leases`` records is due, renews it at a third
of the lock's length, and marks a lease lost when the core refuses its heartbeat.
"""

from __future__ import annotations

import logging
import threading

from qless_py import QlessConnectionError, QlessError, clock
from qless_py.workers.leases import NEVER, Lease, Leases, beat_after

log = logging.getLogger("qless_py.worker")


class Heartbeat:
    """One daemon thread renewing the locks of ``leases``."""

    def __init__(self, leases: Leases) -> None:
        self.leases = leases
        self._thread = threading.Thread(target=self._run, name="qless-heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self.leases.close()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while due := self.leases.due():
            for lease in due:
                self._beat(lease)

    def _beat(self, lease: Lease) -> None:
        job, leases = lease.job, self.leases
        if job.finished:  # its run removes the entry when the handler returns
            leases.beat_at(lease, NEVER)
            return
        # A lease-ending command in doubt (its handler still running) or an unsettled run:
        # beat anyway, so the lease lives on if the command never ran; a refusal then only
        # says that it did run (or the lock went), which stops nothing. The same holds for
        # a refusal that crossed the handler's own complete on its way.
        try:
            expires = float(job.heartbeat())
        except QlessConnectionError as exc:
            log.warning("heartbeat of %s failed (%s); retrying", job.jid, exc)
            leases.beat_at(lease, clock.now() + 0.5)
            return
        except QlessError as exc:
            if (job.finished or job.settling is not None) and lease.unsettled_seq is None:
                leases.beat_at(lease, NEVER)
                return
            leases.lose_lease(lease, f"heartbeat refused: {exc}")
            return
        except Exception:  # never let a bug end all heartbeats
            log.exception("heartbeat of %s raised", job.jid)
            leases.beat_at(lease, clock.now() + 1.0)
            return
        leases.beat_at(lease, beat_after(expires, clock.now()), unless_lost=True)
