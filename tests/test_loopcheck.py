"""tests/loopcheck.py fails a test whose loop was blocked or busy (and only then)."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator

import pytest

from tests.blocking_calls import STEP
from tests.loopcheck import LoopVerdicts, no_slow_callbacks


async def _checked(steps: Callable[[], Awaitable[None]], verdicts: list[LoopVerdicts]) -> None:
    async with no_slow_callbacks(0.05) as judged:
        verdicts.append(judged)
        await steps()


def _failure(body: Callable[[], object]) -> str:
    """Run ``body`` in one step of a debug-mode loop under the check; its failure text."""
    async def steps() -> None:
        await asyncio.sleep(0)
        body()
        await asyncio.sleep(0)

    with pytest.raises(pytest.fail.Exception) as failed:
        asyncio.run(_checked(steps, []), debug=True)
    return str(failed.value)


def test_a_sleep_in_a_step_fails_and_is_named() -> None:
    assert "blocked in time.sleep(0.1) for " in _failure(lambda: time.sleep(0.1))


def test_a_read_from_a_blocking_socket_in_a_step_fails_and_is_named() -> None:
    mine, theirs = socket.socketpair()  # blocking, as a sync client's socket is
    later = threading.Timer(0.1, theirs.sendall, (b"reply",))
    later.start()
    try:
        assert "blocked in socket.recv(5) for " in _failure(lambda: mine.recv(5))
    finally:
        later.join()
        mine.close()
        theirs.close()


def test_the_step_that_enters_the_check_is_judged_from_there_on() -> None:
    async def main() -> None:
        async with no_slow_callbacks(0.05):
            time.sleep(0.1)  # in the step that entered the check, which began before it
            await asyncio.sleep(0)

    with pytest.raises(pytest.fail.Exception) as failed:
        asyncio.run(main(), debug=True)
    assert "blocked in time.sleep(0.1) for " in str(failed.value)


def test_a_step_that_computes_too_long_fails() -> None:
    def busy() -> None:
        end = time.thread_time() + 0.1
        while time.thread_time() < end:
            pass

    text = _failure(busy)
    assert "computed for 0.1" in text and "s of CPU" in text and "blocked in" not in text


def test_a_slow_step_is_judged_by_its_own_time_not_by_the_wall_clock() -> None:
    # A step's blocking calls and CPU are what it would take on an idle machine: a short
    # blocking call (a test's own sync client) does not make a step the machine slowed a
    # failure; calls and CPU that add up to the threshold do.
    verdicts = LoopVerdicts(0.05)
    STEP.start()
    STEP.stop()
    STEP.note("socket.recv(5)", 0.007)
    assert verdicts.why_slow() is None
    STEP.note("time.sleep(0.05)", 0.05)
    assert verdicts.why_slow() == (
        "blocked in time.sleep(0.05) for 0.050 s, socket.recv(5) for 0.007 s and "
        f"computed for {STEP.cpu:.3f} s of CPU")


@pytest.fixture
def gil_hog() -> Iterator[None]:
    """A thread beside the loop that computes in Python, keeping the GIL for 0.1 s each
    time it gets it: a loop step that lets go of the GIL waits that long for it back."""
    interval = sys.getswitchinterval()
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    hog = threading.Thread(target=spin, daemon=True)
    sys.setswitchinterval(0.1)
    hog.start()
    try:
        yield
    finally:
        stop.set()
        hog.join()
        sys.setswitchinterval(interval)


def test_a_step_slowed_by_a_thread_holding_the_gil_does_not_fail(gil_hog: None) -> None:
    # Each step lets go of the GIL while it hashes a few megabytes (hashlib releases it for
    # large inputs, as a socket call does); the hog takes it, and the step waits for it
    # back until the switch interval makes the hog give it up: slow, but not blocked.
    data = bytes(4 << 20)
    verdicts: list[LoopVerdicts] = []

    async def short_steps() -> None:
        for _ in range(5):
            hashlib.sha256(data).digest()
            await asyncio.sleep(0)

    asyncio.run(_checked(short_steps, verdicts), debug=True)
    assert verdicts[0].forgiven >= 1  # steps were slow, and not blamed on the code


def test_starting_a_thread_in_a_step_is_not_blamed(gil_hog: None) -> None:
    # Thread.start waits for the new thread to run, which needs the GIL the hog holds; an
    # executor's first submits from a loop do this (tests/blocking_calls.py, NOT_COUNTED).
    started: list[threading.Thread] = []

    async def steps() -> None:
        for _ in range(3):
            started.append(threading.Thread(target=lambda: None))
            started[-1].start()
            await asyncio.sleep(0)

    asyncio.run(_checked(steps, []), debug=True)
    for thread in started:
        thread.join()
