"""One error tree for everything qless_py raises.

Core error replies are matched by substring (the server decorates the text with script
names and line numbers) and turned into typed exceptions that keep the server's message.
"""

from __future__ import annotations


class QlessError(Exception):
    """Base class for every error raised by qless_py."""


class CoreError(QlessError):
    """The Lua core rejected a command; the message is the server's text."""

    @property
    def source(self) -> str | None:
        """The line of the core's sources that raised the error (``lua/job/put.lua:57``),
        read from the ``user_script:<n>`` of the reply; None when the reply names no line
        of this package's script."""
        from qless_py.lua import where

        return where(str(self))


class LockLostError(CoreError):
    """The job is no longer leased to this worker (taken, timed out, moved or gone)."""


class JobNotFoundError(CoreError):
    """The job (or recurring template) named in the command does not exist."""


class JobGoneError(LockLostError, JobNotFoundError):
    """A job this worker acted on as its holder no longer exists (cancelled or expired)."""


class DependencyError(CoreError):
    """A cancel left a dependent job behind, or a depends change was refused."""


class PutManyError(CoreError):
    """The core refused one job of a ``put_many``: ``index`` is its position among the
    items. Nothing of the core call holding it was written (the client checks every item
    before it sends, so this is rare)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


class QlessConnectionError(QlessError):
    """The server could not be reached, is loading, or is busy.

    For commands that are not safe to repeat the outcome is unknown: the command may or
    may not have run.
    """


class OutOfMemoryError(QlessConnectionError):
    """The server is at its memory limit (``maxmemory`` with ``noeviction``) and refused
    the command: nothing of it was written, so sending it again is safe, and it succeeds
    once memory is freed (docs/operations.md, "At the memory limit"). A kind of
    QlessConnectionError, like a server that is loading: the server cannot serve it now."""


class ConnectionSetupError(QlessConnectionError):
    """Connecting failed for a reason that retrying cannot mend: the server's certificate
    did not verify, authentication or an ACL refused us, Sentinel does not know the
    service. The message says which; a worker refuses to start on it."""


class UnsupportedSettingError(QlessError, ValueError):
    """A connection setting qless_py cannot honour (an unknown URL option, or a setting of
    a ``redis_client`` that a worker's own connections could not reproduce)."""


class CodecError(QlessError, ValueError):
    """Job data could not be encoded or decoded with the chosen codec."""


_BY_PHRASE: tuple[tuple[str, type[CoreError]], ...] = (
    ("another worker", LockLostError),
    ("not currently running", LockLostError),
    ("not running", LockLostError),
    ("running in another queue", LockLostError),
    ("does not exist", JobNotFoundError),
    ("No recurring job", JobNotFoundError),
    ("is a dependency of", DependencyError),
    ("not in the depends state", DependencyError),
)

# Commands that only a job's holder sends: there "does not exist" means the lock is gone too.
_HOLDER_COMMANDS = frozenset({"heartbeat", "complete", "fail", "retry"})

# Reply prefixes that mean "the server cannot serve us right now", not "the core said no".
_UNAVAILABLE_PREFIXES = ("LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "READONLY",
                         "NOREPLICAS", "CLUSTERDOWN", "MOVED ", "ASK ")


# The server's text when a write would exceed maxmemory (inside a script too, where the
# reply starts with the script's error prefix on some servers).
_OOM_PHRASE = "command not allowed when used memory"


# Reply prefixes that mean "this connection is not allowed to do that": retrying is useless.
_REFUSED_PREFIXES = ("NOAUTH", "WRONGPASS", "NOPERM")


def error_from_reply(text: str, command: str = "") -> QlessError:
    """Map a server error reply to the matching exception (not raised, returned)."""
    if text.startswith("OOM") or _OOM_PHRASE in text:
        return OutOfMemoryError(f"{command or 'command'}: the server is out of memory "
                                f"(maxmemory), nothing was written: {text}")
    if text.startswith(_UNAVAILABLE_PREFIXES):
        return QlessConnectionError(text)
    if text.startswith(_REFUSED_PREFIXES):
        return ConnectionSetupError(text)
    cls = next((c for phrase, c in _BY_PHRASE if phrase in text), CoreError)
    if cls is JobNotFoundError and command in _HOLDER_COMMANDS:
        cls = JobGoneError
    return cls(text)
