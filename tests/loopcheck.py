"""Fail async tests that block the event loop.

pytest-asyncio runs every async test in a loop in debug mode (``asyncio_debug`` in
pyproject.toml); :func:`no_slow_callbacks` sets the loop's slow-callback threshold and
turns every warning the ``asyncio`` logger emits (a slow callback, a task destroyed while
pending, a transport left open) into a test failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Iterator

import pytest

SLOW = 0.1
"""Seconds one step of the loop may take (asyncio's own default in debug mode). A blocked
step waits for a server, a sleep or a lock; tests/aio/test_no_blocking.py also catches such
calls one by one, however short."""
SLOW_WITH_HARNESS = 0.25
"""For the client suite run with the async client, whose steps also hold the harness's own
work (freezing time scans every loaded module; the sync fixtures run in the loop)."""


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def collected() -> Iterator[None]:
    """No garbage collection during a test: a full collection of the session's heap can
    take longer than a step may, and it is not the code under test. Enter it outside the
    loop (a sync fixture), since the collection before the test takes that long too."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextlib.asynccontextmanager
async def no_slow_callbacks(threshold: float = SLOW) -> AsyncIterator[None]:
    loop = asyncio.get_running_loop()
    assert loop.get_debug(), "async tests run in debug mode (asyncio_debug)"
    loop.slow_callback_duration = threshold
    handler = _Collect()
    logger = logging.getLogger("asyncio")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    if handler.messages:
        pytest.fail("the event loop was blocked or left unclean:\n" +
                    "\n".join(handler.messages), pytrace=False)
