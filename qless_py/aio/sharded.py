"""AsyncShardedClient: :class:`qless_py.ShardedClient` for asyncio code. The same placement
(``qless_py.shards``) and the same merges (``qless_py.client.sharded_views``); each read
asks every shard at once (``asyncio.gather``), so a merged read takes one round trip's time
however many shards there are."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import Any, Literal, TypeVar, overload

from qless_py.aio.client import AsyncClient
from qless_py.aio.job import Job
from qless_py.aio.recurring import RecurringJob
from qless_py.aio.throttles import Throttle
from qless_py.calls.check import DEFAULT_BUDGET, CheckReport, Progress
from qless_py.calls.failures import DEFAULT_BATCH, GroupResult
from qless_py.calls.queue import PUT_MANY_CHUNK, PutItem
from qless_py.calls.remote import RemoteJob
from qless_py.keys import Keys
from qless_py.shards import Shards, record_key
from qless_py.shards.clients import (
    check_recorded,
    put_plan,
    put_spec,
    shards_of_url,
    whole_check,
    without_shards,
)
from qless_py.shards.merge import (
    failed_page,
    interleaved,
    merged_completed,
    merged_counts,
    merged_failed_counts,
    merged_reports,
    merged_tags,
    merged_tracked,
    merged_worker,
    merged_workers,
    summed,
    tagged_page,
)
from qless_py.stats import QueueStats, merge_stats

__all__ = ["AsyncShardedClient"]

T = TypeVar("T")


async def _each(calls: Iterable[Awaitable[T]]) -> list[T]:
    return list(await asyncio.gather(*calls))


class AsyncShardedQueueJobs:
    def __init__(self, queue: AsyncShardedQueue) -> None:
        self._queue = queue

    async def _list(self, state: str, offset: int, count: int) -> list[str]:
        wanted = -1 if count < 0 else offset + count
        lists = await _each(getattr(q.jobs, state)(0, wanted) for q in self._queue.each())
        return interleaved(lists, offset, count)

    async def waiting(self, offset: int = 0, count: int = 25) -> list[str]:
        return await self._list("waiting", offset, count)

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
        return await self._list("throttled", offset, count)


class AsyncShardedQueue:
    """A queue of a sharded namespace (see :class:`qless_py.client.sharded.ShardedQueue`)."""

    def __init__(self, name: str, client: AsyncShardedClient) -> None:
        self.name = name
        self.client = client
        self.jobs = AsyncShardedQueueJobs(self)

    def on(self, shard: int) -> Any:
        return self.client.clients[shard].queues[self.name]

    def each(self) -> list[Any]:
        return [self.on(i) for i in range(self.client.shards.count)]

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
        shard, jid, deps, named = put_plan(self.client.shards, jid, key, depends, throttles)
        await self.client.verify()
        result: str | None = await self.on(shard).put(
            klass, data, priority, tags, delay, retries, jid, deps, throttles=named, key=key,
            ttl=ttl, unique=unique)
        return result

    async def put_many(self, items: Iterable[PutItem], **options: Any) -> list[Any]:
        placed, count = put_spec(self.client.shards, items, options)
        if not placed:
            return []
        await self.client.verify()
        out: list[Any] = [None] * count
        for shard, entries in sorted(placed.items()):
            for start in range(0, len(entries), PUT_MANY_CHUNK):
                chunk = entries[start:start + PUT_MANY_CHUNK]
                jids = await self.on(shard).put_many([spec for _, spec in chunk], **options)
                for (index, _), jid in zip(chunk, jids, strict=True):
                    out[index] = jid
        return out

    async def recur(self, klass: type | str, data: Any, interval: float, offset: float = 0,
                    priority: float | None = 0, tags: Iterable[str] | None = (),
                    retries: int | None = 0, jid: str | None = None, backlog: float = 0, *,
                    throttles: Iterable[str] | None = None, key: str | None = None,
                    ttl: float | None = None) -> str:
        named = list(throttles) if throttles is not None else None
        shard, jid = self.client.shards.place(jid, key, (), named or ())
        await self.client.verify()
        made: str = await self.on(shard).recur(klass, data, interval, offset, priority, tags,
                                               retries, jid, backlog, throttles=named,
                                               key=key, ttl=ttl)
        return made

    @overload
    async def pop(self, count: None = None, *, worker: str | None = None) -> Job | None: ...
    @overload
    async def pop(self, count: int, *, worker: str | None = None) -> list[Job]: ...

    async def pop(self, count: int | None = None, *,
                  worker: str | None = None) -> Job | list[Job] | None:
        """Lease jobs from the shards in turn, starting one shard further on every call."""
        shards = self.client.shards.count
        start = self.client.next_turn()
        if count is None:
            for step in range(shards):
                job: Job | None = await self.on((start + step) % shards).pop(worker=worker)
                if job is not None:
                    return job
            return None
        jobs: list[Job] = []
        for step in range(shards):
            if len(jobs) >= count:
                break
            jobs.extend(await self.on((start + step) % shards).pop(count - len(jobs),
                                                                   worker=worker))
        return jobs

    async def peek(self, count: int | None = None) -> Job | list[Job] | None:
        lists = await _each(q.peek(count or 1) for q in self.each())
        jobs = interleaved(lists, 0, count or 1)
        if count is None:
            return jobs[0] if jobs else None
        return jobs

    async def pause(self) -> None:
        await _each(q.pause() for q in self.each())

    async def unpause(self) -> None:
        await _each(q.unpause() for q in self.each())

    @property
    async def paused(self) -> bool:
        return all(await _each(q.paused for q in self.each()))

    @property
    async def counts(self) -> dict[str, Any]:
        return merged_counts(await _each(q.counts for q in self.each()))[0]

    async def stats(self, date: float | None = None) -> QueueStats:
        return merge_stats(await _each(q.stats(date) for q in self.each()))

    async def stats_range(self, start: float, end: float | None = None) -> QueueStats:
        return merge_stats(await _each(q.stats_range(start, end) for q in self.each()))

    async def length(self) -> int:
        return sum(await _each(q.length() for q in self.each()))

    @property
    async def heartbeat(self) -> int:
        value: int = await self.on(0).heartbeat
        return value

    async def set_heartbeat(self, seconds: int) -> None:
        await _each(q.set_heartbeat(seconds) for q in self.each())


class AsyncShardedQueues:
    def __init__(self, client: AsyncShardedClient) -> None:
        self._client = client

    def __getitem__(self, name: str) -> AsyncShardedQueue:
        return AsyncShardedQueue(name, self._client)

    @property
    async def counts(self) -> list[dict[str, Any]]:
        found = await _each(c.queues.counts for c in self._client.clients)
        return merged_counts(row for rows in found for row in rows)

    async def names(self) -> list[str]:
        found = await _each(c.queues.names() for c in self._client.clients)
        return sorted({name for names in found for name in names})

    async def stats(self, names: Iterable[str], date: float | None = None, *,
                    bins: bool = False) -> dict[str, QueueStats]:
        wanted = list(names)
        per_shard = await _each(c.queues.stats(wanted, date, bins=bins)
                                for c in self._client.clients)
        return {name: merge_stats(found[name] for found in per_shard if name in found)
                for name in wanted}


class AsyncShardedJobs:
    def __init__(self, client: AsyncShardedClient) -> None:
        self._client = client

    async def __getitem__(self, jid: str) -> Job | RecurringJob | None:
        found: Job | RecurringJob | None = await self._client.client_of(jid).jobs[jid]
        return found

    async def get(self, *jids: str) -> list[Job]:
        groups = self._client.shards.by_shard(jids)
        found: dict[str, Job] = {}
        for jobs in await _each(self._client.clients[shard].jobs.get(*group)
                                for shard, group in groups.items()):
            found.update((job.jid, job) for job in jobs)
        return [found[jid] for jid in jids if jid in found]

    async def cancel(self, *jids: str) -> list[str]:
        groups = self._client.shards.by_shard(jids)
        await _each(self._client.clients[shard].jobs.cancel(*group)
                    for shard, group in groups.items())
        return list(jids)

    async def complete(self, offset: int = 0, count: int = 25) -> list[str]:
        raws = await _each(c.redis.zrevrange(c.keys.completed, 0, offset + count - 1,
                                             withscores=True) for c in self._client.clients)
        return merged_completed(raws, offset, count)

    async def tracked(self) -> dict[str, list[Any]]:
        return merged_tracked(await _each(c.jobs.tracked() for c in self._client.clients))

    async def tagged(self, tag: str, offset: int = 0, count: int = 25) -> dict[str, Any]:
        found = await _each(c.jobs.tagged(tag, 0, offset + count)
                            for c in self._client.clients)
        jids = [jid for each in found for jid in each["jobs"]]
        return tagged_page(await self.get(*jids), sum(each["total"] for each in found),
                           offset, count)

    async def recurring(self, queues: Iterable[str] | None = None) -> list[RecurringJob]:
        names = None if queues is None else list(queues)
        found = await _each(c.jobs.recurring(names) for c in self._client.clients)
        return [template for each in found for template in each]

    async def failed(self, group: str | None = None, start: int = 0,
                     limit: int = 25) -> dict[str, Any]:
        if group is None:
            return merged_failed_counts(await _each(c.jobs.failed()
                                                    for c in self._client.clients))
        return failed_page(await _each(c.jobs.failed(group, 0, start + limit)
                                       for c in self._client.clients), start, limit)

    async def retry_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        return summed(await _each(c.jobs.retry_group(group, batch)
                                  for c in self._client.clients))

    async def cancel_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        return summed(await _each(c.jobs.cancel_group(group, batch)
                                  for c in self._client.clients))


class AsyncShardedWorkers:
    def __init__(self, client: AsyncShardedClient) -> None:
        self._client = client

    @property
    async def counts(self) -> list[dict[str, Any]]:
        found = await _each(c.workers.counts for c in self._client.clients)
        return merged_workers(row for rows in found for row in rows)

    async def __getitem__(self, name: str) -> dict[str, list[str]]:
        return merged_worker(await _each(c.workers[name] for c in self._client.clients))

    async def deregister(self, *names: str) -> None:
        await _each(c.workers.deregister(*names) for c in self._client.clients)


class AsyncShardedConfig:
    """Read from the first shard, written to every shard (first to last)."""

    def __init__(self, client: AsyncShardedClient) -> None:
        self._client = client

    @property
    async def all(self) -> dict[str, Any]:
        found: dict[str, Any] = await self._client.clients[0].config.all
        return found

    async def __getitem__(self, key: str) -> Any:
        return await self._client.clients[0].config[key]

    async def get(self, key: str, default: Any = None) -> Any:
        return await self._client.clients[0].config.get(key, default)

    async def set(self, key: str, value: Any) -> None:
        for client in self._client.clients:
            await client.config.set(key, value)

    async def unset(self, key: str) -> None:
        for client in self._client.clients:
            await client.config.unset(key)


class AsyncShardedThrottles:
    def __init__(self, client: AsyncShardedClient) -> None:
        self._client = client

    def __getitem__(self, name: str) -> Throttle:
        shards = self._client.shards
        return self._client.clients[shards.throttle_shard(name)].throttles[name]

    async def names(self) -> list[str]:
        found = await _each(c.throttles.names() for c in self._client.clients)
        return sorted({name for names in found for name in names})


class AsyncShardedClient:
    """A namespace of several shards, for asyncio code; the arguments are
    :class:`qless_py.ShardedClient`'s and the keywords :class:`~qless_py.aio.AsyncClient`'s.
    """

    def __init__(self, url: str | None = None, *, namespace: str | None = None,
                 shards: int | None = None, **client_options: Any) -> None:
        self.url, name, count = shards_of_url(url, namespace, shards)
        self.shards = Shards(name, count)
        plain = without_shards(self.url)
        self.clients: list[AsyncClient] = [AsyncClient(plain, namespace=shard,
                                                       **client_options)
                                           for shard in self.shards.names]
        self._base: AsyncClient | None = None
        self._base_options = client_options
        self._verified = False
        self._turn = 0
        self.keys = Keys(self.shards.name)
        self.worker_name = self.clients[0].worker_name
        self.queues = AsyncShardedQueues(self)
        self.jobs = AsyncShardedJobs(self)
        self.workers = AsyncShardedWorkers(self)
        self.config = AsyncShardedConfig(self)
        self.throttles = AsyncShardedThrottles(self)

    @property
    def namespace(self) -> str:
        return self.shards.name

    def client_of(self, jid: str) -> AsyncClient:
        return self.clients[self.shards.of(jid)]

    def next_turn(self) -> int:
        self._turn += 1  # one event loop: no lock needed
        return self._turn % self.shards.count

    async def verify(self, *, record: bool = True) -> None:
        """Record (unless ``record`` is false) or compare the namespace's shard count."""
        if self._verified:
            return
        if self._base is None:
            self._base = AsyncClient(without_shards(self.url), namespace=self.shards.name,
                                     **self._base_options)
        key = record_key(self.shards.name)
        redis = self._base.redis
        if not (record and await redis.set(key, self.shards.count, nx=True)):
            check_recorded(self.shards.name, self.shards.count, await redis.get(key))
        self._verified = record

    async def track(self, jid: str) -> bool:
        tracked: bool = await self.client_of(jid).track(jid)
        return tracked

    async def untrack(self, jid: str) -> bool:
        untracked: bool = await self.client_of(jid).untrack(jid)
        return untracked

    async def tags(self, offset: int = 0, count: int = 100) -> list[str]:
        return merged_tags(await _each(c.tags(0, offset + count) for c in self.clients),
                           offset, count)

    async def unfail(self, group: str, queue: str, count: int = 25) -> int:
        moved = 0
        for client in self.clients:
            if moved >= count:
                break
            moved += await client.unfail(group, queue, count - moved)
        return moved

    async def check(self, *, repair: bool = False, resume: str = "",
                    budget: int | None = DEFAULT_BUDGET, progress: Progress | None = None,
                    steps: int | None = None) -> CheckReport:
        whole_check(resume, steps)
        return merged_reports([await client.check(repair=repair, budget=budget,
                                                  progress=progress)
                               for client in self.clients])

    async def close(self) -> None:
        for client in [*self.clients, *([self._base] if self._base else [])]:
            await client.close()

    async def __aenter__(self) -> AsyncShardedClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<qless_py.aio.AsyncShardedClient {self.shards.name} of {self.shards.count} " \
               "shards>"
