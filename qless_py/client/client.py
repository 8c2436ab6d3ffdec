"""Client: the connection, the core handle, and the collections ``queues``, ``jobs``,
``workers``, ``config``, ``throttles`` and ``events`` in the shape qless-py users know
(sync; the async client is ``qless_py.aio.AsyncClient``). What each call sends is in
:mod:`qless_py.calls`.
"""

from __future__ import annotations

import importlib
import os
import socket
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from qless_py import codecs
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
from qless_py.client.config import Config
from qless_py.client.core import LuaCore
from qless_py.client.events import Events
from qless_py.client.job import Job
from qless_py.client.queue import Queue
from qless_py.client.recurring import RecurringJob
from qless_py.client.throttles import Throttles
from qless_py.connect.drive import at_once, drive
from qless_py.connect.endpoint import (
    DEFAULT_URL,
    Endpoint,
    resolve_url,
    url_shards,
    without_option,
)
from qless_py.connect.wire import Arg
from qless_py.keys import Keys
from qless_py.stats import QueueStats

if TYPE_CHECKING:
    import redis

T = TypeVar("T")

__all__ = ["DEFAULT_URL", "Client", "Jobs", "Queues", "Workers", "resolve_url"]

def _core_source(namespace: str | None) -> tuple[bytes, str]:
    """The script a client of ``namespace`` calls and its SHA-1 (qless_py.lua.script_for)."""
    # qless_py.lua is built by the core's tooling; imported late so a broken build only
    # affects clients, not ``import qless_py``.
    lua = importlib.import_module("qless_py.lua")
    source, sha = lua.script_for(namespace)
    return bytes(source), str(sha)


_redis_lock = threading.Lock()
_others_lock = threading.Lock()  # Client.other: job threads and a worker's relay share it


class Queues:
    """``client.queues[name]`` gives a Queue; ``client.queues.counts`` all queues' counts."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def __getitem__(self, name: str) -> Queue:
        return Queue(name, self._client)

    @property
    def counts(self) -> list[dict[str, Any]]:
        return self._client.core.send(calls.queue_counts_call())

    def names(self) -> list[str]:
        return self._client.core.send(calls.queue_names_call())

    def stats(self, names: Iterable[str], date: float | None = None, *,
              bins: bool = False) -> dict[str, QueueStats]:
        """The statistics of several queues for the day containing ``date`` (default
        today), with their fine histograms, in one round trip. qless's 148 bins cost the
        server ten times the rest, so they come only with ``bins=True`` (without, each
        ``histogram`` is ``()``)."""
        return self._client.core.send_batch(calls.queue_stats_batch(names, date, bins))


class Jobs(calls.JobsBase[Job, RecurringJob]):
    """Jobs by jid, and the core's job listings."""

    job_type = Job
    recurring_type = RecurringJob
    _client: Client

    def __getitem__(self, jid: str) -> Job | RecurringJob | None:
        """The job or recurring template with this jid, or None."""
        return self._client.core.run(self._job_steps(jid))

    def get(self, *jids: str) -> list[Job]:
        """The jobs that exist among ``jids`` (unknown jids are left out), in order."""
        return self._client.core.send(self._get_call(jids)) if jids else []

    def cancel(self, *jids: str) -> list[str]:
        """Cancel several jobs at once (a job's dependents must be among them, else the
        core refuses and nothing is cancelled); returns the jids given."""
        return self._client.core.send(self._cancel_call(jids)) if jids else []

    def complete(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jids of completed jobs, most recent first."""
        return self._client.core.send(self._complete_call(offset, count))

    def tracked(self) -> dict[str, list[Any]]:
        """``{"jobs": [Job...], "expired": [jid...]}`` for every tracked jid."""
        return self._client.core.send(self._tracked_call())

    def tagged(self, tag: str, offset: int = 0, count: int = 25) -> dict[str, Any]:
        """``{"total": n, "jobs": [jid...]}`` for jobs carrying ``tag``, oldest first."""
        return self._client.core.send(self._tagged_call(tag, offset, count))

    def recurring(self, queues: Iterable[str] | None = None) -> list[RecurringJob]:
        """Every recurring template of the given queues (default all), by queue."""
        return self._client.core.run(self._recurring_steps(queues))

    def retry_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        """Put every job of a failure group back into the queue it failed in, ``batch``
        jobs per round trip (see :mod:`qless_py.calls.failures`)."""
        return self._client.core.run(retry_group_steps(self, group, batch))

    def cancel_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        """Cancel every job of a failure group, ``batch`` jobs per round trip (a job whose
        dependents stay is left in the group; see :mod:`qless_py.calls.failures`)."""
        return self._client.core.run(cancel_group_steps(self, group, batch))

    def failed(self, group: str | None = None, start: int = 0,
               limit: int = 25) -> dict[str, Any]:
        """Without a group: ``{group: count}``. With one: ``{"total", "jobs": [Job...]}``."""
        return self._client.core.run(self._failed_steps(group, start, limit))


class Workers:
    """``client.workers.counts`` and ``client.workers[name]``."""

    def __init__(self, client: Client) -> None:
        self._client = client

    @property
    def counts(self) -> list[dict[str, Any]]:
        """``[{"name", "jobs", "stalled"}]``, most recently active first."""
        return self._client.core.send(calls.worker_counts_call())

    def __getitem__(self, name: str) -> dict[str, list[str]]:
        """``{"jobs": [jid...], "stalled": [jid...]}`` for one worker."""
        return self._client.core.send(calls.worker_call(name))

    def deregister(self, *names: str) -> None:
        """Remove workers from the registry (their job lists stay)."""
        if names:
            self._client.core.send(calls.deregister_call(names))


class Client:
    """A connection to one server holding qless data.

    ``url``: ``redis://``, ``rediss://``, ``unix://`` or ``redis+sentinel://`` (default
    ``$QLESS_URL``, else ``redis://127.0.0.1:6379/0``); docs/client.md lists the forms and
    options. ``socket_timeout`` applies when the URL sets none. ``client_name`` and the
    ``ssl_*`` keywords add to the URL's options (one given in both is refused).
    ``redis_client`` replaces the URL: the client then uses that ``redis.Redis``, and a
    worker's own connections reproduce its settings or refuse to start.
    ``client.redis`` is a ``redis.Redis`` with ``decode_responses=False``; the core's
    replies reach callers as ``str``.
    """

    def __new__(cls, url: str | None = None, *, shards: int | None = None,
                **options: Any) -> Any:
        """A Client, or, given more than one shard (``shards``, or ``shards=`` in the
        URL), a :class:`~qless_py.client.sharded.ShardedClient` of that many shards
        (docs/cluster.md, "Sharded namespaces")."""
        if cls is Client and (shards not in (None, 1) or url_shards(url) > 1):
            import importlib

            sharded = importlib.import_module("qless_py.client.sharded").ShardedClient
            return sharded(url, shards=shards, **options)
        return super().__new__(cls)

    def __init__(self, url: str | None = None, *, worker_name: str | None = None,
                 codec: str = "json", redis_client: redis.Redis | None = None,
                 hostname: str | None = None, socket_timeout: float | None = None,
                 client_name: str | None = None, ssl_ca_certs: str | None = None,
                 ssl_certfile: str | None = None, ssl_keyfile: str | None = None,
                 ssl_cert_reqs: str | None = None,
                 ssl_check_hostname: bool | None = None,
                 namespace: str | None = None, shards: int | None = None) -> None:
        self.url = resolve_url(url)
        self.codec: codecs.CodecName = codecs.check_codec(codec)
        # ``hostname`` is qless-py's name for the worker name.
        name = worker_name or hostname
        self.worker_name: str = name or f"{socket.gethostname()}-{os.getpid()}"
        self.socket_timeout = socket_timeout
        # what another namespace's client (other()) is made with, besides the URL
        self._settings: dict[str, Any] = {
            "worker_name": self.worker_name, "codec": codec, "socket_timeout": socket_timeout,
            "client_name": client_name, "ssl_ca_certs": ssl_ca_certs,
            "ssl_certfile": ssl_certfile, "ssl_keyfile": ssl_keyfile,
            "ssl_cert_reqs": ssl_cert_reqs, "ssl_check_hostname": ssl_check_hostname}
        self._given_redis = redis_client is not None
        # redis-py is imported and the client made on first use: a worker never needs it.
        self._redis: redis.Redis | None = redis_client
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
                                 f"{self._endpoint.shards} shards: a Client serves one "
                                 "namespace; use qless_py.ShardedClient")
        # the namespace's key names; its prefix is the one key every core call declares
        self.keys = Keys(namespace)
        self.core = LuaCore(lambda: self.redis, *_core_source(namespace))
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
        self._others: dict[str | None, Client] = {}

    @property
    def redis(self) -> redis.Redis:
        """The ``redis.Redis`` client (``decode_responses=False``), made on first use."""
        if self._redis is None:
            with _redis_lock:  # one client, even when several job threads ask at once
                if self._redis is None:
                    from qless_py.connect.redis_clients import make_redis

                    # a worker's client (switched to direct calls) names these too
                    direct = self.core.transport is not None
                    self._redis = make_redis(self.endpoint() if direct else self.settings)
                    self._made_redis = True
        return self._redis

    @property
    def settings(self) -> Endpoint:
        """Where and how this client connects (read from ``redis_client`` if one was given;
        :class:`~qless_py.errors.UnsupportedSettingError` if it cannot be described)."""
        if self._endpoint is None:
            assert self._redis is not None
            # given a redis.Redis, redis-py is imported already
            from qless_py.connect.redis_clients import endpoint_of

            self._endpoint = endpoint_of(self._redis)
        return self._endpoint

    def endpoint(self) -> Endpoint:
        """:attr:`settings` for a worker's own connections (:mod:`qless_py.connect.resp`), which
        name themselves ``<client_name>:<worker name>`` (``qless-py:<worker name>`` when
        no client name was given) so that ``CLIENT LIST`` tells the workers apart."""
        settings = self.settings.replace(namespace=self.keys.namespace)
        return settings.named(f"{settings.client_name or 'qless-py'}:{self.worker_name}")

    @property
    def _lua(self) -> Any:
        """What core calls go through (a redis-py Script unless temporarily replaced)."""
        return self.core.runner

    @_lua.setter
    def _lua(self, runner: Any) -> None:
        self.core.runner = runner

    @property
    def events(self) -> Events:
        """The pub/sub listener (created on first use; call ``.start()``)."""
        if self._events is None:
            self._events = Events(self)
        return self._events

    def __call__(self, command: str, *args: Arg) -> Any:
        """Run a core command by name (qless-py style); see ``core.call``."""
        return self.core.call(command, *args)

    def _read(self, read: Reads[T]) -> T:
        """Run a read of :mod:`qless_py.calls.reads` on :attr:`redis` (the driver's
        ``perform`` never waits, so it finishes at once)."""
        return at_once(drive(read, self._send_read))

    async def _send_read(self, command: tuple[Arg, ...]) -> Any:
        return self.redis.execute_command(*command)  # type: ignore[no-untyped-call]

    def __repr__(self) -> str:
        where = str(self._endpoint) if self._endpoint is not None else "redis_client"
        return f"<qless_py.Client {where} as {self.worker_name}>"

    def other(self, namespace: str | None) -> Client:
        """A client like this one (server, settings, codec, worker name) of another
        namespace (None: the default one), made on first use and closed with this one;
        this client itself for its own namespace."""
        if namespace == self.keys.namespace:
            return self
        with _others_lock:
            return self._other(namespace)

    def _other(self, namespace: str | None) -> Client:
        if namespace not in self._others:
            if self._endpoint is None or self._given_redis:
                raise ValueError("a client made with redis_client= cannot reach another "
                                 "namespace: its URL does not say where")
            made = Client(without_option(self.url, "namespace"), namespace=namespace,
                          **self._settings)
            if self.core.transport is not None:
                made.core.go_direct(made.endpoint(), self.core.transport.spin)
            self._others[namespace] = made
        return self._others[namespace]

    def relay(self, count: int = 100) -> int:
        """Apply up to ``count`` messages of this namespace's outbox to the namespaces they
        name (dependents released, hand-offs put; docs/protocol.md, "Across namespaces");
        returns how many were applied. Workers do this by themselves."""
        from qless_py.client.relay import Relay

        return Relay(self.other).step(self, count=count)

    def track(self, jid: str) -> bool:
        """Track a job: its events are published and it shows in ``jobs.tracked()``."""
        return self.core.send(calls.track_call("track", jid))

    def untrack(self, jid: str) -> bool:
        return self.core.send(calls.track_call("untrack", jid))

    def tags(self, offset: int = 0, count: int = 100) -> list[str]:
        """The most used tags (used at least twice), most used first."""
        return self.core.send(calls.tags_call(offset, count))

    def unfail(self, group: str, queue: str, count: int = 25) -> int:
        """Move the oldest ``count`` jobs of failure ``group`` into ``queue``."""
        return self.core.send(calls.unfail_call(group, queue, count))

    def check(self, *, repair: bool = False, resume: str = "",
              budget: int | None = DEFAULT_BUDGET,
              progress: Progress | None = None, steps: int | None = None) -> CheckReport:
        """Check every invariant the core keeps, walking the keyspace in bounded steps (at
        most ``budget`` server calls each; None: the core's default), and with ``repair``
        fix each finding as the core would have. ``resume`` continues the check a report's
        ``token`` names; ``steps`` stops after that many steps (``report.token`` then
        resumes). docs/client.md."""
        return self.core.run(check_steps(repair, resume, budget, progress, steps))

    def last_check(self) -> CheckSummary | None:
        """The summary of the last check that ran to its end, or None."""
        return summary_from_hash(self.redis.hgetall(self.keys.check_summary))

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the event listener and close the connection pool."""
        if self._events is not None:
            self._events.stop()
        for other in self._others.values():
            other.close()
        self._others.clear()
        self.core.close()
        if self._redis is not None:
            self._redis.close()
            if self._made_redis:
                # redis-py leaves a pool it was given open; this one is ours
                self._redis.connection_pool.disconnect()
