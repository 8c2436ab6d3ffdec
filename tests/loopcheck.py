"""Fail async tests that block the event loop.

pytest-asyncio runs every async test in a loop in debug mode (``asyncio_debug`` in
pyproject.toml), which logs a warning for every step of the loop (one callback, or one
stretch of a task between two awaits) that takes longer than ``slow_callback_duration``.
:func:`no_slow_callbacks` sets that threshold and turns every warning the ``asyncio``
logger emits (a slow step, a task destroyed while pending, an exception nobody retrieved)
into a test failure.

A slow step is judged by what the loop's thread did during it, read from
``getrusage(RUSAGE_THREAD)`` around each step: it blocked if the thread waited (a
voluntary context switch: a blocking read, a sleep, a lock), or hogged the loop if it
computed for longer than the threshold. A step that was only slow on the wall clock,
because the machine gave the thread no CPU for a while, is not the code's doing and is not
counted: a busy test machine must not fail the suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import resource
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

SLOW = 0.05
"""Seconds one step of the loop may take in tests/aio."""
SLOW_WITH_HARNESS = 0.1
"""For the client suite run with the async client, whose steps also hold the harness's own
work (freezing time scans every loaded module; the sync fixtures run in the loop)."""


class _Step:
    """What the loop's thread did during the last step: voluntary context switches and CPU
    seconds (set by the wrapper around ``asyncio.Handle._run``)."""

    waits = 0
    cpu = 0.0


def _measured(run: Any) -> Any:
    def measured_run(handle: asyncio.Handle) -> None:
        before = resource.getrusage(resource.RUSAGE_THREAD)
        try:
            run(handle)
        finally:
            after = resource.getrusage(resource.RUSAGE_THREAD)
            _Step.waits = after.ru_nvcsw - before.ru_nvcsw
            _Step.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    return measured_run


class _Collect(logging.Handler):
    def __init__(self, threshold: float) -> None:
        super().__init__(logging.WARNING)
        self.threshold = threshold
        self.messages: list[str] = []
        self.preempted = 0

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        # asyncio's slow-step warning is logged right after the step, on the loop's thread
        if message.startswith("Executing ") and " took " in message:
            if _Step.waits == 0 and _Step.cpu < self.threshold:
                self.preempted += 1
                return
            message += f" (waited {_Step.waits} time(s), {_Step.cpu:.3f} s of CPU)"
        self.messages.append(message)


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
    handler = _Collect(threshold)
    logger = logging.getLogger("asyncio")
    logger.addHandler(handler)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asyncio.Handle, "_run", _measured(asyncio.Handle._run))
        try:
            yield
        finally:
            logger.removeHandler(handler)
    if handler.messages:
        pytest.fail("the event loop was blocked or left unclean:\n" +
                    "\n".join(handler.messages), pytrace=False)
