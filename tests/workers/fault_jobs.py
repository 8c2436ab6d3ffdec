"""Job classes whose handlers lose a core call to the connection, on purpose and exactly.

Two real server features make a call's outcome unknown without any mock:

* ``CLIENT REPLY SKIP`` sent on the handler's own connection: the next command runs, but
  its reply never comes, so the call times out (the worker's client has a short timeout).
* ``CLIENT PAUSE <ms> WRITE``: writes wait; the call times out and the connection is
  closed, so the server drops the command without running it.

``data``: ``fault`` (``reply-lost`` or ``not-run``), ``call`` (a key of ``CALLS``) and
``then`` (what the handler does with the error: ``raise`` it, ``wrap`` it, or ``swallow``
it and raise something unrelated). Only the first run in queue ``a`` is faulted; a later
run there completes the job into ``b`` if the call was ``complete-next``, and otherwise
returns at once (the worker completes the job), as does every run in ``b``. Runs are
counted per jid and queue in ``RUNS``, and each run's ``retries_left`` is kept in ``LEFT``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from qless_py import QlessConnectionError
from qless_py.connect.resp import pack

RUNS = "test:fault-runs"  # hash: "<jid>:<queue>" -> handler runs
LEFT = "test:fault-left"  # hash: "<jid>:<queue>:<run>" -> retries left when it started
PAUSE_MS = 1000  # longer than two client timeouts: a read, retried once, fails too


def drop_next_reply(job: Any) -> None:
    """The next command this thread sends runs; its reply is never sent."""
    job.client.core.transport.ready().send(pack(["CLIENT", "REPLY", "SKIP"]))


def hold_writes(job: Any) -> None:
    """The next core call of this thread waits past its timeout and never runs."""
    job.client.redis.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")


CALLS: dict[str, Callable[[Any], object]] = {
    "complete": lambda job: job.complete(),
    "complete-next": lambda job: job.complete(next="b"),
    "fail": lambda job: job.fail("chosen", "the handler failed it"),
    "retry": lambda job: job.retry(),
    "heartbeat": lambda job: job.heartbeat(),
    "move": lambda job: job.move("b"),
    "timeout": lambda job: job.timeout(),
    "cancel": lambda job: job.cancel(),
    "put-other": lambda job: job.client.queues["other"].put(
        "tests.jobs.Noop", {}, jid=f"{job.jid}-child"),
    "log": lambda job: job.log("a note"),
    "tag": lambda job: job.tag("noted"),
    "read": lambda job: job.client.jobs[job.jid],
}


class Faulty:
    @staticmethod
    def process(job: Any) -> None:
        runs = job.client.redis.hincrby(RUNS, f"{job.jid}:{job.queue_name}", 1)
        job.client.redis.hset(LEFT, f"{job.jid}:{job.queue_name}:{runs}", job.retries_left)
        plan = job.data
        if job.queue_name != "a" or runs > 1:
            if job.queue_name == "a" and plan["call"] == "complete-next":
                job.complete(next="b")
            return
        (drop_next_reply if plan["fault"] == "reply-lost" else hold_writes)(job)
        then = plan.get("then", "raise")
        try:
            CALLS[plan["call"]](job)
        except QlessConnectionError as exc:
            if then == "wrap":
                raise RuntimeError("could not finish") from exc
            if then == "raise":
                raise
        if then == "swallow":
            raise ValueError("something unrelated went wrong afterwards")
        raise AssertionError("the faulted call did not fail")


class CompletesThenRaises:
    """Completes its job into ``b`` (first stage) or for good, then raises."""

    @staticmethod
    def process(job: Any) -> None:
        job.client.redis.hincrby(RUNS, f"{job.jid}:{job.queue_name}", 1)
        if job.queue_name == "a":
            job.complete(next="b")
        else:
            job.complete()
        raise ValueError("a bug after the job was done")


class Stage:
    """A pipeline stage: ``data['work']`` seconds of work, then complete into
    ``data['next'][queue]`` or, at the last stage, complete. Only core calls: no other
    connection whose errors would stand for something else."""

    @staticmethod
    def process(job: Any) -> None:
        time.sleep(float(job.data.get("work", 0.001)))
        following = job.data.get("next", {}).get(job.queue_name)
        if following:
            job.complete(next=following)
        else:
            job.complete()
