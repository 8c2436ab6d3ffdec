"""Queues without the sending: put (one, or a batch), pop, peek, recur, counts, settings
and statistics as :class:`~qless_py.calls.Call` objects. ``qless_py.queue.Queue`` and
``qless_py.aio.queue.Queue`` send them.

Put options are built by plain functions (``put_options``), so that new ones are added in
one place for single puts, batches and both clients.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from qless_py import clock, codecs, keys
from qless_py.calls import config as config_calls
from qless_py.calls.base import Batch, Call, Steps
from qless_py.calls.core import PackedCall, pack_call
from qless_py.calls.job import as_list, class_name, json_list
from qless_py.errors import QlessError
from qless_py.resp import bulk
from qless_py.stats import QueueStats, day_starts, merge_stats

PutItem = tuple[Any, Any] | Mapping[str, Any]
J = TypeVar("J")


def new_jid() -> str:
    """32 random hex digits (128 bits), the shape qless clients use for jids."""
    return os.urandom(16).hex()


_PUT_KEYS = frozenset({"klass", "data", "priority", "tags", "delay", "retries", "jid", "depends"})


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name} must be finite")
    return value


def _delay(delay: float | None) -> float:
    """Seconds before a put job becomes eligible (None and negatives mean now)."""
    return 0 if delay is None else _number("delay", delay)


def put_options(priority: float | None, tags: Iterable[str] | None, retries: int | None,
                depends: Iterable[str] | None) -> list[Any]:
    """Only the options the caller gave: the core keeps an existing job's values otherwise."""
    opts: list[Any] = []
    if priority is not None:
        opts += ["priority", _number("priority", priority)]
    if tags is not None:
        if isinstance(tags, str):
            raise TypeError("tags must be a list of strings, not a string")
        opts += ["tags", json.dumps(list(tags))]
    if retries is not None:
        if isinstance(retries, bool) or not isinstance(retries, int):
            raise TypeError(f"retries must be an int, not {type(retries).__name__}")
        if retries < 0:
            raise ValueError("retries must be >= 0")
        opts += ["retries", retries]
    if depends is not None:
        if isinstance(depends, str):
            raise TypeError("depends must be a list of jids, not a string")
        opts += ["depends", json.dumps(list(depends))]
    return opts


_put_options = put_options  # the name other modules used


def _nothing(_: Any) -> None:
    return None


def _first_error(jids: list[str]) -> Callable[[list[Any]], list[str]]:
    """A batch's results read as: the jids, unless the core refused some (the others are
    put all the same), then the first error."""

    def read(results: list[Any]) -> list[str]:
        errors = [r for r in results if isinstance(r, QlessError)]
        if errors:
            raise errors[0]
        return jids

    return read


class QueueBase(Generic[J]):
    """A named queue: the calls it sends. Creating the object costs nothing; the core
    learns the queue on first put. ``job_type`` is the flavour's Job class."""

    job_type: Callable[..., J]

    def __init__(self, name: str, client: Any) -> None:
        if not name:
            raise ValueError("a queue name is required")
        self.name = name
        self.client = client

    def __repr__(self) -> str:
        return f"<Queue {self.name}>"

    # -- putting work ----------------------------------------------------------------------
    def _put_call(self, klass: type | str, data: Any, priority: float | None,
                  tags: Iterable[str] | None, delay: float, retries: int | None,
                  jid: str | None, depends: Iterable[str] | None) -> Call[str]:
        jid = jid or new_jid()
        args = (self.client.worker_name, self.name, jid, class_name(klass),
                codecs.encode(data, self.client.codec),
                0 if delay == 0 and type(delay) is int else _delay(delay),
                *put_options(priority, tags, retries, depends))
        # The jid is known already: the reply is not needed (and a benchmark that binds
        # calls to a pipeline gets no reply at all).
        return ("put", args, lambda _: jid)

    def _put_many_batch(self, items: Iterable[PutItem], priority: float | None,
                        tags: Iterable[str] | None, delay: float, retries: int | None,
                        depends: Iterable[str] | None) -> Batch[list[str]]:
        """Every item checked and encoded before anything is sent."""
        codec = self.client.codec
        encode = codecs.encode
        put = bulk("put")
        # What tuple items share, packed once: worker and queue before the jid, delay and
        # options after the data.
        shared_head = bulk(self.client.worker_name) + bulk(self.name)
        shared_opts = [_delay(delay), *put_options(priority, tags, retries, depends)]
        shared_tail = b"".join([bulk(arg) for arg in shared_opts])
        nargs = 5 + len(shared_opts)  # worker queue jid klass data, then delay and options
        klass_bulks: dict[Any, bytes] = {}
        calls: list[PackedCall] = []
        jids: list[str] = []
        for item in items:
            if isinstance(item, tuple):
                klass, data = item
                klass_bulk = klass_bulks.get(klass)
                if klass_bulk is None:
                    klass_bulk = klass_bulks[klass] = bulk(class_name(klass))
                jid = new_jid()
                text = encode(data, codec).encode()
                calls.append((put, nargs, b"".join((
                    shared_head, b"$32\r\n", jid.encode(), b"\r\n", klass_bulk,
                    b"$%d\r\n" % len(text), text, b"\r\n", shared_tail))))
            else:
                jid, args = self._mapping_args(item, codec, priority, tags, delay, retries,
                                               depends)
                calls.append(pack_call("put", args))
            jids.append(jid)
        return Batch(calls, _first_error(jids))

    def _mapping_args(self, item: Mapping[str, Any], codec: str, priority: float | None,
                      tags: Iterable[str] | None, delay: float, retries: int | None,
                      depends: Iterable[str] | None) -> tuple[str, list[Any]]:
        unknown = set(item) - _PUT_KEYS
        if unknown or "klass" not in item:
            raise ValueError(f"put_many item needs 'klass' and 'data'; unknown keys: "
                             f"{sorted(unknown)}")
        jid = item.get("jid") or new_jid()
        opts = put_options(item.get("priority", priority), item.get("tags", tags),
                           item.get("retries", retries), item.get("depends", depends))
        args = [self.client.worker_name, self.name, jid, class_name(item["klass"]),
                codecs.encode(item.get("data", {}), codec), _delay(item.get("delay", delay)),
                *opts]
        return str(jid), args

    def _recur_call(self, klass: type | str, data: Any, interval: float, offset: float,
                    priority: float | None, tags: Iterable[str] | None, retries: int | None,
                    jid: str | None, backlog: float) -> Call[str]:
        if interval <= 0:
            raise ValueError("interval must be greater than 0")
        if isinstance(tags, str):
            raise TypeError("tags must be a list of strings, not a string")
        if retries is not None and retries < 0:
            raise ValueError("retries must be >= 0")
        jid = jid or new_jid()
        args = (self.name, jid, class_name(klass), codecs.encode(data, self.client.codec),
                "interval", interval, offset, "priority", priority or 0,
                "tags", json.dumps(list(tags or ())), "retries", retries or 0,
                "backlog", backlog)
        return ("recur", args, str)

    # -- taking work -----------------------------------------------------------------------
    def _jobs(self, reply: Any, worker: str | None) -> list[J]:
        make, client = self.job_type, self.client
        return [make(client, raw, worker) for raw in json_list(reply)]

    def _pop_call(self, count: int | None, worker: str | None) -> Call[Any]:
        """``pop``: one Job or None without ``count``, else a list (maybe empty)."""
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")
        worker = worker or self.client.worker_name
        make, client = self.job_type, self.client

        def popped(reply: Any) -> J | list[J] | None:
            raws = json.loads(reply)  # a worker's every pop: _jobs, written out
            jobs = [make(client, raw, worker) for raw in raws] if type(raws) is list else []
            if count is None:
                return jobs[0] if jobs else None
            return jobs

        return ("pop", (self.name, worker, 1 if count is None else count), popped)

    def _peek_call(self, count: int | None) -> Call[Any]:
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")

        def peeked(reply: Any) -> J | list[J] | None:
            jobs = self._jobs(reply, None)
            if count is None:
                return jobs[0] if jobs else None
            return jobs

        return ("peek", (self.name, 1 if count is None else count), peeked)

    # -- state and settings ----------------------------------------------------------------
    def _pause_call(self, paused: bool) -> Call[None]:
        return ("pause" if paused else "unpause", (self.name,), _nothing)

    def _counts_call(self) -> Call[dict[str, Any]]:
        """``{name, waiting, stalled, running, scheduled, depends, recurring, paused}``."""
        def counts(reply: Any) -> dict[str, Any]:
            value: dict[str, Any] = json.loads(reply)
            return value

        return ("queues", (self.name,), counts)

    def _paused_call(self) -> Call[bool]:
        return ("queues", (self.name,), lambda reply: bool(json.loads(reply)["paused"]))

    def _stats_batch(self, date: float | None) -> Batch[QueueStats]:
        """Wait/run statistics (with the fine histograms) and failure counters for the day
        containing ``date`` (default today)."""
        when = clock.now() if date is None else date
        return self._stats_range_batch(when, when)

    def _stats_range_batch(self, start: float, end: float | None) -> Batch[QueueStats]:
        """Statistics of every day from the one containing ``start`` to ``end`` (default
        that same day), merged."""
        days = stats_batch([(self.name, day)
                            for day in day_starts(start, start if end is None else end)])
        return Batch(days.calls, lambda results: merge_stats(days.parse(results)))

    def _length_call(self) -> Call[int]:
        """Jobs waiting, scheduled or running (not depending, not recurring templates)."""
        return ("length", (self.name,), int)

    def _heartbeat_steps(self) -> Steps[int]:
        """Lock length in seconds for jobs of this queue (``<queue>-heartbeat``)."""
        value = yield config_calls.get_call(f"{self.name}-heartbeat")
        if value is None:
            value = yield from config_calls.get_steps("heartbeat", 60)
        return int(value)

    def _set_heartbeat_call(self, seconds: int) -> Call[None]:
        if int(seconds) <= 0:
            raise ValueError("heartbeat must be a positive number of seconds")
        return config_calls.set_call(f"{self.name}-heartbeat", int(seconds))

    def _max_concurrency_call(self) -> Call[int]:
        """Cap on jobs running at once (0 = unlimited)."""
        return ("config.get", (f"{self.name}-max-concurrency",),
                    lambda reply: int(config_calls._parse(reply) or 0))

    def _set_max_concurrency_call(self, value: int) -> Call[None]:
        if int(value) < 0:
            raise ValueError("max_concurrency must be >= 0")
        return config_calls.set_call(f"{self.name}-max-concurrency", int(value))


class QueueJobsBase:
    """Jids of one queue's jobs by state (paginated like the core)."""

    def __init__(self, queue: QueueBase[Any]) -> None:
        self._queue = queue

    def _list_call(self, state: str, offset: int, count: int) -> Call[list[str]]:
        return ("jobs", (state, self._queue.name, offset, count), as_list)

    def _waiting_range(self, offset: int, count: int) -> tuple[str, int, int] | None:
        """``(key, start, stop)`` of a ``ZREVRANGE`` of the queue's work set that lists
        waiting jids in the order ``pop`` takes them, or None for an empty page.

        The protocol's ``jobs`` command lists no waiting jobs (``peek`` only shows the
        first ones, and promotes due scheduled jobs), so this page is a plain read of the
        work set, the one read of a queue's keys outside the core.
        """
        if offset < 0 or count < 0:
            raise ValueError("offset and count must be >= 0")
        if count == 0:
            return None
        return keys.queue(self._queue.name, keys.WORK), offset, offset + count - 1


def jids_of(members: list[Any]) -> list[str]:
    """Sorted-set members (bytes from redis-py) as jids."""
    return [jid.decode() if isinstance(jid, bytes) else str(jid) for jid in members]


def stats_batch(days: Iterable[tuple[str, float]], bins: bool = True) -> Batch[list[QueueStats]]:
    """The statistics of each ``(queue, day)``, in one round trip. With ``bins``, each day
    is a ``stats`` call (qless's 148 bins and the counters) and a ``qlpy.stats`` call (the
    fine histograms); without, ``qlpy.stats`` alone, a tenth of the server's work (each
    ``histogram`` is then ``()``). A refused call raises its error."""
    calls: list[PackedCall] = []
    for queue, day in days:
        if bins:
            calls.append(pack_call("stats", (queue, day)))
        calls.append(pack_call("qlpy.stats", (queue, day)))

    def read(results: list[Any]) -> list[QueueStats]:
        for result in results:
            if isinstance(result, Exception):
                raise result
        if bins:
            return [QueueStats.from_core(results[i], results[i + 1])
                    for i in range(0, len(results), 2)]
        return [QueueStats.from_core(result) for result in results]

    return Batch(calls, read)
