"""Events: a pub/sub listener for the core's channels, with callbacks by event name, in a
thread (the async client's is ``qless_py.aio.events``). Event names, channels and what a
callback receives are defined in :mod:`qless_py.calls.events`.

``start()`` subscribes before it returns, so nothing published afterwards is missed;
``stop()`` unsubscribes and delivers everything published before it. After a lost
connection (a server restart) the thread reconnects and subscribes again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from qless_py.calls.events import (
    JOB_EVENTS,
    MESSAGES,
    MOVED_AWAY,
    SUBSCRIBED,
    UNSUBSCRIBED,
    channels,
    check_name,
    deliveries,
    sharded,
    text,
)
from qless_py.connect.redis_errors import redirected
from qless_py.errors import QlessConnectionError

if TYPE_CHECKING:
    from qless_py.client.client import Client

log = logging.getLogger("qless_py.events")

__all__ = ["JOB_EVENTS", "Callback", "Events"]

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
        self._sharded: bool | None = None  # by sharded pub/sub (asked of the server once)
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
        check_name(event)

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
        return channels(self._client.worker_name, self._client.keys)

    def _subscribe(self) -> Any:
        conn: Any = self._client.redis  # redis-py's pubsub API is untyped
        pubsub = conn.pubsub(ignore_subscribe_messages=True)
        channels = self.channels
        if self._sharded is None:
            self._sharded = sharded(self._client.keys, conn.info("server"))
        try:
            (pubsub.ssubscribe if self._sharded else pubsub.subscribe)(*channels)
            # Wait for every confirmation so that publishes after start() are seen.
            confirmed = 0
            while confirmed < len(channels):
                message = pubsub.parse_response(block=True, timeout=5)
                if message is None:
                    raise QlessConnectionError("no subscribe confirmation from the server")
                if message[0] in SUBSCRIBED:
                    confirmed += 1
        except Exception as exc:
            refused = redirected(exc)
            pubsub.close()
            if refused is None:
                raise
            # a cluster node that does not serve the namespace's slot (any more): the
            # pool's connections point at it too, so the next subscription looks again
            conn.connection_pool.disconnect()
            raise QlessConnectionError(f"subscribe: {refused}") from exc
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
                    (pubsub.sunsubscribe if self._sharded else pubsub.unsubscribe)()
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
            if kind in MESSAGES:
                self._dispatch(text(message[1]), text(message[2]))
            elif kind in UNSUBSCRIBED and message[2] == 0:
                if self._stopping.is_set():
                    return True
                raise QlessConnectionError(MOVED_AWAY)

    def _dispatch(self, channel: str, payload: str) -> None:
        try:
            for event, value in deliveries(channel, payload, self._client.keys):
                self._call(event, value)
        except Exception as exc:  # a broken callback must not kill the listener
            log.exception("event callback for %s failed", channel)
            self.errors.append(exc)

    def _call(self, event: str, value: Any) -> None:
        callback = self._callbacks.get(event)
        if callback is not None:
            callback(value)
