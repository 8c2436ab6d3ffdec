"""A worker and the server's memory limit: the warning at start when the server may evict
keys, one log line per outage when it refuses writes (``OutOfMemoryError``), and the
settling of a finished job once memory is freed. docs/operations.md, "At the memory
limit"."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from qless_py.errors import OutOfMemoryError

log = logging.getLogger("qless_py.worker")
T = TypeVar("T")

# A refusal this long after the previous one starts a new outage (and a new log line).
OUTAGE_GAP = 60.0
# How long a finished job's complete or fail is tried again while memory stays short,
# before the worker gives it up as unsettled (the lease then ends as any lost lease does).
SETTLE_FOR = 300.0

_lock = threading.Lock()
_last_refusal = -OUTAGE_GAP


def note_refusal(exc: OutOfMemoryError, what: str) -> None:
    """Log ``exc`` once per outage (refusals less than OUTAGE_GAP apart are one outage)."""
    global _last_refusal
    now = time.monotonic()
    with _lock:
        first = now - _last_refusal >= OUTAGE_GAP
        _last_refusal = now
    if first:
        log.warning("the server is out of memory (maxmemory): %s waits and jobs held stay "
                    "leased until memory is freed (%s)", what, exc)


class MemoryWait:
    """The waits between sends of a finished job's complete or fail while the server
    refuses it for memory: 0.5 s doubling to 5 s, for SETTLE_FOR seconds at most."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.deadline, self.backoff = time.monotonic() + SETTLE_FOR, 0.5

    def refused(self, exc: OutOfMemoryError) -> float:
        """The wait before the next send (``exc`` is raised once the time is up)."""
        note_refusal(exc, self.what)
        if time.monotonic() + self.backoff > self.deadline:
            raise exc
        wait, self.backoff = self.backoff, min(self.backoff * 2, 5.0)
        return wait


def settle_when_memory_frees(call: Callable[[], T], what: str,
                             wait: Callable[[float], Any] = time.sleep) -> T:
    """``call()`` (a finished job's complete or fail), sent again while the server refuses
    it for memory: a refusal wrote nothing, so sending again is safe. Raises the last
    OutOfMemoryError after SETTLE_FOR seconds."""
    waits = MemoryWait(what)
    while True:
        try:
            return call()
        except OutOfMemoryError as exc:
            wait(waits.refused(exc))


async def settle_when_memory_frees_async(call: Callable[[], Awaitable[T]], what: str) -> T:
    """settle_when_memory_frees() for the asyncio worker: the same waits, awaited."""
    import asyncio  # only the asyncio worker gets here: a threaded worker never imports it

    waits = MemoryWait(what)
    while True:
        try:
            return await call()
        except OutOfMemoryError as exc:
            await asyncio.sleep(waits.refused(exc))


# Policies under which the server deletes keys to make room (volatile-* only deletes keys
# with a TTL: qless_py's statistics hashes and throttles given an expiration).
_EVICTING = ("allkeys-lru", "allkeys-lfu", "allkeys-random")


def eviction_warning(policy: str) -> str | None:
    """The warning a worker logs at start for the server's ``maxmemory-policy``, or None."""
    if policy in _EVICTING:
        return (f"the server's maxmemory-policy is {policy}: at its memory limit it deletes "
                "any key, jobs and queues included, which loses work and breaks the data "
                "(`qless-py check` finds and repairs it); use noeviction")
    if policy.startswith("volatile-"):
        log.debug("maxmemory-policy %s evicts only keys with a TTL (statistics, throttles "
                  "given an expiration)", policy)
    return None


def warn_if_evicting(info: Callable[[], Any]) -> None:
    """Log eviction_warning() once, ``info()`` being the server's INFO memory reply (bytes or
    text); say nothing when the server will not tell."""
    try:
        reply = info()
    except Exception:  # an ACL or an odd server: the warning is only advice
        return
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
    for line in text.splitlines():
        if line.startswith("maxmemory_policy:"):
            warning = eviction_warning(line.split(":", 1)[1].strip())
            if warning:
                log.warning(warning)
            return
