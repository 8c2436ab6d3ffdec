"""Queues without the sending: put (one, or a batch), pop, peek, recur, counts, settings
and statistics as :class:`~qless_py.calls.Call` objects. ``qless_py.client.queue.Queue`` and
``qless_py.aio.queue.Queue`` send them.

Put options are built by plain functions (``put_options``), so that new ones are added in
one place for single puts, batches and both clients.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from qless_py import clock, codecs
from qless_py.calls import config as config_calls
from qless_py.calls.base import Batch, Call, PackedCall, Steps
from qless_py.calls.core import pack_call
from qless_py.calls.job import as_list, class_name, json_list
from qless_py.calls.throttles import flow_options
from qless_py.connect.wire import bulk
from qless_py.errors import PutManyError, QlessError
from qless_py.keys import Keys
from qless_py.stats import QueueStats, day_starts, merge_stats

PutItem = tuple[Any, Any] | Mapping[str, Any]
J = TypeVar("J")


def new_jid() -> str:
    """32 random hex digits (128 bits), the shape qless clients use for jids."""
    return os.urandom(16).hex()


_PUT_KEYS = frozenset({"klass", "data", "priority", "tags", "delay", "retries", "jid", "depends",
                       "throttles", "key", "ttl"})

PUT_MANY_CHUNK = 1000
"""Jobs per ``qlpy.put_many`` call: each call is checked as a whole before it writes, and
a few thousand arguments per call stay far from any server limit."""


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
        listed = list(depends)
        if not all(isinstance(dep, str) for dep in listed):
            raise TypeError("depends must be jids and RemoteJobs (put_many takes jids only)")
        opts += ["depends", json.dumps(listed)]
    return opts


_put_options = put_options  # the name other modules used


def _nothing(_: Any) -> None:
    return None


def counts_of(reply: Any) -> dict[str, Any]:
    """A queue's counts object, with ``throttled`` always there (the core writes it only
    when the queue has throttled jobs)."""
    value: dict[str, Any] = json.loads(reply)
    value.setdefault("throttled", 0)
    return value


def _put_many_results(jids: list[str], unique: bool) -> Callable[[list[Any]], list[Any]]:
    """The results of a batch of ``qlpy.put_many`` calls read as: the jids (None for a job
    ``unique`` left alone), unless the core refused a call (the other calls put their jobs
    all the same): then its error, naming the item by its index in the whole batch."""

    def read(results: list[Any]) -> list[Any]:
        for i, result in enumerate(results):
            if isinstance(result, QlessError):
                raise put_many_error(result, i * PUT_MANY_CHUNK)
        if not unique:
            return jids
        replies = [r for result in results for r in as_list(result)]
        return [None if reply is None else jid for jid, reply in zip(jids, replies,
                                                                     strict=True)]

    return read


def put_many_error(error: QlessError, offset: int) -> QlessError:
    """A refused ``qlpy.put_many`` call's error, its job named by its index in the items
    (``qlpy.put_many(): job 3: ...`` of the call starting at item ``offset``)."""
    found = re.search(r"qlpy\.put_many\(\): job (\d+): ", str(error))
    if found is None:
        return error
    index = offset + int(found.group(1)) - 1
    return PutManyError(f"put_many item {index}: {error}", index)


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

    @property
    def throttle_name(self) -> str:
        """The name (tid) of the queue's own throttle, ``ql:q:<queue>``: its maximum caps
        the queue's running jobs, as ``max_concurrency`` does, beside it."""
        names: Keys = self.client.keys
        return names.queue_tid(self.name)

    # -- putting work ----------------------------------------------------------------------
    def _put_call(self, klass: type | str, data: Any, priority: float | None,
                  tags: Iterable[str] | None, delay: float, retries: int | None,
                  jid: str | None, depends: Iterable[str] | None,
                  throttles: Iterable[str] | None = None, key: str | None = None,
                  ttl: float | None = None, unique: bool = False) -> Call[Any]:
        """``put``; the jid, or None when ``unique`` left an unfinished job alone."""
        jid = jid or new_jid()
        args = (self.client.worker_name, self.name, jid, class_name(klass),
                codecs.encode(data, self.client.codec),
                0 if delay == 0 and type(delay) is int else _delay(delay),
                *put_options(priority, tags, retries, depends))
        if throttles is not None or key is not None or ttl is not None or unique:
            args += tuple(flow_options(throttles, key, ttl, unique))
        if unique:
            return ("put", args, lambda reply: None if reply is None else jid)
        # The jid is known already: the reply is not needed (and a benchmark that binds
        # calls to a pipeline gets no reply at all).
        return ("put", args, lambda _: jid)

    def _put_many_batch(self, items: Iterable[PutItem], priority: float | None,
                        tags: Iterable[str] | None, delay: float, retries: int | None,
                        depends: Iterable[str] | None, throttles: Iterable[str] | None = None,
                        key: str | None = None, ttl: float | None = None,
                        unique: bool = False) -> Batch[Any]:
        """Every item checked and encoded before anything is sent; then ``qlpy.put_many``
        calls of up to PUT_MANY_CHUNK jobs each, in one round trip (each call writes all of
        its jobs or none)."""
        codec = self.client.codec
        encode = codecs.encode
        # What tuple items share, packed once: the delay, the option count and the options
        # after the data.
        shared_opts = [*put_options(priority, tags, retries, depends),
                       *flow_options(throttles, key, ttl, unique)]
        shared_tail = b"".join([bulk(_delay(delay)), bulk(len(shared_opts) // 2),
                                *[bulk(arg) for arg in shared_opts]])
        shared_nargs = 5 + len(shared_opts)  # jid klass data delay count, then the options
        klass_bulks: dict[Any, bytes] = {}
        pieces: list[bytes] = []
        nargs: list[int] = []
        jids: list[str] = []
        items = list(items)
        # Random jids for every item at once (32 hex digits each, as new_jid makes them).
        ids = os.urandom(16 * len(items)).hex()
        # Items often share one data object: it is encoded once (nothing runs between two
        # items that could change it).
        last_data: Any = None
        data_bulk = b""
        for n, item in enumerate(items):
            if isinstance(item, tuple):
                klass, data = item
                klass_bulk = klass_bulks.get(klass)
                if klass_bulk is None:
                    klass_bulk = klass_bulks[klass] = bulk(class_name(klass))
                if data is not last_data or not data_bulk:
                    if type(data) is dict and not data and codec == "json":
                        text = b"{}"  # the most common payload, as the encoder writes it
                    else:
                        text = encode(data, codec).encode()
                    data_bulk = b"$%d\r\n%s\r\n" % (len(text), text)
                    last_data = data
                jid = ids[32 * n:32 * n + 32]
                pieces.append(b"".join((b"$32\r\n", jid.encode(), b"\r\n", klass_bulk,
                                        data_bulk, shared_tail)))
                nargs.append(shared_nargs)
            else:
                jid, args = self._mapping_args(item, codec, priority, tags, delay, retries,
                                               depends, throttles, key, ttl, unique)
                pieces.append(b"".join([bulk(arg) for arg in args]))
                nargs.append(len(args))
            jids.append(jid)
        head = bulk(self.client.worker_name) + bulk(self.name)
        command = bulk("qlpy.put_many")
        calls: list[PackedCall] = []
        for first in range(0, len(pieces), PUT_MANY_CHUNK):
            last = first + PUT_MANY_CHUNK
            calls.append((command, 2 + sum(nargs[first:last]),
                          head + b"".join(pieces[first:last])))
        return Batch(calls, _put_many_results(jids, unique))

    def _mapping_args(self, item: Mapping[str, Any], codec: str, priority: float | None,
                      tags: Iterable[str] | None, delay: float, retries: int | None,
                      depends: Iterable[str] | None, throttles: Iterable[str] | None,
                      key: str | None, ttl: float | None, unique: bool) -> tuple[str, list[Any]]:
        """One mapping item's ``qlpy.put_many`` arguments: jid klass data delay, the option
        count and the options."""
        unknown = set(item) - _PUT_KEYS
        if unknown or "klass" not in item:
            if "unique" in item:
                raise ValueError("unique applies to a whole put_many: "
                                 "put_many(items, unique=True)")
            raise ValueError(f"put_many item needs 'klass' and 'data'; unknown keys: "
                             f"{sorted(unknown)}")
        jid = item.get("jid") or new_jid()
        opts = [*put_options(item.get("priority", priority), item.get("tags", tags),
                             item.get("retries", retries), item.get("depends", depends)),
                *flow_options(item.get("throttles", throttles), item.get("key", key),
                              item.get("ttl", ttl), unique)]
        args = [jid, class_name(item["klass"]), codecs.encode(item.get("data", {}), codec),
                _delay(item.get("delay", delay)), len(opts) // 2, *opts]
        return str(jid), args

    def _recur_call(self, klass: type | str, data: Any, interval: float, offset: float,
                    priority: float | None, tags: Iterable[str] | None, retries: int | None,
                    jid: str | None, backlog: float, throttles: Iterable[str] | None = None,
                    key: str | None = None, ttl: float | None = None) -> Call[str]:
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
                "backlog", backlog, *flow_options(throttles, key, ttl))
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
        """``{name, waiting, stalled, running, scheduled, depends, recurring, paused,
        throttled}``."""
        return ("queues", (self.name,), counts_of)

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
        """``jobs <state> <queue>``: running, stalled, scheduled, depends, recurring or
        throttled (the throttle dialect's: waiting for a throttle or an ordering key)."""
        return ("jobs", (state, self._queue.name, offset, count), as_list)


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
