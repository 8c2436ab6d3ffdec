"""Recurring templates without the sending: the attributes of the core's recurring object
and the calls that change the template (``recur.update``, ``unrecur``, tags).
``qless_py.recurring.RecurringJob`` and ``qless_py.aio.recurring.RecurringJob`` send them."""

from __future__ import annotations

from typing import Any

from qless_py import codecs, keys
from qless_py.calls.base import Call
from qless_py.calls.job import BaseJob, class_name, json_list, plain_number


class RecurringJobBase(BaseJob):
    """A recurring template as the core reported it."""

    def __init__(self, client: Any, raw: dict[str, Any]) -> None:
        super().__init__(client, raw)
        self.state: str = raw.get("state", "recur")
        self._retries: int = int(raw.get("retries", 0))
        self._interval: float = raw.get("interval", 0)
        self._backlog: float = raw.get("backlog", 0)
        self.count: int = int(raw.get("count", 0))

    def to_dict(self) -> dict[str, Any]:
        """This snapshot in the shape of the core's recurring object, with real lists and
        ``data`` decoded."""
        return {
            "jid": self.jid, "klass": self.klass_name, "state": self.state,
            "queue": self.queue_name, "priority": plain_number(self.priority),
            "interval": plain_number(self.interval), "retries": self.retries,
            "count": self.count, "data": self.data, "tags": list(self.tags),
            "backlog": plain_number(self.backlog),
        }

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
                self.queue_name = value
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

    def _next_key(self) -> str:
        """The sorted set whose score for the template is its next spawn time (there is
        no core command for it)."""
        return keys.queue(self.queue_name, keys.RECUR)


def next_spawn(score: Any) -> float | None:
    """The ZSCORE reply of :meth:`RecurringJobBase._next_key` as a time, or None."""
    return None if score is None else float(score)
