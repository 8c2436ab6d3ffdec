"""Client: the connection, the core handle, and the collections ``queues``, ``jobs``,
``workers``, ``config`` and ``events`` in the shape qless-py users know.
"""

from __future__ import annotations

import importlib
import json
import os
import socket
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from qless_py import clock, codecs
from qless_py.config import Config
from qless_py.core import Arg, LuaCore
from qless_py.endpoint import Endpoint
from qless_py.events import Events
from qless_py.failures import DEFAULT_BATCH, GroupResult, cancel_group, retry_group
from qless_py.job import Job, as_list
from qless_py.queue import Queue
from qless_py.recurring import RecurringJob
from qless_py.stats import QueueStats

if TYPE_CHECKING:
    import redis

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def resolve_url(url: str | None) -> str:
    """``url``, else ``$QLESS_URL``, else the local default."""
    return url or os.environ.get("QLESS_URL") or DEFAULT_URL


def _core_source() -> tuple[bytes, str]:
    """The shipped script and its SHA-1 (hashed once per process, when qless_py.lua loads)."""
    # qless_py.lua is built by the core's tooling; imported late so a broken build only
    # affects clients, not ``import qless_py``.
    lua = importlib.import_module("qless_py.lua")
    return bytes(lua.SOURCE), str(lua.SHA)


_redis_lock = threading.Lock()


class Queues:
    """``client.queues[name]`` gives a Queue; ``client.queues.counts`` all queues' counts."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def __getitem__(self, name: str) -> Queue:
        return Queue(name, self._client)

    @property
    def counts(self) -> list[dict[str, Any]]:
        return as_list(json.loads(self._client.core.call("queues")))

    def names(self) -> list[str]:
        return [str(item["name"]) for item in self.counts]

    def stats(self, names: Iterable[str], date: float | None = None, *,
              bins: bool = False) -> dict[str, QueueStats]:
        """The statistics of several queues for the day containing ``date`` (default
        today), with their fine histograms, in one round trip. qless's 148 bins cost the
        server ten times the rest, so they come only with ``bins=True`` (without, each
        ``histogram`` is ``()``)."""
        names = list(names)
        when = clock.now() if date is None else date
        calls = [call for name in names for call in QueueStats.core_calls(name, when, bins)]
        replies = self._client.core.call_many(calls) if calls else []
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        if bins:
            return {name: QueueStats.from_core(replies[2 * i], replies[2 * i + 1])
                    for i, name in enumerate(names)}
        return {name: QueueStats.from_core(reply) for name, reply in zip(names, replies,
                                                                       strict=True)}


class Jobs:
    """Jobs by jid, and the core's job listings."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def __getitem__(self, jid: str) -> Job | RecurringJob | None:
        """The job or recurring template with this jid, or None."""
        core = self._client.core
        reply = core.call("get", jid)
        if reply is not None:
            return Job(self._client, json.loads(reply))
        reply = core.call("recur.get", jid)
        if reply is not None:
            return RecurringJob(self._client, json.loads(reply))
        return None

    def get(self, *jids: str) -> list[Job]:
        """The jobs that exist among ``jids`` (unknown jids are left out), in order."""
        if not jids:
            return []
        return Job.from_json(self._client, self._client.core.call("multiget", *jids))

    def cancel(self, *jids: str) -> list[str]:
        """Cancel several jobs at once (a job's dependents must be among them, else the
        core refuses and nothing is cancelled); returns the jids given."""
        if not jids:
            return []
        return as_list(self._client.core.call("cancel", *jids))

    def complete(self, offset: int = 0, count: int = 25) -> list[str]:
        """Jids of completed jobs, most recent first."""
        return as_list(self._client.core.call("jobs", "complete", offset, count))

    def tracked(self) -> dict[str, list[Any]]:
        """``{"jobs": [Job...], "expired": [jid...]}`` for every tracked jid."""
        raw = json.loads(self._client.core.call("track"))
        return {"jobs": [Job(self._client, item) for item in as_list(raw.get("jobs"))],
                "expired": as_list(raw.get("expired"))}

    def tagged(self, tag: str, offset: int = 0, count: int = 25) -> dict[str, Any]:
        """``{"total": n, "jobs": [jid...]}`` for jobs carrying ``tag``, oldest first."""
        raw = json.loads(self._client.core.call("tag", "get", tag, offset, count))
        return {"total": int(raw.get("total", 0)), "jobs": as_list(raw.get("jobs"))}

    def recurring(self, queues: Iterable[str] | None = None) -> list[RecurringJob]:
        """Every recurring template of the given queues (default all), by queue."""
        names = [str(row["name"]) for row in self._client.queues.counts
                 if row.get("recurring")] if queues is None else list(queues)
        jids = [jid for name in names for jid in self._client.queues[name].jobs.recurring(0, -1)]
        replies = self._client.core.call_many([("recur.get", jid) for jid in jids])
        return [RecurringJob(self._client, json.loads(reply)) for reply in replies
                if isinstance(reply, str)]

    def retry_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        """Put every job of a failure group back into its queue (see qless_py.failures)."""
        return retry_group(self._client, group, batch)

    def cancel_group(self, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
        """Cancel every job of a failure group (see qless_py.failures)."""
        return cancel_group(self._client, group, batch)

    def failed(self, group: str | None = None, start: int = 0,
               limit: int = 25) -> dict[str, Any]:
        """Without a group: ``{group: count}``. With one: ``{"total", "jobs": [Job...]}``."""
        if group is None:
            overview: dict[str, Any] = json.loads(self._client.core.call("failed"))
            return {str(k): int(v) for k, v in overview.items()}
        raw = json.loads(self._client.core.call("failed", group, start, limit))
        return {"total": int(raw.get("total", 0)), "jobs": self.get(*as_list(raw.get("jobs")))}


class Workers:
    """``client.workers.counts`` and ``client.workers[name]``."""

    def __init__(self, client: Client) -> None:
        self._client = client

    @property
    def counts(self) -> list[dict[str, Any]]:
        """``[{"name", "jobs", "stalled"}]``, most recently active first."""
        return as_list(json.loads(self._client.core.call("workers")))

    def __getitem__(self, name: str) -> dict[str, list[str]]:
        """``{"jobs": [jid...], "stalled": [jid...]}`` for one worker."""
        raw = json.loads(self._client.core.call("workers", name))
        return {"jobs": as_list(raw.get("jobs")), "stalled": as_list(raw.get("stalled"))}

    def deregister(self, *names: str) -> None:
        """Remove workers from the registry (their job lists stay)."""
        if names:
            self._client.core.call("worker.deregister", *names)


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

    def __init__(self, url: str | None = None, *, worker_name: str | None = None,
                 codec: str = "json", redis_client: redis.Redis | None = None,
                 hostname: str | None = None, socket_timeout: float | None = None,
                 client_name: str | None = None, ssl_ca_certs: str | None = None,
                 ssl_certfile: str | None = None, ssl_keyfile: str | None = None,
                 ssl_cert_reqs: str | None = None,
                 ssl_check_hostname: bool | None = None) -> None:
        self.url = resolve_url(url)
        self.codec: codecs.CodecName = codecs.check_codec(codec)
        # ``hostname`` is qless-py's name for the worker name.
        name = worker_name or hostname
        self.worker_name: str = name or f"{socket.gethostname()}-{os.getpid()}"
        self.socket_timeout = socket_timeout
        # redis-py is imported and the client made on first use: a worker never needs it.
        self._redis: redis.Redis | None = redis_client
        self._endpoint: Endpoint | None = None
        if redis_client is None:
            # A bad URL fails here (ValueError), not on first use.
            self._endpoint = Endpoint.from_url(
                self.url, timeout=socket_timeout, client_name=client_name,
                ssl_ca_certs=ssl_ca_certs, ssl_certfile=ssl_certfile,
                ssl_keyfile=ssl_keyfile, ssl_cert_reqs=ssl_cert_reqs,
                ssl_check_hostname=ssl_check_hostname)
        self.core = LuaCore(lambda: self.redis, *_core_source())
        if self._endpoint is not None and self._endpoint.wait_replicas:
            self.core.confirm = (self._endpoint.wait_replicas,
                                 max(1, round(self._endpoint.wait_timeout * 1000)))
        self.queues = Queues(self)
        self.jobs = Jobs(self)
        self.workers = Workers(self)
        self.config = Config(self)
        self._events: Events | None = None

    @property
    def redis(self) -> redis.Redis:
        """The ``redis.Redis`` client (``decode_responses=False``), made on first use."""
        if self._redis is None:
            with _redis_lock:  # one client, even when several job threads ask at once
                if self._redis is None:
                    from qless_py.redis_clients import make_redis

                    # a worker's client (switched to direct calls) names these too
                    direct = self.core.transport is not None
                    self._redis = make_redis(self.endpoint() if direct else self.settings)
        return self._redis

    @property
    def settings(self) -> Endpoint:
        """Where and how this client connects (read from ``redis_client`` if one was given;
        :class:`~qless_py.errors.UnsupportedSettingError` if it cannot be described)."""
        if self._endpoint is None:
            assert self._redis is not None
            self._endpoint = Endpoint.from_redis(self._redis)
        return self._endpoint

    def endpoint(self) -> Endpoint:
        """:attr:`settings` for a worker's own connections (:mod:`qless_py.resp`), which
        name themselves ``<client_name>:<worker name>`` (``qless-py:<worker name>`` when
        no client name was given) so that ``CLIENT LIST`` tells the workers apart."""
        settings = self.settings
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

    def __repr__(self) -> str:
        where = str(self._endpoint) if self._endpoint is not None else "redis_client"
        return f"<qless_py.Client {where} as {self.worker_name}>"

    def track(self, jid: str) -> bool:
        """Track a job: its events are published and it shows in ``jobs.tracked()``."""
        return str(self.core.call("track", "track", jid)) == "1"

    def untrack(self, jid: str) -> bool:
        return str(self.core.call("track", "untrack", jid)) == "1"

    def tags(self, offset: int = 0, count: int = 100) -> list[str]:
        """The most used tags (used at least twice), most used first."""
        return as_list(json.loads(self.core.call("tag", "top", offset, count)))

    def unfail(self, group: str, queue: str, count: int = 25) -> int:
        """Move the oldest ``count`` jobs of failure ``group`` into ``queue``."""
        if count <= 0:
            raise ValueError("count must be positive")
        return int(self.core.call("unfail", queue, group, count))

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the event listener and close the connection pool."""
        if self._events is not None:
            self._events.stop()
        self.core.close()
        if self._redis is not None:
            self._redis.close()
