"""tests/loopcheck.py fails a test whose loop was blocked or busy (and only then)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.loopcheck import no_slow_callbacks


def _loop_check_on(body: Any) -> str:
    """Run ``body`` in a fresh debug-mode loop under the slow-step check; its failure text."""
    async def main() -> None:
        async with no_slow_callbacks(0.05):
            await asyncio.sleep(0)
            body()
            await asyncio.sleep(0)

    with pytest.raises(pytest.fail.Exception) as failed:
        asyncio.run(main(), debug=True)
    return str(failed.value)


def test_the_slow_step_check_fails_a_blocked_or_busy_loop() -> None:
    real_sleep = time.sleep  # the tripwires are not set here
    assert "waited" in _loop_check_on(lambda: real_sleep(0.1))

    def busy() -> None:
        end = time.thread_time() + 0.1
        while time.thread_time() < end:
            pass

    assert "s of CPU" in _loop_check_on(busy)
