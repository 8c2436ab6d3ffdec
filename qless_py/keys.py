"""Redis key and channel names, the only place Python code spells them.

The Lua core spells the same names in ``lua/prelude.lua``; everything here follows the
qless protocol's key catalogue (``docs/protocol.md``). Code outside the core should change
state only through core commands; these names are for the few reads that have no command
(a worker's due times, key tracking prefixes, pub/sub channels).
"""

from __future__ import annotations

PREFIX = "ql:"

CONFIG = "ql:config"
QUEUES = "ql:queues"
PAUSED = "ql:paused_queues"
WORKERS = "ql:workers"
TRACKED = "ql:tracked"
TAGS = "ql:tags"
FAILURES = "ql:failures"
COMPLETED = "ql:completed"

# Queue sets: queue(name) + one of these suffixes.
WORK, LOCKS, SCHEDULED, DEPENDS, RECUR = "-work", "-locks", "-scheduled", "-depends", "-recur"


def job(jid: str) -> str:
    """The job's hash."""
    return f"ql:j:{jid}"


def queue(name: str, suffix: str) -> str:
    """One of a queue's sorted sets, e.g. ``queue("q", WORK)``."""
    return f"ql:q:{name}{suffix}"


def worker_jobs(worker: str) -> str:
    """The sorted set of jids leased to ``worker``."""
    return f"ql:w:{worker}:jobs"


def recurring(jid: str) -> str:
    """A recurring template's hash."""
    return f"ql:r:{jid}"


def channel(name: str) -> str:
    """A core pub/sub channel: ``log``, ``put``, ``popped``, ... (``ql:<name>``)."""
    return f"ql:{name}"


def worker_channel(worker: str) -> str:
    """The channel of ``lock_lost``/``canceled`` notices for one worker's jobs."""
    return f"ql:w:{worker}"


# Throttles (the throttle dialect): a throttle's hash is throttle(tid); its sets add one of
# these suffixes. A queue's own throttle has the tid queue_tid(name).
THROTTLE_PREFIX = "ql:th:"
THROTTLE_SETS = ("-locks", "-pending", "-ready")


def queue_tid(name: str) -> str:
    """The tid of a queue's own throttle (``ql:q:<queue>``)."""
    return f"ql:q:{name}"


def tid_queue(tid: str) -> str | None:
    """The queue whose own throttle ``tid`` is, or None for a named throttle."""
    return tid[len("ql:q:"):] if tid.startswith("ql:q:") else None


def throttle(tid: str) -> str:
    """A throttle's hash (``id``, ``maximum``)."""
    return f"ql:th:{tid}"


def job_of(key: str) -> str | None:
    """The jid whose hash ``key`` is (``job(jid)``), or None for any other key."""
    return key[len("ql:j:"):] if key.startswith("ql:j:") else None


# qless_py's own keys (not the protocol's).
CHECK_SUMMARY = "ql:check"
"""The last finished check's summary (hash: started, finished, keys, findings as JSON)."""


THROTTLE_MAXIMUM = "maximum"  # the field of a throttle's hash that holds its maximum


def concurrency_cap(queue: str) -> str:
    """The field of ``CONFIG`` that caps a queue's running jobs (``<queue>-max-concurrency``)."""
    return f"{queue}-max-concurrency"
