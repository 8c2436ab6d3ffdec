"""The words of the RESP protocol, free of I/O: how a command is encoded, and the values
and errors a connection hands back.

Every connection in this package (``resp``, ``aio_resp``, the redis-py clients) and the
pure call logic (``qless_py.calls``) use these, so the logic of a call can build commands
and read replies without importing a socket, TLS or a parser. The errors sort failures
into two kinds: :class:`ConnectionFailed`, the server could not be reached now (refused,
reset, timed out), which waiting may mend; :class:`SetupFailed`, the server was reached
but refused us for a reason waiting cannot mend (TLS verification, authentication, ACL, an
unknown Sentinel service), so a worker stops at start-up instead of retrying forever.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Arg = str | bytes | int | float

# Error replies that mean "the server cannot serve this now", not "the command is wrong":
# loading its data after a restart, running a long script, a replica or a master cut off
# from its replicas, out of memory, a cluster that is not ready or a slot served elsewhere
# (MOVED, ASK: the connection points at the wrong node). Waiting mends them.
UNAVAILABLE = ("LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS", "OOM",
               "CLUSTERDOWN", "MOVED", "ASK")
# Error replies that mean "this node does not serve these keys now": a replica (READONLY),
# or in a cluster another node (MOVED) or a slot being moved (ASK). The command did not run;
# the connection is closed so that the next one finds the node that serves them.
REDIRECTED = ("READONLY", "MOVED ", "ASK ")


class RespError(Exception):
    """Base of the errors of the connections in ``qless_py.connect``."""


class ConnectionFailed(RespError):
    """The connection could not be made, broke, or timed out; it has been closed."""


class SetupFailed(ConnectionFailed):
    """The server was reached but refused the connection for a reason that retrying
    cannot mend (TLS verification, authentication, ACL, an unknown Sentinel service)."""


class ReplyError(RespError):
    """An error reply from the server (the command was refused or failed)."""

    @property
    def noscript(self) -> bool:
        """The server does not have the script: the EVALSHA did not run."""
        return str(self).startswith("NOSCRIPT")

    @property
    def redirected(self) -> bool:
        """The node does not serve this command's keys now (``REDIRECTED``): nothing ran,
        and the connection points at a node that is no longer (or not yet) the one."""
        return str(self).startswith(REDIRECTED)

    @property
    def moving(self) -> bool:
        """``ASK``: the cluster is moving the keys' slot to another master."""
        return str(self).startswith("ASK ")

    @property
    def unavailable(self) -> bool:
        """The server cannot serve the command now (``UNAVAILABLE``); it did not run."""
        return str(self).startswith(UNAVAILABLE)


class ServerUnavailable(ConnectionFailed):
    """An error reply that says the server cannot serve now (``LOADING``, ``BUSY``,
    ``READONLY``, ``MASTERDOWN``, ``OOM``...): a passing condition, like a connection
    that could not be made. The connection itself may stay open."""


class UnexpectedReply(RespError):
    """A reply the caller cannot read: an error reply it has no meaning for, or a value of
    the wrong shape. The message names the command and what came back."""

    def __init__(self, command: str, reply: Any) -> None:
        shown = repr(reply)
        if len(shown) > 200:
            shown = shown[:200] + "..."
        super().__init__(f"{command}: unexpected reply {shown}")
        self.command, self.reply = command, reply


def values(commands: Sequence[Sequence[Arg]], replies: Sequence[Any]) -> list[Any]:
    """The replies of a pipeline of reads, each one a value: an error reply among them is
    raised, as :class:`ServerUnavailable` when it is a passing condition and as
    :class:`UnexpectedReply` otherwise (both name the command)."""
    for args, reply in zip(commands, replies, strict=True):
        if isinstance(reply, ReplyError):
            label = " ".join(_text(arg) for arg in args[:2])
            if reply.unavailable:
                raise ServerUnavailable(f"{label}: {reply}")
            raise UnexpectedReply(label, reply)
    return list(replies)


def redirected_among(replies: Sequence[Any]) -> bool:
    """Some reply of a pipeline is ``redirected``: its connection points at the wrong node."""
    return any(isinstance(reply, ReplyError) and reply.redirected for reply in replies)


def _text(arg: Arg) -> str:
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


def encode_arg(value: Arg) -> bytes:
    """A command argument as bytes, formatted the way redis-py would."""
    if type(value) is str:
        return value.encode()
    if type(value) is bytes:
        return value
    if type(value) is float:
        return repr(value).encode()
    if type(value) is int:
        return str(value).encode()
    raise TypeError(f"command arguments are str, bytes, int or float, not "
                    f"{type(value).__name__}")


def bulk(value: Arg) -> bytes:
    """One RESP bulk string."""
    data = encode_arg(value)
    return b"$%d\r\n%s\r\n" % (len(data), data)


def pack(args: Sequence[Arg]) -> bytes:
    """One command in RESP. (``qless_py.connect.resp.pack`` makes the same bytes with
    hiredis's packer, for the connections' busy paths.)"""
    return b"*%d\r\n" % len(args) + b"".join([bulk(arg) for arg in args])
