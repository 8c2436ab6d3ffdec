"""Fixtures for the conformance suite (helpers live in support.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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
def dialect(redis_conn: redis.Redis) -> Core:
    """The throttle dialect's own core (reqless 0.13.3's, fetched by scripts/test into
    QLESS_DIALECT_CORE), loaded into the same server as ``core``."""
    path = os.environ.get("QLESS_DIALECT_CORE", "")
    if not path or not Path(path).is_file():
        message = "the throttle dialect's core is not available (scripts/test fetches it)"
        if os.environ.get("QLESS_REQUIRE_SERVERS", "") not in ("", "0"):
            pytest.fail(f"{message}, and QLESS_REQUIRE_SERVERS is set", pytrace=False)
        pytest.skip(message)
    return Core(redis_conn, Path(path).read_bytes())


@pytest.fixture
def events(redis_conn: redis.Redis) -> Iterator[EventRecorder]:
    recorder = EventRecorder(redis_conn)
    yield recorder
    recorder.close()


@pytest.fixture
def populated(core: Core) -> Core:
    populate(core)
    return core
