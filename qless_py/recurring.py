"""RecurringJob: a recurring template whose attribute assignments update it in the core."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from qless_py import codecs, keys
from qless_py.job import BaseJob, as_list, class_name, plain_number

if TYPE_CHECKING:
    from qless_py.client import Client


class RecurringJob(BaseJob):
    """A recurring template; setting its attributes updates the template in the core."""

    def __init__(self, client: Client, raw: dict[str, Any]) -> None:
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

    def _update(self, name: str, value: Any) -> None:
        self.client.core.call("recur.update", self.jid, name, value)

    @property
    def priority(self) -> float:
        return self._priority

    @priority.setter
    def priority(self, value: float) -> None:
        self._update("priority", value)
        self._priority = value

    @property
    def retries(self) -> int:
        return self._retries

    @retries.setter
    def retries(self, value: int) -> None:
        self._update("retries", value)
        self._retries = value

    @property
    def interval(self) -> float:
        return self._interval

    @interval.setter
    def interval(self, value: float) -> None:
        if value <= 0:
            raise ValueError("interval must be greater than 0")
        self._update("interval", value)
        self._interval = value

    @property
    def backlog(self) -> float:
        return self._backlog

    @backlog.setter
    def backlog(self, value: float) -> None:
        self._update("backlog", value)
        self._backlog = value

    def set_data(self, data: Any) -> None:
        """Replace the data future spawns carry."""
        text = codecs.encode(data, self.client.codec)
        self._update("data", text)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "codec", self.client.codec)

    def set_klass(self, klass: type | str) -> None:
        """Change the class future spawns run."""
        name = class_name(klass)
        self._update("klass", name)
        self.klass_name = name

    def __setattr__(self, key: str, value: Any) -> None:
        # qless-py style: ``template.data = {...}`` and ``template.klass = Cls`` write through
        # once the object is built (``_interval`` exists only after __init__).
        if key in ("data", "klass") and "_interval" in self.__dict__:
            if key == "data":
                self.set_data(value)
            else:
                self.set_klass(value)
            return
        object.__setattr__(self, key, value)

    @property
    def next(self) -> float | None:
        """When the next job spawns (Unix seconds), or None if the template is gone."""
        score = self.client.redis.zscore(keys.queue(self.queue_name, keys.RECUR), self.jid)
        return None if score is None else float(score)

    def move(self, queue: str) -> None:
        """Attach the template to another queue."""
        self._update("queue", queue)
        self.queue_name = queue

    def cancel(self) -> None:
        """Stop spawning (already spawned jobs stay)."""
        self.client.core.call("unrecur", self.jid)

    def tag(self, *tags: str) -> list[str]:
        self.tags = as_list(json.loads(self.client.core.call("recur.tag", self.jid, *tags)))
        return self.tags

    def untag(self, *tags: str) -> list[str]:
        self.tags = as_list(json.loads(self.client.core.call("recur.untag", self.jid, *tags)))
        return self.tags
