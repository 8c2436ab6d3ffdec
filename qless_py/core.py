"""LuaCore: the built Lua core loaded once per connection pool and called by EVALSHA.

Each call prepends the command name and ``clock.now()``. NOSCRIPT (after a restart or
SCRIPT FLUSH) loads the script again and repeats the call, which is safe because a NOSCRIPT
reply means the script did not run. Connection errors are retried once for read-only
commands only; for anything that may write, the outcome is unknown and the caller gets
``QlessConnectionError``.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from qless_py import clock
from qless_py.errors import QlessConnectionError, error_from_reply

Arg = str | bytes | int | float
ScriptRunner = Callable[..., Any]

# Commands that change nothing a caller could observe twice: safe to send again after a
# connection error. (``peek``, ``queues`` and ``jobs`` may promote due scheduled jobs, which
# converges to the same state when repeated.)
READ_COMMANDS = frozenset({
    "get", "multiget", "config.get", "queues", "peek", "jobs", "failed", "stats", "length",
    "workers", "recur.get",
})


# The per-job commands of a worker: sent on a connection each thread keeps.
_PER_THREAD = frozenset({"pop", "complete"})

# Counts forks, so a child notices inherited per-thread connections without a getpid()
# system call per command.
_forks = 0


def _count_fork() -> None:
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_count_fork)


def _is_read(command: str, args: Sequence[Arg]) -> bool:
    if command in READ_COMMANDS:
        return True
    if command == "track":
        return not args
    if command == "tag":
        return bool(args) and args[0] in ("get", "top")
    return False


def to_text(reply: Any) -> Any:
    """Bulk strings become ``str``, arrays lists of converted items; integers stay."""
    if type(reply) is bytes:
        return reply.decode("utf-8", "replace")
    if type(reply) is list:
        return [to_text(item) for item in reply]
    return reply


class LuaCore:
    """The built Lua core; one per client (and its connection pool)."""

    def __init__(self, redis: Redis, source: bytes) -> None:
        self._redis = redis
        self.source = source
        self._script = redis.register_script(source)
        self.sha: str = self._script.sha
        # What calls go through. A benchmark may swap it for a pipeline-bound runner.
        self.runner: ScriptRunner = self._script
        # Workers turn this on: calls are then written with os.write (see _write), which
        # tools that wrap redis-py's send_packed_command (the shared harness counts round
        # trips that way) do not see, so plain clients keep redis-py's path.
        self.direct_writes = False
        self._local = threading.local()
        self._conns: weakref.WeakSet[Any] = weakref.WeakSet()
        self._conns_lock = threading.Lock()

    @property
    def script(self) -> Any:
        """The redis-py ``Script`` object for the core."""
        return self._script

    def call(self, command: str, *args: Arg) -> Any:
        """Run one core command; replies come back as ``str``/``int``/lists/None."""
        argv = [command, clock.now(), *args]
        try:
            reply = self._run(argv)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            if not _is_read(command, args):
                raise QlessConnectionError(
                    f"{command}: connection failed, the command may or may not have run: {exc}"
                ) from exc
            try:
                reply = self._run(argv)
            except (RedisConnectionError, RedisTimeoutError) as again:
                raise QlessConnectionError(f"{command}: {again}") from again
            except ResponseError as err:
                raise error_from_reply(str(err), command) from err
        except ResponseError as exc:
            raise error_from_reply(str(exc), command) from exc
        return to_text(reply)

    def _run(self, argv: list[Any]) -> Any:
        runner = self.runner
        if runner is self._script:
            try:
                return self._evalsha(argv)
            except NoScriptError:
                self.load()
                return self._evalsha(argv)
        return runner(keys=[], args=argv)

    def _evalsha(self, argv: list[Any]) -> Any:
        """``EVALSHA sha 0 *argv``, sent and read straight on a connection.

        ``pop`` and ``complete``, the commands a worker sends for every job, go over this
        thread's own connection; the others borrow one from the pool, which connects a
        connection afresh (handshake included) after it failed, before sending on it.
        """
        if argv[0] in _PER_THREAD:
            return self._roundtrip(self._thread_connection(), argv)
        pool = self._redis.connection_pool
        conn = pool.get_connection()
        try:
            return self._roundtrip(conn, argv)
        finally:
            pool.release(conn)

    def _roundtrip(self, conn: Any, argv: list[Any]) -> Any:
        # Packed by the connection's own packer (hiredis when installed), so tools that
        # watch redis-py's packer, like the shared benchmark harness, see every call.
        try:
            packed = conn.pack_command("EVALSHA", self.sha, 0, *argv)
            sock = conn._sock
            if self.direct_writes and type(sock) is socket.socket and len(packed) == 1:
                _write(conn, sock, packed[0])
            else:
                conn.send_packed_command(packed, check_health=False)
            return conn.read_response()
        except ResponseError:
            raise
        except BaseException:
            conn.disconnect()  # a reply may still be on its way: never reuse the stream
            raise

    def _thread_connection(self) -> Any:
        """This thread's own connection, made like the pool's (outside it: no pool lock and
        no probe per call). Reconnected when the server closed it, as the pool would."""
        local = self._local
        conn = getattr(local, "conn", None)
        if conn is None or local.forks != _forks:
            pool = self._redis.connection_pool
            conn = pool.connection_class(**pool.connection_kwargs)
            local.conn, local.forks = conn, _forks
            with self._conns_lock:
                self._conns.add(conn)
            return conn
        sock = conn._sock
        if sock is not None and select.select([sock], [], [], 0)[0]:
            conn.disconnect()  # EOF or stray bytes: the server closed it or the stream broke
        return conn

    def close(self) -> None:
        """Close the per-thread connections (they connect again if used again)."""
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            conn.disconnect()

    def load(self) -> None:
        """Load the script into the server (again)."""
        self.sha = self._redis.script_load(self.source)
        if isinstance(self.sha, bytes):
            self.sha = self.sha.decode()
        self._script.sha = self.sha

    def call_many(self, argvs: Iterable[Sequence[Arg]]) -> list[Any]:
        """Run many commands in one round trip (pipelined EVALSHA, not a transaction).

        Each item is ``(command, *args)``; ``now`` is inserted. Results come back in order;
        an item the core refused gets its exception object in the result list. Items that
        came back NOSCRIPT did not run, so only those are sent again after a load.
        """
        return self.call_packed([pack_call(argv[0], argv[1:]) for argv in argvs])

    def call_packed(self, calls: Sequence[PackedCall]) -> list[Any]:
        """``call_many`` for calls already packed with :func:`pack_call` (or by hand)."""
        results: list[Any] = [None] * len(calls)
        pending = list(range(len(calls)))
        # Items 10 us apart: equal priorities (|p| < 4, within the score's precision) then
        # pop in batch order, as separate puts would, not in the reverse-jid order of ties.
        base_us = round(clock.now() * 1e6)
        for attempt in range(2):
            sha = self.sha.encode()
            head = b"*%d\r\n$7\r\nEVALSHA\r\n$%d\r\n%s\r\n$1\r\n0\r\n%s"
            parts: list[bytes] = []
            for i in pending:
                name, count, body = calls[i]
                now = b"%d.%06d" % divmod(base_us + 10 * i, 1_000_000)
                parts.append(head % (count + 5, len(sha), sha, name))
                parts.append(b"$%d\r\n%s\r\n" % (len(now), now))
                parts.append(body)
            replies = self._send(b"".join(parts), len(pending))
            again: list[int] = []
            for i, reply in zip(pending, replies, strict=True):
                if isinstance(reply, NoScriptError) and attempt == 0:
                    again.append(i)
                elif isinstance(reply, ResponseError):
                    results[i] = error_from_reply(str(reply), _command_name(calls[i][0]))
                else:
                    results[i] = to_text(reply)
            if not again:
                break
            self.load()
            pending = again
        return results

    def _send(self, payload: bytes, count: int) -> list[Any]:
        """Write pre-packed commands on one pooled connection and read ``count`` replies."""
        pool = self._redis.connection_pool
        conn: Any = pool.get_connection()  # redis-py's Connection API is partly untyped
        try:
            conn.send_packed_command([payload])
            replies: list[Any] = []
            for _ in range(count):
                try:
                    replies.append(conn.read_response())
                except ResponseError as exc:  # one refused command; the stream goes on
                    replies.append(exc)
            return replies
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            conn.disconnect()
            raise QlessConnectionError(
                f"batch of {count} commands: connection failed, some may have run: {exc}"
            ) from exc
        finally:
            pool.release(conn)


def _write(conn: Any, sock: socket.socket, data: bytes) -> None:
    """Write a command with one ``write`` system call when the socket buffer has room.

    A socket with a timeout (redis-py sets one) polls before every send; a request this
    small nearly always fits in the buffer, so the poll is skipped and a short write falls
    back to ``sendall`` (which waits, honouring the timeout) for the rest.
    """
    try:
        sent = os.write(sock.fileno(), data)
    except BlockingIOError:
        sent = 0
    except OSError as exc:
        conn.disconnect()
        raise RedisConnectionError(f"Error while writing to socket: {exc}") from exc
    if sent < len(data):
        conn.send_packed_command([data[sent:]], check_health=False)


PackedCall = tuple[bytes, int, bytes]
"""``(command as a RESP bulk string, number of arguments after now, their RESP bulks)``."""


def encode_arg(value: Arg) -> bytes:
    """A core argument as bytes, formatted the way redis-py would."""
    if type(value) is str:
        return value.encode()
    if type(value) is bytes:
        return value
    if type(value) is float:
        return repr(value).encode()
    if type(value) is int:
        return str(value).encode()
    raise TypeError(f"core arguments are str, bytes, int or float, not {type(value).__name__}")


def bulk(value: Arg) -> bytes:
    """One RESP bulk string."""
    data = encode_arg(value)
    return b"$%d\r\n%s\r\n" % (len(data), data)


def pack_call(command: Arg, args: Sequence[Arg]) -> PackedCall:
    """Pack ``command`` and its arguments (without ``now``) for :meth:`LuaCore.call_packed`."""
    return bulk(command), len(args), b"".join([bulk(arg) for arg in args])


def _command_name(packed: bytes) -> str:
    return packed.split(b"\r\n", 2)[1].decode("utf-8", "replace")
