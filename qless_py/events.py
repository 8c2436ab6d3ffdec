"""Events: a pub/sub listener for the core's channels, with callbacks by event name.

Event names and what the callback receives:

* ``canceled completed failed popped stalled put track untrack``: the jid (``str``), from
  the per-job channels ``ql:<name>`` (published for tracked jobs only, except track/untrack);
* ``log``: every ``ql:log`` message as a dict; ``log.<event>`` (e.g. ``log.lock_lost``,
  ``log.config_set``) only messages whose ``event`` matches;
* ``worker``: messages on this client's own channel ``ql:w:<worker name>`` as dicts.

``start()`` subscribes before it returns, so nothing published afterwards is missed;
``stop()`` unsubscribes and delivers everything published before it. After a lost
connection (a server restart) the thread reconnects and subscribes again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from qless_py import keys
from qless_py.errors import QlessConnectionError

if TYPE_CHECKING:
    from qless_py.client import Client

log = logging.getLogger("qless_py.events")

JOB_EVENTS = ("canceled", "completed", "failed", "popped", "stalled", "put", "track", "untrack")
Callback = Callable[[Any], object]

_RECONNECT_DELAY = 0.05
_RECONNECT_MAX = 1.0


def _lost(*more: type[Exception]) -> tuple[type[Exception], ...]:
    """redis-py's connection errors and ``more`` (imported late: ``import qless_py`` stays
    light)."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (RedisConnectionError, RedisTimeoutError, *more)


class Events:
    """Listens on the core's channels in a background thread."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._callbacks: dict[str, Callback] = {}
        self._thread: threading.Thread | None = None
        self._pubsub: Any = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self.subscribed = threading.Event()
        """Set while subscribed; cleared when the connection drops until it is back."""
        self.reconnects = 0
        self.errors: list[BaseException] = []
        """Exceptions raised by callbacks (they are logged and never stop the listener)."""

    # -- callbacks -------------------------------------------------------------------------
    @staticmethod
    def _check_name(event: str) -> None:
        if event in JOB_EVENTS or event in ("log", "worker"):
            return
        if event.startswith("log.") and len(event) > 4:
            return
        raise NotImplementedError(
            f"unknown event {event!r}: use one of {', '.join(JOB_EVENTS)}, log, log.<event>, "
            "worker")

    def on(self, event: str, callback: Callback) -> None:
        """Call ``callback`` for every ``event`` (replacing an earlier callback)."""
        self._check_name(event)
        self._callbacks[event] = callback

    def off(self, event: str) -> Callback | None:
        """Stop calling back for ``event``; returns the callback that was set."""
        return self._callbacks.pop(event, None)

    # -- channels --------------------------------------------------------------------------
    @property
    def channels(self) -> list[str]:
        return [keys.channel(name) for name in JOB_EVENTS] + [
            keys.channel("log"), keys.worker_channel(self._client.worker_name)]

    def _subscribe(self) -> Any:
        conn: Any = self._client.redis  # redis-py's pubsub API is untyped
        pubsub = conn.pubsub(ignore_subscribe_messages=True)
        channels = self.channels
        pubsub.subscribe(*channels)
        # Wait for every confirmation so that publishes after start() are seen.
        confirmed = 0
        while confirmed < len(channels):
            message = pubsub.parse_response(block=True, timeout=5)
            if message is None:
                raise QlessConnectionError("no subscribe confirmation from the server")
            if message[0] in (b"subscribe", "subscribe"):
                confirmed += 1
        self.subscribed.set()
        return pubsub

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> Events:
        """Subscribe now and listen in a daemon thread."""
        with self._lock:
            if self._thread is not None:
                return self
            try:
                self._pubsub = self._subscribe()
            except _lost() as exc:
                raise QlessConnectionError(f"cannot subscribe: {exc}") from exc
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name="qless-events", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Unsubscribe, deliver what was published before, and end the thread."""
        with self._lock:
            thread, pubsub = self._thread, self._pubsub
            if thread is None:
                return
            self._stopping.set()
            if pubsub is not None:
                with contextlib.suppress(*_lost(OSError)):
                    pubsub.unsubscribe()
            if thread is not threading.current_thread():  # stop() may come from a callback
                thread.join(timeout)
            self._thread = None
            self._pubsub = None
            self.subscribed.clear()

    @contextlib.contextmanager
    def thread(self) -> Iterator[Events]:
        """``with events.thread(): ...`` listens for the duration of the block."""
        self.start()
        try:
            yield self
        finally:
            self.stop()

    def listening(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- the listener thread ---------------------------------------------------------------
    def _run(self) -> None:
        delay = _RECONNECT_DELAY
        while True:
            pubsub = self._pubsub
            try:
                if pubsub is None:
                    pubsub = self._pubsub = self._subscribe()
                    self.reconnects += 1
                    delay = _RECONNECT_DELAY
                if self._drain(pubsub):
                    return
            except _lost(OSError, QlessConnectionError):
                self.subscribed.clear()
                if self._stopping.is_set():
                    return
                with contextlib.suppress(Exception):
                    if pubsub is not None:
                        pubsub.close()
                self._pubsub = None
                if self._stopping.wait(delay):
                    return
                delay = min(delay * 2, _RECONNECT_MAX)

    def _drain(self, pubsub: Any) -> bool:
        """Read messages until unsubscribed; True means stopped on purpose."""
        while True:
            message = pubsub.parse_response(block=True, timeout=1.0)
            if message is None:
                if self._stopping.is_set():  # the unsubscribe reply did not come
                    return True
                continue
            kind = message[0]
            if kind in (b"message", "message"):
                self._dispatch(_text(message[1]), _text(message[2]))
            elif (kind in (b"unsubscribe", "unsubscribe") and message[2] == 0
                  and self._stopping.is_set()):
                return True

    def _dispatch(self, channel: str, payload: str) -> None:
        name = channel[len(keys.PREFIX):]
        try:
            if name in JOB_EVENTS:
                self._call(name, payload)
            elif name == "log":
                event = _json(payload)
                self._call("log", event)
                if isinstance(event, dict) and "event" in event:
                    self._call(f"log.{event['event']}", event)
            elif name.startswith("w:"):
                self._call("worker", _json(payload))
        except Exception as exc:  # a broken callback must not kill the listener
            log.exception("event callback for %s failed", channel)
            self.errors.append(exc)

    def _call(self, event: str, value: Any) -> None:
        callback = self._callbacks.get(event)
        if callback is not None:
            callback(value)


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _json(payload: str) -> Any:
    try:
        return json.loads(payload)
    except ValueError:
        return payload
