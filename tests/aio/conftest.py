"""Fixtures for the async client's own tests: every test here is async, runs in a loop in
debug mode and fails when the loop is blocked (tests/loopcheck.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from qless_py.aio import AsyncClient
from tests.connections.conftest import certs, servers  # TLS and Sentinel servers
from tests.loopcheck import SLOW, collected, no_slow_callbacks

__all__ = ["certs", "servers"]


@pytest.fixture(autouse=True)
def _no_collection() -> Iterator[None]:
    with collected():  # a sync fixture: the collection before the test is outside the loop
        yield


@pytest_asyncio.fixture(autouse=True)
async def _loop_check(_no_collection: None) -> AsyncIterator[None]:
    async with no_slow_callbacks(SLOW):
        yield


@pytest_asyncio.fixture
async def aclient(server_url: str, _loop_check: None) -> AsyncIterator[AsyncClient]:
    """An async client acting as worker 'worker'."""
    async with AsyncClient(server_url, worker_name="worker") as client:
        yield client
