"""What a core call means, whatever carries it: which commands may be sent again, how a
failed send is recovered, how replies and error replies are read, and how a batch is packed
and its replies sorted. ``qless_py.client.core.LuaCore`` (sync) and ``qless_py.aio.core.AsyncCore``
are both :class:`CoreRules`: they drive these with their own sends.

A call is sent once on its fast path. When that send fails, :func:`recover` decides what
happens next, one action at a time (send again, load the script, give up with a typed
error); :func:`batch` does the same for a pipelined batch. Both are generators of
:data:`Action`; operations of several calls (:data:`~qless_py.calls.Steps`, the start-up
check) are generators of Calls and Batches. Both cores run them with the one driver,
:func:`qless_py.connect.drive.drive`, which performs each yielded item and sends back its
result, or throws its ``RespError`` in. No I/O happens here.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any, Protocol

from qless_py import clock
from qless_py.calls.base import PackedCall
from qless_py.connect.wire import (
    Arg,
    ConnectionFailed,
    ReplyError,
    RespError,
    SetupFailed,
    bulk,
    pack,
)
from qless_py.errors import (
    ConnectionSetupError,
    CoreError,
    QlessConnectionError,
    QlessError,
    error_from_reply,
)

# Commands that change nothing a caller could observe twice: safe to send again after a
# connection error. (``peek``, ``queues`` and ``jobs`` may promote due scheduled jobs, which
# converges to the same state when repeated.)
READ_COMMANDS = frozenset({
    "get", "multiget", "config.get", "queues", "peek", "jobs", "failed", "stats", "length",
    "workers", "recur.get",
})


def is_read(command: str, args: Sequence[Arg]) -> bool:
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


def check_confirmed(acked: Any, replicas: int, ms: int) -> None:
    """Raise ConnectionFailed unless WAIT's reply says ``replicas`` replicas have a write."""
    if isinstance(acked, ReplyError) or not isinstance(acked, int) or acked < replicas:
        raise ConnectionFailed(
            f"written, but {acked} of {replicas} replica(s) confirmed it within {ms} ms "
            "(WAIT): a failover now could lose it")


def confirmed_payload(sha: str, argv: Sequence[Arg], confirm: tuple[int, int],
                      keys: Sequence[str] = ()) -> bytes:
    """One EVALSHA followed by WAIT in the same write (``confirm``: replicas, ms)."""
    return pack(["EVALSHA", sha, len(keys), *keys, *argv]) + pack(["WAIT", *confirm])


def confirmed_reply(replies: list[Any], confirm: tuple[int, int]) -> Any:
    """The reply of a :func:`confirmed_payload` exchange: an error reply is raised, and
    ConnectionFailed if fewer replicas than asked have it in time (it ran, but a failover
    now could lose it)."""
    reply, acked = replies
    if isinstance(reply, ReplyError):
        raise reply
    check_confirmed(acked, *confirm)
    return reply


# -- recovering a failed send ------------------------------------------------------------
class Send:
    """Action: send ``EVALSHA sha <keys> *argv`` (``confirmed``: with WAIT after it)."""

    __slots__ = ("argv", "confirmed")

    def __init__(self, argv: list[Any], confirmed: bool) -> None:
        self.argv, self.confirmed = argv, confirmed


class Load:
    """Action: load the script into the server (again)."""


class Exchange:
    """Action: write ``payload`` (packed commands) on one connection, read ``count`` replies
    (error replies as ReplyError objects in the list)."""

    __slots__ = ("count", "payload")

    def __init__(self, payload: bytes, count: int) -> None:
        self.payload, self.count = payload, count


LOAD = Load()
Action = Send | Load | Exchange


def recover(argv: list[Any], failure: RespError,
            confirmed: bool) -> Generator[Action, Any, Any]:
    """After the first send of a call failed with ``failure``: send it again only when
    that cannot run it twice, else raise the typed error. Returns the raw reply.

    NOSCRIPT (after a restart or SCRIPT FLUSH: the script is loaded first) and READONLY,
    MOVED or ASK (a replica or a node that does not serve the namespace's slot refused it;
    its connection was closed, and the next one finds the current master) mean the script
    did not run: each is sent again at most once. A connection error is sent again once
    for read-only commands only; for anything that may write, the outcome is unknown
    (QlessConnectionError). A refusal retrying cannot mend is ConnectionSetupError.
    ``argv`` is the call's ``[command, now, *args]``.
    """
    command, args = argv[0], argv[2:]
    read = is_read(command, args)
    seen: set[str] = set()
    retried = False
    attempt: RespError = failure
    while True:
        if isinstance(attempt, SetupFailed):
            raise ConnectionSetupError(f"{command}: {attempt}") from attempt
        if isinstance(attempt, ConnectionFailed):
            if not read:
                raise QlessConnectionError(
                    f"{command}: connection failed, the command may or may not have run: "
                    f"{attempt}") from attempt
            if retried:
                raise QlessConnectionError(f"{command}: {attempt}") from attempt
            retried, confirmed = True, False  # a read: never waited for
            seen.clear()
        elif isinstance(attempt, ReplyError) and (attempt.noscript or attempt.redirected):
            kind = "noscript" if attempt.noscript else "redirected"
            if kind in seen:
                raise error_from_reply(str(attempt), command) from attempt
            seen.add(kind)
            if kind == "noscript":
                try:
                    yield LOAD
                except RespError as exc:
                    attempt = exc
                    continue
        else:
            raise error_from_reply(str(attempt), command) from attempt
        try:
            return (yield Send(argv, confirmed))
        except RespError as exc:
            attempt = exc


def checked(error: QlessError) -> QlessConnectionError | None:
    """What a start-up check (``core.check()``: ``config.get heartbeat`` on the path calls
    take, as a worker does at start) makes of ``error``: a ConnectionSetupError to raise
    when retrying cannot help (TLS verification, authentication or ACL refused, unknown
    Sentinel service, the core refused by the server), or the connection error to report
    and retry (the server just cannot be reached now)."""
    if isinstance(error, ConnectionSetupError):  # without the command's name: it is ours
        raise ConnectionSetupError(str(error.__cause__ or error)) from error
    if isinstance(error, QlessConnectionError):
        return error
    if isinstance(error, CoreError):
        raise ConnectionSetupError(f"the server refused the core: {error}") from error
    raise error


# -- batches -----------------------------------------------------------------------------
def pack_call(command: Arg, args: Sequence[Arg]) -> PackedCall:
    """Pack ``command`` and its arguments (without ``now``) for a batch."""
    return bulk(command), len(args), b"".join([bulk(arg) for arg in args])


def command_name(packed: bytes) -> str:
    return packed.split(b"\r\n", 2)[1].decode("utf-8", "replace")


class CoreState(Protocol):
    """What :func:`batch` reads of a core: its script's SHA (it changes after a load), its
    ``confirm`` setting and the keys its calls declare."""

    sha: str
    confirm: tuple[int, int]
    keys: tuple[str, ...]


def batch(core: CoreState, calls: Sequence[PackedCall],
          base_us: int) -> Generator[Action, Any, list[Any]]:
    """Run many commands in one round trip (pipelined EVALSHA, not a transaction).

    Results come back in order; an item the core refused gets its exception object in the
    result list. Items that came back NOSCRIPT, READONLY, MOVED or ASK did not run, so only
    those are sent again (after a load, or on a new connection to the current master). Items are
    given ``now`` values 10 us apart from ``base_us``: equal priorities (|p| < 4, within
    the score's precision) then pop in batch order, as separate puts would, not in the
    reverse-jid order of ties.
    """
    results: list[Any] = [None] * len(calls)
    pending = list(range(len(calls)))
    replicas, ms = core.confirm
    for attempt in range(2):
        payload = _pack_batch(core.sha, calls, pending, base_us, core.confirm, core.keys)
        try:
            replies = yield Exchange(payload, len(pending) + bool(replicas))
        except RespError as exc:
            raise _batch_error(len(pending), exc) from exc
        if replicas:
            try:
                check_confirmed(replies.pop(), replicas, ms)
            except ConnectionFailed as exc:
                raise QlessConnectionError(f"batch of {len(pending)} commands: {exc}") \
                    from exc
        again: list[int] = []
        load = False
        for i, reply in zip(pending, replies, strict=True):
            if isinstance(reply, ReplyError) and attempt == 0 and (
                    reply.noscript or reply.redirected):
                again.append(i)
                load = load or reply.noscript
            elif isinstance(reply, ReplyError):
                results[i] = error_from_reply(str(reply), command_name(calls[i][0]))
            else:
                results[i] = to_text(reply)
        if not again:
            break
        if load:
            try:
                yield LOAD
            except RespError as exc:
                raise _batch_error(len(again), exc) from exc
        pending = again
    return results


def _batch_error(count: int, exc: RespError) -> QlessError:
    if isinstance(exc, SetupFailed):
        return ConnectionSetupError(f"batch of {count} commands: {exc}")
    if isinstance(exc, ConnectionFailed):
        return QlessConnectionError(
            f"batch of {count} commands: connection failed, some may have run: {exc}")
    return error_from_reply(str(exc))


def _pack_batch(sha: str, calls: Sequence[PackedCall], pending: list[int], base_us: int,
                confirm: tuple[int, int], keys: Sequence[str] = ()) -> bytes:
    # EVALSHA, the SHA, the key count and the keys: the same for every call
    script = pack(["EVALSHA", sha, len(keys), *keys]).split(b"\r\n", 1)[1]
    parts: list[bytes] = []
    for i in pending:
        name, count, body = calls[i]
        now = b"%d.%06d" % divmod(base_us + 10 * i, 1_000_000)
        parts.append(b"*%d\r\n%s%s" % (count + 5 + len(keys), script, name))
        parts.append(b"$%d\r\n%s\r\n" % (len(now), now))
        parts.append(body)
    if confirm[0]:
        parts.append(pack(["WAIT", *confirm]))
    return b"".join(parts)


# -- the cores' shared state and operations ----------------------------------------------
class CoreRules:
    """What ``LuaCore`` and ``AsyncCore`` share: the script, its SHA, the ``confirm``
    setting, the connection-error hook, and the operations of more than one send as
    generators of :data:`Action`. A core adds a fast path (the first send of a call) and
    a ``_perform`` of actions, Calls and Batches for the one driver
    (:func:`qless_py.connect.drive.drive`): sending is all that differs between the two."""

    def __init__(self, source: bytes, sha: str) -> None:
        self.source = source
        self.sha: str = sha
        # The keys every call declares: none (the default namespace) or a namespace's
        # prefix (qless_py.keys.Keys.core_keys), which also routes the call on a cluster.
        self.keys: tuple[str, ...] = ()
        # Told, on the calling thread, of every QlessConnectionError raised here (a worker
        # uses it to know that a handler's own call may or may not have run).
        self.on_connection_error: Callable[[QlessConnectionError], None] | None = None
        # (replicas, timeout in ms): every write is followed by WAIT on the same connection
        # and counts as done only once that many replicas have it (see docs/operations.md)
        self.confirm: tuple[int, int] = (0, 0)

    def recovering(self, argv: list[Any], confirmed: bool,
                   failure: RespError) -> Generator[Action, Any, Any]:
        """:func:`recover` after the fast path's send of ``argv`` failed, telling
        ``on_connection_error``; returns the raw reply.

        The fast path (each core's ``call``) builds ``argv`` as ``[command, clock.now(),
        *args]`` and sends it with WAIT when ``confirm`` is set and the command may write
        (``self.confirm[0] > 0 and not is_read(command, args)``); it is written out in
        each core rather than called from here because it runs for every call."""
        try:
            return (yield from recover(argv, failure, confirmed))
        except QlessConnectionError as exc:
            self._tell(exc)
            raise

    def batching(self, calls: Sequence[PackedCall]) -> Generator[Action, Any, list[Any]]:
        """:func:`batch` with ``now`` from the clock, telling ``on_connection_error``."""
        try:
            return (yield from batch(self, calls, round(clock.now() * 1e6)))
        except QlessConnectionError as exc:
            self._tell(exc)
            raise

    def loaded(self, sha: Any) -> None:
        """The server's reply to SCRIPT LOAD: the SHA to call from now on."""
        self.sha = sha.decode() if isinstance(sha, bytes) else str(sha)

    def _tell(self, exc: QlessConnectionError) -> None:
        if self.on_connection_error is not None:
            self.on_connection_error(exc)
