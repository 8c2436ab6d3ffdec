"""``redis.asyncio`` clients made from an :class:`~qless_py.connect.endpoint.Endpoint`,
and Endpoints read back from ``redis.asyncio`` clients a user made: the async twin of
:mod:`qless_py.connect.redis_clients`.

An async client's connections open their streams with :mod:`qless_py.connect.aio_dial` and
find a Sentinel-managed master or a cluster namespace's with :func:`locate` (the searches of
:mod:`qless_py.connect.locate`, asked over these connections), which follow the same
rules as the sync ones (one TLS context builder, one master search); redis.asyncio then
sends AUTH, SELECT and CLIENT SETNAME from the same description. Connections that break
or answer READONLY, MOVED or ASK are closed and look the master up again when they
reconnect, so async
clients follow a failover too.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio
from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
)
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from qless_py.connect import cluster
from qless_py.connect.aio_dial import open_stream
from qless_py.connect.dial import closed_at_once, tls_refusal
from qless_py.connect.endpoint import Endpoint
from qless_py.connect.locate import async_locate
from qless_py.connect.redis_errors import translate
from qless_py.connect.wire import ConnectionFailed, ReplyError, SetupFailed
from qless_py.errors import UnsupportedSettingError


class AsyncEndpointConnection(AbstractConnection):
    """A redis.asyncio connection whose stream comes from ``qless_py.connect.aio_dial``."""

    def __init__(self, *, endpoint: Endpoint, **kwargs: Any) -> None:
        self.endpoint = endpoint
        self.host, self.port = endpoint.host, endpoint.port  # read by redis-py's messages
        super().__init__(**kwargs)

    async def _connect(self) -> None:
        ep = self.endpoint
        try:
            target = await locate(ep)
            if target is not ep:
                self.host, self.port = target.host, target.port
            self._reader, self._writer = await open_stream(target)
        except SetupFailed:
            raise  # not an OSError: redis-py does not retry it, callers see why
        except ConnectionFailed as exc:
            # redis-py turns an OSError into its ConnectionError, which its pub/sub and
            # pool logic expect
            raise OSError(str(exc)) from None

    # redis-py sends its opening commands (AUTH, SELECT, CLIENT SETNAME) from on_connect
    # (redis-py 5) or on_connect_check_health (later); a server that closes the connection
    # there is refusing us (see dial.closed_at_once)
    async def on_connect(self) -> None:
        await self._opening(super().on_connect)

    async def on_connect_check_health(self, check_health: bool = True) -> None:
        parent = super().on_connect_check_health
        await self._opening(lambda: parent(check_health=check_health))

    async def _opening(self, send: Any) -> None:
        try:
            await send()
        except redis.ConnectionError as exc:
            # TLS 1.3 reports a refused client certificate only on the first read
            if tls_refusal(exc.__cause__ or exc.__context__ or exc):
                await self.disconnect(nowait=True)
                raise SetupFailed(f"TLS with {self.endpoint}: {exc}") from exc
            refusal = closed_at_once(self.endpoint, exc)
            if refusal is not None:
                await self.disconnect(nowait=True)
                raise refusal from exc
            raise

    def _host_error(self) -> str:
        return str(self.endpoint)

    def repr_pieces(self) -> list[tuple[str, Any]]:
        pieces: list[tuple[str, Any]] = [("endpoint", str(self.endpoint))]
        if self.client_name:
            pieces.append(("client_name", self.client_name))
        return pieces


async def locate(ep: Endpoint) -> Endpoint:
    """The direct endpoint to connect to for ``ep``: itself, the current master of its
    Sentinel service, or the master of its namespace's slot in a cluster, asked without
    blocking the loop."""
    return await async_locate(ep, _ask)


async def _ask(question: Any) -> Any:
    """Answer a question of ``qless_py.connect.locate``'s searches."""
    if isinstance(question, cluster.Pause):
        await asyncio.sleep(question.seconds)
        return None
    ep = question.endpoint
    conn = AsyncEndpointConnection(
        endpoint=ep, username=ep.username, password=ep.password,
        socket_timeout=ep.timeout, socket_connect_timeout=ep.connect_timeout,
        retry=Retry(NoBackoff(), 0))
    try:
        await conn.send_command(*question.command())
        try:
            reply = await conn.read_response()
        except Exception as exc:
            mine = translate(exc)
            if not isinstance(mine, ReplyError):
                raise
            reply = mine
    except Exception as exc:
        mine = translate(exc)
        if mine is None:
            raise
        raise mine from exc
    finally:
        await conn.disconnect(nowait=True)
    return question.read(reply)


DEFAULT_MAX_CONNECTIONS = 100
"""Connections an async client's pool opens at most unless ``max_connections`` says."""


def make_async_redis(ep: Endpoint) -> redis.asyncio.Redis:
    """A ``redis.asyncio.Redis`` (bytes replies) connecting as ``ep`` says.

    Its pool opens at most ``max_connections`` connections (:data:`DEFAULT_MAX_CONNECTIONS`
    unless set); a call that finds them all busy waits for one. Many coroutines share one
    client, and refusing the calls beyond the limit would fail calls that were never sent.
    """
    pool = redis.asyncio.BlockingConnectionPool(
        connection_class=AsyncEndpointConnection, endpoint=ep,
        max_connections=ep.max_connections or DEFAULT_MAX_CONNECTIONS, timeout=None,
        db=ep.db, username=ep.username, password=ep.password,
        credential_provider=ep.credential_provider, socket_timeout=ep.timeout,
        socket_connect_timeout=ep.connect_timeout, client_name=ep.client_name,
        health_check_interval=ep.health_check_interval,
        # No automatic retries: a write that failed mid-flight must not run twice.
        retry=Retry(NoBackoff(), 0))
    return redis.asyncio.Redis(connection_pool=pool)


def endpoint_of(client: Any) -> Endpoint:
    """Where and how ``client`` (a ``redis.asyncio.Redis``) connects.

    Raises :class:`UnsupportedSettingError` naming a setting that qless_py's own
    connections cannot reproduce, as :func:`qless_py.connect.redis_clients.endpoint_of` does for
    sync clients.
    """
    pool = client.connection_pool
    cls = pool.connection_class
    kwargs = dict(pool.connection_kwargs)
    if isinstance(cls, type) and issubclass(cls, AsyncEndpointConnection):
        return kwargs["endpoint"]  # type: ignore[no-any-return]
    if cls not in (Connection, SSLConnection, UnixDomainSocketConnection):
        _refuse(f"connection_class={cls.__name__}",
                "Sentinel: use a redis+sentinel:// URL" if "Sentinel" in cls.__name__ else "")
    return _read(cls(**kwargs), pool.max_connections)


def _refuse(setting: str, why: str = "") -> None:
    raise UnsupportedSettingError(
        f"redis_client setting {setting} cannot be honoured by qless_py's own connections"
        + (f" ({why})" if why else "") + "; build the client from a URL and keywords instead")


_CERT_REQS = {0: "none", 1: "optional", 2: "required"}


def _read(conn: Any, max_connections: int | None) -> Endpoint:
    """The description of one (unconnected) redis.asyncio connection."""
    if getattr(conn, "redis_connect_func", None) is not None:
        _refuse("redis_connect_func", "a custom connect hook")
    if getattr(conn, "socket_type", 0):
        _refuse(f"socket_type={conn.socket_type}")
    settings: dict[str, Any] = {
        "db": int(conn.db), "username": conn.username, "password": conn.password,
        "credential_provider": conn.credential_provider, "timeout": conn.socket_timeout,
        "connect_timeout": conn.socket_connect_timeout, "client_name": conn.client_name,
        "health_check_interval": int(conn.health_check_interval or 0),
        "max_connections": max_connections,
    }
    if isinstance(conn, UnixDomainSocketConnection):
        return Endpoint(path=conn.path, host="", port=0, **settings)
    settings.update(host=conn.host, port=int(conn.port),
                    keepalive=bool(conn.socket_keepalive),
                    keepalive_options=tuple(sorted(
                        (int(k), int(v)) for k, v in (conn.socket_keepalive_options or {})
                        .items())))
    if isinstance(conn, SSLConnection):
        settings.update(_tls_settings(conn.ssl_context))
    return Endpoint(**settings)


def _tls_settings(ssl: Any) -> dict[str, Any]:
    def flags(values: Any) -> int:
        total = 0
        for flag in values or ():
            total |= int(flag)
        return total

    return {
        "tls": True, "ssl_cert_reqs": _CERT_REQS[int(ssl.cert_reqs)],
        "ssl_check_hostname": bool(ssl.check_hostname), "ssl_ca_certs": ssl.ca_certs,
        "ssl_ca_path": ssl.ca_path, "ssl_ca_data": ssl.ca_data,
        "ssl_certfile": ssl.certfile, "ssl_keyfile": ssl.keyfile,
        "ssl_password": ssl.password,
        "ssl_min_version": None if ssl.min_version is None else int(ssl.min_version),
        "ssl_ciphers": ssl.ciphers,
        "ssl_verify_flags_on": flags(ssl.include_verify_flags),
        "ssl_verify_flags_off": flags(ssl.exclude_verify_flags),
    }
