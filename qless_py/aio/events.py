"""Events for the async client: a pub/sub listener task for the core's channels, with
callbacks by event name and ``async for event in client.events``.

The event names, channels and what each delivers are the sync client's
(:mod:`qless_py.calls.events`). Callbacks may be plain functions or coroutine functions
(awaited, in order); they run in the listener task, so a slow one delays the others.
``async for`` yields an :class:`~qless_py.calls.events.Event` per message, named by its
most specific event name (``completed``, ``log.put``, ``worker``).

``await events.start()`` subscribes before it returns, so nothing published afterwards is
missed; ``await events.stop()`` unsubscribes, delivers everything published before it and
ends every ``async for``. Iterating starts the listener if it is not running. After a lost
connection (a server restart) the task reconnects and subscribes again.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import redis.exceptions

from qless_py.calls.events import (
    MESSAGES,
    MOVED_AWAY,
    SUBSCRIBED,
    UNSUBSCRIBED,
    Event,
    channels,
    check_name,
    deliveries,
    sharded,
    text,
)
from qless_py.connect.redis_errors import redirected
from qless_py.errors import QlessConnectionError

if TYPE_CHECKING:
    from qless_py.aio.client import AsyncClient

log = logging.getLogger("qless_py.events")

Callback = Callable[[Any], Awaitable[object] | object]

_RECONNECT_DELAY = 0.05
_RECONNECT_MAX = 1.0
_CONFIRM_TIMEOUT = 5.0
_LOST = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError,
         QlessConnectionError)
_END = object()


class EventStream:
    """One ``async for`` over the events: messages delivered after it began, until
    ``events.stop()``."""

    def __init__(self, events: Events) -> None:
        self._events = events
        self._queue: asyncio.Queue[Any] = asyncio.Queue()

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event:
        if not self._events.listening():
            await self._events.start()
        item = await self._queue.get()
        if item is _END:
            raise StopAsyncIteration
        event: Event = item
        return event

    def _put(self, item: Any) -> None:
        self._queue.put_nowait(item)


class Events:
    """Listens on the core's channels in a task of the running loop."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._callbacks: dict[str, Callback] = {}
        self._streams: weakref.WeakSet[EventStream] = weakref.WeakSet()
        self._task: asyncio.Task[None] | None = None
        self._pubsub: Any = None
        self._sharded: bool | None = None  # by sharded pub/sub (asked of the server once)
        self._stopping = False
        self._starting = asyncio.Lock()
        self.subscribed = asyncio.Event()
        """Set while subscribed; cleared when the connection drops until it is back."""
        self.reconnects = 0
        self.errors: list[BaseException] = []
        """Exceptions raised by callbacks (they are logged and never stop the listener)."""

    # -- callbacks and streams -------------------------------------------------------------
    def on(self, event: str, callback: Callback) -> None:
        """Call ``callback`` for every ``event`` (replacing an earlier callback)."""
        check_name(event)
        self._callbacks[event] = callback

    def off(self, event: str) -> Callback | None:
        """Stop calling back for ``event``; returns the callback that was set."""
        return self._callbacks.pop(event, None)

    def __aiter__(self) -> EventStream:
        stream = EventStream(self)
        self._streams.add(stream)  # held weakly: a loop left with break lets it go
        return stream

    @property
    def channels(self) -> list[str]:
        return channels(self._client.worker_name, self._client.keys)

    # -- lifecycle -------------------------------------------------------------------------
    async def start(self) -> Events:
        """Subscribe now and listen in a task."""
        async with self._starting:  # one listener, even when several coroutines start it
            if self._task is not None:
                return self
            try:
                self._pubsub = await self._subscribe()
            except _LOST as exc:
                raise QlessConnectionError(f"cannot subscribe: {exc}") from exc
            self._stopping = False
            self._task = asyncio.create_task(self._run(), name="qless-events")
        return self

    async def stop(self, timeout: float = 5.0) -> None:
        """Unsubscribe, deliver what was published before, end the task and every
        ``async for``."""
        task, pubsub = self._task, self._pubsub
        if task is None:
            return
        self._stopping = True
        if pubsub is not None:
            with contextlib.suppress(*_LOST):
                await (pubsub.sunsubscribe if self._sharded else pubsub.unsubscribe)()
        if task is not asyncio.current_task():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except TimeoutError:  # the unsubscribe reply did not come
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self._close_pubsub()
        # else stop() came from a callback: the task reads on to the unsubscribe reply,
        # then ends and closes the connection itself
        self._task = None
        self.subscribed.clear()
        for stream in list(self._streams):
            stream._put(_END)

    async def __aenter__(self) -> Events:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def listening(self) -> bool:
        return self._task is not None and not self._task.done()

    # -- the listener task -----------------------------------------------------------------
    async def _subscribe(self) -> Any:
        pubsub: Any = self._client.redis.pubsub(ignore_subscribe_messages=True)
        names = self.channels
        try:
            if self._sharded is None:
                self._sharded = sharded(self._client.keys,
                                        await self._client.redis.info("server"))
            await (pubsub.ssubscribe if self._sharded else pubsub.subscribe)(*names)
            # Wait for every confirmation so that publishes after start() are seen.
            confirmed = 0
            async with asyncio.timeout(_CONFIRM_TIMEOUT):
                while confirmed < len(names):
                    message = await pubsub.parse_response(block=True)
                    if message[0] in SUBSCRIBED:
                        confirmed += 1
        except TimeoutError as exc:
            await pubsub.aclose()
            raise QlessConnectionError("no subscribe confirmation from the server") from exc
        except Exception as exc:
            await pubsub.aclose()
            refused = redirected(exc)
            if refused is None:
                raise
            # as the sync listener: a node that does not serve the namespace's slot
            await self._client.redis.connection_pool.disconnect()
            raise QlessConnectionError(f"subscribe: {refused}") from exc
        except BaseException:
            await pubsub.aclose()
            raise
        self.subscribed.set()
        return pubsub

    async def _close_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(*_LOST):
                await pubsub.aclose()

    async def _run(self) -> None:
        try:
            await self._listen()
        finally:
            await self._close_pubsub()

    async def _listen(self) -> None:
        delay = _RECONNECT_DELAY
        while True:
            try:
                if self._pubsub is None:
                    self._pubsub = await self._subscribe()
                    self.reconnects += 1
                    delay = _RECONNECT_DELAY
                if await self._drain(self._pubsub):
                    return
            except _LOST:
                self.subscribed.clear()
                if self._stopping:
                    return
                await self._close_pubsub()
                await asyncio.sleep(delay)
                if self._stopping:
                    return
                delay = min(delay * 2, _RECONNECT_MAX)

    async def _drain(self, pubsub: Any) -> bool:
        """Read messages until unsubscribed; True means stopped on purpose."""
        while True:
            message = await pubsub.parse_response(block=True)
            if message is None:
                continue
            kind = message[0]
            if kind in MESSAGES:
                await self._dispatch(text(message[1]), text(message[2]))
            elif kind in UNSUBSCRIBED and message[2] == 0:
                if self._stopping:
                    return True
                raise QlessConnectionError(MOVED_AWAY)

    async def _dispatch(self, channel: str, payload: str) -> None:
        sent = deliveries(channel, payload, self._client.keys)
        for event, value in sent:
            callback = self._callbacks.get(event)
            if callback is None:
                continue
            try:
                result = callback(value)
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # a broken callback must not kill the listener
                log.exception("event callback for %s failed", channel)
                self.errors.append(exc)
        if sent and self._streams:
            name, value = sent[-1]
            for stream in list(self._streams):
                stream._put(Event(name, value))
