"""Queue for the async client: put, pop, peek and recur as coroutines, and the queue's
counts and settings as awaitable properties (``await queue.counts``). What each call sends
is in :mod:`qless_py.calls.queue`, shared with the sync client."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, overload

from qless_py.aio.job import Job
from qless_py.aio.throttles import Throttle
from qless_py.calls import reads
from qless_py.calls.queue import PutItem, QueueBase, QueueJobsBase, new_jid
from qless_py.calls.remote import RemoteJob, member
from qless_py.keys import namespace_prefix
from qless_py.stats import QueueStats

if TYPE_CHECKING:
    from qless_py.aio.client import AsyncClient


class QueueJobs(QueueJobsBase):
    """Jids of one queue's jobs by state (paginated like the core)."""

    _queue: Queue

    async def waiting(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jids of waiting jobs in the order ``pop`` takes them (a read of the work set)."""
        return await self._queue.client._read(
            reads.queue_waiting(self._queue.name, offset, count, self._queue.client.keys))

    async def _list(self, state: str, offset: int, count: int) -> list[str]:
        return await self._queue.client.core.send(self._list_call(state, offset, count))

    async def running(self, offset: int = 0, count: int = 25) -> list[str]:
        return await self._list("running", offset, count)

    async def stalled(self, offset: int = 0, count: int = 25) -> list[str]:
        return await self._list("stalled", offset, count)

    async def scheduled(self, offset: int = 0, count: int = 25) -> list[str]:
        return await self._list("scheduled", offset, count)

    async def depends(self, offset: int = 0, count: int = 25) -> list[str]:
        return await self._list("depends", offset, count)

    async def recurring(self, offset: int = 0, count: int = 25) -> list[str]:
        return await self._list("recurring", offset, count)

    async def throttled(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jobs waiting for a throttle or for the earlier jobs of their ordering key."""
        return await self._list("throttled", offset, count)


class Queue(QueueBase[Job]):
    """A named queue. Creating the object costs nothing; the core learns it on first put.
    ``len(queue)`` and assignments cannot wait for the server: ``await queue.length()``,
    ``await queue.set_heartbeat(n)``, ``await queue.set_max_concurrency(n)``."""

    job_type = Job
    client: AsyncClient

    def __init__(self, name: str, client: AsyncClient) -> None:
        super().__init__(name, client)
        self.jobs = QueueJobs(self)

    @property
    def throttle(self) -> Throttle:
        """The queue's own throttle (``await queue.throttle.set_maximum(5)``)."""
        return Throttle(self.client, self.throttle_name)

    # -- putting work ----------------------------------------------------------------------
    @overload
    async def put(self, klass: type | str, data: Any, priority: float | None = ...,
                  tags: Iterable[str] | None = ..., delay: float = ...,
                  retries: int | None = ..., jid: str | None = ...,
                  depends: Iterable[str | RemoteJob] | None = ..., *,
                  throttles: Iterable[str] | None = ..., key: str | None = ...,
                  ttl: float | None = ..., unique: Literal[False] = ...) -> str: ...
    @overload
    async def put(self, klass: type | str, data: Any, priority: float | None = ...,
                  tags: Iterable[str] | None = ..., delay: float = ...,
                  retries: int | None = ..., jid: str | None = ...,
                  depends: Iterable[str | RemoteJob] | None = ..., *,
                  throttles: Iterable[str] | None = ..., key: str | None = ...,
                  ttl: float | None = ..., unique: bool) -> str | None: ...

    async def put(self, klass: type | str, data: Any, priority: float | None = None,
                  tags: Iterable[str] | None = None, delay: float = 0,
                  retries: int | None = None, jid: str | None = None,
                  depends: Iterable[str | RemoteJob] | None = None, *,
                  throttles: Iterable[str] | None = None, key: str | None = None,
                  ttl: float | None = None, unique: bool = False) -> str | None:
        """Put a job (or move an existing jid here); returns the jid (see ``Queue.put``)."""
        if depends is not None and not isinstance(depends, str):  # (a string: refused below)
            deps: list[Any] = list(depends)
            if any(isinstance(dep, RemoteJob) for dep in deps):
                jid = jid or new_jid()
                deps = await self._remote_depends(jid, deps)
            depends = deps
        return await self.client.core.send(self._put_call(
            klass, data, priority, tags, delay, retries, jid, depends, throttles, key, ttl,
            unique))

    async def _remote_depends(self, jid: str, depends: list[Any]) -> list[str]:
        """As the sync client's ``remote_depends``: each RemoteJob registered with its own
        namespace first, then waited for unless it is complete or missing there."""
        out: list[str] = []
        for dep in depends:
            if not isinstance(dep, RemoteJob):
                out.append(dep)
                continue
            there = self.client.other(dep.namespace)
            answer = await there("qlpy.remote", "depend", dep.jid,
                                 member(self.client.keys.prefix, jid))
            if answer == "pending":
                out.append(member(namespace_prefix(dep.namespace), dep.jid))
        return out

    @overload
    async def put_many(self, items: Iterable[PutItem], *, priority: float | None = ...,
                       tags: Iterable[str] | None = ..., delay: float = ...,
                       retries: int | None = ..., depends: Iterable[str] | None = ...,
                       throttles: Iterable[str] | None = ..., key: str | None = ...,
                       ttl: float | None = ...,
                       unique: Literal[False] = ...) -> list[str]: ...
    @overload
    async def put_many(self, items: Iterable[PutItem], *, priority: float | None = ...,
                       tags: Iterable[str] | None = ..., delay: float = ...,
                       retries: int | None = ..., depends: Iterable[str] | None = ...,
                       throttles: Iterable[str] | None = ..., key: str | None = ...,
                       ttl: float | None = ..., unique: bool) -> list[str | None]: ...

    async def put_many(self, items: Iterable[PutItem], *, priority: float | None = None,
                       tags: Iterable[str] | None = None, delay: float = 0,
                       retries: int | None = None, depends: Iterable[str] | None = None,
                       throttles: Iterable[str] | None = None, key: str | None = None,
                       ttl: float | None = None, unique: bool = False) -> list[Any]:
        """Put many jobs in one round trip; returns their jids in order (see
        ``Queue.put_many``)."""
        batch = self._put_many_batch(items, priority, tags, delay, retries, depends,
                                     throttles, key, ttl, unique)
        return await self.client.core.send_batch(batch) if batch.calls else []

    async def recur(self, klass: type | str, data: Any, interval: float, offset: float = 0,
                    priority: float | None = 0, tags: Iterable[str] | None = (),
                    retries: int | None = 0, jid: str | None = None,
                    backlog: float = 0, *, throttles: Iterable[str] | None = None,
                    key: str | None = None, ttl: float | None = None) -> str:
        """Create (or replace) a recurring template spawning a job every ``interval`` s."""
        return await self.client.core.send(self._recur_call(
            klass, data, interval, offset, priority, tags, retries, jid, backlog, throttles,
            key, ttl))

    # -- taking work -----------------------------------------------------------------------
    @overload
    async def pop(self, count: None = None, *, worker: str | None = None) -> Job | None: ...
    @overload
    async def pop(self, count: int, *, worker: str | None = None) -> list[Job]: ...

    async def pop(self, count: int | None = None, *,
                  worker: str | None = None) -> Job | list[Job] | None:
        """Lease jobs to ``worker`` (default: the client's worker name).

        Without ``count``: one Job or None. With ``count``: a list (maybe empty).
        """
        jobs: Job | list[Job] | None = await self.client.core.send(
            self._pop_call(count, worker))
        return jobs

    @overload
    async def peek(self, count: None = None) -> Job | None: ...
    @overload
    async def peek(self, count: int) -> list[Job]: ...

    async def peek(self, count: int | None = None) -> Job | list[Job] | None:
        """The jobs ``pop`` would hand out next, without leasing them."""
        jobs: Job | list[Job] | None = await self.client.core.send(self._peek_call(count))
        return jobs

    # -- state and settings ----------------------------------------------------------------
    async def pause(self) -> None:
        """Stop handing out jobs (``pop`` returns nothing); puts still work."""
        await self.client.core.send(self._pause_call(True))

    async def unpause(self) -> None:
        await self.client.core.send(self._pause_call(False))

    @property
    async def paused(self) -> bool:
        return await self.client.core.send(self._paused_call())

    @property
    async def counts(self) -> dict[str, Any]:
        """``{name, waiting, stalled, running, scheduled, depends, recurring, paused,
        throttled}``."""
        return await self.client.core.send(self._counts_call())

    async def stats(self, date: float | None = None) -> QueueStats:
        """Wait/run statistics (with the fine histograms) and failure counters for the day
        containing ``date`` (one round trip)."""
        return await self.client.core.send_batch(self._stats_batch(date))

    async def stats_range(self, start: float, end: float | None = None) -> QueueStats:
        """Statistics of every day from the one containing ``start`` to ``end``, merged
        (one round trip)."""
        return await self.client.core.send_batch(self._stats_range_batch(start, end))

    async def length(self) -> int:
        """Jobs waiting, scheduled or running (not depending, not recurring templates)."""
        return await self.client.core.send(self._length_call())

    @property
    async def heartbeat(self) -> int:
        """Lock length in seconds for jobs of this queue (``<queue>-heartbeat``)."""
        return await self.client.core.run(self._heartbeat_steps())

    async def set_heartbeat(self, seconds: int) -> None:
        await self.client.core.send(self._set_heartbeat_call(seconds))

    @property
    async def max_concurrency(self) -> int:
        """Cap on jobs running at once (0 = unlimited)."""
        return await self.client.core.send(self._max_concurrency_call())

    async def set_max_concurrency(self, value: int) -> None:
        await self.client.core.send(self._set_max_concurrency_call(value))
