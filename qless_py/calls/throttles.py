"""Throttles and the other flow extensions without the sending: a throttle's calls (its
maximum, expiry, lock holders, waiting jobs, release, delete), the put options of
docs/throttles.md (``throttles``, ``key``, ``ttl``, ``unique``) checked and encoded.
``qless_py.client.throttles`` and ``qless_py.aio.throttles`` send them; the throttle names
a SCAN finds are a read (``qless_py.calls.reads.throttle_names``)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from qless_py.calls.base import Call
from qless_py.calls.job import as_list, plain_number
from qless_py.keys import DEFAULT, Keys


def throttle_names(value: Iterable[str], what: str = "throttles") -> list[str]:
    """A list of throttle names (tids): strings, not empty."""
    if isinstance(value, str | bytes):
        raise TypeError(f"{what} must be a list of throttle names, not a string")
    names = list(value)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"{what} must be non-empty strings, got {name!r}")
    return names


def ordering_key(key: str) -> str:
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a non-empty string, got {key!r}")
    return key


def ttl_seconds(ttl: float) -> float:
    if isinstance(ttl, bool) or not isinstance(ttl, int | float):
        raise TypeError(f"ttl must be a number of seconds, not {type(ttl).__name__}")
    if not math.isfinite(ttl) or ttl <= 0:
        raise ValueError(f"ttl must be a positive number of seconds, got {ttl!r}")
    return ttl


def flow_options(throttles: Iterable[str] | None, key: str | None, ttl: float | None,
                 unique: bool = False) -> list[Any]:
    """The core's option pairs for the extensions a put or recur was given."""
    opts: list[Any] = []
    if throttles is not None:
        opts += ["throttles", json.dumps(throttle_names(throttles))]
    if key is not None:
        opts += ["key", ordering_key(key)]
    if ttl is not None:
        opts += ["ttl", ttl_seconds(ttl)]
    if unique is not False:
        if unique is not True:
            raise TypeError(f"unique must be True or False, not {unique!r}")
        opts += ["unique", 1]
    return opts


def check_maximum(maximum: int) -> int:
    """A throttle's maximum: a whole number of jobs, 0 for no limit."""
    if isinstance(maximum, bool) or not isinstance(maximum, int):
        raise TypeError(f"maximum must be an int, not {type(maximum).__name__}")
    if maximum < 0:
        raise ValueError(f"maximum must be >= 0 (0: no limit), got {maximum}")
    return maximum


def check_expiration(seconds: float) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise TypeError(f"ttl must be a number of seconds, not {type(seconds).__name__}")
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"ttl must be a positive number of seconds, got {seconds!r}")
    return seconds


def job_throttles(raw: dict[str, Any], names: Keys = DEFAULT) -> list[str]:
    """A job's (or template's) throttle list as the dialect has it: the named throttles,
    then its queue's own tid, which the core leaves out of plain jobs' objects."""
    listed = raw.get("throttles")
    if type(listed) is list and listed:
        return [str(t) for t in listed]
    queue = raw.get("queue")
    return [names.queue_tid(queue)] if queue else []


def _maximum(reply: Any) -> int | float:
    value = json.loads(reply).get("maximum", 0)
    return plain_number(float(value)) if value else 0


def _nothing(_: Any) -> None:
    return None


class ThrottleBase:
    """A throttle by name (``tid``): the calls it sends. A queue's own throttle has the tid
    ``ql:q:<queue>``; creating the object costs nothing, and a throttle that was never set
    has maximum 0 (no limit)."""

    def __init__(self, client: Any, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("a throttle name is required")
        self.client = client
        self.name = name

    @property
    def queue_name(self) -> str | None:
        """The queue whose own throttle this is, or None for a named throttle."""
        names: Keys = self.client.keys
        return names.tid_queue(self.name)

    def __repr__(self) -> str:
        return f"<Throttle {self.name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ThrottleBase) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def _maximum_call(self) -> Call[int | float]:
        return ("throttle.get", (self.name,), _maximum)

    def _set_call(self, maximum: int, ttl: float | None = None) -> Call[None]:
        args: tuple[Any, ...] = (self.name, check_maximum(maximum))
        if ttl is not None:
            args += (check_expiration(ttl),)
        return ("throttle.set", args, _nothing)

    def _delete_call(self) -> Call[None]:
        return ("throttle.delete", (self.name,), _nothing)

    def _ttl_call(self) -> Call[int]:
        """Seconds until the throttle's settings expire: -1 never, -2 not set."""
        return ("throttle.ttl", (self.name,), int)

    def _locks_call(self) -> Call[list[str]]:
        return ("throttle.locks", (self.name,), as_list)

    def _pending_call(self) -> Call[list[str]]:
        return ("throttle.pending", (self.name,), as_list)

    def _release_call(self, jids: tuple[str, ...]) -> Call[None]:
        for jid in jids:
            if not isinstance(jid, str) or not jid:
                raise ValueError(f"jids must be non-empty strings, got {jid!r}")
        return ("throttle.release", (self.name, *jids), _nothing)
