"""How a part of a worker reports that the server cannot serve it, and that it can again.

A restarted server answers ``LOADING`` while it reads its data, a busy script makes it
answer ``BUSY``, a replica answers ``READONLY`` until a failover completes, a full one
``OOM``; a connection may be refused or dropped. None of these is a bug, and each part of a
worker (the listener, the pops, the heartbeats, the supervisor's settling of a dead child)
waits them out with backoff. ``Outage`` keeps the log readable while it does: one WARNING
with the reason when a part first fails, DEBUG for every failure after it, and one INFO
line when a call works again. Operators alert on ERROR lines and tracebacks; an outage the
worker rides out produces neither.
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("qless_py.worker")


def reason(exc: BaseException) -> str:
    """One line saying why a call failed: the server's reply, or the connection error."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


class Outage:
    """The server's unavailability as seen by one part of a worker (``part`` names it in
    the log). Thread-safe: a worker's runner threads share one."""

    def __init__(self, part: str) -> None:
        self.part = part
        self._since: float | None = None
        self._lock = threading.Lock()

    @property
    def ongoing(self) -> bool:
        return self._since is not None

    def failed(self, exc: BaseException, what: str = "") -> bool:
        """A call failed because of ``exc``: a WARNING if this starts an outage, DEBUG
        otherwise. ``what`` says how the part retries meanwhile ("retrying with backoff"
        by default). True when this failure started the outage."""
        with self._lock:
            first = self._since is None
            if first:
                self._since = time.monotonic()
        if first:
            log.warning("%s: the server cannot answer (%s); %s", self.part, reason(exc),
                        what or "retrying with backoff")
        else:
            log.debug("%s: still failing (%s)", self.part, reason(exc))
        return first

    def ok(self) -> None:
        """A call worked: an INFO line if it ends an outage."""
        if self._since is None:  # the common case: nothing to say, no lock taken
            return
        with self._lock:
            since, self._since = self._since, None
        if since is not None:
            log.info("%s: the server answers again (after %.1fs)", self.part,
                     time.monotonic() - since)
