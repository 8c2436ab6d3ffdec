"""The asyncio mode's heartbeat: one task renewing every lease the process holds.

The rules are the heartbeat thread's (``qless_py.workers.heartbeat``): a lock is renewed at
a third of its length, a refused heartbeat marks the lease lost, a connection error is
retried. The task sleeps until the earliest renewal ``Leases.due_now`` reports, or until
a lease due sooner is added (``on_sooner``, which calls ``sooner()`` here). Renewals due
together are sent concurrently, a bounded number at a time.
"""

from __future__ import annotations

import asyncio

from qless_py import clock
from qless_py.calls.job import JobBase
from qless_py.workers.aio.jobrun import Core, send_held
from qless_py.workers.heartbeat import refused, renewed, skip
from qless_py.workers.leases import NEVER, Lease, Leases
from qless_py.workers.outage import Outage

AT_ONCE = 64  # heartbeats in flight at a time (the async client's pool holds 100)


class AsyncHeartbeat:
    """Renews the locks of ``leases`` through the async ``core``."""

    def __init__(self, leases: Leases[JobBase], core: Core) -> None:
        self.leases, self.core = leases, core
        self.outage = Outage("heartbeat")
        self._sooner = asyncio.Event()

    def sooner(self) -> None:
        """A lease due before the task's wake-up time was added (loop thread only)."""
        self._sooner.set()

    async def run(self) -> None:
        """Renew until cancelled."""
        while True:
            self._sooner.clear()  # before reading: a lease added after this wakes us
            due, wake_at = self.leases.due_now()
            if due:
                for start in range(0, len(due), AT_ONCE):
                    await asyncio.gather(*(self._beat(lease)
                                           for lease in due[start:start + AT_ONCE]))
                continue
            timeout = None if wake_at == NEVER else max(0.0, wake_at - clock.now())
            try:
                async with asyncio.timeout(timeout):
                    await self._sooner.wait()
            except TimeoutError:
                pass

    async def _beat(self, lease: Lease[JobBase]) -> None:
        if skip(self.leases, lease):
            return
        job = lease.job
        try:
            expires = float(await send_held(self.core, job, job._heartbeat_call(), ends=False))
        except Exception as exc:
            refused(self.leases, lease, exc, self.outage)
            return
        renewed(self.leases, lease, expires, self.outage)
