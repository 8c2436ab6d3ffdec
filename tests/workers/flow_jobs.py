"""Job classes for the throttle and ordering-key tests with real worker processes
(importable as ``tests.workers.flow_jobs.<Class>``).

A job records what it saw in Redis through its own client. To count the jobs running at
once, each run adds ``<pid>:<start time>:<jid>`` to a set while it runs; a run counts the
entries whose process is still alive, so the runs of a process killed with kill -9 (which
never remove their entries) stop counting as soon as the process is gone.
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import Any

RUNNING = "test:flow:running"      # set: <pid>:<start time>:<jid> of runs in progress
SEEN = "test:flow:seen"            # list: the count each run saw when it started
ORDER = "test:flow:order:"         # list per key: the seq of every run, in start order
OVERLAP = "test:flow:overlap"      # list: runs that found another run of their key alive
RUNS = "test:flow:runs"            # hash: jid -> runs started
HOLD = "test:flow:hold"            # while it exists, a job with data['hold'] does not end


def process_id(pid: int) -> str | None:
    """``<pid>:<start time>`` of a live process (not a zombie), or None."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if fields[0] in ("Z", "X"):
        return None
    return f"{pid}:{fields[19]}"


def _alive(entry: str) -> bool:
    pid, start, _ = entry.split(":", 2)
    return process_id(int(pid)) == f"{pid}:{start}"


def _enter(job: Any, members: str) -> tuple[str, list[str]]:
    """Add this run to ``members``; return its entry and the live entries (itself too)."""
    me = process_id(os.getpid())
    assert me is not None
    entry = f"{me}:{job.jid}"
    redis = job.client.redis
    pipe = redis.pipeline(transaction=True)
    pipe.sadd(members, entry)
    pipe.smembers(members)
    _, found = pipe.execute()
    return entry, [e for e in (m.decode() for m in found) if _alive(e)]


def _record(job: Any, *pushes: tuple[str, Any]) -> int:
    """Count this run and push what it saw, in one transaction (a kill -9 between the two
    would leave a run counted but not recorded); return the job's runs so far."""
    pipe = job.client.redis.pipeline(transaction=True)
    pipe.hincrby(RUNS, job.jid, 1)
    for name, value in pushes:
        pipe.rpush(name, value)
    return int(pipe.execute()[0])


def _work(job: Any, runs: int) -> None:
    """Work ``data['work']`` seconds; a victim (``data['victim']``) waits on its first run
    until the test kills its process, a held job (``data['hold']``) while ``HOLD`` exists
    or its worker is told to stop."""
    if job.data.get("victim") and runs == 1:
        time.sleep(60)
    while job.data.get("hold") and job.client.redis.exists(HOLD) and not job.stopping:
        time.sleep(0.01)
    time.sleep(float(job.data.get("work", 0.01)))


def _chosen(job: Any, run: int, rate: float) -> bool:
    """A repeatable coin for this job's ``run``-th run."""
    digest = hashlib.sha256(f"{job.jid}:{run}".encode()).digest()
    return digest[0] / 256 < rate


class Concurrent:
    """Counts the runs of its throttle alive at its start, works ``data['work']`` seconds,
    then leaves the count and lets the worker complete it."""

    @staticmethod
    def process(job: Any) -> None:
        redis = job.client.redis
        entry, alive = _enter(job, RUNNING)
        _work(job, _record(job, (SEEN, len(alive))))
        redis.srem(RUNNING, entry)


class Ordered:
    """Records its key's seq at every run start, checks that no other run of its key is
    alive, and retries itself on some runs (``data['retry']`` is the rate). Its runs are
    listed in ``RUNNING:<key>``."""

    @staticmethod
    def process(job: Any) -> None:
        redis = job.client.redis
        key, seq = job.data["key"], int(job.data["seq"])
        members = f"{RUNNING}:{key}"
        entry, alive = _enter(job, members)
        overlap = [(OVERLAP, f"{key}:{seq}:{sorted(alive)}")] if len(alive) > 1 else []
        runs = _record(job, (ORDER + key, seq), *overlap)
        _work(job, runs)
        redis.srem(members, entry)
        if _chosen(job, runs, float(job.data.get("retry", 0))):
            job.retry()
