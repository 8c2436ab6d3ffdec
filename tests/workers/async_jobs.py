"""``async def`` twins of the job classes in ``tests/jobs.py`` and ``fault_jobs.py``, for
the asyncio worker (importable as ``tests.workers.async_jobs.<Class>``).

They record what happened in the same hashes as their sync twins, through the async
client's own ``redis.asyncio`` connection, so that a test can run either set with either
worker and read the same record. A few more record what the asyncio worker alone does:
how many jobs run at once in a process, and cancellation.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
import time
from typing import Any

from qless_py.client.job import retry
from tests.jobs import COMPLETED, RECORD, RUNS, STARTED

PEAK = "test:peak"  # hash: "<pid>:<jid>" -> jobs running in that process when it started
CANCELLED = "test:cancelled"  # hash: jid -> "cancelled" when its handler was cancelled


async def _started(job: Any) -> None:
    pipe = job.client.redis.pipeline(transaction=False)
    pipe.hset(STARTED, job.jid, repr(time.time()))
    pipe.hincrby(RUNS, job.jid, 1)
    await pipe.execute()


class Noop:
    """Returns at once; the worker completes it."""

    @staticmethod
    async def process(job: Any) -> None:
        await _started(job)


class Quiet:
    """Sleeps ``data['seconds']`` (0 by default) without a call of its own to the server;
    the worker completes it."""

    @staticmethod
    async def process(job: Any) -> None:
        await asyncio.sleep(float(job.data.get("seconds", 0)))


def _plain_wrapper(func: Any) -> Any:
    """A decorator that returns a plain function (functools.wraps) around ``func``."""

    @functools.wraps(func)
    def wrapper(job: Any) -> Any:
        return func(job)

    return wrapper


class Wrapped:
    """An async handler behind a plain decorator: it returns the coroutine, which the
    worker must await (not run in a thread, where nothing would)."""

    @staticmethod
    @_plain_wrapper
    async def process(job: Any) -> None:
        await _started(job)


class Raiser:
    @staticmethod
    async def process(job: Any) -> None:
        raise ValueError("boom from " + job.jid)


class Flaky:
    """``qless_py.job.retry`` around an ``async def``: a ``transient`` job raises ValueError
    on its first run (retried) and completes on the next; any other raises KeyError
    (failed)."""

    @staticmethod
    @retry(ValueError)
    async def process(job: Any) -> None:
        await _started(job)
        if "transient" not in job.tags:
            raise KeyError("broken")
        if job.retries_left == job.original_retries:
            raise ValueError("try again")


class Advance:
    """Completes itself into ``data['next']``, and there for good (the async job's own
    complete); counts each complete under ``<jid>:<queue>``."""

    @staticmethod
    async def process(job: Any) -> None:
        stage = job.queue_name
        if stage == job.data["next"]:
            await job.complete()
        else:
            await job.complete(next=job.data["next"])
        await job.client.redis.hincrby(COMPLETED, f"{job.jid}:{stage}", 1)


class Sleeper:
    """Sleeps ``data['seconds']``, then completes itself; records ``slept``, or
    ``stopped`` when its task was cancelled (lock lost, TERM), and lets the cancel out."""

    @staticmethod
    async def process(job: Any) -> None:
        try:
            # the record of its start is inside: the test may see it and make the job lost
            # before this task has read the reply
            await _started(job)
            await asyncio.sleep(float(job.data.get("seconds", 1)))
        except asyncio.CancelledError:
            await job.client.redis.hset(RECORD, job.jid, "stopped")
            await job.client.redis.hset(CANCELLED, job.jid, "cancelled")
            raise
        await job.client.redis.hset(RECORD, job.jid, "slept")
        await job.complete()
        await job.client.redis.hincrby(COMPLETED, job.jid, 1)


class Stubborn:
    """Swallows cancellation: sleeps its full time, then tries to complete. Records the
    outcome under ``<jid>:<worker name>``."""

    @staticmethod
    async def process(job: Any) -> None:
        try:
            await _started(job)
        except asyncio.CancelledError:  # lost before the reply to its start record came
            await job.client.redis.hset(CANCELLED, job.jid, "cancelled")
        loop = asyncio.get_running_loop()
        end = loop.time() + float(job.data.get("seconds", 1))
        while (left := end - loop.time()) > 0:
            try:
                await asyncio.sleep(left)
            except asyncio.CancelledError:
                await job.client.redis.hset(CANCELLED, job.jid, "cancelled")
        field = f"{job.jid}:{job.client.worker_name}"
        try:
            await job.complete()
        except BaseException as exc:  # refused, or cancelled while it waited for the reply
            await job.client.redis.hset(RECORD, field, f"refused: {type(exc).__name__}")
            raise
        await job.client.redis.hincrby(COMPLETED, job.jid, 1)
        await job.client.redis.hset(RECORD, field, "completed")


class Stage:
    """One stage of the reliability pipeline (``tests.jobs.Stage``'s twin)."""

    @staticmethod
    async def process(job: Any) -> None:
        await asyncio.sleep(float(job.data.get("work", 0.001)))
        stage = job.queue_name
        following = job.data.get("next", {}).get(stage)
        if following:
            await job.complete(next=following)
        else:
            await job.complete()
        await job.client.redis.hincrby(COMPLETED, f"{job.jid}:{stage}", 1)


class CoreOnlyStage:
    """``fault_jobs.Stage``'s twin: a little work and the complete, only core calls."""

    @staticmethod
    async def process(job: Any) -> None:
        await asyncio.sleep(float(job.data.get("work", 0.001)))
        following = job.data.get("next", {}).get(job.queue_name)
        if following:
            await job.complete(next=following)
        else:
            await job.complete()


# -- what the concurrency tests count --------------------------------------------------

_running = 0
_lock = threading.Lock()


def _enter() -> int:
    global _running
    with _lock:
        _running += 1
        return _running


def _leave() -> None:
    global _running
    with _lock:
        _running -= 1


class Crowd:
    """Counts the jobs of this process running at once (async and threaded members share
    the count), records the count it saw when it started, and waits until
    ``data['size']`` run at once (or ``data['within']`` s) before it leaves."""

    @staticmethod
    async def process(job: Any) -> None:
        seen = _enter()
        try:
            await job.client.redis.hset(PEAK, f"{os.getpid()}:{job.jid}", seen)
            deadline = time.monotonic() + float(job.data.get("within", 5))
            while _running < int(job.data["size"]) and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.01)
        finally:
            _leave()


class ThreadCrowd:
    """``Crowd`` as a plain function: it runs in the worker's thread pool."""

    @staticmethod
    def process(job: Any) -> None:
        seen = _enter()
        try:
            job.client.redis.hset(PEAK, f"{os.getpid()}:{job.jid}", seen)
            deadline = time.monotonic() + float(job.data.get("within", 5))
            while _running < int(job.data["size"]) and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(0.01)
        finally:
            _leave()


class Handoff:
    """``tests.jobs.Handoff``'s twin: stage ``a`` completes into ``b``, then works
    ``data['tail']`` seconds more while the popper may take the job from ``b``."""

    @staticmethod
    async def a(job: Any) -> None:
        await job.complete(next="b")
        tail = float(job.data.get("tail", 0))
        if tail:
            await asyncio.sleep(tail)

    @staticmethod
    async def b(job: Any) -> None:
        await job.complete()
