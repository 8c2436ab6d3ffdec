"""RecurringJob for the async client: a recurring template whose updates are coroutines
(``await template.set_interval(30)``). Assigning a persisted attribute is refused, since an
assignment cannot wait for the server. What each update sends is in
:mod:`qless_py.calls.recurring`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from qless_py.calls import reads
from qless_py.calls.recurring import RecurringJobBase

if TYPE_CHECKING:
    from qless_py.aio.client import AsyncClient
    from qless_py.aio.queue import Queue

_SETTERS = {"data": "set_data", "klass": "set_klass", "priority": "set_priority",
            "retries": "set_retries", "interval": "set_interval", "backlog": "set_backlog"}


class RecurringJob(RecurringJobBase):
    """A recurring template; ``await template.set_<field>(value)`` updates it in the core."""

    client: AsyncClient


    @property
    def queue(self) -> Queue:
        """The queue the template spawns into (by name)."""
        return self.client.queues[self.queue_name]

    def __setattr__(self, key: str, value: Any) -> None:
        if key in _SETTERS and "_interval" in self.__dict__:
            raise AttributeError(
                f"{key} is stored in the core: use 'await template.{_SETTERS[key]}(...)'")
        object.__setattr__(self, key, value)

    async def _update(self, name: str, value: Any) -> None:
        await self.client.core.send(self._update_call(name, value))

    async def set_priority(self, value: float) -> None:
        await self._update("priority", value)

    async def set_retries(self, value: int) -> None:
        await self._update("retries", value)

    async def set_interval(self, value: float) -> None:
        await self._update("interval", value)

    async def set_backlog(self, value: float) -> None:
        await self._update("backlog", value)

    async def set_throttles(self, names: Iterable[str]) -> None:
        """The throttles its spawned jobs need (the queue's own is added)."""
        await self._update("throttles", names)

    async def set_key(self, value: str | None) -> None:
        """Its spawned jobs' ordering key (None: none)."""
        await self._update("key", value)

    async def set_ttl(self, seconds: float | None) -> None:
        """Seconds a spawned job may wait to start before it expires (None: no limit)."""
        await self._update("ttl", seconds)

    async def set_data(self, data: Any) -> None:
        """Replace the data future spawns carry."""
        await self._update("data", data)

    async def set_klass(self, klass: type | str) -> None:
        """Change the class future spawns run."""
        await self._update("klass", klass)

    @property
    async def next(self) -> float | None:
        """When the next job spawns (Unix seconds), or None if the template is gone."""
        return await self.client._read(reads.recurring_next(self.queue_name, self.jid,
                                                           self.client.keys))

    async def move(self, queue: str) -> None:
        """Attach the template to another queue."""
        await self._update("queue", queue)

    async def cancel(self) -> None:
        """Stop spawning (already spawned jobs stay)."""
        await self.client.core.send(self._cancel_call())

    async def tag(self, *tags: str) -> list[str]:
        return await self.client.core.send(self._tag_call("recur.tag", tags))

    async def untag(self, *tags: str) -> list[str]:
        return await self.client.core.send(self._tag_call("recur.untag", tags))
