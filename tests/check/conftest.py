"""Fixtures of the check tests: a database built through the core in every state the core
knows, damaged the ways the world damages it, checked and repaired."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from qless_py import Client
from tests.check.support import Db
from tests.client.conftest import _frozen_once, flavour, make_client  # noqa: F401  (fixtures)
from tests.core.conftest import dialect  # noqa: F401  (fixture)
from tests.core.support import load_source
from tests.workers.conftest import cli_worker, kind  # noqa: F401  (fixtures)


@pytest.fixture
def namespace() -> None:
    """The check tests build their database in the default namespace (``make_client``'s
    namespace; tests/core/test_namespaces.py covers the core in a namespace)."""
    return None


@pytest.fixture
def client(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="checker")
    yield c
    c.close()


@pytest.fixture
def db(redis_conn: redis.Redis, client: Client) -> Db:
    return Db(redis_conn, load_source(), client)
