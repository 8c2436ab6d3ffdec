"""AsyncCore: the built Lua core called by EVALSHA over ``redis.asyncio``, and LeanCore,
the same over the asyncio worker's one pipelined connection.

The rules are :class:`qless_py.client.core.LuaCore`'s, from the same place
(:class:`qless_py.calls.core.CoreRules`): ``now`` from ``clock.now()``, NOSCRIPT and
READONLY, MOVED or ASK sent again once, connection errors retried for reads only, replies and error
replies read the same way, batches packed and sorted the same way, WAIT after writes with
``confirm``, operations of several calls driven the same way. This module only sends: a
fast path for a call's first send, and one driver that awaits the actions of the shared
generators.

A call cancelled while in flight leaves the pool usable: a connection whose command was
written but whose reply was not read is closed, never handed out again (its command is
written whole or not at all), and the connection goes back to the pool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from qless_py import clock
from qless_py.calls.base import Batch, Call, PackedCall, Steps
from qless_py.calls.core import (
    Action,
    CoreRules,
    Exchange,
    Send,
    checked,
    confirmed_payload,
    confirmed_reply,
    is_read,
    pack_call,
    to_text,
)
from qless_py.connect.aio_resp import PipelinedConnection
from qless_py.connect.drive import drive
from qless_py.connect.redis_errors import refused, translate
from qless_py.connect.resp import pack
from qless_py.connect.wire import Arg, ConnectionFailed, ReplyError, RespError, redirected_among
from qless_py.errors import QlessConnectionError, QlessError
from qless_py.lua import sha1_hex

T = TypeVar("T")


class AsyncCore(CoreRules):
    """The built Lua core for one async client."""

    def __init__(self, redis: Callable[[], Any], source: bytes, sha: str | None = None) -> None:
        super().__init__(source, sha if sha is not None else sha1_hex(source))
        self._get_redis = redis

    async def call(self, command: str, *args: Arg) -> Any:
        """Run one core command; replies come back as ``str``/``int``/lists/None."""
        argv = [command, clock.now(), *args]
        confirm = self.confirm[0] > 0 and not is_read(command, args)
        try:
            reply = await (self._confirmed(argv) if confirm else self._once(argv))
        except RespError as exc:  # the rare path: calls.core.recover decides
            reply = await self._drive(self.recovering(argv, confirm, exc))
        return to_text(reply)

    async def send(self, call: Call[T]) -> T:
        """Run a :class:`~qless_py.calls.Call` and read its reply."""
        command, args, parse = call
        return parse(await self.call(command, *args))

    async def run(self, steps: Steps[T]) -> T:
        """Run an operation of several calls (:data:`~qless_py.calls.Steps`)."""
        result: T = await self._drive(steps)
        return result

    async def send_batch(self, batch: Batch[T]) -> T:
        """Run a :class:`~qless_py.calls.Batch` in one round trip and read its results (an
        empty batch sends nothing)."""
        return batch.parse(await self.call_packed(batch.calls) if batch.calls else [])

    async def call_many(self, argvs: Iterable[Sequence[Arg]]) -> list[Any]:
        """Run many commands in one round trip (as ``LuaCore.call_many``)."""
        return await self.call_packed([pack_call(argv[0], argv[1:]) for argv in argvs])

    async def call_packed(self, calls: Sequence[PackedCall]) -> list[Any]:
        """``call_many`` for calls already packed with :func:`pack_call`."""
        results: list[Any] = await self._drive(self.batching(calls))
        return results

    async def check(self) -> QlessConnectionError | None:
        """Connect and run a read; see :func:`~qless_py.calls.core.checked`."""
        try:
            await self.call("config.get", "heartbeat")
        except QlessError as exc:
            return checked(exc)
        return None

    async def load(self) -> None:
        """Load the script into the server (again)."""
        self.loaded(await self._load())

    # -- sending: what the one driver performs ----------------------------------------
    async def _drive(self, steps: Any) -> Any:
        """Run a generator of actions, Calls or Batches with the one driver."""
        return await drive(steps, self._perform)

    async def _perform(self, action: Action | Call[Any] | Batch[Any]) -> Any:
        if type(action) is Send:
            argv = action.argv
            return await (self._confirmed(argv) if action.confirmed else self._once(argv))
        if type(action) is tuple:  # a Call of Steps
            return await self.send(action)
        if isinstance(action, Batch):
            return await self.send_batch(action)
        if isinstance(action, Exchange):
            return await self._exchange(action.payload, action.count)
        return self.loaded(await self._load())

    async def _confirmed(self, argv: list[Any]) -> Any:
        """One call followed by WAIT in the same write (see ``confirmed_reply``)."""
        payload = confirmed_payload(self.sha, argv, self.confirm, self.keys)
        return confirmed_reply(await self._exchange(payload, 2), self.confirm)

    async def _once(self, argv: list[Any]) -> Any:
        """``EVALSHA sha <keys> *argv`` on a pooled connection."""
        pool = self._get_redis().connection_pool
        conn = await _connection(pool)
        try:
            await conn.send_command("EVALSHA", self.sha, len(self.keys), *self.keys, *argv,
                                    check_health=False)
            return await conn.read_response()
        except BaseException as exc:
            mine = translate(exc)
            if not isinstance(mine, ReplyError):
                # cancelled or broken with a reply maybe on its way: never reuse the stream
                await conn.disconnect(nowait=True)
            elif mine.redirected:
                # the pool's connections point at the wrong node: connect again, and through
                # Sentinel find the current master
                await conn.disconnect(nowait=True)
                await pool.disconnect(inuse_connections=False)
            if mine is None:
                raise
            raise mine from exc
        finally:
            await pool.release(conn)

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
                    replies.append(refused(exc))  # one refused command; the stream goes on
            if redirected_among(replies):
                await conn.disconnect(nowait=True)  # the wrong node: see _once
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

    async def _load(self) -> Any:
        """``SCRIPT LOAD``; its reply is the script's SHA."""
        try:
            return await self._get_redis().script_load(self.source)
        except Exception as exc:
            mine = translate(exc)
            if mine is None:
                raise
            raise mine from exc


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
        """``EVALSHA sha <keys> *argv``; an error reply is raised as ReplyError."""
        (reply,) = await self.conn.execute(
            pack(["EVALSHA", self.sha, len(self.keys), *self.keys, *argv]), 1)
        if isinstance(reply, ReplyError):
            if reply.redirected:  # the wrong node: connect again, to the current master
                self.conn.close()
            raise reply
        return reply

    async def _exchange(self, payload: bytes, count: int) -> list[Any]:
        replies = await self.conn.execute(payload, count)
        if redirected_among(replies):
            self.conn.close()
        return replies

    async def _load(self) -> Any:
        (reply,) = await self.conn.execute(pack(["SCRIPT", "LOAD", self.source]), 1)
        if isinstance(reply, ReplyError):
            raise reply
        return reply
