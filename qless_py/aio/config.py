"""Config for the async client: the core's ``ql:config`` settings through coroutines
(``await config.get("heartbeat")``, ``await config.set(...)``). The checks, the parsing and
the calls are in :mod:`qless_py.calls.config`, shared with the sync client's mapping."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qless_py.calls import config as calls

if TYPE_CHECKING:
    from qless_py.aio.client import AsyncClient


class Config:
    """Settings in ``ql:config`` (defaults included). ``await config[key]`` reads one;
    ``dict(await config.all)`` gives every key, for ``len``, ``in`` and iteration."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    @property
    async def all(self) -> dict[str, Any]:
        """Every listed default overlaid with every stored value."""
        return await self._client.core.send(calls.all_call())

    async def __getitem__(self, key: str) -> Any:
        return await self._client.core.send(calls.get_call(key))

    async def get(self, key: str, default: Any = None) -> Any:
        return await self._client.core.run(calls.get_steps(key, default))

    async def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` (checked first: ``check_setting``)."""
        await self._client.core.send(calls.set_call(key, value))

    async def unset(self, key: str) -> None:
        await self._client.core.send(calls.unset_call(key))

    async def pop(self, key: str, default: Any = None) -> Any:
        """Unset ``key`` and return its value (``default`` when it had none)."""
        return await self._client.core.run(calls.pop_steps(key, default))

    async def clear(self) -> None:
        """Unset every stored key (defaults remain)."""
        await self._client.core.run(calls.clear_steps())

    async def update(self, other: Any = (), /, **kwargs: Any) -> None:
        """Set several keys; every value is checked before the first is written."""
        await self._client.core.run(calls.update_steps(other, kwargs))
