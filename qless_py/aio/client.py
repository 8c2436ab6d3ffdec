"""AsyncClient: the async twin of :class:`qless_py.Client`, on ``redis.asyncio``.

It has the same collections (``queues``, ``jobs``, ``workers``, ``config``, ``events``) and
connects where and how the sync client does (one :class:`~qless_py.connect.endpoint.Endpoint`,
the same URL forms, options and refusals). Every call that talks to the server is a
coroutine; what it sends and how the reply is read come from :mod:`qless_py.calls`, the
code the sync client runs.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from typing import Any, TypeVar

import redis.asyncio

# the script is read at import, not when a client is made inside a running loop
from qless_py import codecs, lua
from qless_py.aio.config import Config
from qless_py.aio.core import AsyncCore
from qless_py.aio.events import Events
from qless_py.aio.job import Job
from qless_py.aio.queue import Queue
from qless_py.aio.recurring import RecurringJob
from qless_py.aio.throttles import Throttles
from qless_py.calls import client as calls
from qless_py.calls.check import (
    DEFAULT_BUDGET,
    CheckReport,
    CheckSummary,
    Progress,
    check_steps,
    summary_from_hash,
)
from qless_py.calls.failures import (
    DEFAULT_BATCH,
    GroupResult,
    cancel_group_steps,
    retry_group_steps,
)
from qless_py.calls.reads import Reads
from qless_py.connect.aio_redis_clients import endpoint_of, make_async_redis
from qless_py.connect.drive import drive
from qless_py.connect.endpoint import Endpoint, resolve_url, url_shards, without_option
from qless_py.connect.wire import Arg
from qless_py.keys import Keys
from qless_py.stats import QueueStats

T = TypeVar("T")

class Queues:
    """``client.queues[name]`` gives a Queue; ``await client.queues.counts`` all queues'
    counts."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    def __getitem__(self, name: str) -> Queue:
        return Queue(name, self._client)

    @property
    async def counts(self) -> list[dict[str, Any]]:
        return await self._client.core.send(calls.queue_counts_call())

    async def names(self) -> list[str]:
        return await self._client.core.send(calls.queue_names_call())

    async def stats(self, names: Iterable[str], date: float | None = None, *,
                    bins: bool = False) -> dict[str, QueueStats]:
        """The statistics of several queues in one round trip (as
        :meth:`qless_py.client.client.Queues.stats`)."""
        return await self._client.core.send_batch(calls.queue_stats_batch(names, date, bins))


class Jobs(calls.JobsBase[Job, RecurringJob]):
    """Jobs by jid (``await client.jobs[jid]``), and the core's job listings."""

    job_type = Job
    recurring_type = RecurringJob
    _client: AsyncClient

    async def __getitem__(self, jid: str) -> Job | RecurringJob | None:
        """The job or recurring template with this jid, or None."""
        return await self._client.core.run(self._job_steps(jid))

    async def get(self, *jids: str) -> list[Job]:
        """The jobs that exist among ``jids`` (unknown jids are left out), in order."""
        return await self._client.core.send(self._get_call(jids)) if jids else []

    async def cancel(self, *jids: str) -> list[str]:
        """Cancel several jobs at once (a job's dependents must be among them)."""
        return await self._client.core.send(self._cancel_call(jids)) if jids else []

    async def complete(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jids of completed jobs, most recent first."""
        return await self._client.core.send(self._complete_call(offset, count))

    async def tracked(self) -> dict[str, list[Any]]:
        """``{"jobs": [Job...], "expired": [jid...]}`` for every tracked jid."""
        return await self._client.core.send(self._tracked_call())

    async def tagged(self, tag: str, offset: int = 0, count: int = 25) -> dict[str, Any]:
        """``{"total": n, "jobs": [jid...]}`` for jobs carrying ``tag``, oldest first."""
        return await self._client.core.send(self._tagged_call(tag, offset, count))

    async def recurring(self, queues: Iterable[str] | None = None) -> list[RecurringJob]:
        """Every recurring template of the given queues (default all), by queue."""
        return await self._client.core.run(self._recurring_steps(queues))

    async def retry_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        """Put every job of a failure group back into the queue it failed in, ``batch``
        jobs per round trip (see :mod:`qless_py.calls.failures`)."""
        return await self._client.core.run(retry_group_steps(self, group, batch))

    async def cancel_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        """Cancel every job of a failure group, ``batch`` jobs per round trip (see
        :mod:`qless_py.calls.failures`)."""
        return await self._client.core.run(cancel_group_steps(self, group, batch))

    async def failed(self, group: str | None = None, start: int = 0,
                     limit: int = 25) -> dict[str, Any]:
        """Without a group: ``{group: count}``. With one: ``{"total", "jobs": [Job...]}``."""
        return await self._client.core.run(self._failed_steps(group, start, limit))


class Workers:
    """``await client.workers.counts`` and ``await client.workers[name]``."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    @property
    async def counts(self) -> list[dict[str, Any]]:
        """``[{"name", "jobs", "stalled"}]``, most recently active first."""
        return await self._client.core.send(calls.worker_counts_call())

    async def __getitem__(self, name: str) -> dict[str, list[str]]:
        """``{"jobs": [jid...], "stalled": [jid...]}`` for one worker."""
        return await self._client.core.send(calls.worker_call(name))

    async def deregister(self, *names: str) -> None:
        """Remove workers from the registry (their job lists stay)."""
        if names:
            await self._client.core.send(calls.deregister_call(names))


class AsyncClient:
    """A connection to one server holding qless data, for asyncio code.

    Takes the arguments of :class:`qless_py.Client` (docs/client.md lists the URL forms
    and options); ``redis_client`` is a ``redis.asyncio.Redis``. Nothing connects until
    the first call. ``async with AsyncClient(...) as client:`` closes the pool (and stops
    the event listener) at the end, as ``await client.close()`` does.
    """

    def __new__(cls, url: str | None = None, *, shards: int | None = None,
                **options: Any) -> Any:
        """An AsyncClient, or, given more than one shard (``shards``, or ``shards=`` in the
        URL), a :class:`~qless_py.aio.sharded.AsyncShardedClient` of that many shards
        (docs/cluster.md, "Sharded namespaces")."""
        if cls is AsyncClient and (shards not in (None, 1) or url_shards(url) > 1):
            import importlib

            sharded = importlib.import_module("qless_py.aio.sharded").AsyncShardedClient
            return sharded(url, shards=shards, **options)
        return super().__new__(cls)

    def __init__(self, url: str | None = None, *, worker_name: str | None = None,
                 codec: str = "json", redis_client: redis.asyncio.Redis | None = None,
                 hostname: str | None = None, socket_timeout: float | None = None,
                 client_name: str | None = None, ssl_ca_certs: str | None = None,
                 ssl_certfile: str | None = None, ssl_keyfile: str | None = None,
                 ssl_cert_reqs: str | None = None,
                 ssl_check_hostname: bool | None = None,
                 namespace: str | None = None, shards: int | None = None) -> None:
        self.url = resolve_url(url)
        self.codec: codecs.CodecName = codecs.check_codec(codec)
        name = worker_name or hostname
        self.worker_name: str = name or f"{socket.gethostname()}-{os.getpid()}"
        self.socket_timeout = socket_timeout
        # what another namespace's client (other()) is made with, besides the URL
        self._settings: dict[str, Any] = {
            "worker_name": self.worker_name, "codec": codec, "socket_timeout": socket_timeout,
            "client_name": client_name, "ssl_ca_certs": ssl_ca_certs,
            "ssl_certfile": ssl_certfile, "ssl_keyfile": ssl_keyfile,
            "ssl_cert_reqs": ssl_cert_reqs, "ssl_check_hostname": ssl_check_hostname}
        self._others: dict[str | None, AsyncClient] = {}
        self._redis: redis.asyncio.Redis | None = redis_client
        self._made_redis = False
        self._endpoint: Endpoint | None = None
        if redis_client is None:
            # A bad URL fails here (ValueError), not on first use.
            self._endpoint = Endpoint.from_url(
                self.url, timeout=socket_timeout, client_name=client_name,
                ssl_ca_certs=ssl_ca_certs, ssl_certfile=ssl_certfile,
                ssl_keyfile=ssl_keyfile, ssl_cert_reqs=ssl_cert_reqs,
                ssl_check_hostname=ssl_check_hostname, namespace=namespace,
                shards=None if shards in (None, 1) else shards)
            namespace = self._endpoint.namespace
            if self._endpoint.shards > 1 or (shards or 1) > 1:
                raise ValueError(f"namespace {namespace!r} is given with "
                                 f"{self._endpoint.shards} shards: an AsyncClient serves "
                                 "one namespace; use qless_py.aio.AsyncShardedClient")
        self.keys = Keys(namespace)  # as Client's
        self.core = AsyncCore(lambda: self.redis, *lua.script_for(namespace))
        self.core.keys = self.keys.core_keys
        if self._endpoint is not None and self._endpoint.wait_replicas:
            self.core.confirm = (self._endpoint.wait_replicas,
                                 max(1, round(self._endpoint.wait_timeout * 1000)))
        self.queues = Queues(self)
        self.jobs = Jobs(self)
        self.workers = Workers(self)
        self.config = Config(self)
        self.throttles = Throttles(self)
        self._events: Events | None = None

    @property
    def redis(self) -> redis.asyncio.Redis:
        """The ``redis.asyncio.Redis`` client (``decode_responses=False``), made on first
        use (making it connects nothing)."""
        if self._redis is None:
            self._redis = make_async_redis(self.settings)
            self._made_redis = True
        return self._redis

    @property
    def settings(self) -> Endpoint:
        """Where and how this client connects (read from ``redis_client`` if one was given;
        :class:`~qless_py.errors.UnsupportedSettingError` if it cannot be described)."""
        if self._endpoint is None:
            assert self._redis is not None
            self._endpoint = endpoint_of(self._redis)
        return self._endpoint

    def endpoint(self) -> Endpoint:
        """:attr:`settings` for a worker's own connections, named
        ``<client_name>:<worker name>`` (as :meth:`qless_py.Client.endpoint`)."""
        settings = self.settings.replace(namespace=self.keys.namespace)
        return settings.named(f"{settings.client_name or 'qless-py'}:{self.worker_name}")

    @property
    def events(self) -> Events:
        """The pub/sub listener (created on first use; ``await events.start()`` or
        ``async for event in client.events``)."""
        if self._events is None:
            self._events = Events(self)
        return self._events

    async def _read(self, read: Reads[T]) -> T:
        """Run a read of :mod:`qless_py.calls.reads` on :attr:`redis`."""
        return await drive(read, self._send_read)

    async def _send_read(self, command: tuple[Arg, ...]) -> Any:
        return await self.redis.execute_command(*command)  # type: ignore[no-untyped-call]

    async def __call__(self, command: str, *args: Arg) -> Any:
        """Run a core command by name; see ``core.call``."""
        return await self.core.call(command, *args)

    def __repr__(self) -> str:
        where = str(self._endpoint) if self._endpoint is not None else "redis_client"
        return f"<qless_py.aio.AsyncClient {where} as {self.worker_name}>"

    async def track(self, jid: str) -> bool:
        """Track a job: its events are published and it shows in ``jobs.tracked()``."""
        return await self.core.send(calls.track_call("track", jid))

    async def untrack(self, jid: str) -> bool:
        return await self.core.send(calls.track_call("untrack", jid))

    async def check(self, *, repair: bool = False, resume: str = "",
                    budget: int | None = DEFAULT_BUDGET, progress: Progress | None = None,
                    steps: int | None = None) -> CheckReport:
        """:meth:`qless_py.Client.check`, awaited."""
        return await self.core.run(check_steps(repair, resume, budget, progress, steps))

    async def last_check(self) -> CheckSummary | None:
        """The summary of the last check that ran to its end, or None."""
        return summary_from_hash(await self.redis.hgetall(self.keys.check_summary))

    async def tags(self, offset: int = 0, count: int = 100) -> list[str]:
        """The most used tags (used at least twice), most used first."""
        return await self.core.send(calls.tags_call(offset, count))

    async def unfail(self, group: str, queue: str, count: int = 25) -> int:
        """Move the oldest ``count`` jobs of failure ``group`` into ``queue``."""
        return await self.core.send(calls.unfail_call(group, queue, count))

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def other(self, namespace: str | None) -> AsyncClient:
        """A client like this one of another namespace (None: the default one), made on
        first use and closed with this one; this client itself for its own namespace."""
        if namespace == self.keys.namespace:
            return self
        if namespace not in self._others:
            if self._endpoint is None:
                raise ValueError("a client made with redis_client= cannot reach another "
                                 "namespace: its URL does not say where")
            self._others[namespace] = AsyncClient(without_option(self.url, "namespace"),
                                                  namespace=namespace, **self._settings)
        return self._others[namespace]

    async def close(self) -> None:
        """Stop the event listener and close the connection pool."""
        for other in self._others.values():
            await other.close()
        self._others.clear()
        if self._events is not None:
            await self._events.stop()
        if self._redis is not None:
            # redis.asyncio leaves a pool it was given open; ours is closed too
            await self._redis.aclose(close_connection_pool=self._made_redis)

    aclose = close
