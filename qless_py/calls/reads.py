"""The client's reads of the data layout that no core command makes, in one place.

Every state change, and nearly every read, goes through the core. A few things the client
shows have no core command: a queue's waiting jobs in pop order (``jobs`` lists none, and
``peek`` promotes due scheduled jobs), a recurring template's next spawn time, and the
names of the throttles in use (the throttle dialect keeps no index of them). Each read
here keeps one contract:

- it is read-only: plain Redis commands that change nothing (``ZREVRANGE``, ``ZSCORE``,
  ``SCAN``), never a script, so it cannot disturb what the core guarantees;
- it names keys only through :mod:`qless_py.keys`, which follows the protocol's key
  catalogue, in the client's namespace (``names``, a :class:`~qless_py.keys.Keys`);
- it is a generator (:data:`Reads`) that yields each command as a tuple of arguments, is
  sent its reply, and returns the value, read here. Replies may be raw RESP (bytes) or
  parsed by redis-py; every reader takes both.

The sync and async clients send these the same way (``client._read(...)``): sending is
all that differs. (A worker's own reads, of due times and of what changed, are the
worker's, in ``qless_py.workers``.)
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any, TypeVar

from qless_py import keys
from qless_py.connect.wire import Arg
from qless_py.keys import DEFAULT, Keys

T = TypeVar("T")

Reads = Generator[tuple[Arg, ...], Any, T]
"""A read of one or more plain commands: yields each command, returns the value."""

SCAN_COUNT = 1000  # keys a SCAN step looks at


def queue_waiting(queue: str, offset: int, count: int,
                  names: Keys = DEFAULT) -> Reads[list[str]]:
    """Jids of ``queue``'s waiting jobs in the order ``pop`` takes them (a page of a
    ``ZREVRANGE`` of its work set). ValueError for a negative offset or count."""
    if offset < 0 or count < 0:
        raise ValueError("offset and count must be >= 0")
    if count == 0:
        return []
    members = yield ("ZREVRANGE", names.queue(queue, keys.WORK), offset, offset + count - 1)
    return [_text(jid) for jid in members]


def recurring_next(queue: str, jid: str, names: Keys = DEFAULT) -> Reads[float | None]:
    """When template ``jid`` of ``queue`` spawns next (Unix seconds, its score in the
    queue's recurring set), or None if the template is gone."""
    score = yield ("ZSCORE", names.queue(queue, keys.RECUR), jid)
    return None if score is None else float(score)


def throttle_names(names: Keys = DEFAULT) -> Reads[list[str]]:
    """The throttles that are set or in use, sorted: a SCAN of ``ql:th:*`` for their
    hashes, and for their locks, pending and admission sets (a throttle in use may have
    no hash)."""
    hashes = yield from _scan(names.throttle_prefix + "*", "hash")
    sets = yield from _scan(names.throttle_prefix + "*", "zset")
    return names_from_keys(hashes, sets, names)


def _scan(pattern: str, kind: str) -> Reads[list[Any]]:
    """Every key of type ``kind`` matching ``pattern``, a SCAN step at a time."""
    found: list[Any] = []
    cursor: Any = 0
    while True:
        cursor, batch = yield ("SCAN", cursor, "MATCH", pattern, "COUNT", SCAN_COUNT,
                               "TYPE", kind)
        found.extend(batch)
        if int(cursor) == 0:
            return found


def names_from_keys(hashes: Iterable[bytes | str], sets: Iterable[bytes | str],
                    names_of: Keys = DEFAULT) -> list[str]:
    """Throttle names from the keys a SCAN of ``ql:th:*`` found: the throttles' hashes, and
    their locks, pending and admission sets."""
    prefix = names_of.throttle_prefix
    names: set[str] = set()
    for found in hashes:
        names.add(_text(found, "surrogateescape")[len(prefix):])
    for found in sets:
        text = _text(found, "surrogateescape")
        for suffix in keys.THROTTLE_SETS:
            if text.endswith(suffix):
                names.add(text[len(prefix):-len(suffix)])
    return sorted(names)


def _text(value: Any, errors: str = "strict") -> str:
    return value.decode("utf-8", errors) if isinstance(value, bytes) else str(value)
