"""The worker's plain reads of the data layout: every command a worker sends that is not a
core call, in one place and under one contract.

The contract: each read is a :class:`Reads`, pipelined in one round trip on the calling
thread's connection (``send``); its commands are read-only plain commands (ZRANGE, ZCARD,
ZCOUNT, SISMEMBER, HMGET, HGET) on key names built by :mod:`qless_py.keys` only; its reader
checks the shape of every reply. An error reply among the replies raises
:class:`~qless_py.connect.resp.ServerUnavailable` when it is a passing condition (LOADING, BUSY,
READONLY, ...) and :class:`~qless_py.connect.resp.UnexpectedReply` otherwise; a reply of the wrong
shape raises ``UnexpectedReply``; both name the command. Anything a core command can answer
(a job's state and owner, say) is asked of the core instead (:mod:`qless_py.calls.worker`).

The reads: when the worker's queues next need a pop and whether one may have a job to pop
now (``look``: the idle runners, the asyncio popper, the listener for a capped queue's lock
set), and which queues have a concurrency cap (``caps``: the listener).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from qless_py import clock, keys
from qless_py.connect.resp import Arg, Transport, UnexpectedReply, values
from qless_py.keys import DEFAULT, Keys

T = TypeVar("T")

DUE_SETS = (keys.SCHEDULED, keys.LOCKS, keys.RECUR)


@dataclass(frozen=True)
class Reads(Generic[T]):
    """Plain read commands sent in one round trip, and the reader of their replies."""

    commands: list[list[Arg]]
    read: Callable[[Sequence[Sequence[Arg]], list[Any]], T]


def send(transport: Transport, reads: Reads[T]) -> T:
    """Send ``reads`` on the calling thread's connection; its value (see the contract)."""
    return reads.read(reads.commands, values(reads.commands,
                                             transport.pipeline(reads.commands)))


@dataclass(frozen=True)
class Look:
    due: float | None  # the earliest lowest score of the due sets; None: none (or unknown)
    poppable: bool  # a queue may have a job to pop now (or the read failed)


def look(queues: Sequence[str], caps: Mapping[str, float], *, due: bool = True,
         names: Keys = DEFAULT) -> Reads[Look]:
    """The lowest score of each queue's scheduled, lock and recurring sets (unless ``due``
    is False), and each queue's waiting count, paused flag and, for a queue with a cap,
    its unexpired locks."""
    commands: list[list[Arg]] = []
    if due:
        commands += [["ZRANGE", names.queue(name, suffix), 0, 0, "WITHSCORES"]
                     for name in queues for suffix in DUE_SETS]
    count = len(commands)
    now = clock.now()
    for name in queues:
        commands.append(["ZCARD", names.queue(name, keys.WORK)])
        commands.append(["SISMEMBER", names.paused, name])
        if name in caps:
            commands.append(["ZCOUNT", names.queue(name, keys.LOCKS), now, "+inf"])

    def read(sent: Sequence[Sequence[Arg]], replies: list[Any]) -> Look:
        return Look(_due(sent[:count], replies[:count]),
                    _poppable(queues, caps, sent[count:], replies[count:]))

    return Reads(commands, read)


def _due(commands: Sequence[Sequence[Arg]], replies: Sequence[Any]) -> float | None:
    """The lowest score among the ZRANGE ... WITHSCORES replies (None: all sets empty)."""
    scores = []
    for args, reply in zip(commands, replies, strict=True):
        if not isinstance(reply, list) or len(reply) not in (0, 2):
            raise UnexpectedReply(f"ZRANGE {args[1]!s}", reply)
        if reply:
            scores.append(float(reply[1]))
    return min(scores) if scores else None


def _poppable(queues: Sequence[str], caps: Mapping[str, float],
              commands: Sequence[Sequence[Arg]], replies: Sequence[Any]) -> bool:
    for args, reply in zip(commands, replies, strict=True):
        if not isinstance(reply, int):
            raise UnexpectedReply(f"{args[0]!s} {args[1]!s}", reply)
    found = False
    counts = iter(replies)
    for name in queues:
        waiting, paused = next(counts), next(counts)
        running = next(counts) if name in caps else None
        free = running is None or running < caps[name]
        found = found or (waiting > 0 and paused != 1 and free)
    return found


def caps(queues: Sequence[str], names: Keys = DEFAULT) -> Reads[dict[str, float]]:
    """The queues with a concurrency cap, and the cap: a ``<queue>-max-concurrency`` or a
    maximum of the queue's own throttle, the smaller when both are set (the core applies
    both)."""
    commands: list[list[Arg]] = [["HMGET", names.config,
                                  *[keys.concurrency_cap(name) for name in queues]]]
    commands += [["HGET", names.throttle(names.queue_tid(name)), keys.THROTTLE_MAXIMUM]
                 for name in queues]

    def read(_: Sequence[Sequence[Arg]], replies: list[Any]) -> dict[str, float]:
        configured, *maximums = replies
        if not isinstance(configured, list) or len(configured) != len(queues):
            raise UnexpectedReply(f"HMGET {names.config}", configured)
        found: dict[str, float] = {}
        for name, *given in zip(queues, configured, maximums, strict=True):
            limits = [limit for limit in map(_number, given) if limit > 0]
            if limits:
                found[name] = min(limits)
        return found

    return Reads(commands, read)


def _number(value: Any) -> float:
    """A stored cap as a number (0, no cap, when missing or not a number)."""
    try:
        return float(value) if value is not None else 0.0
    except (ValueError, TypeError):
        return 0.0
