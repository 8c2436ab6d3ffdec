"""LuaCore: the built Lua core loaded once per server and called by EVALSHA.

Each call prepends the command name and ``clock.now()``. NOSCRIPT (after a restart or
SCRIPT FLUSH) loads the script again and repeats the call, and READONLY (a replica, after a
failover) repeats it on a new connection to the current master; both are safe because the
reply means the script did not run. Connection errors are retried once for read-only
commands only; for anything that may write, the outcome is unknown and the caller gets
``QlessConnectionError``. A refusal that retrying cannot mend (TLS verification,
authentication, ACL) is ``ConnectionSetupError``. With ``confirm`` set, every write is
followed by WAIT in the same round trip.

Both ways to the server are built from the client's one :class:`~qless_py.endpoint.Endpoint`:

- A plain client goes through redis-py (``client.redis``, created on first use), so tools
  that watch redis-py's packer and send path (the shared benchmark harness counts round
  trips that way) see every call, and ``client._lua`` can be bound to a pipeline.
- A worker switches its client to :mod:`qless_py.resp` (:meth:`LuaCore.go_direct`): one
  connection per thread, no redis-py import at all (about 0.1 s of start-up), and one
  ``write`` plus one ``recv`` per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from qless_py import clock
from qless_py.errors import (
    ConnectionSetupError,
    CoreError,
    QlessConnectionError,
    error_from_reply,
)
from qless_py.resp import (
    Arg,
    ConnectionFailed,
    Endpoint,
    ReplyError,
    SetupFailed,
    Transport,
    bulk,
    encode_arg,
    pack,
)

ScriptRunner = Callable[..., Any]

__all__ = ["Arg", "LuaCore", "PackedCall", "bulk", "encode_arg", "pack_call", "to_text"]

# Commands that change nothing a caller could observe twice: safe to send again after a
# connection error. (``peek``, ``queues`` and ``jobs`` may promote due scheduled jobs, which
# converges to the same state when repeated.)
READ_COMMANDS = frozenset({
    "get", "multiget", "config.get", "queues", "peek", "jobs", "failed", "stats", "length",
    "workers", "recur.get",
})


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


_redis_errors: tuple[type[Exception], ...] | None = None


def _translate_redis_error(exc: Exception) -> Exception | None:
    """redis-py's exception as this module's (ConnectionFailed / SetupFailed /
    ReplyError), or None."""
    global _redis_errors
    if _redis_errors is None:
        from redis import exceptions as e
        _redis_errors = (e.AuthenticationError, e.ConnectionError, e.TimeoutError,
                         e.NoScriptError, e.ReadOnlyError, e.NoPermissionError,
                         e.ResponseError)
    auth, lost, timeout, noscript, readonly, noperm, refused = _redis_errors
    if isinstance(exc, auth):
        return SetupFailed(f"authentication refused: {exc}")
    if isinstance(exc, (lost, timeout)):
        return ConnectionFailed(str(exc))
    # redis-py drops the error code from these replies' text; the code is what counts
    if isinstance(exc, noscript):
        return ReplyError(f"NOSCRIPT {exc}")
    if isinstance(exc, readonly):
        return ReplyError(f"READONLY {exc}")
    if isinstance(exc, noperm):
        return ReplyError(f"NOPERM {exc}")
    if isinstance(exc, refused):
        return ReplyError(str(exc))
    return None


class LuaCore:
    """The built Lua core; one per client."""

    def __init__(self, redis: Callable[[], Any], source: bytes, sha: str | None = None) -> None:
        """``sha`` is ``source``'s SHA-1 when the caller already has it (the shipped
        script's is computed once, in qless_py.lua); otherwise it is computed here."""
        self._get_redis = redis
        self.source = source
        if sha is None:
            from qless_py.lua import sha1_hex  # the script's module; it is read on first use

            sha = sha1_hex(source)
        self.sha: str = sha
        self._script: Any = None
        self._runner: ScriptRunner | None = None  # a benchmark may bind calls to a pipeline
        # Set by go_direct (workers): core calls then use qless_py.resp, not redis-py.
        self.transport: Transport | None = None
        # Told, on the calling thread, of every QlessConnectionError raised here (a worker
        # uses it to know that a handler's own call may or may not have run).
        self.on_connection_error: Callable[[QlessConnectionError], None] | None = None
        # (replicas, timeout in ms): every write is followed by WAIT on the same connection
        # and counts as done only once that many replicas have it (see docs/operations.md)
        self.confirm: tuple[int, int] = (0, 0)

    @property
    def script(self) -> Any:
        """The redis-py ``Script`` object for the core."""
        if self._script is None:
            self._script = self._get_redis().register_script(self.source)
            self._script.sha = self.sha
        return self._script

    @property
    def runner(self) -> ScriptRunner:
        """What calls go through: the redis-py Script, unless replaced (see Client._lua)."""
        return self._runner if self._runner is not None else self.script

    @runner.setter
    def runner(self, runner: ScriptRunner) -> None:
        self._runner = None if runner is self._script else runner

    def go_direct(self, endpoint: Endpoint, spin: float = 0.0) -> None:
        """Send every core call through :mod:`qless_py.resp` to ``endpoint``, waiting up
        to ``spin`` seconds awake for each reply before blocking."""
        if self.transport is not None:
            self.transport.close()
        self.transport = Transport(endpoint, spin)

    def call(self, command: str, *args: Arg) -> Any:
        """Run one core command; replies come back as ``str``/``int``/lists/None."""
        try:
            return self._call(command, args)
        except QlessConnectionError as exc:
            if self.on_connection_error is not None:
                self.on_connection_error(exc)
            raise

    def _call(self, command: str, args: Sequence[Arg]) -> Any:
        argv = [command, clock.now(), *args]
        try:
            reply = self._run(argv, self.confirm[0] > 0 and not _is_read(command, args))
        except SetupFailed as exc:
            raise ConnectionSetupError(f"{command}: {exc}") from exc
        except ConnectionFailed as exc:
            if not _is_read(command, args):
                raise QlessConnectionError(
                    f"{command}: connection failed, the command may or may not have run: {exc}"
                ) from exc
            try:
                reply = self._run(argv)  # a read: never waited for
            except SetupFailed as again:
                raise ConnectionSetupError(f"{command}: {again}") from again
            except ConnectionFailed as again:
                raise QlessConnectionError(f"{command}: {again}") from again
            except ReplyError as err:
                raise error_from_reply(str(err), command) from err
        except ReplyError as exc:
            raise error_from_reply(str(exc), command) from exc
        return to_text(reply)

    def _run(self, argv: list[Any], confirm: bool = False) -> Any:
        """One call, sent again once after a reply that says it did not run: NOSCRIPT (the
        script is loaded first) and READONLY (a replica refused it; its connection was
        closed, and the next one finds the current master)."""
        try:
            return self._confirmed(argv) if confirm else self._once(argv)
        except ReplyError as exc:
            if not (exc.noscript or exc.readonly):
                raise
            return self._again(argv, confirm, exc)

    def _again(self, argv: list[Any], confirm: bool, refusal: ReplyError) -> Any:
        """The rest of :meth:`_run`: at most one more try for each kind of refusal."""
        seen: set[str] = set()
        while True:
            kind = "noscript" if refusal.noscript else "readonly"
            if kind in seen:
                raise refusal
            seen.add(kind)
            if kind == "noscript":
                self.load()
            try:
                return self._confirmed(argv) if confirm else self._once(argv)
            except ReplyError as exc:
                if not (exc.noscript or exc.readonly):
                    raise
                refusal = exc

    def _once(self, argv: list[Any]) -> Any:
        transport = self.transport
        if transport is not None:
            return transport.call("EVALSHA", self.sha, 0, *argv)
        try:
            if self._runner is not None:
                return self._runner(keys=[], args=argv)
            return self._redis_call(argv)
        except (ConnectionFailed, ReplyError):
            raise
        except Exception as exc:
            mine = _translate_redis_error(exc)
            if mine is None:
                raise
            raise mine from exc

    def _confirmed(self, argv: list[Any]) -> Any:
        """One call followed by WAIT in the same write; ConnectionFailed if fewer replicas
        than asked have it in time (it ran, but a failover now could lose it)."""
        replicas, ms = self.confirm
        payload = pack(["EVALSHA", self.sha, 0, *argv]) + pack(["WAIT", replicas, ms])
        reply, acked = self._exchange(payload, 2)
        if isinstance(reply, ReplyError):
            raise reply
        _check_confirmed(acked, replicas, ms)
        return reply

    def _redis_call(self, argv: list[Any]) -> Any:
        """``EVALSHA sha 0 *argv`` on a pooled redis-py connection."""
        pool = self._get_redis().connection_pool
        conn = pool.get_connection()
        try:
            conn.send_command("EVALSHA", self.sha, 0, *argv, check_health=False)
            return conn.read_response()
        except Exception as exc:
            mine = _translate_redis_error(exc)
            if not isinstance(mine, ReplyError):
                conn.disconnect()  # a reply may still be on its way: never reuse the stream
            elif mine.readonly:
                # the pool's connections point at a replica: connect again, and through
                # Sentinel find the current master
                conn.disconnect()
                pool.disconnect(inuse_connections=False)
            raise
        finally:
            pool.release(conn)

    def check(self) -> QlessConnectionError | None:
        """Connect and run a read on the path calls take, as a worker does at start.

        Raises :class:`ConnectionSetupError` when retrying cannot help (TLS verification,
        authentication or ACL refused, unknown Sentinel service, the core refused by the
        server); returns the error when the server just cannot be reached now; None if
        all is well.
        """
        try:
            self.call("config.get", "heartbeat")
        except ConnectionSetupError as exc:  # without the command's name: it is ours
            raise ConnectionSetupError(str(exc.__cause__ or exc)) from exc
        except QlessConnectionError as exc:
            return exc
        except CoreError as exc:
            raise ConnectionSetupError(f"the server refused the core: {exc}") from exc
        return None

    def close(self) -> None:
        """Close the direct connections (they connect again if used again)."""
        if self.transport is not None:
            self.transport.close()

    def load(self) -> None:
        """Load the script into the server (again)."""
        if self.transport is not None:
            sha = self.transport.call("SCRIPT", "LOAD", self.source)
        else:
            sha = self._get_redis().script_load(self.source)
        self.sha = sha.decode() if isinstance(sha, bytes) else str(sha)
        if self._script is not None:
            self._script.sha = self.sha

    def call_many(self, argvs: Iterable[Sequence[Arg]]) -> list[Any]:
        """Run many commands in one round trip (pipelined EVALSHA, not a transaction).

        Each item is ``(command, *args)``; ``now`` is inserted. Results come back in order;
        an item the core refused gets its exception object in the result list. Items that
        came back NOSCRIPT or READONLY did not run, so only those are sent again (after a
        load, or on a new connection to the current master).
        """
        return self.call_packed([pack_call(argv[0], argv[1:]) for argv in argvs])

    def call_packed(self, calls: Sequence[PackedCall]) -> list[Any]:
        """``call_many`` for calls already packed with :func:`pack_call` (or by hand)."""
        results: list[Any] = [None] * len(calls)
        pending = list(range(len(calls)))
        # Items 10 us apart: equal priorities (|p| < 4, within the score's precision) then
        # pop in batch order, as separate puts would, not in the reverse-jid order of ties.
        base_us = round(clock.now() * 1e6)
        replicas, ms = self.confirm
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
            if replicas:
                parts.append(pack(["WAIT", replicas, ms]))
            replies = self._send(b"".join(parts), len(pending) + bool(replicas))
            if replicas:
                try:
                    _check_confirmed(replies.pop(), replicas, ms)
                except ConnectionFailed as exc:
                    raise QlessConnectionError(f"batch of {len(pending)} commands: {exc}") \
                        from exc
            again: list[int] = []
            load = False
            for i, reply in zip(pending, replies, strict=True):
                if isinstance(reply, ReplyError) and attempt == 0 and (
                        reply.noscript or reply.readonly):
                    again.append(i)
                    load = load or reply.noscript
                elif isinstance(reply, ReplyError):
                    results[i] = error_from_reply(str(reply), _command_name(calls[i][0]))
                else:
                    results[i] = to_text(reply)
            if not again:
                break
            if load:
                self.load()
            pending = again
        return results

    def _send(self, payload: bytes, count: int) -> list[Any]:
        """:meth:`_exchange`, with connection errors as QlessErrors."""
        try:
            return self._exchange(payload, count)
        except SetupFailed as exc:
            raise ConnectionSetupError(f"batch of {count} commands: {exc}") from exc
        except ConnectionFailed as exc:
            error = QlessConnectionError(
                f"batch of {count} commands: connection failed, some may have run: {exc}")
            if self.on_connection_error is not None:
                self.on_connection_error(error)
            raise error from exc

    def _exchange(self, payload: bytes, count: int) -> list[Any]:
        """Write pre-packed commands on one connection and read ``count`` replies (error
        replies as ReplyError objects)."""
        if self.transport is not None:
            return self.transport.ready().exchange(payload, count)
        return self._redis_send(payload, count)

    def _redis_send(self, payload: bytes, count: int) -> list[Any]:
        pool = self._get_redis().connection_pool
        conn: Any = pool.get_connection()  # redis-py's Connection API is partly untyped
        try:
            conn.send_packed_command([payload])
            replies: list[Any] = []
            for _ in range(count):
                try:
                    replies.append(conn.read_response())
                except Exception as exc:
                    mine = _translate_redis_error(exc)
                    if not isinstance(mine, ReplyError):
                        raise
                    replies.append(mine)  # one refused command; the stream goes on
            if any(isinstance(r, ReplyError) and r.readonly for r in replies):
                conn.disconnect()  # a replica: see _redis_call
                pool.disconnect(inuse_connections=False)
            return replies
        except Exception as exc:
            mine = _translate_redis_error(exc)
            if isinstance(mine, ConnectionFailed):
                conn.disconnect()
                raise mine from exc
            raise
        finally:
            pool.release(conn)


def _check_confirmed(acked: Any, replicas: int, ms: int) -> None:
    if isinstance(acked, ReplyError) or not isinstance(acked, int) or acked < replicas:
        raise ConnectionFailed(
            f"written, but {acked} of {replicas} replica(s) confirmed it within {ms} ms "
            "(WAIT): a failover now could lose it")


PackedCall = tuple[bytes, int, bytes]
"""``(command as a RESP bulk string, number of arguments after now, their RESP bulks)``."""


def pack_call(command: Arg, args: Sequence[Arg]) -> PackedCall:
    """Pack ``command`` and its arguments (without ``now``) for :meth:`LuaCore.call_packed`."""
    return bulk(command), len(args), b"".join([bulk(arg) for arg in args])


def _command_name(packed: bytes) -> str:
    return packed.split(b"\r\n", 2)[1].decode("utf-8", "replace")
