"""Client-wide calls without the sending: jobs by jid and the core's job listings, queue and
worker overviews, several queues' statistics at once, every recurring template, tracking,
tags and unfail. ``qless_py.client.client`` and ``qless_py.aio.client``
send them; ``job_type``/``recurring_type`` are each flavour's object classes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from qless_py import clock
from qless_py.calls.base import Batch, Call, Steps
from qless_py.calls.core import pack_call
from qless_py.calls.job import as_list, json_list, tracked_flag
from qless_py.calls.queue import stats_batch
from qless_py.stats import QueueStats

J = TypeVar("J")
R = TypeVar("R")


def _loads(reply: Any) -> Any:
    return None if reply is None else json.loads(reply)


class JobsBase(Generic[J, R]):
    """Jobs by jid, and the core's job listings."""

    job_type: Callable[..., J]
    recurring_type: Callable[..., R]

    def __init__(self, client: Any) -> None:
        self._client = client

    def _job_steps(self, jid: str) -> Steps[J | R | None]:
        """The job or recurring template with this jid, or None."""
        raw = yield ("get", (jid,), _loads)
        if raw is not None:
            return self.job_type(self._client, raw)
        raw = yield ("recur.get", (jid,), _loads)
        if raw is not None:
            return self.recurring_type(self._client, raw)
        return None

    def _jobs(self, raws: list[Any]) -> list[J]:
        make, client = self.job_type, self._client
        return [make(client, raw) for raw in raws]

    def _get_call(self, jids: tuple[str, ...]) -> Call[list[J]]:
        """The jobs that exist among ``jids`` (unknown jids are left out), in order."""
        return ("multiget", jids, lambda reply: self._jobs(json_list(reply)))

    def _cancel_call(self, jids: tuple[str, ...]) -> Call[list[str]]:
        return ("cancel", jids, as_list)

    def _complete_call(self, offset: int, count: int) -> Call[list[str]]:
        return ("jobs", ("complete", offset, count), as_list)

    def _tracked_call(self) -> Call[dict[str, list[Any]]]:
        def tracked(reply: Any) -> dict[str, list[Any]]:
            raw = json.loads(reply)
            return {"jobs": self._jobs(as_list(raw.get("jobs"))),
                    "expired": as_list(raw.get("expired"))}

        return ("track", (), tracked)

    def _tagged_call(self, tag: str, offset: int, count: int) -> Call[dict[str, Any]]:
        def tagged(reply: Any) -> dict[str, Any]:
            raw = json.loads(reply)
            return {"total": int(raw.get("total", 0)), "jobs": as_list(raw.get("jobs"))}

        return ("tag", ("get", tag, offset, count), tagged)

    def _failed_steps(self, group: str | None, start: int, limit: int) -> Steps[dict[str, Any]]:
        """Without a group: ``{group: count}``. With one: ``{"total", "jobs": [Job...]}``."""
        if group is None:
            overview = yield ("failed", (), json.loads)
            return {str(k): int(v) for k, v in overview.items()}
        raw = yield ("failed", (group, start, limit), json.loads)
        jids = tuple(as_list(raw.get("jobs")))
        jobs = (yield self._get_call(jids)) if jids else []
        return {"total": int(raw.get("total", 0)), "jobs": jobs}

    def _recurring_steps(self, queues: Iterable[str] | None) -> Steps[list[R]]:
        """Every recurring template of the given queues (default all), by queue: at most
        three round trips (the queues, their templates' jids, the templates)."""
        if queues is None:
            rows = yield queue_counts_call()
            names = [str(row["name"]) for row in rows if row.get("recurring")]
        else:
            names = list(queues)
        jids = yield Batch([pack_call("jobs", ("recurring", name, 0, -1)) for name in names],
                           _jid_lists)
        make, client = self.recurring_type, self._client
        templates: list[R] = yield Batch(
            [pack_call("recur.get", (jid,)) for jid in jids],
            lambda replies: [make(client, json.loads(reply))
                             for reply in replies if isinstance(reply, str)])
        return templates


def _jid_lists(results: list[Any]) -> list[str]:
    """The jids of several ``jobs`` listings, in order (a refused listing raises)."""
    jids: list[str] = []
    for result in results:
        if isinstance(result, Exception):
            raise result
        jids.extend(as_list(result))
    return jids


def queue_counts_call() -> Call[list[dict[str, Any]]]:
    """Every queue's counts (``throttled`` always there, as for one queue)."""
    def counts(reply: Any) -> list[dict[str, Any]]:
        out = json_list(reply)
        for item in out:
            item.setdefault("throttled", 0)
        return out

    return ("queues", (), counts)


def queue_names_call() -> Call[list[str]]:
    return ("queues", (), lambda reply: [str(item["name"]) for item in json_list(reply)])


def queue_stats_batch(names: Iterable[str], date: float | None,
                      bins: bool) -> Batch[dict[str, QueueStats]]:
    """The statistics of several queues for the day containing ``date`` (default today),
    with their fine histograms, in one round trip; qless's bins only with ``bins`` (see
    :func:`~qless_py.calls.queue.stats_batch`)."""
    names = list(names)
    when = clock.now() if date is None else date
    days = stats_batch([(name, when) for name in names], bins)
    return Batch(days.calls,
                 lambda results: dict(zip(names, days.parse(results), strict=True)))


def worker_counts_call() -> Call[list[dict[str, Any]]]:
    """``[{"name", "jobs", "stalled"}]``, most recently active first."""
    return ("workers", (), json_list)


def worker_call(name: str) -> Call[dict[str, list[str]]]:
    """``{"jobs": [jid...], "stalled": [jid...]}`` for one worker."""
    def jobs(reply: Any) -> dict[str, list[str]]:
        raw = json.loads(reply)
        return {"jobs": as_list(raw.get("jobs")), "stalled": as_list(raw.get("stalled"))}

    return ("workers", (name,), jobs)


def deregister_call(names: tuple[str, ...]) -> Call[None]:
    """Remove workers from the registry (their job lists stay)."""
    return ("worker.deregister", names, lambda _: None)


def track_call(command: str, jid: str) -> Call[bool]:
    return ("track", (command, jid), tracked_flag)


def tags_call(offset: int, count: int) -> Call[list[str]]:
    """The most used tags (used at least twice), most used first."""
    return ("tag", ("top", offset, count), json_list)


def unfail_call(group: str, queue: str, count: int) -> Call[int]:
    """Move the oldest ``count`` jobs of failure ``group`` into ``queue``."""
    if count <= 0:
        raise ValueError("count must be positive")
    return ("unfail", (queue, group, count), int)
