"""redis-py's exceptions (sync and asyncio: they share one tree) read as
``qless_py.connect.wire``'s (ConnectionFailed, SetupFailed, ReplyError), so the cores'
rules (``qless_py.calls.core``) see one kind of failure whatever carried the call.

redis-py is imported on the first translation only: a worker's core never goes through
redis-py and never pays for its import.
"""

from __future__ import annotations

from qless_py.connect.wire import ConnectionFailed, ReplyError, RespError, SetupFailed

_redis_errors: tuple[type[Exception], ...] | None = None
# redis-py's error-reply classes whose text lacks the code, and the code (see below)
_coded: tuple[tuple[type[Exception], str], ...] = ()


def translate_redis_error(exc: BaseException) -> RespError | None:
    """redis-py's exception as ConnectionFailed, SetupFailed or ReplyError, or None for
    anything else."""
    global _redis_errors, _coded
    if _redis_errors is None:
        from redis import exceptions as e
        _coded = ((e.NoScriptError, "NOSCRIPT"), (e.ReadOnlyError, "READONLY"),
                  (e.NoPermissionError, "NOPERM"), (e.OutOfMemoryError, "OOM"),
                  (e.MovedError, "MOVED"), (e.AskError, "ASK"),
                  (e.TryAgainError, "TRYAGAIN"), (e.ClusterDownError, "CLUSTERDOWN"))
        _redis_errors = (e.AuthenticationError, e.ConnectionError, e.TimeoutError,
                         e.ResponseError)
    auth, lost, timeout, refused = _redis_errors
    if isinstance(exc, auth):
        return SetupFailed(f"authentication refused: {exc}")
    if isinstance(exc, (lost, timeout)):
        return ConnectionFailed(str(exc))
    # redis-py drops the error code from these replies' text; the code is what counts (a
    # cluster's MOVED and ASK mean the command did not run)
    for kind, code in _coded:
        if isinstance(exc, kind):
            return ReplyError(f"{code} {exc}")
    if isinstance(exc, refused):
        return ReplyError(str(exc))
    return None


def refused(exc: Exception) -> ReplyError:
    """What reading one reply of a pipeline raised, when it is an error reply: the
    ReplyError to keep among the replies (the stream goes on). Anything else is raised
    again."""
    mine = translate(exc)
    if isinstance(mine, ReplyError):
        return mine
    raise exc


def translate(exc: BaseException) -> RespError | None:
    """``exc`` as a RespError, or None. redis.asyncio wraps what a connection's connect
    raised in its ConnectionError; a SetupFailed in that chain is the refusal itself."""
    if isinstance(exc, RespError):
        return exc
    cause = exc.__cause__
    while cause is not None:
        if isinstance(cause, SetupFailed):
            return cause
        cause = cause.__cause__
    return translate_redis_error(exc)


def redirected(exc: BaseException) -> ReplyError | None:
    """``exc`` (raised by a redis-py subscription, say) as the MOVED, ASK or READONLY reply
    it was, or None: the node does not serve the keys' slot (any more)."""
    mine = translate(exc)
    return mine if isinstance(mine, ReplyError) and mine.redirected else None
