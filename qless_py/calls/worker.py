"""The core calls a worker sends for itself, free of I/O: a pop as raw jobs, a held job given
back (``qlpy.giveback``), jobs by jid as raw hashes, and the read adoption starts with
(which jobs the core lists under the worker's name).

Both worker modes (``qless_py.workers.threaded`` and ``qless_py.workers.aio``), the
supervisor settling a killed child (``qless_py.workers.dead_child``) and the threaded
give-back send these; the client's own calls (``worker_call``, ``deregister_call``) are
reused from :mod:`qless_py.calls.client`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from qless_py.calls.base import Call, Steps
from qless_py.calls.client import deregister_call, worker_call
from qless_py.calls.job import json_list

__all__ = ["deregister_call", "giveback_call", "listed_steps", "multiget_call", "owner_call",
           "pop_call", "worker_call"]

RawJob = dict[str, Any]


def _raw_jobs(reply: Any) -> list[RawJob]:
    """A reply holding a JSON array of job hashes (``{}`` when empty) as dicts."""
    raws = json.loads(reply)
    return raws if type(raws) is list else []


def pop_call(queue: str, worker: str, count: int) -> Call[list[RawJob]]:
    """``pop``: up to ``count`` jobs of ``queue`` leased to ``worker``, as raw hashes."""
    return ("pop", (queue, worker, count), _raw_jobs)


def multiget_call(jids: Sequence[str]) -> Call[list[RawJob]]:
    """Jobs by jid as raw hashes (a jid the core does not know is left out)."""
    return ("multiget", tuple(jids), json_list)


def giveback_call(jid: str, worker: str) -> Call[bool]:
    """``qlpy.giveback``: ``jid`` back into its queue if ``worker`` still holds it, without
    spending a retry; True if it did (docs/protocol.md)."""
    return ("qlpy.giveback", (jid, worker), bool)


def owner_call(jid: str) -> Call[tuple[str, str] | None]:
    """``get``: the job's state and the worker it is leased to ('' when none); None when
    the core does not know the job."""
    def owner(reply: Any) -> tuple[str, str] | None:
        if reply is None:
            return None
        raw = json.loads(reply)
        return str(raw.get("state") or ""), str(raw.get("worker") or "")

    return ("get", (jid,), owner)


def listed_steps(worker: str,
                 wanted: Callable[[str], bool] | None = None) -> Steps[list[RawJob]]:
    """The jobs the core lists under ``worker`` (running or stalled) that are still leased
    to it, as raw hashes; ``wanted(jid)`` (default: every jid) filters the jids before
    they are read."""
    mine = yield worker_call(worker)
    jids = [jid for jid in (*mine["jobs"], *mine["stalled"])
            if wanted is None or wanted(jid)]
    raws: list[RawJob] = (yield multiget_call(jids)) if jids else []
    return [raw for raw in raws if raw.get("state") == "running" and raw.get("worker") == worker]
