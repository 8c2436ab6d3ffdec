"""The heartbeat rules both modes follow: what a heartbeat's reply (or its failure) does
to a lease. The threaded mode's thread (``qless_py.workers.threaded.heartbeat``) and the
asyncio mode's task (``qless_py.workers.aio.heartbeat``) send the heartbeats.

A lock is renewed at a third of its length; a refused heartbeat marks the lease lost; a
connection error is retried every 0.5 s, said once per outage.
"""

from __future__ import annotations

import logging

from qless_py import QlessConnectionError, QlessError, clock
from qless_py.workers.leases import NEVER, J, Lease, Leases, beat_after
from qless_py.workers.outage import Outage

log = logging.getLogger("qless_py.worker")


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
        outage.failed(exc, "retrying each lock's renewal every 0.5s")
        leases.beat_at(lease, clock.now() + 0.5)
    elif isinstance(exc, QlessError):
        if (job.finished or job.settling is not None) and lease.unsettled_seq is None:
            leases.beat_at(lease, NEVER)
            return
        leases.lose_lease(lease, f"heartbeat refused: {exc}")
    else:  # never let a bug end all heartbeats
        log.error("heartbeat of %s raised", job.jid, exc_info=exc)
        leases.beat_at(lease, clock.now() + 1.0)
