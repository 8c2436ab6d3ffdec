"""The threaded mode's heartbeat thread: renews the lock of every lease the process holds
(one thread per namespace the worker serves, each for the leases held there).

It sleeps until the earliest renewal that ``Leases`` records is due and renews it by the
shared rules (``qless_py.workers.heartbeat``).
"""

from __future__ import annotations

import threading

from qless_py.job import Job
from qless_py.workers.heartbeat import refused, renewed, skip
from qless_py.workers.leases import Lease, Leases
from qless_py.workers.outage import Outage


class Heartbeat:
    """One daemon thread renewing the locks of ``leases``."""

    def __init__(self, leases: Leases[Job], name: str = "qless-heartbeat") -> None:
        self.leases = leases
        self.outage = Outage("heartbeat")
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

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
