"""Queue: put, pop, peek and recur in one named queue, plus its counts, settings and stats
(sync). What each call sends is in :mod:`qless_py.calls.queue`, shared with the async
client."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, overload

from qless_py.calls import reads
from qless_py.calls.queue import (
    PutItem,
    QueueBase,
    QueueJobsBase,
    _delay,
    _number,
    _put_options,
    new_jid,
    put_options,
)
from qless_py.calls.remote import RemoteJob, member
from qless_py.client.job import Job
from qless_py.client.throttles import Throttle
from qless_py.keys import namespace_prefix
from qless_py.stats import QueueStats

if TYPE_CHECKING:
    from qless_py.client.client import Client

__all__ = ["PutItem", "Queue", "QueueJobs", "_delay", "_number", "_put_options", "new_jid",
           "put_options"]


class QueueJobs(QueueJobsBase):
    """Jids of one queue's jobs by state (paginated like the core)."""

    _queue: Queue

    def waiting(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jids of waiting jobs in the order ``pop`` takes them (a read of the work set)."""
        queue = self._queue
        return queue.client._read(reads.queue_waiting(queue.name, offset, count, queue.client.keys))

    def _list(self, state: str, offset: int, count: int) -> list[str]:
        return self._queue.client.core.send(self._list_call(state, offset, count))

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

    def throttled(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jobs waiting for a throttle or for the earlier jobs of their ordering key."""
        return self._list("throttled", offset, count)


class Queue(QueueBase[Job]):
    """A named queue. Creating the object costs nothing; the core learns it on first put."""

    job_type = Job
    client: Client

    def __init__(self, name: str, client: Client) -> None:
        super().__init__(name, client)
        self.jobs = QueueJobs(self)

    @property
    def throttle(self) -> Throttle:
        """The queue's own throttle: ``queue.throttle.maximum = 5`` runs at most five of its
        jobs at once (beside ``max_concurrency``)."""
        return Throttle(self.client, self.throttle_name)

    # -- putting work ----------------------------------------------------------------------
    @overload
    def put(self, klass: type | str, data: Any, priority: float | None = ...,
            tags: Iterable[str] | None = ..., delay: float = ..., retries: int | None = ...,
            jid: str | None = ..., depends: Iterable[str | RemoteJob] | None = ..., *,
            throttles: Iterable[str] | None = ..., key: str | None = ...,
            ttl: float | None = ..., unique: Literal[False] = ...) -> str: ...
    @overload
    def put(self, klass: type | str, data: Any, priority: float | None = ...,
            tags: Iterable[str] | None = ..., delay: float = ..., retries: int | None = ...,
            jid: str | None = ..., depends: Iterable[str | RemoteJob] | None = ..., *,
            throttles: Iterable[str] | None = ..., key: str | None = ...,
            ttl: float | None = ..., unique: bool) -> str | None: ...

    def put(self, klass: type | str, data: Any, priority: float | None = None,
            tags: Iterable[str] | None = None, delay: float = 0, retries: int | None = None,
            jid: str | None = None, depends: Iterable[str | RemoteJob] | None = None, *,
            throttles: Iterable[str] | None = None, key: str | None = None,
            ttl: float | None = None, unique: bool = False) -> str | None:
        """Put a job (or move an existing jid here); returns the jid.

        Options left at None keep an existing job's values (new jobs: priority 0, no tags,
        5 retries). ``throttles`` (names), ``key`` (an ordering key) and ``ttl`` (seconds
        the job may wait to start) are set afresh by every put (docs/throttles.md). With
        ``unique=True`` an existing job that is not complete is left alone, and the reply
        is None.
        """
        if depends is not None and not isinstance(depends, str):  # (a string: refused below)
            deps: list[Any] = list(depends)
            if any(isinstance(dep, RemoteJob) for dep in deps):
                jid = jid or new_jid()
                deps = self._remote_depends(jid, deps)
            depends = deps
        jid_or_none: str | None = self.client.core.send(self._put_call(
            klass, data, priority, tags, delay, retries, jid, depends, throttles, key, ttl,
            unique))
        return jid_or_none

    def _remote_depends(self, jid: str, depends: list[Any]) -> list[str]:
        """``depends`` of a put of job ``jid``, each :class:`RemoteJob` registered with its
        own namespace first: it becomes a remote member when it is to be waited for, and is
        left out when it is complete or does not exist (as a local dependency would)."""
        client = self.client
        out: list[str] = []
        for dep in depends:
            if not isinstance(dep, RemoteJob):
                out.append(dep)
                continue
            there = client.other(dep.namespace)
            answer = there("qlpy.remote", "depend", dep.jid, member(client.keys.prefix, jid))
            if answer == "pending":
                out.append(member(namespace_prefix(dep.namespace), dep.jid))
        return out

    @overload
    def put_many(self, items: Iterable[PutItem], *, priority: float | None = ...,
                 tags: Iterable[str] | None = ..., delay: float = ...,
                 retries: int | None = ..., depends: Iterable[str] | None = ...,
                 throttles: Iterable[str] | None = ..., key: str | None = ...,
                 ttl: float | None = ..., unique: Literal[False] = ...) -> list[str]: ...
    @overload
    def put_many(self, items: Iterable[PutItem], *, priority: float | None = ...,
                 tags: Iterable[str] | None = ..., delay: float = ...,
                 retries: int | None = ..., depends: Iterable[str] | None = ...,
                 throttles: Iterable[str] | None = ..., key: str | None = ...,
                 ttl: float | None = ..., unique: bool) -> list[str | None]: ...

    def put_many(self, items: Iterable[PutItem], *, priority: float | None = None,
                 tags: Iterable[str] | None = None, delay: float = 0,
                 retries: int | None = None, depends: Iterable[str] | None = None,
                 throttles: Iterable[str] | None = None, key: str | None = None,
                 ttl: float | None = None, unique: bool = False) -> list[Any]:
        """Put many jobs in one round trip, up to 1,000 per core call; returns their jids in
        order (with ``unique=True``, None for each job left alone).

        Each item is ``(klass, data)`` or a mapping with ``klass``, ``data`` and any of
        ``priority tags delay retries jid depends throttles key ttl`` (overriding the
        keyword defaults). Every item is checked and encoded before anything is sent, and
        each core call writes all of its jobs or none; if the core refuses one, the other
        calls' jobs are put all the same and a PutManyError names the item.
        """
        batch = self._put_many_batch(items, priority, tags, delay, retries, depends,
                                     throttles, key, ttl, unique)
        return self.client.core.send_batch(batch) if batch.calls else []

    def recur(self, klass: type | str, data: Any, interval: float, offset: float = 0,
              priority: float | None = 0, tags: Iterable[str] | None = (),
              retries: int | None = 0, jid: str | None = None, backlog: float = 0, *,
              throttles: Iterable[str] | None = None, key: str | None = None,
              ttl: float | None = None) -> str:
        """Create (or replace) a recurring template spawning a job every ``interval`` s.

        The first job spawns at ``now + offset``; None options mean the defaults (priority
        0, no tags, 0 retries, as the core). Spawned jobs get the template's ``throttles``,
        ordering ``key`` and ``ttl``.
        """
        return self.client.core.send(self._recur_call(
            klass, data, interval, offset, priority, tags, retries, jid, backlog, throttles,
            key, ttl))

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
        jobs: Job | list[Job] | None = self.client.core.send(self._pop_call(count, worker))
        return jobs

    @overload
    def peek(self, count: None = None) -> Job | None: ...
    @overload
    def peek(self, count: int) -> list[Job]: ...

    def peek(self, count: int | None = None) -> Job | list[Job] | None:
        """The jobs ``pop`` would hand out next, without leasing them."""
        jobs: Job | list[Job] | None = self.client.core.send(self._peek_call(count))
        return jobs

    # -- state and settings ----------------------------------------------------------------
    def pause(self) -> None:
        """Stop handing out jobs (``pop`` returns nothing); puts still work."""
        self.client.core.send(self._pause_call(True))

    def unpause(self) -> None:
        self.client.core.send(self._pause_call(False))

    @property
    def paused(self) -> bool:
        return self.client.core.send(self._paused_call())

    @property
    def counts(self) -> dict[str, Any]:
        """``{name, waiting, stalled, running, scheduled, depends, recurring, paused,
        throttled}``."""
        return self.client.core.send(self._counts_call())

    def stats(self, date: float | None = None) -> QueueStats:
        """Wait/run statistics (with the fine histograms) and failure counters for the day
        containing ``date`` (one round trip)."""
        return self.client.core.send_batch(self._stats_batch(date))

    def stats_range(self, start: float, end: float | None = None) -> QueueStats:
        """Statistics of every day from the one containing ``start`` to ``end``, merged
        (one round trip)."""
        return self.client.core.send_batch(self._stats_range_batch(start, end))

    def length(self) -> int:
        """``len(queue)`` (the spelling both clients share)."""
        return self.client.core.send(self._length_call())

    def __len__(self) -> int:
        """Jobs waiting, scheduled or running (not depending, not recurring templates)."""
        return self.client.core.send(self._length_call())

    @property
    def heartbeat(self) -> int:
        """Lock length in seconds for jobs of this queue (``<queue>-heartbeat``)."""
        return self.client.core.run(self._heartbeat_steps())

    @heartbeat.setter
    def heartbeat(self, seconds: int) -> None:
        self.client.core.send(self._set_heartbeat_call(seconds))

    def set_heartbeat(self, seconds: int) -> None:
        """``queue.heartbeat = seconds`` (the spelling both clients share)."""
        self.client.core.send(self._set_heartbeat_call(seconds))

    @property
    def max_concurrency(self) -> int:
        """Cap on jobs running at once (0 = unlimited)."""
        return self.client.core.send(self._max_concurrency_call())

    @max_concurrency.setter
    def max_concurrency(self, value: int) -> None:
        self.client.core.send(self._set_max_concurrency_call(value))

    def set_max_concurrency(self, value: int) -> None:
        """``queue.max_concurrency = value`` (the spelling both clients share)."""
        self.client.core.send(self._set_max_concurrency_call(value))
