"""AsyncCore: the built Lua core called by EVALSHA over ``redis.asyncio``, and LeanCore,
the same over the asyncio worker's one pipelined connection.

The rules are :class:`qless_py.core.LuaCore`'s, from the same place
(:mod:`qless_py.calls.core`): ``now`` from ``clock.now()``, NOSCRIPT and READONLY sent
again once, connection errors retried for reads only, replies and error replies read the
same way, batches packed and sorted the same way, WAIT after writes with ``confirm``. This
module only sends, on pooled ``redis.asyncio`` connections.

A call cancelled while in flight leaves the pool usable: a connection whose command was
written but whose reply was not read is closed, never handed out again (its command is
written whole or not at all), and the connection goes back to the pool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from qless_py import clock
from qless_py.calls.base import Batch, Call, Steps
from qless_py.calls.core import (
    LOAD,
    Action,
    Exchange,
    PackedCall,
    Send,
    batch,
    check_confirmed,
    checked,
    confirmed_payload,
    is_read,
    pack_call,
    recover,
    to_text,
)
from qless_py.connect.aio_resp import PipelinedConnection
from qless_py.connect.redis_errors import translate
from qless_py.connect.resp import pack
from qless_py.connect.wire import Arg, ConnectionFailed, ReplyError, RespError
from qless_py.errors import QlessConnectionError, QlessError
from qless_py.lua import sha1_hex

T = TypeVar("T")


class AsyncCore:
    """The built Lua core for one async client."""

    def __init__(self, redis: Callable[[], Any], source: bytes, sha: str | None = None) -> None:
        self._get_redis = redis
        self.source = source
        self.sha: str = sha if sha is not None else sha1_hex(source)
        # Told of every QlessConnectionError raised here (as LuaCore.on_connection_error).
        self.on_connection_error: Callable[[QlessConnectionError], None] | None = None
        # (replicas, timeout in ms): every write is followed by WAIT on the same connection
        self.confirm: tuple[int, int] = (0, 0)

    async def call(self, command: str, *args: Arg) -> Any:
        """Run one core command; replies come back as ``str``/``int``/lists/None."""
        argv = [command, clock.now(), *args]
        confirm = self.confirm[0] > 0 and not is_read(command, args)
        try:
            try:
                reply = await (self._confirmed(argv) if confirm else self._once(argv))
            except RespError as exc:  # the rare path: calls.core.recover decides
                reply = await self._drive(recover(command, args, exc, confirm), argv)
        except QlessConnectionError as exc:
            if self.on_connection_error is not None:
                self.on_connection_error(exc)
            raise
        return to_text(reply)

    async def send(self, call: Call[T]) -> T:
        """Run a :class:`~qless_py.calls.Call` and read its reply."""
        command, args, parse = call
        return parse(await self.call(command, *args))

    async def run(self, steps: Steps[T]) -> T:
        """Run an operation of several calls (:data:`~qless_py.calls.Steps`)."""
        try:
            step = next(steps)
            while True:
                if isinstance(step, Batch):
                    step = steps.send(await self.send_batch(step))
                else:
                    step = steps.send(await self.send(step))
        except StopIteration as done:
            result: T = done.value
            return result

    async def send_batch(self, batch: Batch[T]) -> T:
        """Run a :class:`~qless_py.calls.Batch` in one round trip and read its results (an
        empty batch sends nothing)."""
        return batch.parse(await self.call_packed(batch.calls) if batch.calls else [])

    async def _drive(self, steps: Any, argv: list[Any] | None = None) -> Any:
        """Perform the actions of a :mod:`qless_py.calls.core` generator until it returns."""
        try:
            action: Action = next(steps)
            while True:
                try:
                    result = await self._perform(action, argv)
                except RespError as exc:
                    action = steps.throw(exc)
                else:
                    action = steps.send(result)
        except StopIteration as done:
            return done.value

    async def _perform(self, action: Action, argv: list[Any] | None) -> Any:
        if action is LOAD:
            await self.load()
            return None
        if isinstance(action, Exchange):
            return await self._exchange(action.payload, action.count)
        assert argv is not None and isinstance(action, Send)
        return await (self._confirmed(argv) if action.confirmed else self._once(argv))

    async def _once(self, argv: list[Any]) -> Any:
        """``EVALSHA sha 0 *argv`` on a pooled connection."""
        pool = self._get_redis().connection_pool
        conn = await _connection(pool)
        try:
            await conn.send_command("EVALSHA", self.sha, 0, *argv, check_health=False)
            return await conn.read_response()
        except BaseException as exc:
            mine = translate(exc)
            if not isinstance(mine, ReplyError):
                # cancelled or broken with a reply maybe on its way: never reuse the stream
                await conn.disconnect(nowait=True)
            elif mine.readonly:
                # the pool's connections point at a replica: connect again, and through
                # Sentinel find the current master
                await conn.disconnect(nowait=True)
                await pool.disconnect(inuse_connections=False)
            if mine is None:
                raise
            raise mine from exc
        finally:
            await pool.release(conn)

    async def _confirmed(self, argv: list[Any]) -> Any:
        """One call followed by WAIT in the same write; ConnectionFailed if fewer replicas
        than asked have it in time (it ran, but a failover now could lose it)."""
        reply, acked = await self._exchange(
            confirmed_payload(self.sha, argv, self.confirm), 2)
        if isinstance(reply, ReplyError):
            raise reply
        check_confirmed(acked, *self.confirm)
        return reply

    async def _exchange(self, payload: bytes, count: int) -> list[Any]:
        """Write pre-packed commands on one connection and read ``count`` replies (error
        replies as ReplyError objects)."""
        pool = self._get_redis().connection_pool
        conn = await _connection(pool)
        try:
            await conn.send_packed_command([payload], check_health=False)
            replies: list[Any] = []
            for _ in range(count):
                try:
                    replies.append(await conn.read_response())
                except Exception as exc:
                    mine = translate(exc)
                    if not isinstance(mine, ReplyError):
                        raise
                    replies.append(mine)  # one refused command; the stream goes on
            if any(isinstance(r, ReplyError) and r.readonly for r in replies):
                await conn.disconnect(nowait=True)  # a replica: see _once
                await pool.disconnect(inuse_connections=False)
            return replies
        except BaseException as exc:
            await conn.disconnect(nowait=True)
            mine = translate(exc)
            if isinstance(mine, ConnectionFailed):
                raise mine from exc
            raise
        finally:
            await pool.release(conn)

    async def check(self) -> QlessConnectionError | None:
        """Connect and run a read, as :meth:`qless_py.core.LuaCore.check` does."""
        try:
            await self.call("config.get", "heartbeat")
        except QlessError as exc:
            return checked(exc)
        return None

    async def load(self) -> None:
        """Load the script into the server (again)."""
        try:
            sha = await self._get_redis().script_load(self.source)
        except Exception as exc:
            mine = translate(exc)
            if mine is None:
                raise
            raise mine from exc
        self.sha = sha.decode() if isinstance(sha, bytes) else str(sha)

    async def call_many(self, argvs: Iterable[Sequence[Arg]]) -> list[Any]:
        """Run many commands in one round trip (as ``LuaCore.call_many``)."""
        return await self.call_packed([pack_call(argv[0], argv[1:]) for argv in argvs])

    async def call_packed(self, calls: Sequence[PackedCall]) -> list[Any]:
        """``call_many`` for calls already packed with :func:`pack_call`."""
        try:
            results: list[Any] = await self._drive(
                batch(self, calls, round(clock.now() * 1e6)))
        except QlessConnectionError as exc:
            if self.on_connection_error is not None:
                self.on_connection_error(exc)
            raise
        return results


async def _connection(pool: Any) -> Any:
    """A connected connection from ``pool``; connecting (and AUTH, SELECT...) failing is
    a RespError."""
    try:
        return await pool.get_connection()
    except Exception as exc:
        mine = translate(exc)
        if mine is None:
            raise
        raise mine from exc


class LeanCore(AsyncCore):
    """``AsyncCore`` sending through one ``PipelinedConnection`` instead of a pool (the
    asyncio worker's core; see :mod:`qless_py.connect.aio_resp` for why)."""

    def __init__(self, conn: PipelinedConnection, source: bytes, sha: str) -> None:
        super().__init__(lambda: None, source, sha)
        self.conn = conn

    async def _once(self, argv: list[Any]) -> Any:
        """``EVALSHA sha 0 *argv``; an error reply is raised as ReplyError."""
        (reply,) = await self.conn.execute(pack(["EVALSHA", self.sha, 0, *argv]), 1)
        if isinstance(reply, ReplyError):
            if reply.readonly:  # a replica: connect again (through Sentinel, to the master)
                self.conn.close()
            raise reply
        return reply

    async def _exchange(self, payload: bytes, count: int) -> list[Any]:
        replies = await self.conn.execute(payload, count)
        if any(isinstance(r, ReplyError) and r.readonly for r in replies):
            self.conn.close()
        return replies

    async def load(self) -> None:
        (reply,) = await self.conn.execute(pack(["SCRIPT", "LOAD", self.source]), 1)
        if isinstance(reply, ReplyError):
            raise reply
        self.sha = reply.decode() if isinstance(reply, bytes) else str(reply)
