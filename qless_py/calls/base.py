"""What a client call is, without the sending: one core command and how to read its reply
(:data:`Call`), a pipelined batch of them (:class:`Batch`), or an operation that needs
several commands in turn (:data:`Steps`, a generator of Calls)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")

PackedCall = tuple[bytes, int, bytes]
"""``(command as a RESP bulk string, number of arguments after now, their RESP bulks)``:
one call of a :class:`Batch`, packed by ``qless_py.calls.core.pack_call``."""


Call = tuple[str, Sequence[Any], Callable[[Any], T]]
"""One core command: ``(command, arguments after now, parse)``, where ``parse`` turns its
reply (as ``LuaCore.call`` returns it) into the caller's value. A plain tuple: the busiest
calls (put, pop, heartbeat, complete) make one each, and a tuple costs no Python frame."""


class Batch(Generic[T]):
    """Core commands sent in one round trip (``LuaCore.call_packed``); ``parse`` gets the
    list of their results (a refused command's result is its exception object)."""

    __slots__ = ("calls", "parse")

    def __init__(self, calls: list[PackedCall], parse: Callable[[list[Any]], T]) -> None:
        self.calls = calls
        self.parse = parse


Steps = Generator[Call[Any] | Batch[Any], Any, T]
"""An operation of several calls, each depending on the one before: the generator yields a
Call (or a Batch, sent in one round trip), is sent its parsed result, and returns the
operation's value. An error of a call is raised out of the driver, not thrown into the
generator (a Batch's parse receives refused commands as exception objects instead).
Both cores drive it the same way (``qless_py.calls.core.CoreRules.running``)."""

