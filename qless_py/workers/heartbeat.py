"""The heartbeat thread: renews the lock of every lease a worker process holds.

It sleeps until the earliest renewal that ``Leases`` records is due, renews it at a third
of the lock's length, and marks a lease lost when the core refuses its heartbeat.
"""

from __future__ import annotations

import logging
import threading

from qless_py import QlessConnectionError, QlessError, clock
from qless_py.client.job import Job
from qless_py.workers.leases import NEVER, J, Lease, Leases, beat_after
from qless_py.workers.outage import Outage

log = logging.getLogger("qless_py.worker")


class Heartbeat:
    """One daemon thread renewing the locks of ``leases``."""

    def __init__(self, leases: Leases[Job]) -> None:
        self.leases = leases
        self.outage = Outage("heartbeat")
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

    def _beat(self, lease: Lease[Job]) -> None:
        if skip(self.leases, lease):
            return
        try:
            expires = float(lease.job.heartbeat())
        except Exception as exc:
            refused(self.leases, lease, exc, self.outage)
            return
        renewed(self.leases, lease, expires, self.outage)


# What a heartbeat's reply (or its failure) does to a lease: shared with the asyncio
# worker's heartbeat task (qless_py.workers.aio_heartbeat), which sends it on the loop.

def skip(leases: Leases[J], lease: Lease[J]) -> bool:
    """True if this lease needs no heartbeat (its run finished the job)."""
    if lease.job.finished:  # its run removes the entry when the handler returns
        leases.beat_at(lease, NEVER)
        return True
    return False


def renewed(leases: Leases[J], lease: Lease[J], expires: float, outage: Outage) -> None:
    outage.ok()
    leases.beat_at(lease, beat_after(expires, clock.now()), unless_lost=True)


def refused(leases: Leases[J], lease: Lease[J], exc: Exception, outage: Outage) -> None:
    """The heartbeat failed: try again soon while the server cannot answer (said once per
    outage), mark the lease lost when the core refused it."""
    job = lease.job
    # A lease-ending command in doubt (its handler still running) or an unsettled run:
    # beat anyway, so the lease lives on if the command never ran; a refusal then only
    # says that it did run (or the lock went), which stops nothing. The same holds for
    # a refusal that crossed the handler's own complete on its way.
    if isinstance(exc, QlessConnectionError):
        outage.failed(exc, "renewing each lock every 0.5s until it answers")
        leases.beat_at(lease, clock.now() + 0.5)
    elif isinstance(exc, QlessError):
        if (job.finished or job.settling is not None) and lease.unsettled_seq is None:
            leases.beat_at(lease, NEVER)
            return
        leases.lose_lease(lease, f"heartbeat refused: {exc}")
    else:  # never let a bug end all heartbeats
        log.error("heartbeat of %s raised", job.jid, exc_info=exc)
        leases.beat_at(lease, clock.now() + 1.0)
