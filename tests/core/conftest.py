"""Fixtures for the conformance suite (helpers live in support.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from tests.core.support import Core, EventRecorder, load_source, populate


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
