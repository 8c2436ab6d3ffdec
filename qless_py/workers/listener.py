"""The worker's pub/sub thread: wake-ups for its queues and notices for its own jobs.

It subscribes to ``qlpy:wake:<queue>`` for every queue (the core publishes there when work
becomes poppable, but only while someone listens) and to ``ql:w:<worker>`` (``lock_lost``
and ``canceled`` notices for jobs this worker holds). The subscription is confirmed before
``start()`` returns, so a worker that pops afterwards cannot miss a wake-up.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from qless_py.resp import NOTHING, Connection, ConnectionFailed, ReplyError, Transport, pack

log = logging.getLogger("qless_py.worker")

WAKE_PREFIX = "qlpy:wake:"
INVALIDATE = "__redis__:invalidate"
IDLE_PING = 30.0  # seconds of silence after which the subscription connection is checked


def _disjoint(prefixes: list[str]) -> list[str]:
    """Drop prefixes covered by a shorter one (the server refuses overlapping prefixes)."""
    kept: list[str] = []
    for prefix in sorted(set(prefixes), key=len):
        if not any(prefix.startswith(shorter) for shorter in kept):
            kept.append(prefix)
    return kept


def wake_channel(queue: str) -> str:
    return WAKE_PREFIX + queue


def worker_channel(worker: str) -> str:
    return "ql:w:" + worker


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class Listener:
    """Runs one pub/sub connection in a daemon thread.

    ``on_wake(queue)`` runs for every wake-up, ``on_notice(jid, event)`` for every
    ``lock_lost``/``canceled`` notice on the worker channel, and ``on_reconnect()`` after
    the subscription was re-established (wake-ups may have been missed meanwhile).
    """

    def __init__(self, transport: Transport, queues: Sequence[str], worker: str, *,
                 on_wake: Callable[[str], None],
                 on_notice: Callable[[str, str], None],
                 on_reconnect: Callable[[], None],
                 on_schedule: Callable[[], None] | None = None) -> None:
        self._transport = transport
        self._on_schedule = on_schedule
        self._prefixes = _disjoint([f"ql:q:{q}{suffix}" for q in queues
                                    for suffix in ("-scheduled", "-recur")])
        self.tracking = False
        # the private channel only lets stop() interrupt a blocking wait
        self._stop_channel = f"qlpy:listener:{uuid.uuid4().hex}"
        self._channels = [wake_channel(q) for q in queues] + [worker_channel(worker),
                                                               self._stop_channel]
        self._worker_channel = worker_channel(worker)
        self._on_wake, self._on_notice = on_wake, on_notice
        self._on_reconnect = on_reconnect
        self._stop = threading.Event()
        self._subscribed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="qless-listener", daemon=True)

    @property
    def subscribed(self) -> bool:
        return self._subscribed.is_set()

    def start(self, timeout: float = 5.0) -> bool:
        """Start the thread and wait up to ``timeout`` s for every subscription (0: no wait).

        Every (re)subscription calls ``on_reconnect``, so callers that do not wait lose no
        wake-up: whatever was published before it is found by the pop that follows."""
        self._thread.start()
        return self._subscribed.wait(timeout)

    def stop(self, timeout: float = 2.0) -> None:
        """End the thread; a message on its private channel interrupts its wait at once."""
        self._stop.set()
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                self._transport.call("PUBLISH", self._stop_channel, b"stop")
            self._thread.join(timeout)

    def _run(self) -> None:
        delay = 0.1
        first = True
        while not self._stop.is_set():
            conn = self._transport.new_connection()
            try:
                tracked = self._on_schedule is not None and self._track(conn)
                self._subscribe(conn, [INVALIDATE] if tracked else [])
                if not first:
                    log.warning("listener: subscribed again")
                # Runners may have found nothing and gone to sleep before the subscription
                # (the worker does not wait for it): wake-ups sent meanwhile were missed,
                # so every runner pops once more.
                self._on_reconnect()
                first, delay = False, 0.1
                self._pump(conn)
            except (ConnectionFailed, OSError) as exc:
                self._subscribed.clear()
                log.warning("listener: connection problem (%s); retrying in %.1fs", exc, delay)
                self._stop.wait(delay)
                delay = min(delay * 2, 5.0)
            except Exception:  # a bug here must not silently end wake-ups
                self._subscribed.clear()
                log.exception("listener: unexpected error; restarting in %.1fs", delay)
                self._stop.wait(delay)
                delay = min(delay * 2, 5.0)
            finally:
                conn.close()

    def _track(self, conn: Connection) -> bool:
        """Ask the server to tell this connection when a scheduled or recur set changes.

        Client-side-caching invalidations in broadcast mode (Redis/Valkey 6+), redirected to
        the subscription connection itself: every write to a key starting with
        ``ql:q:<queue>-scheduled`` or ``-recur`` (put with a delay, a new recurring job, ...)
        sends the key name on ``__redis__:invalidate``. Without it such jobs are found at the
        next safety check; with it the worker re-reads its due times at once.
        """
        client_id = conn.call("CLIENT", "ID")
        args: list[Any] = ["CLIENT", "TRACKING", "ON", "REDIRECT", client_id, "BCAST"]
        for prefix in self._prefixes:
            args += ["PREFIX", prefix]
        try:
            conn.call(*args)
        except ReplyError as exc:
            log.info("listener: no key tracking (%s); new schedules are found at the "
                     "next safety check", exc)
            return False
        self.tracking = True
        return True

    def _subscribe(self, conn: Connection, extra: list[str]) -> None:
        channels = self._channels + extra
        conn.send(pack(["SUBSCRIBE", *channels]))
        pending = set(channels)
        deadline = time.monotonic() + 10.0
        while pending and not self._stop.is_set():
            if time.monotonic() > deadline:
                raise ConnectionFailed("no subscribe confirmation")
            message = conn.read(timeout=0.5)
            if message is NOTHING:
                continue
            if _kind(message) == "subscribe":
                pending.discard(_text(message[1]))
            else:
                self._dispatch(message)
        self._subscribed.set()

    def _pump(self, conn: Connection) -> None:
        while not self._stop.is_set():
            message = conn.read(timeout=IDLE_PING)
            if message is not NOTHING:
                self._dispatch(message)
            else:  # a long silence: make sure the connection is still alive
                conn.send(pack(["PING"]))

    def _dispatch(self, message: Any) -> None:
        if isinstance(message, ReplyError):
            raise ConnectionFailed(f"subscription refused: {message}")
        if _kind(message) != "message":
            return  # subscribe confirmations, pongs
        channel = _text(message[1])
        if channel == self._worker_channel:
            try:
                notice = json.loads(_text(message[2]))
                jid, event = str(notice["jid"]), str(notice["event"])
            except (ValueError, KeyError, TypeError):
                log.warning("listener: unreadable notice %r", message[2])
                return
            self._on_notice(jid, event)
        elif channel.startswith(WAKE_PREFIX):
            self._on_wake(channel[len(WAKE_PREFIX):])
        elif channel == INVALIDATE and self._on_schedule is not None:
            self._on_schedule()


def _kind(message: Any) -> str:
    """The type of a pub/sub push (``message``, ``subscribe``, ``pong``...), or ''."""
    if isinstance(message, list) and message and isinstance(message[0], bytes):
        return message[0].decode("ascii", "replace")
    return ""
