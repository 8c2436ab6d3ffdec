"""Recurring templates without the sending: the attributes of the core's recurring object
and the calls that change the template (``recur.update``, ``unrecur``, tags).
``qless_py.client.recurring.RecurringJob`` and ``qless_py.aio.recurring.RecurringJob`` send
them; when a template spawns next is a read (``qless_py.calls.reads.recurring_next``)."""

from __future__ import annotations

import json
from typing import Any

from qless_py import codecs
from qless_py.calls.base import Call
from qless_py.calls.job import BaseJob, class_name, flow_fields, json_list, plain_number
from qless_py.calls.throttles import job_throttles, ordering_key, throttle_names, ttl_seconds


class RecurringJobBase(BaseJob):
    """A recurring template as the core reported it."""

    def __init__(self, client: Any, raw: dict[str, Any]) -> None:
        super().__init__(client, raw)
        self.state: str = raw.get("state", "recur")
        self._retries: int = int(raw.get("retries", 0))
        self._interval: float = raw.get("interval", 0)
        self._backlog: float = raw.get("backlog", 0)
        self.count: int = int(raw.get("count", 0))
        # The extensions its spawned jobs get (docs/throttles.md), as on a job.
        self._throttles: list[str] = job_throttles(raw, client.keys)
        self._key: str | None = raw.get("key")
        self._start_within: float | None = raw.get("ttl")

    def to_dict(self) -> dict[str, Any]:
        """This snapshot in the shape of the core's recurring object, with real lists and
        ``data`` decoded."""
        return {
            "jid": self.jid, "klass": self.klass_name, "state": self.state,
            "queue": self.queue_name, "priority": plain_number(self.priority),
            "interval": plain_number(self.interval), "retries": self.retries,
            "count": self.count, "data": self.data, "tags": list(self.tags),
            "backlog": plain_number(self.backlog), **self._flow_fields(),
        }

    def _flow_fields(self) -> dict[str, Any]:
        return flow_fields(self.throttles, self.key, self.start_within)

    @property
    def throttles(self) -> list[str]:
        """Its spawned jobs' throttles, the queue's own tid last (as on a job)."""
        return self._throttles

    @property
    def key(self) -> str | None:
        """Its spawned jobs' ordering key: they run one at a time, in spawn order."""
        return self._key

    @property
    def start_within(self) -> float | None:
        """Seconds a spawned job may wait to start before it expires (its ttl)."""
        return self._start_within

    def _flow_update_call(self, name: str, value: Any) -> Call[None]:
        """``recur.update`` of ``throttles`` (names), ``key`` or ``ttl`` (None removes
        them)."""
        if name == "throttles":
            names = throttle_names(value if value is not None else ())
            stored: Any = json.dumps(names)

            def updated(_: Any) -> None:
                tid = self.client.keys.queue_tid(self.queue_name)
                self._throttles = [*dict.fromkeys(t for t in names if t != tid), tid]
        elif name == "key":
            stored = "" if value is None else ordering_key(value)

            def updated(_: Any) -> None:
                self._key = value
        else:
            stored = 0 if value is None else ttl_seconds(value)

            def updated(_: Any) -> None:
                self._start_within = value

        return ("recur.update", (self.jid, name, stored), updated)

    @property
    def retries(self) -> int:
        return self._retries

    @property
    def interval(self) -> float:
        return self._interval

    @property
    def backlog(self) -> float:
        return self._backlog

    def _update_call(self, name: str, value: Any) -> Call[None]:
        """``recur.update`` of one field; the snapshot follows once the core took it."""
        if name in ("throttles", "key", "ttl"):
            return self._flow_update_call(name, value)
        if name == "interval" and value <= 0:
            raise ValueError("interval must be greater than 0")
        stored: Any = value
        if name == "data":
            stored = codecs.encode(value, self.client.codec)
        elif name == "klass":
            stored = class_name(value)

        def updated(_: Any) -> None:
            if name == "data":
                object.__setattr__(self, "data", value)
                object.__setattr__(self, "codec", self.client.codec)
            elif name == "klass":
                object.__setattr__(self, "klass_name", stored)
            elif name == "queue":
                old, self.queue_name = self.client.keys.queue_tid(self.queue_name), value
                if len(self._throttles) > 1:
                    self._throttles = [*[t for t in self._throttles if t != old],
                                       self.client.keys.queue_tid(value)]
                else:
                    self._throttles = [self.client.keys.queue_tid(value)]
            else:
                object.__setattr__(self, f"_{name}", value)

        return ("recur.update", (self.jid, name, stored), updated)

    def _cancel_call(self) -> Call[None]:
        return ("unrecur", (self.jid,), lambda _: None)

    def _tag_call(self, command: str, tags: tuple[str, ...]) -> Call[list[str]]:
        def tagged(reply: Any) -> list[str]:
            self.tags = json_list(reply)
            return self.tags

        return (command, (self.jid, *tags), tagged)
