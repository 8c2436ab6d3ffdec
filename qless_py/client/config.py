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
    from qless_py.client.client import Client

__all__ = ["NUMERIC_KEYS", "NUMERIC_SUFFIXES", "Config", "_parse", "check_setting"]

# Keys the core knows, with what they mean; docs/config.md says more.
KNOWN_KEYS: dict[str, str] = {
    "application": "name shown by tools; unused by the core",
    "heartbeat": "lock length in seconds given by pop and heartbeat",
    "grace-period": "seconds between a stalled job's notice and its reclaim",
    "stats-history": "kept for compatibility; unused",
    "histogram-history": "kept for compatibility; unused",
    "jobs-history": "seconds completed jobs are kept",
    "jobs-history-count": "number of completed jobs kept",
    "max-worker-age": "seconds of silence after which 'workers' forgets a worker",
    "max-job-history": "history entries kept per job",
}
PER_QUEUE: dict[str, str] = {
    "heartbeat": "lock length in seconds for this queue",
    "max-concurrency": "cap on running jobs of this queue (0 = none)",
}


def describe(key: str) -> str | None:
    """What a key means, or None for keys nothing in qless_py reads."""
    if key in KNOWN_KEYS:
        return KNOWN_KEYS[key]
    for suffix, meaning in PER_QUEUE.items():
        if key.endswith(f"-{suffix}") and len(key) > len(suffix) + 1:
            return meaning
    return None


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
