"""The asyncio worker's connection for core calls: one pipelined RESP connection per
process, the asyncio twin of :mod:`qless_py.connect.resp` (``qless_py.aio.core.LeanCore``
sends through it).

The async client's core (``qless_py.aio.core.AsyncCore``) takes a ``redis.asyncio``
connection from a pool for every call: measured on the asyncio worker, that cost 185 µs
of worker CPU per no-op job against the threaded worker's 87-102 µs
(``scripts/bench_worker.py --compare``, docs/asyncio.md). Here every call of the process
writes its command on one connection at once, without waiting for the replies of the
calls before it, and one reader task hands the replies out in order, each to the call
that sent its command. The rules are the async core's own (``LeanCore`` only replaces
how a command travels): NOSCRIPT, READONLY, connection errors and the read-or-write
retry rules come from ``qless_py.calls.core`` unchanged.

The connection is opened as ``qless_py.connect.resp`` opens one (``aio_dial`` for the
stream, TLS included; a Sentinel-managed master found by ``aio_redis_clients.locate``;
AUTH, SELECT and CLIENT SETNAME from ``opening_commands``; a refusal there is
``SetupFailed``).
When calls wait and nothing has arrived for ``endpoint.timeout`` seconds, the connection
is closed, and every call waiting on it fails with ``ConnectionFailed`` (their outcome is
unknown, as after any dropped connection). The check looks once more, 10 ms later, before
it gives up: a process that was frozen (SIGSTOP, a paused machine) finds on waking the
replies the server sent meanwhile, and reads them instead of timing out, as a blocking
``recv`` would. A call cancelled while it waits leaves the
connection usable: its reply is read and dropped when it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any

import hiredis

from qless_py.connect.aio_dial import open_stream
from qless_py.connect.aio_redis_clients import locate
from qless_py.connect.endpoint import Endpoint
from qless_py.connect.resp import opening_commands, opening_failure, opening_refusal, pack
from qless_py.connect.wire import ConnectionFailed, ReplyError

WRITE_BUFFER = 1 << 16  # bytes queued for the socket before a call waits for it to drain


class _Waiter:
    """The replies one write expects, the future that gets them, and when it was sent."""

    __slots__ = ("count", "future", "replies", "sent")

    def __init__(self, future: asyncio.Future[list[Any]], count: int, sent: float) -> None:
        self.future, self.count, self.sent = future, count, sent
        self.replies: list[Any] = []


class PipelinedConnection:
    """One connection shared by every task of the loop; connects on first use and again
    after it was closed."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None
        self._waiting: deque[_Waiter] = deque()
        self._connecting: asyncio.Lock | None = None
        self._ready = False  # connected, and the opening commands were accepted
        self._out: list[bytes] = []  # commands to write at the end of this turn
        self._heard = 0.0  # loop time of the latest bytes read
        self._watch: asyncio.TimerHandle | None = None  # the timeout's check
        self._late = False  # the check found the time up once, and looks once more

    async def execute(self, payload: bytes, count: int) -> list[Any]:
        """Write ``payload`` (``count`` commands, packed) and return their ``count``
        replies, error replies as ReplyError objects. ConnectionFailed if the
        connection failed or the replies did not come within the endpoint's timeout."""
        if not self._ready:
            await self._connect()
        writer = self._writer
        if writer is None:
            raise ConnectionFailed(f"not connected ({self.endpoint})")
        return await self._send(writer, payload, count)

    async def _send(self, writer: asyncio.StreamWriter, payload: bytes,
                    count: int) -> list[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Any]] = loop.create_future()
        now = loop.time()
        self._waiting.append(_Waiter(future, count, now))
        timeout = self.endpoint.timeout
        if self._watch is None and timeout is not None:
            self._watch = loop.call_at(now + timeout, self._watchdog, writer)
        # Written at the end of this turn of the loop, with every command the other tasks
        # send in it: one system call for many. The order is the waiters' order.
        out = self._out
        out.append(payload)
        if len(out) == 1:
            loop.call_soon(self._flush, writer, out)
        try:
            if writer.transport.get_write_buffer_size() > WRITE_BUFFER:
                await writer.drain()
        except OSError as exc:  # the connection broke under the write
            failed = ConnectionFailed(f"Error writing to socket: {exc} ({self.endpoint})")
            self._broken(writer, failed)
            raise failed from exc
        return await future

    def _watchdog(self, writer: asyncio.StreamWriter) -> None:
        """The timeout: when calls wait and nothing arrived for ``endpoint.timeout`` s,
        the connection is given up (``_broken``)."""
        self._watch = None
        timeout = self.endpoint.timeout
        if self._writer is not writer or not self._waiting or timeout is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = max(self._waiting[0].sent, self._heard) + timeout
        if due > now:
            self._late = False
        elif not self._late:
            # The loop may have stood still (SIGSTOP, a paused machine) while the replies
            # came: this check ran before the reader task could see them. It looks again
            # after the reader has had its turns.
            self._late, due = True, now + 0.01
        if due > now:
            self._watch = loop.call_at(due, self._watchdog, writer)
            return
        self._broken(writer, ConnectionFailed(f"Timeout reading from socket ({self.endpoint})"))

    def _flush(self, writer: asyncio.StreamWriter, out: list[bytes]) -> None:
        if self._out is out:
            self._out = []
        if self._writer is writer:  # else its waiters have failed already
            writer.write(out[0] if len(out) == 1 else b"".join(out))

    async def _connect(self) -> None:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:  # one connect for every call that found it closed
            if self._ready:
                return
            ep = self.endpoint
            target = await locate(ep)
            reader, writer = await open_stream(target)
            parser = hiredis.Reader(replyError=ReplyError)
            self._writer = writer
            self._reading = asyncio.get_running_loop().create_task(
                self._read(reader, writer, parser), name="qless-core-reader")
            hello = opening_commands(ep)
            if not hello:
                self._ready = True
                return
            try:
                replies = await self._send(writer, b"".join(pack(argv) for _, argv in hello),
                                           len(hello))
            except ConnectionFailed as exc:
                raise opening_failure(target, exc) from exc
            refused = opening_refusal(target, hello, replies)
            if refused is not None:
                self.close()
                raise refused
            self._ready = True

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    parser: Any) -> None:
        """Hand every reply to the write that expects it, in order, until the end."""
        waiting = self._waiting
        try:
            while True:
                data = await reader.read(1 << 16)
                if not data:
                    raise ConnectionFailed(f"Connection closed by server ({self.endpoint})")
                self._heard = asyncio.get_running_loop().time()
                parser.feed(data)
                while (reply := parser.gets()) is not False:
                    if not waiting:
                        raise ConnectionFailed(f"a reply nobody asked for ({self.endpoint})")
                    waiter = waiting[0]
                    waiter.replies.append(reply)
                    if len(waiter.replies) == waiter.count:
                        waiting.popleft()
                        if not waiter.future.done():  # a cancelled call: dropped
                            waiter.future.set_result(waiter.replies)
        except asyncio.CancelledError:
            self._broken(writer, ConnectionFailed(f"connection closed ({self.endpoint})"))
            raise
        except ConnectionFailed as exc:
            self._broken(writer, exc)
        except Exception as exc:  # OSError, a protocol error: the stream is lost
            self._broken(writer, ConnectionFailed(
                f"Error reading from socket: {exc} ({self.endpoint})"))

    def _broken(self, writer: asyncio.StreamWriter, exc: ConnectionFailed) -> None:
        """Close ``writer``'s connection (if it is still the current one) and fail every
        call waiting on it."""
        if self._writer is not writer:
            return
        self._writer, self._ready, self._out = None, False, []
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        reading, self._reading = self._reading, None
        if reading is not None and reading is not asyncio.current_task():
            reading.cancel()
        with contextlib.suppress(Exception):
            writer.transport.abort()
        waiting, self._waiting = self._waiting, deque()
        for waiter in waiting:
            if not waiter.future.done():
                waiter.future.set_exception(exc)
                waiter.future.exception()  # a call cancelled meanwhile: retrieved here

    def close(self) -> None:
        """Close the connection; calls waiting on it fail."""
        writer = self._writer
        if writer is not None:
            self._broken(writer, ConnectionFailed(f"connection closed ({self.endpoint})"))

    async def aclose(self) -> None:
        reading = self._reading
        self.close()
        if reading is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await reading

