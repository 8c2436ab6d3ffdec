"""RecurringJob: a recurring template whose attribute assignments update it in the core
(sync). What each update sends is in :mod:`qless_py.calls.recurring`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from qless_py.calls import reads
from qless_py.calls.recurring import RecurringJobBase

if TYPE_CHECKING:
    from qless_py.client.client import Client
    from qless_py.client.queue import Queue


class RecurringJob(RecurringJobBase):
    """A recurring template; setting its attributes updates the template in the core."""

    client: Client


    @property
    def queue(self) -> Queue:
        """The queue the template spawns into (by name)."""
        return self.client.queues[self.queue_name]

    def _update(self, name: str, value: Any) -> None:
        self.client.core.send(self._update_call(name, value))

    @property
    def priority(self) -> float:
        return self._priority

    @priority.setter
    def priority(self, value: float) -> None:
        self._update("priority", value)

    @property
    def retries(self) -> int:
        return self._retries

    @retries.setter
    def retries(self, value: int) -> None:
        self._update("retries", value)

    @property
    def interval(self) -> float:
        return self._interval

    @interval.setter
    def interval(self, value: float) -> None:
        self._update("interval", value)

    @property
    def backlog(self) -> float:
        return self._backlog

    @backlog.setter
    def backlog(self, value: float) -> None:
        self._update("backlog", value)

    def set_priority(self, value: float) -> None:
        self._update("priority", value)

    def set_retries(self, value: int) -> None:
        self._update("retries", value)

    def set_interval(self, value: float) -> None:
        self._update("interval", value)

    def set_backlog(self, value: float) -> None:
        self._update("backlog", value)

    @property
    def throttles(self) -> list[str]:
        """Its spawned jobs' throttles, the queue's own tid last; assigning names sets them."""
        return self._throttles

    @throttles.setter
    def throttles(self, names: Iterable[str]) -> None:
        self._update("throttles", names)

    @property
    def key(self) -> str | None:
        """Its spawned jobs' ordering key (None: none); assigning sets it."""
        return self._key

    @key.setter
    def key(self, value: str | None) -> None:
        self._update("key", value)

    @property
    def start_within(self) -> float | None:
        """Seconds a spawned job may wait to start (its ttl; None: no limit)."""
        return self._start_within

    @start_within.setter
    def start_within(self, seconds: float | None) -> None:
        self._update("ttl", seconds)

    def set_throttles(self, names: Iterable[str]) -> None:
        self._update("throttles", names)

    def set_key(self, value: str | None) -> None:
        self._update("key", value)

    def set_ttl(self, seconds: float | None) -> None:
        """Seconds a spawned job may wait to start before it expires (None: no limit)."""
        self._update("ttl", seconds)

    def set_data(self, data: Any) -> None:
        """Replace the data future spawns carry."""
        self._update("data", data)

    def set_klass(self, klass: type | str) -> None:
        """Change the class future spawns run."""
        self._update("klass", klass)

    def __setattr__(self, key: str, value: Any) -> None:
        # qless-py style: ``template.data = {...}`` and ``template.klass = Cls`` write through
        # once the object is built (``_interval`` exists only after __init__).
        if key in ("data", "klass") and "_interval" in self.__dict__:
            self._update(key, value)
            return
        object.__setattr__(self, key, value)

    @property
    def next(self) -> float | None:
        """When the next job spawns (Unix seconds), or None if the template is gone."""
        return self.client._read(reads.recurring_next(self.queue_name, self.jid,
                                                     self.client.keys))

    def move(self, queue: str) -> None:
        """Attach the template to another queue."""
        self._update("queue", queue)

    def cancel(self) -> None:
        """Stop spawning (already spawned jobs stay)."""
        self.client.core.send(self._cancel_call())

    def tag(self, *tags: str) -> list[str]:
        return self.client.core.send(self._tag_call("recur.tag", tags))

    def untag(self, *tags: str) -> list[str]:
        return self.client.core.send(self._tag_call("recur.untag", tags))
