"""ShardedClient: one namespace made of several shards (``qless_py.shards``), each served by
a plain :class:`~qless_py.Client` of its own namespace, so each shard's calls go to the
master that holds it.

What it adds over the shards' clients: ``queues[name].put`` places each job on its shard
(``Shards.place``), ``pop`` takes from every shard in turn, ``jobs[jid]`` asks the jid's
shard alone, and counts are summed over the shards. A job it hands out carries its shard's
client, so ``complete``, ``fail``, ``heartbeat`` and the rest go to the job's shard.
Anything else (failures, tags, statistics, throttles, config) is per shard:
``client.clients[i]`` (docs/cluster.md, "Sharded namespaces").
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, Literal, overload

from qless_py.calls.check import DEFAULT_BUDGET, CheckReport, CheckSummary, Progress
from qless_py.calls.queue import PUT_MANY_CHUNK, PutItem
from qless_py.calls.remote import RemoteJob
from qless_py.client.client import Client
from qless_py.client.job import Job
from qless_py.client.relay import Relay
from qless_py.client.sharded_views import (
    ShardedConfig,
    ShardedJobs,
    ShardedThrottles,
    ShardedWorkers,
)
from qless_py.connect.endpoint import Endpoint
from qless_py.keys import Keys
from qless_py.shards import Shards
from qless_py.shards.clients import (
    put_plan,
    put_spec,
    shards_of_url,
    verify_count,
    whole_check,
    without_shards,
)
from qless_py.shards.merge import interleaved, merged_counts, merged_reports, merged_tags
from qless_py.stats import QueueStats, merge_stats

__all__ = ["ShardedClient", "ShardedQueue"]



class ShardedQueue:
    """A queue of a sharded namespace: the same queue name on every shard."""

    def __init__(self, name: str, client: ShardedClient) -> None:
        self.name = name
        self.client = client

    def on(self, shard: int) -> Any:
        """The queue on one shard (a :class:`~qless_py.Queue` of that shard's client)."""
        return self.client.clients[shard].queues[self.name]

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
        """Put a job on its shard (``Shards.place``); the arguments are those of
        :meth:`qless_py.Queue.put`. A job whose jid, key and dependencies cannot share a
        shard is a ValueError in one line, and nothing is written."""
        shard, jid, deps, named = put_plan(self.client.shards, jid, key, depends, throttles)
        self.client.verify()
        result: str | None = self.on(shard).put(klass, data, priority, tags, delay, retries,
                                                jid, deps, throttles=named, key=key, ttl=ttl,
                                                unique=unique)
        return result

    def put_many(self, items: Iterable[PutItem], **options: Any) -> list[Any]:
        """Put many jobs, each on its shard, in one round trip per shard (and per 1,000
        jobs); returns their jids in the order given. ``options`` are those of
        :meth:`qless_py.Queue.put_many`."""
        placed, count = put_spec(self.client.shards, items, options)
        if not placed:
            return []
        self.client.verify()
        out: list[Any] = [None] * count
        for shard, entries in sorted(placed.items()):
            for start in range(0, len(entries), PUT_MANY_CHUNK):
                chunk = entries[start:start + PUT_MANY_CHUNK]
                jids = self.on(shard).put_many([spec for _, spec in chunk], **options)
                for (index, _), jid in zip(chunk, jids, strict=True):
                    out[index] = jid
        return out

    @overload
    def pop(self, count: None = None, *, worker: str | None = None) -> Job | None: ...
    @overload
    def pop(self, count: int, *, worker: str | None = None) -> list[Job]: ...

    def pop(self, count: int | None = None, *,
            worker: str | None = None) -> Job | list[Job] | None:
        """Lease jobs from the shards in turn, starting one shard further on every call:
        without ``count`` one Job or None, with it a list of up to ``count`` jobs."""
        shards = self.client.shards.count
        start = self.client.next_turn()
        if count is None:
            for step in range(shards):
                job: Job | None = self.on((start + step) % shards).pop(worker=worker)
                if job is not None:
                    return job
            return None
        jobs: list[Job] = []
        for step in range(shards):
            if len(jobs) >= count:
                break
            jobs.extend(self.on((start + step) % shards).pop(count - len(jobs), worker=worker))
        return jobs

    def recur(self, klass: type | str, data: Any, interval: float, offset: float = 0,
              priority: float | None = 0, tags: Iterable[str] | None = (),
              retries: int | None = 0, jid: str | None = None, backlog: float = 0, *,
              throttles: Iterable[str] | None = None, key: str | None = None,
              ttl: float | None = None) -> str:
        """A recurring template on the shard its jobs belong on (as ``put`` places a job;
        the jobs it spawns take their template's jid's shard); see
        :meth:`qless_py.Queue.recur`."""
        named = list(throttles) if throttles is not None else None
        shard, jid = self.client.shards.place(jid, key, (), named or ())
        self.client.verify()
        made: str = self.on(shard).recur(klass, data, interval, offset, priority, tags,
                                         retries, jid, backlog, throttles=named, key=key,
                                         ttl=ttl)
        return made

    @overload
    def peek(self, count: None = None) -> Job | None: ...
    @overload
    def peek(self, count: int) -> list[Job]: ...

    def peek(self, count: int | None = None) -> Job | list[Job] | None:
        """The jobs the next pops would hand out, shard by shard in turn."""
        lists = [self.on(i).peek(count or 1) for i in range(self.client.shards.count)]
        jobs = interleaved(lists, 0, count or 1)
        if count is None:
            return jobs[0] if jobs else None
        return jobs

    def pause(self) -> None:
        """Pause the queue on every shard."""
        for i in range(self.client.shards.count):
            self.on(i).pause()

    def unpause(self) -> None:
        for i in range(self.client.shards.count):
            self.on(i).unpause()

    @property
    def paused(self) -> bool:
        """Paused on every shard."""
        return all(self.on(i).paused for i in range(self.client.shards.count))

    @property
    def counts(self) -> dict[str, Any]:
        """The queue's counts summed over the shards (``paused``: on every shard)."""
        return merged_counts([self.on(i).counts for i in range(self.client.shards.count)])[0]

    def stats(self, date: float | None = None) -> QueueStats:
        """The day's statistics of the queue on every shard, merged."""
        return merge_stats(self.on(i).stats(date) for i in range(self.client.shards.count))

    def stats_range(self, start: float, end: float | None = None) -> QueueStats:
        return merge_stats(self.on(i).stats_range(start, end)
                           for i in range(self.client.shards.count))

    def length(self) -> int:
        return sum(self.on(i).length() for i in range(self.client.shards.count))

    def __len__(self) -> int:
        return self.length()

    @property
    def heartbeat(self) -> int:
        """Lock length in seconds (read from the first shard; set on every shard)."""
        value: int = self.on(0).heartbeat
        return value

    @heartbeat.setter
    def heartbeat(self, seconds: int) -> None:
        self.set_heartbeat(seconds)

    def set_heartbeat(self, seconds: int) -> None:
        for i in range(self.client.shards.count):
            self.on(i).set_heartbeat(seconds)

    @property
    def jobs(self) -> ShardedQueueJobs:
        return ShardedQueueJobs(self)

    def __repr__(self) -> str:
        return f"<qless_py.ShardedQueue {self.name} of {self.client.shards.name}>"


class ShardedQueueJobs:
    """Jids of the queue's jobs by state over every shard, the shards interleaved one by one
    (the order a worker popping them in turn meets them)."""

    def __init__(self, queue: ShardedQueue) -> None:
        self._queue = queue

    def _list(self, state: str, offset: int, count: int) -> list[str]:
        wanted = -1 if count < 0 else offset + count
        lists = [getattr(self._queue.on(i).jobs, state)(0, wanted)
                 for i in range(self._queue.client.shards.count)]
        return interleaved(lists, offset, count)

    def waiting(self, offset: int = 0, count: int = 25) -> list[str]:
        return self._list("waiting", offset, count)

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
        return self._list("throttled", offset, count)


class ShardedQueues:
    def __init__(self, client: ShardedClient) -> None:
        self._client = client

    def __getitem__(self, name: str) -> ShardedQueue:
        return ShardedQueue(name, self._client)

    @property
    def counts(self) -> list[dict[str, Any]]:
        """Every queue's counts summed over the shards, by name."""
        return merged_counts([c for client in self._client.clients for c in client.queues.counts])

    def names(self) -> list[str]:
        return sorted({name for client in self._client.clients for name in client.queues.names()})

    def stats(self, names: Iterable[str], date: float | None = None, *,
              bins: bool = False) -> dict[str, QueueStats]:
        """Several queues' statistics for a day, each merged over the shards (one round
        trip per shard)."""
        wanted = list(names)
        per_shard = [client.queues.stats(wanted, date, bins=bins)
                     for client in self._client.clients]
        return {name: merge_stats(found[name] for found in per_shard if name in found)
                for name in wanted}


class ShardedClient:
    """A client of a namespace made of ``shards`` shards (docs/cluster.md).

    ``url`` and the keywords are those of :class:`~qless_py.Client`; ``namespace`` (or the
    URL's ``namespace=``) names the namespace and ``shards`` (or the URL's ``shards=``)
    its number of shards. The first call that writes records the number in the namespace
    (``ql:{<name>}:shards``) or checks it against the recorded one.
    """

    def __init__(self, url: str | None = None, *, namespace: str | None = None,
                 shards: int | None = None, **client_options: Any) -> None:
        self.url, name, count = shards_of_url(url, namespace, shards)
        self.shards = Shards(name, count)
        plain = without_shards(self.url)
        self.clients: list[Client] = [Client(plain, namespace=name, **client_options)
                                      for name in self.shards.names]
        self._base: Client | None = None
        self._base_options = client_options
        self._verified = False
        self._lock = threading.Lock()
        self._turn = 0
        self.keys = Keys(self.shards.name)
        self.worker_name = self.clients[0].worker_name
        self.queues = ShardedQueues(self)
        self.jobs = ShardedJobs(self)
        self.workers = ShardedWorkers(self)
        self.config = ShardedConfig(self)
        self.throttles = ShardedThrottles(self)

    @property
    def namespace(self) -> str:
        return self.shards.name

    def client_of(self, jid: str) -> Client:
        """The client of the shard that holds ``jid``."""
        return self.clients[self.shards.of(jid)]

    def next_turn(self) -> int:
        with self._lock:
            self._turn += 1
            return self._turn % self.shards.count

    def verify(self, *, record: bool = True) -> None:
        """Record (unless ``record`` is false) or compare the namespace's shard count: a
        :class:`~qless_py.shards.ShardsMismatch` when another count is recorded. Every put
        calls it first; it talks to the server once per client."""
        if self._verified:
            return
        if self._base is None:
            self._base = Client(without_shards(self.url), namespace=self.shards.name,
                                **self._base_options)
        verify_count(self._base.redis.execute_command, self.shards.name, self.shards.count,
                     record=record)
        self._verified = record

    @property
    def redis(self) -> Any:
        """The first shard's ``redis.Redis`` (its master's; for reads of the server itself,
        such as INFO)."""
        return self.clients[0].redis

    def endpoint(self) -> Endpoint:
        """Where the shards' connections go (the first shard's settings, in the namespace
        of the whole; each shard's client finds its own master)."""
        return self.clients[0].endpoint().replace(namespace=self.shards.name)

    def last_check(self) -> CheckSummary | None:
        """The shards' last finished checks as one (None until every shard has one)."""
        found = [client.last_check() for client in self.clients]
        if any(summary is None for summary in found):
            return None
        done = [summary for summary in found if summary is not None]
        counts: dict[str, int] = {}
        for summary in done:
            for name, n in summary.counts.items():
                counts[name] = counts.get(name, 0) + n
        return CheckSummary(min(s.started for s in done), max(s.finished for s in done),
                            sum(s.keys for s in done), counts)

    def track(self, jid: str) -> bool:
        return self.client_of(jid).track(jid)

    def untrack(self, jid: str) -> bool:
        return self.client_of(jid).untrack(jid)

    def tags(self, offset: int = 0, count: int = 100) -> list[str]:
        """The most used tags over every shard (each shard's, most used first, merged)."""
        return merged_tags([client.tags(0, offset + count) for client in self.clients],
                           offset, count)

    def check(self, *, repair: bool = False, resume: str = "",
              budget: int | None = DEFAULT_BUDGET, progress: Progress | None = None,
              steps: int | None = None) -> CheckReport:
        """:meth:`qless_py.Client.check` of every shard, one after the other, in one report
        (a shard's findings name its keys). A check of one shard can be resumed; this one
        runs to its end, so it takes neither ``resume`` nor ``steps``."""
        whole_check(resume, steps)
        return merged_reports(client.check(repair=repair, budget=budget, progress=progress)
                              for client in self.clients)

    def relay(self, count: int = 100) -> int:
        """Apply up to ``count`` messages of every shard's outbox (see
        :meth:`qless_py.Client.relay`); returns how many were applied."""
        own: dict[str | None, Client] = dict(zip(self.shards.names, self.clients, strict=True))
        relay = Relay(lambda ns: own.get(ns) or self.clients[0].other(ns))
        return sum(relay.step(client, count=count) for client in self.clients)

    def unfail(self, group: str, queue: str, count: int = 25) -> int:
        """Move up to ``count`` of the oldest jobs of failure ``group`` into ``queue``,
        shard by shard."""
        moved = 0
        for client in self.clients:
            if moved >= count:
                break
            moved += client.unfail(group, queue, count - moved)
        return moved

    def close(self) -> None:
        for client in [*self.clients, *([self._base] if self._base else [])]:
            client.close()

    def __enter__(self) -> ShardedClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<qless_py.ShardedClient {self.shards.name} of {self.shards.count} shards>"
