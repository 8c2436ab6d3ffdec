"""A worker's relay: it applies the outboxes of the namespaces it serves (what they owe
other namespaces: dependents to release, hand-offs to put; qless_py.client.relay).

One thread per worker process. It relays when it starts, when the listener hears a write
to a served namespace's outbox (key tracking), and once per lease (30 seconds) besides,
which brings back messages whose relay died before acknowledging them (their lease ran
out). An idle worker's relay therefore sends one call per namespace per lease.
Every worker serving a namespace relays it: a message is taken by one of them at a time,
and applying it twice changes nothing, so any of them may die at any point.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Sequence
from typing import Any

from qless_py.client.relay import COUNT, LEASE, Relay

log = logging.getLogger("qless_py.worker")


class RelayThread:
    """Relays ``parts``' outboxes (each part's client takes, applies to its own namespace
    and acknowledges; another namespace's client comes from the first part's
    ``Client.other``)."""

    def __init__(self, parts: Sequence[Any]) -> None:
        self.parts = list(parts)
        served = {part.namespace: part.client for part in self.parts}
        # a served namespace's messages go through its part's client (and connections);
        # another namespace's through a client like the first part's
        self.relay = Relay(lambda ns: served.get(ns) or self.parts[0].client.other(ns))
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="qless-relay", daemon=True)
        self._failing: set[str | None] = set()
        # seconds a taken message is this relay's (the tests shorten it)
        self.lease = float(os.environ.get("QLESS_RELAY_LEASE", LEASE))
        # a test hook: the first relay (of any process) to apply messages dies before it
        # acknowledges them; the file named is made first, so that it happens once
        self._crash = os.environ.get("QLESS_TEST_RELAY_CRASH", "")

    def start(self) -> None:
        for part in self.parts:
            part.watch.on_outbox = self.notify
        self._thread.start()

    def notify(self) -> None:
        """An outbox was written (from the listener's thread)."""
        self._wake.set()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        first = True
        while not self._stop.is_set():
            if not first:
                self._wake.wait(self.lease)
            first = False
            self._wake.clear()
            for part in self.parts:
                if self._stop.is_set():
                    return
                self.drain(part)

    def _die(self) -> None:
        try:
            with open(self._crash, "x"):
                pass
        except FileExistsError:
            return
        log.warning("relay: QLESS_TEST_RELAY_CRASH: dying before the acknowledgement")
        os.kill(os.getpid(), signal.SIGKILL)  # as kill -9 from outside would

    def drain(self, part: Any) -> None:
        """Relay ``part``'s outbox until it is empty (or the server cannot answer)."""
        namespace = part.client.keys.namespace
        try:
            while self.relay.step(part.client, lease=self.lease,
                                  stop_before_ack=self._die if self._crash else None) == COUNT \
                    and not self._stop.is_set():
                pass
        except Exception as exc:  # the server is away: the next round tries again
            if namespace not in self._failing:
                self._failing.add(namespace)
                log.warning("relay: the outbox of namespace %s cannot be read now (%s: %s); "
                            "trying again every %gs", namespace, type(exc).__name__, exc,
                            self.lease)
            return
        if namespace in self._failing:
            self._failing.discard(namespace)
            log.info("relay: the outbox of namespace %s is read again", namespace)
