"""LuaCore: the built Lua core loaded once per server and called by EVALSHA.

Each call prepends the command name and ``clock.now()``. NOSCRIPT (after a restart or
SCRIPT FLUSH) loads the script again and repeats the call, and READONLY, MOVED or ASK (a
replica after a failover, a cluster node that does not serve the namespace's slot now)
repeats it on a new connection to the current master; both are safe because the
reply means the script did not run. Connection errors are retried once for read-only
commands only; for anything that may write, the outcome is unknown and the caller gets
``QlessConnectionError``. A refusal that retrying cannot mend (TLS verification,
authentication, ACL) is ``ConnectionSetupError``. With ``confirm`` set, every write is
followed by WAIT in the same round trip. Those rules, and every operation built of them,
live in :mod:`qless_py.calls.core` (``CoreRules``), shared with the async client
(``qless_py.aio.core``); this module only sends: a fast path for a call's first send, and
one driver that performs the actions of the shared generators.

Both ways to the server are built from the client's one
:class:`~qless_py.connect.endpoint.Endpoint`:

- A plain client goes through redis-py (``client.redis``, created on first use), so tools
  that watch redis-py's packer and send path (the shared benchmark harness counts round
  trips that way) see every call, and ``client._lua`` can be bound to a pipeline.
- A worker switches its client to :mod:`qless_py.connect.resp` (:meth:`LuaCore.go_direct`): one
  connection per thread, no redis-py import at all (about 0.1 s of start-up), and one
  ``write`` plus one ``recv`` per call.
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
from qless_py.connect.drive import at_once, drive
from qless_py.connect.endpoint import Endpoint
from qless_py.connect.redis_errors import refused, translate_redis_error
from qless_py.connect.resp import Transport
from qless_py.connect.wire import Arg, ConnectionFailed, ReplyError, RespError, redirected_among
from qless_py.errors import QlessConnectionError, QlessError

ScriptRunner = Callable[..., Any]
T = TypeVar("T")

__all__ = ["LuaCore"]


class LuaCore(CoreRules):
    """The built Lua core; one per client."""

    def __init__(self, redis: Callable[[], Any], source: bytes, sha: str | None = None) -> None:
        """``sha`` is ``source``'s SHA-1 when the caller already has it (the shipped
        script's is computed once, in qless_py.lua); otherwise it is computed here."""
        if sha is None:
            from qless_py.lua import sha1_hex  # the script's module; it is read on first use

            sha = sha1_hex(source)
        super().__init__(source, sha)
        self._get_redis = redis
        self._script: Any = None
        self._runner: ScriptRunner | None = None  # a benchmark may bind calls to a pipeline
        # Set by go_direct (workers): core calls then use qless_py.connect.resp, not redis-py.
        self.transport: Transport | None = None

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
        """Send every core call through :mod:`qless_py.connect.resp` to ``endpoint``,
        waiting up to ``spin`` seconds awake for each reply before blocking."""
        if self.transport is not None:
            self.transport.close()
        self.transport = Transport(endpoint, spin)

    def call(self, command: str, *args: Arg) -> Any:
        """Run one core command; replies come back as ``str``/``int``/lists/None."""
        argv = [command, clock.now(), *args]
        confirm = self.confirm[0] > 0 and not is_read(command, args)
        try:
            reply = self._confirmed(argv) if confirm else self._once(argv)
        except RespError as exc:  # the rare path: calls.core.recover decides
            reply = self._drive(self.recovering(argv, confirm, exc))
        return to_text(reply)

    def send(self, call: Call[T]) -> T:
        """Run a :class:`~qless_py.calls.Call` and read its reply."""
        command, args, parse = call
        return parse(self.call(command, *args))

    def run(self, steps: Steps[T]) -> T:
        """Run an operation of several calls (:data:`~qless_py.calls.Steps`)."""
        result: T = self._drive(steps)
        return result

    def send_batch(self, batch: Batch[T]) -> T:
        """Run a :class:`~qless_py.calls.Batch` in one round trip and read its results (an
        empty batch sends nothing)."""
        return batch.parse(self.call_packed(batch.calls) if batch.calls else [])

    def call_many(self, argvs: Iterable[Sequence[Arg]]) -> list[Any]:
        """Run many commands in one round trip (pipelined EVALSHA, not a transaction).

        Each item is ``(command, *args)``; ``now`` is inserted. Results come back in order;
        an item the core refused gets its exception object in the result list. Items that
        came back NOSCRIPT, READONLY, MOVED or ASK did not run, so only those are sent again
        (after a load, or on a new connection to the current master).
        """
        return self.call_packed([pack_call(argv[0], argv[1:]) for argv in argvs])

    def call_packed(self, calls: Sequence[PackedCall]) -> list[Any]:
        """``call_many`` for calls already packed with :func:`pack_call` (or by hand)."""
        results: list[Any] = self._drive(self.batching(calls))
        return results

    def check(self) -> QlessConnectionError | None:
        """Connect and run a read; see :func:`~qless_py.calls.core.checked`."""
        try:
            self.call("config.get", "heartbeat")
        except QlessError as exc:
            return checked(exc)
        return None

    def load(self) -> None:
        """Load the script into the server (again)."""
        self.loaded(self._load())

    def loaded(self, sha: Any) -> None:
        super().loaded(sha)
        if self._script is not None:
            self._script.sha = self.sha

    def close(self) -> None:
        """Close the direct connections (they connect again if used again)."""
        if self.transport is not None:
            self.transport.close()

    # -- sending: what the one driver performs ----------------------------------------
    def _drive(self, steps: Any) -> Any:
        """Run a generator of actions, Calls or Batches with the one driver (the sends
        here block, so it finishes without waiting)."""
        return at_once(drive(steps, self._perform))

    async def _perform(self, action: Action | Call[Any] | Batch[Any]) -> Any:
        """Send what the driver asks for (a coroutine for :func:`drive`; it never waits)."""
        if type(action) is Send:
            argv = action.argv
            return self._confirmed(argv) if action.confirmed else self._once(argv)
        if type(action) is tuple:  # a Call of Steps
            return self.send(action)
        if isinstance(action, Batch):
            return self.send_batch(action)
        if isinstance(action, Exchange):
            return self._exchange(action.payload, action.count)
        return self.loaded(self._load())

    def _once(self, argv: list[Any]) -> Any:
        transport = self.transport
        if transport is not None:
            return transport.call("EVALSHA", self.sha, len(self.keys), *self.keys, *argv)
        try:
            if self._runner is not None:
                return self._runner(keys=list(self.keys), args=argv)
            return self._redis_call(argv)
        except RespError:
            raise
        except Exception as exc:
            mine = translate_redis_error(exc)
            if mine is None:
                raise
            raise mine from exc

    def _confirmed(self, argv: list[Any]) -> Any:
        """One call followed by WAIT in the same write (see ``confirmed_reply``)."""
        payload = confirmed_payload(self.sha, argv, self.confirm, self.keys)
        return confirmed_reply(self._exchange(payload, 2), self.confirm)

    def _redis_call(self, argv: list[Any]) -> Any:
        """``EVALSHA sha <keys> *argv`` on a pooled redis-py connection."""
        pool = self._get_redis().connection_pool
        conn = pool.get_connection()
        try:
            conn.send_command("EVALSHA", self.sha, len(self.keys), *self.keys, *argv,
                              check_health=False)
            return conn.read_response()
        except Exception as exc:
            mine = translate_redis_error(exc)
            if not isinstance(mine, ReplyError):
                conn.disconnect()  # a reply may still be on its way: never reuse the stream
            elif mine.redirected:
                # the pool's connections point at a replica or the wrong cluster node:
                # connect again, and through Sentinel or the seeds find the current master
                conn.disconnect()
                pool.disconnect(inuse_connections=False)
            raise
        finally:
            pool.release(conn)

    def _load(self) -> Any:
        """``SCRIPT LOAD``; its reply is the script's SHA."""
        try:
            if self.transport is not None:
                return self.transport.call("SCRIPT", "LOAD", self.source)
            return self._get_redis().script_load(self.source)
        except RespError:
            raise
        except Exception as exc:
            mine = translate_redis_error(exc)
            if mine is None:
                raise
            raise mine from exc

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
                    replies.append(refused(exc))  # one refused command; the stream goes on
            if redirected_among(replies):
                conn.disconnect()  # the wrong node: see _redis_call
                pool.disconnect(inuse_connections=False)
            return replies
        except Exception as exc:
            mine = translate_redis_error(exc)
            if isinstance(mine, ConnectionFailed):
                conn.disconnect()
                raise mine from exc
            raise
        finally:
            pool.release(conn)
