"""Fixtures for the conformance suite (helpers live in support.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from qless_py.server import EXTRA_KINDS
from tests.conftest import SERVER_KINDS, _ServerPool, requested_kind
from tests.core.support import Core, EventRecorder, load_source, populate

# The core also runs on every other server line the protocol promises (qless_py.server's
# EXTRA_KINDS): Redis 6.2.14, where from 6.2.7 on the Lua globals became read-only and the
# reference script stopped working, Redis 8.0, Valkey 8.0 and Valkey 8.1.
CORE_SERVER_KINDS = [*SERVER_KINDS, *EXTRA_KINDS]


@pytest.fixture(params=CORE_SERVER_KINDS)
def server_kind(request: pytest.FixtureRequest, _servers: _ServerPool) -> str:
    return requested_kind(request, _servers)


@pytest.fixture
def core(redis_conn: redis.Redis) -> Core:
    return Core(redis_conn, load_source())


@pytest.fixture
def events(redis_conn: redis.Redis) -> Iterator[EventRecorder]:
    recorder = EventRecorder(redis_conn)
    yield recorder
    recorder.close()


@pytest.fixture
def populated(core: Core) -> Core:
    populate(core)
    return core
