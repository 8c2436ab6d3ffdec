"""Job classes of the sharded-namespace worker tests (tests/workers/test_sharded_workers.py).

Each records what it did in a key of its own shard's namespace (its client's prefix), so
the record lives on the master that holds the job, whatever the cluster looks like.
"""

from __future__ import annotations

import time
from typing import Any

SPANS = "test:spans"  # hash: jid -> "<start> <end>" (time.time() of the handler's run)
ORDER = "test:order:"  # + ordering key: list of jids in the order their runs completed


class Span:
    """Runs ``data['seconds']`` and records when it started and ended."""

    @staticmethod
    def process(job: Any) -> None:
        start = time.time()
        time.sleep(float(job.data.get("seconds", 0.05)))
        job.client.redis.hset(job.client.keys.prefix + SPANS, job.jid,
                              f"{start!r} {time.time()!r}")


class RetriedOnce:
    """The first run of each job gives it back (a retry); the second records the job in
    its ordering key's list and lets the worker complete it."""

    @staticmethod
    def process(job: Any) -> None:
        if job.retries_left == job.original_retries:
            job.retry()
            return
        job.client.redis.rpush(job.client.keys.prefix + ORDER + job.data["key"], job.jid)


class HandOff:
    """Sleeps ``data['work']`` seconds, then completes into queue ``data['next']`` of
    namespace ``data['namespace']`` (through the outbox); there (or without ``next``),
    completes."""

    @staticmethod
    def process(job: Any) -> None:
        time.sleep(float(job.data.get("work", 0)))
        if job.data.get("next") and job.client.keys.namespace != job.data["namespace"]:
            job.complete(next=job.data["next"], namespace=job.data["namespace"])
        else:
            job.complete()
