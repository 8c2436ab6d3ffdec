"""Throttles for the async client: ``client.throttles[name]`` and ``queue.throttle``, with
coroutines where the sync ones talk to the server (``await throttle.maximum``, ``await
throttle.set_maximum(n)``). What each call sends is in :mod:`qless_py.calls.throttles`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qless_py.calls import reads
from qless_py.calls.throttles import ThrottleBase

if TYPE_CHECKING:
    from qless_py.aio.client import AsyncClient


class Throttle(ThrottleBase):
    """A throttle: at most ``maximum`` of the jobs that name it run at once (0: no limit)."""

    client: AsyncClient

    @property
    async def maximum(self) -> int | float:
        return await self.client.core.send(self._maximum_call())

    async def set_maximum(self, value: int) -> None:
        await self.client.core.send(self._set_call(value))

    async def set(self, maximum: int, ttl: float | None = None) -> None:
        """Set the maximum; with ``ttl``, the setting expires after that many seconds."""
        await self.client.core.send(self._set_call(maximum, ttl))

    @property
    async def ttl(self) -> int:
        """Seconds until the setting expires: -1 never, -2 not set."""
        return await self.client.core.send(self._ttl_call())

    async def locks(self) -> list[str]:
        return await self.client.core.send(self._locks_call())

    async def pending(self) -> list[str]:
        return await self.client.core.send(self._pending_call())

    async def release(self, *jids: str) -> None:
        if jids:
            await self.client.core.send(self._release_call(jids))

    async def delete(self) -> None:
        await self.client.core.send(self._delete_call())


class Throttles:
    """``client.throttles[name]`` gives a Throttle; ``await client.throttles.names()``
    lists the throttles that are set or in use (a SCAN)."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    def __getitem__(self, name: str) -> Throttle:
        return Throttle(self._client, name)

    async def names(self) -> list[str]:
        return await self._client._read(reads.throttle_names(self._client.keys))
