"""The namespace-wide views of a ShardedClient: jobs, failures, tags, tracking, workers,
config and throttles, each read from every shard and merged (``qless_py.shards.merge``
says how), or sent to the one shard that holds the subject. One round trip per shard (two
where jobs must be fetched to be put in order), never one per job.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

from qless_py.calls.failures import DEFAULT_BATCH, GroupResult
from qless_py.client.job import Job
from qless_py.client.recurring import RecurringJob
from qless_py.client.throttles import Throttle
from qless_py.shards.merge import (
    failed_page,
    merged_completed,
    merged_failed_counts,
    merged_tracked,
    merged_worker,
    merged_workers,
    summed,
    tagged_page,
)

if TYPE_CHECKING:
    from qless_py.client.sharded import ShardedClient


class ShardedJobs:
    """Jobs by jid, each asked of its own shard, and the namespace's job listings."""

    def __init__(self, client: ShardedClient) -> None:
        self._client = client

    def __getitem__(self, jid: str) -> Job | RecurringJob | None:
        return self._client.client_of(jid).jobs[jid]

    def get(self, *jids: str) -> list[Job]:
        """The jobs that exist among ``jids``, in the order given (one round trip per
        shard they are on)."""
        found: dict[str, Job] = {}
        for shard, group in self._client.shards.by_shard(jids).items():
            found.update((job.jid, job) for job in self._client.clients[shard].jobs.get(*group))
        return [found[jid] for jid in jids if jid in found]

    def cancel(self, *jids: str) -> list[str]:
        """Cancel jobs, one core call per shard they are on (a job's dependents are on its
        shard, so each call holds them all)."""
        for shard, group in self._client.shards.by_shard(jids).items():
            self._client.clients[shard].jobs.cancel(*group)
        return list(jids)

    def complete(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jids of completed jobs, most recent first, over every shard."""
        return merged_completed(
            (client.redis.zrevrange(client.keys.completed, 0, offset + count - 1,
                                    withscores=True) for client in self._client.clients),
            offset, count)

    def tracked(self) -> dict[str, list[Any]]:
        """``{"jobs": [Job...], "expired": [jid...]}`` over every shard."""
        return merged_tracked(client.jobs.tracked() for client in self._client.clients)

    def tagged(self, tag: str, offset: int = 0, count: int = 25) -> dict[str, Any]:
        """``{"total": n, "jobs": [jid...]}`` for jobs carrying ``tag``, oldest first."""
        total, jids = 0, []
        for client in self._client.clients:
            found = client.jobs.tagged(tag, 0, offset + count)
            total += found["total"]
            jids += found["jobs"]
        return tagged_page(self.get(*jids), total, offset, count)

    def recurring(self, queues: Iterable[str] | None = None) -> list[RecurringJob]:
        names = None if queues is None else list(queues)
        return [template for client in self._client.clients
                for template in client.jobs.recurring(names)]

    def failed(self, group: str | None = None, start: int = 0,
               limit: int = 25) -> dict[str, Any]:
        """Without a group: ``{group: count}`` summed over the shards. With one:
        ``{"total", "jobs": [Job...]}``, the most recent failures first."""
        if group is None:
            return merged_failed_counts(client.jobs.failed() for client in self._client.clients)
        return failed_page((client.jobs.failed(group, 0, start + limit)
                            for client in self._client.clients), start, limit)

    def retry_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        return summed(client.jobs.retry_group(group, batch) for client in self._client.clients)

    def cancel_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        return summed(client.jobs.cancel_group(group, batch)
                      for client in self._client.clients)


class ShardedWorkers:
    """Workers over every shard: a worker that serves several shards is one row."""

    def __init__(self, client: ShardedClient) -> None:
        self._client = client

    @property
    def counts(self) -> list[dict[str, Any]]:
        """``[{"name", "jobs", "stalled"}]``, in the order the first shard that knows each
        worker lists it (most recently active first)."""
        return merged_workers(row for client in self._client.clients
                              for row in client.workers.counts)

    def __getitem__(self, name: str) -> dict[str, list[str]]:
        return merged_worker(client.workers[name] for client in self._client.clients)

    def deregister(self, *names: str) -> None:
        for client in self._client.clients:
            client.workers.deregister(*names)


class ShardedConfig(MutableMapping[str, Any]):
    """The namespace's configuration: read from the first shard, written to every shard
    (first to last), so that the shards' cores agree on heartbeats, retention and the rest."""

    def __init__(self, client: ShardedClient) -> None:
        self._client = client

    @property
    def all(self) -> dict[str, Any]:
        return self._client.clients[0].config.all

    def __getitem__(self, key: str) -> Any:
        return self._client.clients[0].config[key]

    def __setitem__(self, key: str, value: Any) -> None:
        for client in self._client.clients:
            client.config[key] = value

    def __delitem__(self, key: str) -> None:
        for client in self._client.clients:
            del client.config[key]

    def set(self, key: str, value: Any) -> None:
        self[key] = value

    def unset(self, key: str) -> None:
        del self[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.all)

    def __len__(self) -> int:
        return len(self.all)


class ShardedThrottles:
    """Named throttles: each lives on one shard (``Shards.throttle_shard``), where every job
    that names it is put, so its maximum holds over the whole namespace."""

    def __init__(self, client: ShardedClient) -> None:
        self._client = client

    def __getitem__(self, name: str) -> Throttle:
        shards = self._client.shards
        return self._client.clients[shards.throttle_shard(name)].throttles[name]

    def names(self) -> list[str]:
        return sorted({name for client in self._client.clients
                       for name in client.throttles.names()})
