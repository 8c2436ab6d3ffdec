"""redis.asyncio's exceptions read as ``qless_py.resp``'s (ConnectionFailed, SetupFailed,
ReplyError), as :func:`qless_py.calls.core.translate_redis_error` does for redis-py's."""

from __future__ import annotations

from qless_py.calls.core import translate_redis_error
from qless_py.dial import SetupFailed
from qless_py.resp import RespError


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
