"""Where and how to connect: one description that redis-py clients and the workers' own
connections (``qless_py.connect.resp``, ``aio_resp``) are both built from, so a worker
connects exactly where its client does.

URLs are parsed here and nowhere else (``Endpoint.from_url``); a ``redis.Redis`` a user
built is read back into the same description (``qless_py.connect.redis_clients.endpoint_of``),
and every setting of it that cannot be reproduced is refused by name instead of dropped.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, parse_qs, parse_qsl, unquote, urlencode, urlsplit

from qless_py.errors import UnsupportedSettingError
from qless_py.keys import check_count, namespace_prefix

DEFAULT_URL = "redis://127.0.0.1:6379/0"
CERT_REQS = ("none", "optional", "required")
SENTINEL_PORT = 26379
SCHEMES = ("redis://", "rediss://", "unix://", "redis+sentinel://", "rediss+sentinel://",
           "redis+cluster://", "rediss+cluster://")


def resolve_url(url: str | None) -> str:
    """``url``, else ``$QLESS_URL``, else the local default."""
    return url or os.environ.get("QLESS_URL") or DEFAULT_URL


@dataclass(frozen=True)
class Endpoint:
    """Where and how to connect.

    A direct endpoint names a ``host``/``port`` or a unix socket ``path``. A Sentinel
    endpoint names ``sentinels`` and a ``service``, a cluster endpoint ``cluster`` seeds
    and a ``namespace``: the master (of the service, of the namespace's slot) is looked up
    when a connection is made (``qless_py.connect.sentinel``, ``qless_py.connect.cluster``).
    ``username``/``password`` (or ``credential_provider``) are the
    data node's; ``sentinel_username``/``sentinel_password`` the sentinels'. ``tls``
    applies to data nodes and sentinels alike.
    """

    host: str = "127.0.0.1"
    port: int = 6379
    path: str | None = None  # a unix socket
    sentinels: tuple[tuple[str, int], ...] = ()
    service: str | None = None
    cluster: tuple[tuple[str, int], ...] = ()  # seed nodes of a cluster
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    # redis-py's CredentialProvider (``get_credentials()``), asked at every connect
    credential_provider: Any = field(default=None, repr=False, compare=False)
    sentinel_username: str | None = None
    sentinel_password: str | None = field(default=None, repr=False)
    tls: bool = False
    ssl_cert_reqs: str = "required"
    ssl_check_hostname: bool = True
    ssl_ca_certs: str | None = None
    ssl_ca_path: str | None = None
    ssl_ca_data: str | None = field(default=None, repr=False)
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_password: str | None = field(default=None, repr=False)
    ssl_min_version: int | None = None  # an ssl.TLSVersion value
    ssl_ciphers: str | None = None
    ssl_verify_flags_on: int = 0  # ssl.VerifyFlags added to / removed from the defaults
    ssl_verify_flags_off: int = 0
    timeout: float | None = None  # each read and write; None waits forever
    connect_timeout: float | None = None
    keepalive: bool = True
    keepalive_options: tuple[tuple[int, int], ...] = ()
    client_name: str | None = None
    # WAIT after every write until this many replicas have it (0: do not wait); see
    # docs/operations.md, "Failover without losing writes"
    wait_replicas: int = 0
    wait_timeout: float = 1.0  # seconds
    # redis-py's pool only: a worker keeps one connection per thread and checks it
    # before every command, so these change nothing for it
    max_connections: int | None = None
    health_check_interval: int = 0
    # Not a connection setting: the qless namespace this URL names (docs/cluster.md); a
    # client and a worker started from the URL alone work in it.
    namespace: str | None = None
    # Nor this: the number of shards of that namespace (qless_py.shards); only a
    # ShardedClient and the commands that take --shards accept more than one.
    shards: int = 1

    def __post_init__(self) -> None:
        if self.ssl_cert_reqs not in CERT_REQS:
            raise ValueError(f"ssl_cert_reqs must be one of {', '.join(CERT_REQS)}, "
                             f"not {self.ssl_cert_reqs!r}")
        if self.sentinels and not self.service:
            raise ValueError("a Sentinel endpoint needs a service name")
        if self.cluster and self.namespace is None:
            raise ValueError("a cluster URL needs a namespace (?namespace=NAME, or "
                             "--namespace): the default namespace's keys have no hash tag, "
                             "so a cluster would spread them over its masters")
        if self.cluster and self.db:
            raise ValueError("a cluster has only database 0")
        if self.client_name is not None:
            check_client_name(self.client_name)
        if self.namespace is not None:
            namespace_prefix(self.namespace)  # ValueError in one line when it is not valid
        if self.shards != 1:
            check_count(self.shards)
            if self.namespace is None:
                raise ValueError("shards need a namespace (?namespace=NAME): the default "
                                 "namespace cannot be sharded")
        if self.wait_replicas < 0 or self.wait_timeout <= 0:
            raise ValueError("wait_replicas must be >= 0 and wait_timeout > 0")
        if not self.tls:
            given = [name for name in _TLS_FIELDS if getattr(self, name) is not None]
            if given:
                raise ValueError(f"{given[0]} needs TLS (a rediss:// URL)")

    # -- parsing -------------------------------------------------------------------------
    @classmethod
    def from_url(cls, url: str, timeout: float | None = None,
                 **overrides: Any) -> Endpoint:
        """Parse a connection URL (the forms are listed in docs/client.md).

        ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` (TLS),
        ``unix://[[user]:password@]/path``, and
        ``redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/service[/db]``
        (``rediss+sentinel://`` with TLS), and
        ``redis+cluster://[[user]:password@]host[:port][,host[:port]...][/]?namespace=NAME``
        (``rediss+cluster://`` with TLS; the hosts are seeds, any nodes of the cluster).
        Query options are listed in ``URL_OPTIONS``;
        any other is refused. ``timeout`` is the socket timeout when the URL sets none.
        ``overrides`` are settings given beside the URL (a Client's keywords); one that
        the URL sets to something else is refused. Raises ValueError.
        """
        scheme, separator, rest = url.partition("://")
        scheme = scheme.lower()
        if not separator or f"{scheme}://" not in SCHEMES:
            raise ValueError("Redis URL must specify one of the following schemes "
                             "(redis://, rediss://, unix://, redis+sentinel://, "
                             "rediss+sentinel://, redis+cluster://, rediss+cluster://)")
        sentinel = scheme.endswith("+sentinel")
        cluster = scheme.endswith("+cluster")
        parts = urlsplit(url)
        values = _query(parts.query, sentinel=sentinel)
        values.setdefault("timeout", timeout)
        if sentinel:
            values.update(_sentinel_location(rest))
        elif cluster:
            values.update(_cluster_location(rest))
        else:
            values.update(_direct_location(parts))
        if "db" not in values and not sentinel and not cluster and scheme != "unix" \
                and parts.path.strip("/"):
            values["db"] = _number(int, "db", parts.path.strip("/"))
        values["tls"] = scheme.startswith("rediss")
        values.setdefault("connect_timeout", values["timeout"])
        for name, value in overrides.items():
            if value is None:
                continue
            if name in values and values[name] != value:
                raise ValueError(f"{name} is given both in the URL and as a keyword")
            values[name] = value
        return cls(**values)

    # -- derived descriptions ------------------------------------------------------------
    def replace(self, **changes: Any) -> Endpoint:
        return dataclasses.replace(self, **changes)

    def at(self, host: str, port: int) -> Endpoint:
        """This endpoint's settings for one node (a master a sentinel or a cluster named)."""
        return dataclasses.replace(self, host=host, port=port, path=None, sentinels=(),
                                   service=None, cluster=())

    def named(self, name: str) -> Endpoint:
        """The same endpoint, naming its connections ``name`` (made valid for the server)."""
        return dataclasses.replace(self, client_name=valid_client_name(name))

    def __str__(self) -> str:
        """Where this endpoint points, without secrets (for messages and logs)."""
        scheme = "rediss" if self.tls else "redis"
        if self.sentinels:
            nodes = ",".join(f"{h}:{p}" for h, p in self.sentinels)
            return f"{scheme}+sentinel {nodes} service {self.service} db {self.db}"
        if self.cluster:
            nodes = ",".join(f"{h}:{p}" for h, p in self.cluster)
            return f"{scheme}+cluster {nodes} namespace {self.namespace}"
        where = self.path if self.path else f"{self.host}:{self.port}"
        return f"{scheme} {where} db {self.db}"


_TLS_FIELDS = ("ssl_ca_certs", "ssl_ca_path", "ssl_ca_data", "ssl_certfile", "ssl_keyfile",
               "ssl_password", "ssl_min_version", "ssl_ciphers")


def _number(kind: Callable[[str], Any], name: str, text: str) -> Any:
    try:
        return kind(text)
    except ValueError as exc:
        why = "" if kind in (int, float) else f" ({exc})"
        raise ValueError(f"invalid value for {name!r} in the URL: {text!r}{why}") from None


def _flag(text: str) -> bool:
    """redis-py's reading of a boolean option."""
    return text.upper() not in ("0", "F", "FALSE", "N", "NO")


def _cert_reqs(text: str) -> str:
    if text.lower() not in CERT_REQS:
        raise ValueError(f"ssl_cert_reqs must be one of {', '.join(CERT_REQS)}, not {text!r}")
    return text.lower()


def _tls_version(text: str) -> int:
    """``TLSv1_2``, ``TLSv1.3`` or the number of an ``ssl.TLSVersion``."""
    import ssl

    if text.isdigit():
        return int(ssl.TLSVersion(int(text)))
    name = text.replace(".", "_")
    try:
        return int(ssl.TLSVersion[name])
    except KeyError:
        raise ValueError(f"unknown ssl_min_version {text!r} (say TLSv1_2 or TLSv1_3)") \
            from None


# URL query option -> (Endpoint field, parser)
URL_OPTIONS: Mapping[str, tuple[str, Callable[[str], Any]]] = {
    "db": ("db", int),
    "username": ("username", str),
    "password": ("password", str),
    "socket_timeout": ("timeout", float),
    "socket_connect_timeout": ("connect_timeout", float),
    "socket_keepalive": ("keepalive", _flag),
    "client_name": ("client_name", str),
    "ssl_cert_reqs": ("ssl_cert_reqs", _cert_reqs),
    "ssl_check_hostname": ("ssl_check_hostname", _flag),
    "ssl_ca_certs": ("ssl_ca_certs", str),
    "ssl_ca_path": ("ssl_ca_path", str),
    "ssl_certfile": ("ssl_certfile", str),
    "ssl_keyfile": ("ssl_keyfile", str),
    "ssl_password": ("ssl_password", str),
    "ssl_min_version": ("ssl_min_version", _tls_version),
    "ssl_ciphers": ("ssl_ciphers", str),
    "wait_replicas": ("wait_replicas", int),
    "wait_timeout": ("wait_timeout", float),
    "max_connections": ("max_connections", int),
    "health_check_interval": ("health_check_interval", int),
    "namespace": ("namespace", str),
    "shards": ("shards", int),
}
SENTINEL_OPTIONS: Mapping[str, tuple[str, Callable[[str], Any]]] = {
    "sentinel_username": ("sentinel_username", str),
    "sentinel_password": ("sentinel_password", str),
}


def _query(query: str, *, sentinel: bool) -> dict[str, Any]:
    values: dict[str, Any] = {}
    known = {**URL_OPTIONS, **SENTINEL_OPTIONS} if sentinel else URL_OPTIONS
    for name, texts in parse_qs(query, keep_blank_values=True).items():
        if name not in known:
            hint = " (only in redis+sentinel:// URLs)" if name in SENTINEL_OPTIONS else ""
            raise UnsupportedSettingError(
                f"unknown URL option {name!r}{hint}; known: {', '.join(sorted(known))}")
        target, parse = known[name]
        values[target] = _number(parse, name, texts[-1])
    return values


def _direct_location(parts: SplitResult) -> dict[str, Any]:
    """Host and port (or socket path) and credentials of a redis/rediss/unix URL."""
    values: dict[str, Any] = {}
    if parts.scheme.lower() == "unix":
        if not parts.path:
            raise ValueError("unix:// URL needs a socket path")
        values.update(path=unquote(parts.path), host="", port=0)
    else:
        try:
            port = parts.port or 6379
        except ValueError as exc:
            raise ValueError(f"bad port in {parts.scheme}:// URL: {exc}") from exc
        values.update(host=unquote(parts.hostname) if parts.hostname else "localhost",
                      port=port)
    if parts.username:
        values["username"] = unquote(parts.username)
    if parts.password:
        values["password"] = unquote(parts.password)
    return values


def _nodes(rest: str, kind: str, default_port: int) -> tuple[dict[str, Any], str]:
    """The credentials and ``host[:port][,host[:port]...]`` of a URL with several nodes
    (query removed), and the rest of its path."""
    rest = rest.split("?", 1)[0].split("#", 1)[0]
    netloc, _, path = rest.partition("/")
    values: dict[str, Any] = {}
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        if user:
            values["username"] = unquote(user)
        if password:
            values["password"] = unquote(password)
    nodes = []
    for node in netloc.split(","):
        match = re.fullmatch(r"\[([0-9a-fA-F:.]+)\](?::(\d+))?|([^:\[\]]+)(?::(\d+))?", node)
        if not match:
            raise ValueError(f"bad {kind} address {node!r} in redis+{kind}:// URL "
                             "(host:port[,host:port...])")
        host = unquote(match.group(1) or match.group(3))
        port = int(match.group(2) or match.group(4) or default_port)
        nodes.append((host, port))
    values["nodes"] = tuple(nodes)
    return values, path


def _cluster_location(rest: str) -> dict[str, Any]:
    """``[[user]:password@]host[:port][,host[:port]...][/]`` (query removed)."""
    values, path = _nodes(rest, "cluster", 6379)
    if path.strip("/") not in ("", "0"):
        raise ValueError(f"redis+cluster:// URL has no path but / (a cluster has only "
                         f"database 0), not /{path}")
    values.update(cluster=values.pop("nodes"), host="", port=0)
    return values


def _sentinel_location(rest: str) -> dict[str, Any]:
    """``[[user]:password@]host[:port][,host[:port]...]/service[/db]`` (query removed)."""
    values, path = _nodes(rest, "sentinel", SENTINEL_PORT)
    nodes = values.pop("nodes")
    names = [unquote(p) for p in path.split("/") if p]
    if not names:
        raise ValueError("redis+sentinel:// URL needs a service name: "
                         "redis+sentinel://host:port[,host:port...]/<service>[/<db>]")
    if len(names) > 2:
        raise ValueError(f"redis+sentinel:// URL path is /<service>[/<db>], not /{path}")
    values.update(sentinels=tuple(nodes), service=names[0], host="", port=0)
    if len(names) == 2:
        values["db"] = _number(int, "db", names[1])
    return values


_NAME_CHARS = re.compile(r"[^!-~]")  # what CLIENT SETNAME accepts: printable, no spaces


def check_client_name(name: str) -> None:
    if not name or _NAME_CHARS.search(name):
        raise ValueError(f"client_name {name!r} is not valid for CLIENT SETNAME "
                         "(printable ASCII, no spaces)")


def valid_client_name(name: str) -> str:
    """``name`` with every character CLIENT SETNAME refuses replaced by ``_``."""
    return _NAME_CHARS.sub("_", name) or "_"


def without_option(url: str, name: str) -> str:
    """``url`` without its ``name=`` query option (the rest as it was written)."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(key, value) for key, value in pairs if key != name]
    if len(kept) == len(pairs):
        return url
    base = url[:url.index("?")]  # as written: urlunsplit would drop unix:///path's empty host
    fragment = "#" + parts.fragment if parts.fragment else ""
    return base + ("?" + urlencode(kept) if kept else "") + fragment


def url_option(url: str, name: str) -> str | None:
    """The value of a URL's query option ``name`` (the last one given), or None."""
    given = [value for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True)
             if key == name]
    return given[-1] if given else None


def url_shards(url: str | None) -> int:
    """The ``shards=`` a URL's query names (``$QLESS_URL`` when ``url`` is None), as a
    number; 1 when it names none or something that is not a number (the client that
    parses the URL then says what is wrong)."""
    given = url_option(resolve_url(url), "shards")
    return int(given) if given is not None and given.strip().isdigit() else 1
