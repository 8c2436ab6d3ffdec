"""Fake job classes that the worker tests run (importable as ``tests.jobs.<Class>``).

They record what happened in Redis through the job's own client, so tests running real
worker processes can check it afterwards.
"""

from __future__ import annotations

import os
import time
from typing import Any

RECORD = "test:record"      # hash: jid -> free text the job wrote
COMPLETED = "test:completed"  # hash: jid -> number of successful complete() calls
STARTED = "test:started"    # hash: jid -> time.time() when the handler started
RUNS = "test:runs"          # hash: jid -> number of handler runs


def _redis(job: Any) -> Any:
    return job.client.redis


def _started(job: Any) -> None:
    pipe = _redis(job).pipeline(transaction=False)
    pipe.hset(STARTED, job.jid, repr(time.time()))
    pipe.hincrby(RUNS, job.jid, 1)
    pipe.execute()


class Noop:
    """Returns at once; the worker completes it."""

    @staticmethod
    def process(job: Any) -> None:
        _started(job)


class Quiet:
    """Sleeps ``data['seconds']`` (0 by default) without a call of its own to the server,
    so a server outage cannot make it raise; the worker completes it."""

    @staticmethod
    def process(job: Any) -> None:
        time.sleep(float(job.data.get("seconds", 0)))


class SelfComplete:
    """Completes itself, then counts the successful complete (only after it returned)."""

    @staticmethod
    def process(job: Any) -> None:
        job.complete()
        _redis(job).hincrby(COMPLETED, job.jid, 1)


class Raiser:
    @staticmethod
    def process(job: Any) -> None:
        raise ValueError("boom from " + job.jid)


class FailOnce:
    """Raises on its first run, succeeds afterwards."""

    @staticmethod
    def process(job: Any) -> None:
        _started(job)
        if int(_redis(job).hget(RUNS, job.jid) or 0) == 1:
            raise ValueError("first run fails")


class RetryOnce:
    """Retries itself with ``data['delay']`` on its first run, succeeds afterwards."""

    @staticmethod
    def process(job: Any) -> None:
        _started(job)
        if int(_redis(job).hget(RUNS, job.jid) or 0) == 1:
            job.retry(delay=float(job.data.get("delay", 1)))


class QueueNamed:
    """Has a method named after queue ``special``, and ``process`` for the others."""

    @staticmethod
    def special(job: Any) -> None:
        _redis(job).hset(RECORD, job.jid, "special")

    @staticmethod
    def process(job: Any) -> None:
        _redis(job).hset(RECORD, job.jid, "process")


class NoMethod:
    """Neither a queue-named method nor ``process``."""


class Fails:
    """Fails itself into its own group; the worker must not complete it afterwards."""

    @staticmethod
    def process(job: Any) -> None:
        job.fail("custom-group", "chose to fail")


class Retries:
    @staticmethod
    def process(job: Any) -> None:
        job.retry(delay=3600)


class WorkdirProbe:
    """Records its cwd and workdir, and leaves a file behind."""

    @staticmethod
    def process(job: Any) -> None:
        # job.workdir, not the cwd: with several threads the cwd is the process's own
        with open(os.path.join(job.workdir, "left-behind.txt"), "w") as handle:
            handle.write("x")
        listing = ",".join(sorted(os.listdir(job.workdir)))
        _redis(job).hset(RECORD, job.jid, f"{os.getcwd()}|{job.workdir}|{listing}")


class Sleeper:
    """Sleeps ``data['seconds']`` unless told to stop; records whether it was stopped."""

    @staticmethod
    def process(job: Any) -> None:
        _started(job)
        stopped = job.stop_event.wait(float(job.data.get("seconds", 1)))
        _redis(job).hset(RECORD, job.jid, "stopped" if stopped else "slept")
        if stopped:
            return
        job.complete()
        _redis(job).hincrby(COMPLETED, job.jid, 1)


class Stubborn:
    """Ignores ``stop_event``: sleeps its full time, then tries to complete.

    Records the outcome under ``<jid>:<worker name>``.
    """

    @staticmethod
    def process(job: Any) -> None:
        _started(job)
        time.sleep(float(job.data.get("seconds", 1)))
        field = f"{job.jid}:{job.client.worker_name}"
        try:
            job.complete()
        except Exception as exc:
            _redis(job).hset(RECORD, field, f"refused: {type(exc).__name__}")
            raise
        _redis(job).hincrby(COMPLETED, job.jid, 1)
        _redis(job).hset(RECORD, field, "completed")


class Gather:
    """Waits (up to ``data['within']`` seconds) until ``data['size']`` jobs of its group
    run at once; records ``met`` or ``alone``, then completes. A worker that runs fewer
    jobs at a time than the group's size leaves them all ``alone``."""

    @staticmethod
    def process(job: Any) -> None:
        _started(job)
        group = f"test:gather:{job.data['group']}"
        _redis(job).incr(group)
        deadline = time.monotonic() + float(job.data.get("within", 10))
        while int(_redis(job).get(group) or 0) < int(job.data["size"]):
            if time.monotonic() > deadline:
                _redis(job).hset(RECORD, job.jid, "alone")
                return
            time.sleep(0.005)
        _redis(job).hset(RECORD, job.jid, "met")


class Stage:
    """One stage of the reliability pipeline: a little work, then advance or complete.

    ``data['next']`` names the next queue (absent at the last stage). Every successful
    complete is counted per jid and stage, only after ``complete()`` returned.
    """

    @staticmethod
    def process(job: Any) -> None:
        time.sleep(float(job.data.get("work", 0.001)))
        stage = job.queue_name
        nxt = job.data.get("next", {}).get(stage)
        if nxt:
            job.complete(next=nxt)
        else:
            job.complete()
        _redis(job).hincrby(COMPLETED, f"{job.jid}:{stage}", 1)


class Handoff:
    """Stage ``a`` completes into ``b``, then works ``data['tail']`` seconds more (the
    hand-off race: another thread may pop the job from ``b`` meanwhile)."""

    @staticmethod
    def a(job: Any) -> None:
        job.complete(next="b")
        tail = float(job.data.get("tail", 0))
        if tail:
            time.sleep(tail)

    @staticmethod
    def b(job: Any) -> None:
        job.complete()
