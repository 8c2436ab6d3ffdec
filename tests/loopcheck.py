"""Fail async tests that block the event loop.

pytest-asyncio runs every async test in a loop in debug mode (``asyncio_debug`` in
pyproject.toml), which logs a warning for every step of the loop (one callback, or one
stretch of a task between two awaits) that takes longer than ``slow_callback_duration``.
:func:`no_slow_callbacks` sets that threshold and turns every warning the ``asyncio``
logger emits (a slow step, a task destroyed while pending, an exception nobody retrieved)
into a test failure.

A slow step is judged by what the step did on the loop's thread: the time it spent in
blocking calls (a sleep, a blocking socket, a wait for a thread, an event or a queue, ...;
see tests/blocking_calls.py) and the CPU it used (``getrusage(RUSAGE_THREAD)`` around the
step). When the two reach the threshold, the step would be slow on an idle machine too:
the test fails, naming the calls. The rest of a slow step is the machine's doing and is
not counted: the thread waited for the GIL (a plain-function handler runs in a thread
beside the loop) or for a CPU (a busy machine), and a busy test machine must not fail the
suite. Context switches are no evidence either way, since waiting for the GIL is one.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tests.blocking_calls import STEP, watching

SLOW = 0.05
"""Seconds one step of the loop may take in tests/aio."""
SLOW_WITH_HARNESS = 0.1
"""For the client suite run with the async client, whose steps also hold the harness's own
work (freezing time scans every loaded module; the sync fixtures run in the loop)."""


def _measured(run: Any) -> Any:
    def measured_run(handle: asyncio.Handle) -> None:
        STEP.start()
        try:
            run(handle)
        finally:
            STEP.stop()

    return measured_run


class LoopVerdicts(logging.Handler):
    """The ``asyncio`` logger's warnings during the check, each slow step judged."""

    def __init__(self, threshold: float) -> None:
        super().__init__(logging.WARNING)
        self.threshold = threshold
        self.messages: list[str] = []
        self.forgiven = 0  # slow steps whose blocking calls and CPU stayed under the threshold

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        # asyncio's slow-step warning is logged right after the step, on the loop's thread
        if message.startswith("Executing ") and " took " in message:
            if STEP.running:  # the step that entered the check, measured from there on
                STEP.stop()
            why = self.why_slow()
            if why is None:
                self.forgiven += 1
                return
            message += f": {why} in a step of {STEP.wall:.2f} s"
        self.messages.append(message)

    def why_slow(self) -> str | None:
        """What the last step did to be slow, or None if it did too little to be slow on an
        idle machine. Judging the step's own time, and not only whether it made a blocking
        call, keeps the verdict the same on a busy machine: a short blocking call (a test's
        own sync client) in a step the machine made slow is no more a failure than it is
        on an idle machine, where the step is not slow."""
        if STEP.blocked + STEP.cpu < self.threshold:
            return None
        cpu = f"computed for {STEP.cpu:.3f} s of CPU"
        return f"blocked in {STEP.waits()} and {cpu}" if STEP.calls else cpu


@contextlib.contextmanager
def collected() -> Iterator[None]:
    """No garbage collection during a test: a full collection of the session's heap can
    take longer than a step may, and it is not the code under test. Enter it outside the
    loop (a sync fixture), since the collection before the test takes that long too. What
    survives that collection is frozen (``gc.freeze``: later collections pass it by), so
    the next test's collection reads only what was made since, not the whole session's
    heap again (that cost up to half a second a test late in a full run)."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextlib.asynccontextmanager
async def no_slow_callbacks(threshold: float = SLOW) -> AsyncIterator[LoopVerdicts]:
    """Fail the test if the loop was blocked or left unclean while inside (the judgements
    are yielded, for tests of this check)."""
    loop = asyncio.get_running_loop()
    assert loop.get_debug(), "async tests run in debug mode (asyncio_debug)"
    loop.slow_callback_duration = threshold
    verdicts = LoopVerdicts(threshold)
    logger = logging.getLogger("asyncio")
    logger.addHandler(verdicts)
    with pytest.MonkeyPatch.context() as patch, watching():
        patch.setattr(asyncio.Handle, "_run", _measured(asyncio.Handle._run))
        STEP.start()  # this step began before the patch; the rest of it counts too
        try:
            yield verdicts
        finally:
            logger.removeHandler(verdicts)
    if verdicts.messages:
        pytest.fail("the event loop was blocked or left unclean:\n" +
                    "\n".join(verdicts.messages), pytrace=False)
