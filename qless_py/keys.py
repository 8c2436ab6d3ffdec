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
