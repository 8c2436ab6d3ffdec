"""Fixtures for client tests: a Client on the flushed per-test server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from qless_py import Client

T0 = "2030-01-01 00:00:00"
"""A fixed start time for frozen tests (a UTC midnight, so day bins are easy to reason about)."""


@pytest.fixture
def client(server_url: str) -> Iterator[Client]:
    """A client acting as worker 'worker'."""
    c = Client(server_url, worker_name="worker")
    yield c
    c.close()


@pytest.fixture
def other(server_url: str) -> Iterator[Client]:
    """A second client on the same server, acting as worker 'other'."""
    c = Client(server_url, worker_name="other")
    yield c
    c.close()
