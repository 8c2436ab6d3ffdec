"""Fixtures for client tests: every test runs twice, once with the sync Client and once
with the AsyncClient, on the flushed per-test server.

Test bodies are ``async def`` and wrap each call that may talk to the server in
``await run(...)``: a sync call has already run and its value passes through; an async
call is awaited. Both clients share one spelling for everything (``queue.length()``,
``config.set(k, v)``, ``await run(queue.counts)``...). The async runs fail on a blocked
loop (tests/loopcheck.py).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import pytest
import pytest_asyncio
import redis
from freezegun import freeze_time

from qless_py import Client
from qless_py.aio import AsyncClient
from qless_py.connect.cluster import key_slot
from qless_py.keys import namespace_prefix
from tests.conftest import flushed_cluster_url
from tests.loopcheck import SLOW_WITH_HARNESS, collected, no_slow_callbacks

T0 = "2030-01-01 00:00:00"
"""A fixed start time for frozen tests (a UTC midnight, so day bins are easy to reason about)."""

T = TypeVar("T")
AnyClient = Any  # Client or AsyncClient: the tests use what both have
MakeClient = Callable[..., AnyClient]


async def run(value: Any) -> Any:
    """The value of a client call of either flavour."""
    if inspect.isawaitable(value):
        return await value
    return value


def frozen(when: str = T0) -> Any:
    """``freeze_time`` for both flavours: ``clock.now()`` is frozen, the event loop's own
    clock is not (its timers and the slow-callback check keep real time)."""
    return freeze_time(when, real_asyncio=True)


@pytest.fixture(scope="session")
def _frozen_once() -> None:
    """freezegun's first freeze reads every attribute of every loaded module (0.14 s of CPU
    here, more than a step may take) and later ones reuse what it found: the first one
    happens here, outside the loop."""
    with frozen():
        pass


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest, _frozen_once: None) -> Iterator[str]:
    if request.param == "sync":
        yield "sync"
        return
    with collected():  # outside the loop
        yield "async"


@pytest.fixture(params=["default", "namespace", "cluster"])
def placement(request: pytest.FixtureRequest) -> str:
    """Where the suite runs: the default namespace and a namespace of a standalone server,
    and a namespace of a cluster of 3 masters and 3 replicas (docs/cluster.md). The
    cluster leg runs on Valkey: the cluster tests of tests/connections and tests/workers
    run on Redis clusters too, and one leg keeps the suite's time in bounds."""
    return str(request.param)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The cluster leg on Valkey only (see ``placement``): its Redis twins are not made."""
    dropped = [item for item in items
               if (spec := getattr(item, "callspec", None)) is not None
               and spec.params.get("placement") == "cluster"
               and spec.params.get("server_kind") == "redis"]
    if dropped:
        gone = set(map(id, dropped))
        items[:] = [item for item in items if id(item) not in gone]
        config.hook.pytest_deselected(items=dropped)


@pytest.fixture
def namespace(placement: str) -> str | None:
    return None if placement == "default" else "billing"


def _placement(request: pytest.FixtureRequest) -> str:
    """The test's placement, for tests that have one (those that make clients); a test
    of connections alone is not run three times."""
    if "placement" not in request.fixturenames:
        return "default"
    return str(request.getfixturevalue("placement"))


@pytest.fixture
def server_url(server_url: str, server_kind: str, _clusters: Any,
               request: pytest.FixtureRequest) -> str:
    """The flushed server of the test's kind, or on the cluster leg the flushed cluster of
    that kind (its URL names the namespace)."""
    if _placement(request) != "cluster":
        return server_url
    return flushed_cluster_url(_clusters[server_kind], "billing")


@pytest.fixture
def redis_conn(server_url: str, server_kind: str, _clusters: Any,
               request: pytest.FixtureRequest) -> Iterator[redis.Redis]:
    """A plain connection to where the test's keys live: the server, or on the cluster
    leg the master that serves the namespace's slot."""
    if _placement(request) == "cluster":
        master = _clusters[server_kind].master_of(key_slot(namespace_prefix("billing")))
        conn = redis.Redis(host="127.0.0.1", port=master.port)
    else:
        conn = redis.Redis.from_url(server_url)
    yield conn
    conn.close()


@pytest_asyncio.fixture
async def make_client(flavour: str, namespace: str | None) -> AsyncIterator[MakeClient]:
    """Make clients of the test's flavour, in the test's namespace unless told otherwise;
    all are closed at the end."""
    made: list[Any] = []

    def make(*args: Any, **kwargs: Any) -> AnyClient:
        kwargs.setdefault("namespace", namespace)
        client = (Client if flavour == "sync" else AsyncClient)(*args, **kwargs)
        made.append(client)
        return client

    if flavour == "sync":
        yield make
        for client in made:
            client.close()
        return
    async with no_slow_callbacks(SLOW_WITH_HARNESS):
        yield make
        for client in made:
            await client.close()


@pytest.fixture
def client(server_url: str, make_client: MakeClient) -> AnyClient:
    """A client acting as worker 'worker', in the test's namespace."""
    return make_client(server_url, worker_name="worker")


@pytest.fixture
def any_client(server_url: str, make_client: MakeClient) -> AnyClient:
    """``client``, for modules whose own ``client`` fixture is the sync one."""
    return make_client(server_url, worker_name="worker")


@pytest.fixture
def other(server_url: str, make_client: MakeClient) -> AnyClient:
    """A second client on the same server, acting as worker 'other'."""
    return make_client(server_url, worker_name="other")


@pytest.fixture
def sync_client(server_url: str) -> Any:
    """A sync client, for tests of what only the sync client has."""
    c = Client(server_url, worker_name="worker")
    yield c
    c.close()
