"""Config: the core's ``ql:config`` settings as a mapping that writes through (sync).

The checks, the parsing and the calls are in :mod:`qless_py.calls.config`, shared with the
async client.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, MutableMapping, ValuesView
from typing import TYPE_CHECKING, Any

from qless_py.calls import config as calls
from qless_py.calls.config import NUMERIC_KEYS, NUMERIC_SUFFIXES, _parse, check_setting

if TYPE_CHECKING:
    from qless_py.client import Client

__all__ = ["NUMERIC_KEYS", "NUMERIC_SUFFIXES", "Config", "_parse", "check_setting"]


class Config(MutableMapping[str, Any]):
    """Settings in ``ql:config`` (defaults included); setting and deleting write through."""

    def __init__(self, client: Client) -> None:
        self._client = client

    @property
    def all(self) -> dict[str, Any]:
        """Every listed default overlaid with every stored value."""
        return self._client.core.send(calls.all_call())

    def __getitem__(self, key: str) -> Any:
        return self._client.core.send(calls.get_call(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._client.core.send(calls.set_call(key, value))

    def __delitem__(self, key: str) -> None:
        self._client.core.send(calls.unset_call(key))

    def set(self, key: str, value: Any) -> None:
        """``config[key] = value`` (the spelling both clients share)."""
        self._client.core.send(calls.set_call(key, value))

    def unset(self, key: str) -> None:
        """``del config[key]`` (the spelling both clients share)."""
        self._client.core.send(calls.unset_call(key))

    def __iter__(self) -> Iterator[str]:
        return iter(self.all)

    def __len__(self) -> int:
        return len(self.all)

    def __contains__(self, key: object) -> bool:
        return key in self.all

    def keys(self) -> KeysView[str]:
        return self.all.keys()

    def values(self) -> ValuesView[Any]:
        return self.all.values()

    def items(self) -> ItemsView[str, Any]:
        return self.all.items()

    def get(self, key: str, default: Any = None) -> Any:
        return self._client.core.run(calls.get_steps(key, default))

    def pop(self, key: str, default: Any = None) -> Any:
        """Unset ``key`` and return its value (``default`` when it had none)."""
        return self._client.core.run(calls.pop_steps(key, default))

    def clear(self) -> None:
        """Unset every stored key (defaults remain)."""
        self._client.core.run(calls.clear_steps())

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        self._client.core.run(calls.update_steps(other, kwargs))
