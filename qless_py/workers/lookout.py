"""What a worker reads about its queues without popping: when they next need a pop, and
whether one may have a job to pop now.

Both are plain reads, pipelined into one round trip: the lowest score of each queue's
scheduled, lock and recurring sets (a job becoming due, a lock running out, a recurring
slot), and each queue's waiting count, paused flag and, for a queue with a concurrency
cap, its unexpired locks. They cost the server far less than an empty pop, which runs the
core and writes the worker's last-seen time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qless_py import clock, keys
from qless_py.resp import Arg, ReplyError, Transport

log = logging.getLogger("qless_py.worker")

DUE_SETS = (keys.SCHEDULED, keys.LOCKS, keys.RECUR)


@dataclass(frozen=True)
class Look:
    due: float | None  # the earliest lowest score of the due sets; None: none (or unknown)
    poppable: bool  # a queue may have a job to pop now (or the read failed)


def look(transport: Transport, queues: Sequence[str], caps: Mapping[str, float], *,
         due: bool = True) -> Look:
    """Read the due times (unless ``due`` is False) and whether a job waits that a pop
    could take, on the calling thread's connection, in one round trip."""
    commands: list[list[Arg]] = []
    if due:
        commands += [["ZRANGE", keys.queue(name, suffix), 0, 0, "WITHSCORES"]
                     for name in queues for suffix in DUE_SETS]
    now = clock.now()
    for name in queues:
        commands.append(["ZCARD", keys.queue(name, keys.WORK)])
        commands.append(["SISMEMBER", keys.PAUSED, name])
        if name in caps:
            commands.append(["ZCOUNT", keys.queue(name, keys.LOCKS), now, "+inf"])
    try:
        replies = transport.pipeline(commands)
    except Exception as exc:  # connection trouble: the interval is the safety net
        log.debug("could not read the queues: %s", exc)
        return Look(None, True)
    count = len(queues) * len(DUE_SETS) if due else 0
    scores = [float(reply[1]) for reply in replies[:count] if isinstance(reply, list) and reply]
    return Look(min(scores) if scores else None,
                _poppable(queues, caps, iter(replies[count:])))


def _poppable(queues: Sequence[str], caps: Mapping[str, float],
              replies: Iterator[Any]) -> bool:
    found = False
    for name in queues:
        waiting, paused = next(replies), next(replies)
        running = next(replies) if name in caps else None
        if any(isinstance(reply, ReplyError) for reply in (waiting, paused, running)):
            return True
        free = running is None or running < caps[name]
        found = found or (waiting > 0 and paused != 1 and free)
    return found
