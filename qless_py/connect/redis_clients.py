"""redis-py clients made from an :class:`Endpoint`, and Endpoints read back from redis-py
clients a user made.

A client's ``redis.Redis`` connects through :class:`EndpointConnection`, which opens its
socket with ``qless_py.connect.dial`` (and finds the master with
``qless_py.connect.resp.locate``), the same code a worker's own connections use: TLS
settings, hostname checks and Sentinel lookups cannot differ between the two. redis-py
then sends AUTH, SELECT and CLIENT SETNAME from the same description. Imported only by
code that already uses redis-py.
"""

from __future__ import annotations

import socket
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.connection import Connection, SSLConnection, UnixDomainSocketConnection
from redis.retry import Retry

from qless_py.connect.dial import closed_at_once, open_socket, tls_refusal
from qless_py.connect.endpoint import Endpoint
from qless_py.connect.resp import locate
from qless_py.connect.wire import ConnectionFailed, SetupFailed
from qless_py.errors import UnsupportedSettingError


class EndpointConnection(Connection):
    """A redis-py connection whose socket comes from ``qless_py.connect.dial``."""

    def __init__(self, *, endpoint: Endpoint, **kwargs: Any) -> None:
        self.endpoint = endpoint
        super().__init__(  # type: ignore[no-untyped-call]  # redis-py is partly untyped
            host=endpoint.host, port=endpoint.port, **kwargs)

    def _connect(self) -> socket.socket:
        ep = self.endpoint
        try:
            target = locate(ep)
            if target is not ep:
                self.host, self.port = target.host, target.port
            return open_socket(target, kernel_timeouts=False)
        except SetupFailed:
            raise  # not an OSError: redis-py does not retry it, callers see why
        except ConnectionFailed as exc:
            # redis-py turns an OSError into its ConnectionError, which its pub/sub and
            # retry logic expect
            cause = exc.__cause__
            if isinstance(cause, OSError):
                raise cause from None
            raise OSError(str(exc)) from None

    # redis-py sends its opening commands (AUTH, SELECT, CLIENT SETNAME/SETINFO) from
    # on_connect (redis-py 5) or on_connect_check_health (later); a server that closes
    # the connection there is refusing us (see dial.closed_at_once)
    def on_connect(self) -> None:
        self._opening(super().on_connect)

    def on_connect_check_health(self, check_health: bool = True) -> None:
        parent = super().on_connect_check_health
        self._opening(lambda: parent(check_health=check_health))

    def _opening(self, send: Any) -> None:
        try:
            send()
        except redis.ConnectionError as exc:
            # TLS 1.3 reports a refused client certificate only on the first read
            if tls_refusal(exc.__cause__ or exc.__context__ or exc):
                self.disconnect()  # type: ignore[no-untyped-call]
                raise SetupFailed(f"TLS with {self.endpoint}: {exc}") from exc
            refusal = closed_at_once(self.endpoint, exc)
            if refusal is not None:
                self.disconnect()  # type: ignore[no-untyped-call]
                raise refusal from exc
            raise

    def _host_error(self) -> str:
        return str(self.endpoint)

    def repr_pieces(self) -> list[tuple[str, Any]]:
        pieces: list[tuple[str, Any]] = [("endpoint", str(self.endpoint))]
        if self.client_name:
            pieces.append(("client_name", self.client_name))
        return pieces


def make_redis(ep: Endpoint) -> redis.Redis:
    """A ``redis.Redis`` (bytes replies) connecting as ``ep`` says."""
    pool = redis.ConnectionPool(
        connection_class=EndpointConnection, endpoint=ep, max_connections=ep.max_connections,
        db=ep.db, username=ep.username, password=ep.password,
        credential_provider=ep.credential_provider, socket_timeout=ep.timeout,
        socket_connect_timeout=ep.connect_timeout, client_name=ep.client_name,
        health_check_interval=ep.health_check_interval,
        # No automatic retries: a write that failed mid-flight must not run twice.
        retry=Retry(NoBackoff(), 0))
    return redis.Redis(connection_pool=pool)


def endpoint_of(client: Any) -> Endpoint:
    """Where and how ``client`` (a ``redis.Redis``) connects.

    Raises :class:`UnsupportedSettingError` naming a setting that qless_py's own
    connections cannot reproduce; settings that do not change where or how a connection
    is made (retries, encodings, pool sizes, RESP3) are not part of the description.
    """
    pool = client.connection_pool
    cls = pool.connection_class
    kwargs = dict(pool.connection_kwargs)
    if isinstance(cls, type) and issubclass(cls, EndpointConnection):
        return kwargs["endpoint"]  # type: ignore[no-any-return]
    from redis.sentinel import SentinelConnectionPool, SentinelManagedConnection

    if isinstance(pool, SentinelConnectionPool):
        return _sentinel_endpoint(pool, cls(**kwargs))
    if cls not in (Connection, SSLConnection, UnixDomainSocketConnection) \
            and not issubclass(cls, SentinelManagedConnection):
        _refuse(f"connection_class={cls.__name__}")
    return _read(cls(**kwargs), max_connections=pool.max_connections)


def _refuse(setting: str, why: str = "") -> None:
    raise UnsupportedSettingError(
        f"redis_client setting {setting} cannot be honoured by qless_py's own connections"
        + (f" ({why})" if why else "") + "; build the client from a URL and keywords instead")


_CERT_REQS = {0: "none", 1: "optional", 2: "required"}


def _read(conn: Any, max_connections: int | None = None) -> Endpoint:
    """The description of one (unconnected) redis-py connection."""
    import redis.credentials

    # redis-py 5.3 and later: providers that push new credentials to live connections
    streaming = getattr(redis.credentials, "StreamingCredentialProvider", ())
    if getattr(conn, "redis_connect_func", None) is not None:
        _refuse("redis_connect_func", "a custom connect hook")
    if getattr(conn, "socket_type", 0):
        _refuse(f"socket_type={conn.socket_type}")
    for name in ("ssl_validate_ocsp", "ssl_validate_ocsp_stapled", "ssl_ocsp_context",
                 "ssl_ocsp_expected_cert"):
        if getattr(conn, name, None):
            _refuse(name, "OCSP checks")
    provider = getattr(conn, "credential_provider", None)
    if streaming and isinstance(provider, streaming):
        _refuse("credential_provider", "a streaming provider re-authenticates live "
                                       "connections")
    settings: dict[str, Any] = {
        "db": int(conn.db), "username": conn.username, "password": conn.password,
        "credential_provider": provider, "timeout": conn.socket_timeout,
        "connect_timeout": conn.socket_connect_timeout, "client_name": conn.client_name,
        "health_check_interval": int(getattr(conn, "health_check_interval", 0) or 0),
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
        settings.update(_tls_settings(conn))
    return Endpoint(**settings)


def _tls_settings(conn: Any) -> dict[str, Any]:
    def flags(name: str) -> int:
        total = 0
        for flag in getattr(conn, name, None) or ():
            total |= int(flag)
        return total

    version = getattr(conn, "ssl_min_version", None)
    return {
        "tls": True, "ssl_cert_reqs": _CERT_REQS[int(conn.cert_reqs)],
        "ssl_check_hostname": bool(conn.check_hostname), "ssl_ca_certs": conn.ca_certs,
        "ssl_ca_path": getattr(conn, "ca_path", None),
        "ssl_ca_data": getattr(conn, "ca_data", None), "ssl_certfile": conn.certfile,
        "ssl_keyfile": conn.keyfile, "ssl_password": getattr(conn, "certificate_password",
                                                             None),
        "ssl_min_version": None if version is None else int(version),
        "ssl_ciphers": getattr(conn, "ssl_ciphers", None),
        "ssl_verify_flags_on": flags("ssl_include_verify_flags"),
        "ssl_verify_flags_off": flags("ssl_exclude_verify_flags"),
    }


def _sentinel_endpoint(pool: Any, conn: Any) -> Endpoint:
    """A ``Sentinel(...).master_for(service)`` pool as a Sentinel endpoint."""
    manager = pool.sentinel_manager
    if not pool.is_master:
        _refuse("slave_for", "workers write, so they need the master")
    if manager.min_other_sentinels:
        _refuse(f"min_other_sentinels={manager.min_other_sentinels}")
    sentinels = [endpoint_of(node) for node in manager.sentinels]
    first = sentinels[0]
    for other in sentinels[1:]:
        same = other.replace(host=first.host, port=first.port)
        if same != first or other.credential_provider is not first.credential_provider:
            _refuse("sentinel_kwargs", "sentinels with different settings")
    if first.credential_provider is not None:
        _refuse("sentinel_kwargs credential_provider")
    data = _read(conn, max_connections=pool.max_connections)
    if data.tls != first.tls:
        _refuse("ssl", "TLS to the data nodes and to the sentinels must be the same")
    return data.replace(host="", port=0, service=pool.service_name,
                        sentinels=tuple((s.host, s.port) for s in sentinels),
                        sentinel_username=first.username,
                        sentinel_password=first.password)
