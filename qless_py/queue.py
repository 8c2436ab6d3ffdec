"""Queue: put, pop, peek and recur in one named queue, plus its counts, settings and stats."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, overload

from qless_py import clock, codecs, keys
from qless_py.core import PackedCall, bulk, pack_call
from qless_py.errors import QlessError
from qless_py.job import Job, as_list, class_name
from qless_py.stats import QueueStats

if TYPE_CHECKING:
    from qless_py.client import Client

PutItem = tuple[Any, Any] | Mapping[str, Any]


def new_jid() -> str:
    """32 random hex digits (128 bits), the shape qless clients use for jids."""
    return os.urandom(16).hex()


_PUT_KEYS = frozenset({"klass", "data", "priority", "tags", "delay", "retries", "jid", "depends"})


class QueueJobs:
    """Jids of one queue's jobs by state (paginated like the core)."""

    def __init__(self, queue: Queue) -> None:
        self._queue = queue

    def waiting(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jids of waiting jobs in the order ``pop`` takes them.

        The protocol's ``jobs`` command lists no waiting jobs (``peek`` only shows the
        first ones, and promotes due scheduled jobs), so this reads the queue's work set.
        """
        if offset < 0 or count < 0:
            raise ValueError("offset and count must be >= 0")
        if count == 0:
            return []
        work = keys.queue(self._queue.name, keys.WORK)
        found = self._queue.client.redis.zrevrange(work, offset, offset + count - 1)
        return [jid.decode() if isinstance(jid, bytes) else str(jid) for jid in found]

    def _list(self, state: str, offset: int, count: int) -> list[str]:
        reply = self._queue.client.core.call("jobs", state, self._queue.name, offset, count)
        return as_list(reply)

    def running(self, offset: int = 0, count: int = 25) -> list[str]:
        return self._list("running", offset, count)

    def stalled(self, offset: int = 0, count: int = 25) -> list[str]:
        return self._list("stalled", offset, count)

    def scheduled(self, offset: int = 0, count: int = 25) -> list[str]:
        return self._list("scheduled", offset, count)

    def depends(self, offset: int = 0, count: int = 25) -> list[str]:
        return self._list("depends", offset, count)

    def recurring(self, offset: int = 0, count: int = 25) -> list[str]:
        return self._list("recurring", offset, count)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name} must be finite")
    return value


def _delay(delay: float | None) -> float:
    """Seconds before a put job becomes eligible (None and negatives mean now)."""
    return 0 if delay is None else _number("delay", delay)


def _put_options(priority: float | None, tags: Iterable[str] | None, retries: int | None,
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


def _pairs(replies: list[Any]) -> Iterator[tuple[str, str]]:
    """Replies of ``QueueStats.core_calls`` two by two; a refused call raises its error."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    for i in range(0, len(replies), 2):
        yield replies[i], replies[i + 1]


class Queue:
    """A named queue. Creating the object costs nothing; the core learns it on first put."""

    def __init__(self, name: str, client: Client) -> None:
        if not name:
            raise ValueError("a queue name is required")
        self.name = name
        self.client = client
        self.jobs = QueueJobs(self)

    def __repr__(self) -> str:
        return f"<Queue {self.name}>"

    # -- putting work ----------------------------------------------------------------------
    def put(self, klass: type | str, data: Any, priority: float | None = None,
            tags: Iterable[str] | None = None, delay: float = 0, retries: int | None = None,
            jid: str | None = None, depends: Iterable[str] | None = None) -> str:
        """Put a job (or move an existing jid here); returns the jid.

        Options left at None keep an existing job's values (new jobs: priority 0, no tags,
        5 retries).
        """
        jid = jid or new_jid()
        # core.call goes through ``client._lua`` at call time (the benchmark harness binds
        # it to a pipeline, so the reply may not be a reply): the jid is known already.
        self.client.core.call("put", self.client.worker_name, self.name, jid, class_name(klass),
                              codecs.encode(data, self.client.codec), _delay(delay),
                              *_put_options(priority, tags, retries, depends))
        return jid

    def put_many(self, items: Iterable[PutItem], *, priority: float | None = None,
                 tags: Iterable[str] | None = None, delay: float = 0,
                 retries: int | None = None, depends: Iterable[str] | None = None) -> list[str]:
        """Put many jobs in one round trip; returns their jids in order.

        Each item is ``(klass, data)`` or a mapping with ``klass``, ``data`` and any of
        ``priority tags delay retries jid depends`` (overriding the keyword defaults).
        Every item is checked and encoded before anything is sent. If the core refuses
        some items, the others are still put and the first error is raised.
        """
        codec = self.client.codec
        encode = codecs.encode
        put = bulk("put")
        # What tuple items share, packed once: worker and queue before the jid, delay and
        # options after the data.
        shared_head = bulk(self.client.worker_name) + bulk(self.name)
        shared_opts = [_delay(delay), *_put_options(priority, tags, retries, depends)]
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
        if not calls:
            return []
        results = self.client.core.call_packed(calls)
        errors = [r for r in results if isinstance(r, QlessError)]
        if errors:
            raise errors[0]
        return jids

    def _mapping_args(self, item: Mapping[str, Any], codec: str, priority: float | None,
                      tags: Iterable[str] | None, delay: float, retries: int | None,
                      depends: Iterable[str] | None) -> tuple[str, list[Any]]:
        unknown = set(item) - _PUT_KEYS
        if unknown or "klass" not in item:
            raise ValueError(f"put_many item needs 'klass' and 'data'; unknown keys: "
                             f"{sorted(unknown)}")
        jid = item.get("jid") or new_jid()
        opts = _put_options(item.get("priority", priority), item.get("tags", tags),
                            item.get("retries", retries), item.get("depends", depends))
        args = [self.client.worker_name, self.name, jid, class_name(item["klass"]),
                codecs.encode(item.get("data", {}), codec), _delay(item.get("delay", delay)),
                *opts]
        return str(jid), args

    def recur(self, klass: type | str, data: Any, interval: float, offset: float = 0,
              priority: float | None = 0, tags: Iterable[str] | None = (),
              retries: int | None = 0, jid: str | None = None, backlog: float = 0) -> str:
        """Create (or replace) a recurring template spawning a job every ``interval`` s.

        The first job spawns at ``now + offset``; None options mean the defaults (priority
        0, no tags, 0 retries, as the core).
        """
        if interval <= 0:
            raise ValueError("interval must be greater than 0")
        if isinstance(tags, str):
            raise TypeError("tags must be a list of strings, not a string")
        if retries is not None and retries < 0:
            raise ValueError("retries must be >= 0")
        jid = jid or new_jid()
        reply = self.client.core.call(
            "recur", self.name, jid, class_name(klass), codecs.encode(data, self.client.codec),
            "interval", interval, offset, "priority", priority or 0,
            "tags", json.dumps(list(tags or ())), "retries", retries or 0, "backlog", backlog)
        return str(reply)

    # -- taking work -----------------------------------------------------------------------
    @overload
    def pop(self, count: None = None, *, worker: str | None = None) -> Job | None: ...
    @overload
    def pop(self, count: int, *, worker: str | None = None) -> list[Job]: ...

    def pop(self, count: int | None = None, *,
            worker: str | None = None) -> Job | list[Job] | None:
        """Lease jobs to ``worker`` (default: the client's worker name).

        Without ``count``: one Job or None. With ``count``: a list (maybe empty).
        """
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")
        worker = worker or self.client.worker_name
        reply = self.client.core.call("pop", self.name, worker, 1 if count is None else count)
        jobs = Job.from_json(self.client, reply, worker)
        if count is None:
            return jobs[0] if jobs else None
        return jobs

    @overload
    def peek(self, count: None = None) -> Job | None: ...
    @overload
    def peek(self, count: int) -> list[Job]: ...

    def peek(self, count: int | None = None) -> Job | list[Job] | None:
        """The jobs ``pop`` would hand out next, without leasing them."""
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")
        reply = self.client.core.call("peek", self.name, 1 if count is None else count)
        jobs = Job.from_json(self.client, reply)
        if count is None:
            return jobs[0] if jobs else None
        return jobs

    # -- state and settings ----------------------------------------------------------------
    def pause(self) -> None:
        """Stop handing out jobs (``pop`` returns nothing); puts still work."""
        self.client.core.call("pause", self.name)

    def unpause(self) -> None:
        self.client.core.call("unpause", self.name)

    @property
    def paused(self) -> bool:
        return bool(self.counts["paused"])

    @property
    def counts(self) -> dict[str, Any]:
        """``{name, waiting, stalled, running, scheduled, depends, recurring, paused}``."""
        counts: dict[str, Any] = json.loads(self.client.core.call("queues", self.name))
        return counts

    def stats(self, date: float | None = None) -> QueueStats:
        """Wait/run statistics (with the fine histograms) and failure counters for the day
        containing ``date`` (one round trip)."""
        return self.stats_range(clock.now() if date is None else date)

    def stats_range(self, start: float, end: float | None = None) -> QueueStats:
        """Statistics of every day from the one containing ``start`` to ``end``, merged
        (one round trip)."""
        from qless_py.stats import day_starts, merge_stats

        days = list(day_starts(start, start if end is None else end))
        replies = self.client.core.call_many(
            [call for day in days for call in QueueStats.core_calls(self.name, day)])
        return merge_stats(QueueStats.from_core(*pair) for pair in _pairs(replies))

    def __len__(self) -> int:
        """Jobs waiting, scheduled or running (not depending, not recurring templates)."""
        return int(self.client.core.call("length", self.name))

    @property
    def heartbeat(self) -> int:
        """Lock length in seconds for jobs of this queue (``<queue>-heartbeat``)."""
        config = self.client.config
        value = config.get(f"{self.name}-heartbeat")
        if value is None:
            value = config.get("heartbeat", 60)
        return int(value)

    @heartbeat.setter
    def heartbeat(self, seconds: int) -> None:
        if int(seconds) <= 0:
            raise ValueError("heartbeat must be a positive number of seconds")
        self.client.config[f"{self.name}-heartbeat"] = int(seconds)

    @property
    def max_concurrency(self) -> int:
        """Cap on jobs running at once (0 = unlimited)."""
        value = self.client.config.get(f"{self.name}-max-concurrency")
        return int(value or 0)

    @max_concurrency.setter
    def max_concurrency(self, value: int) -> None:
        if int(value) < 0:
            raise ValueError("max_concurrency must be >= 0")
        self.client.config[f"{self.name}-max-concurrency"] = int(value)
