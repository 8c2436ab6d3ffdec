"""Config: the core's ``ql:config`` settings as a mapping that writes through.

Reading a key returns the stored value (numbers parsed) or the built-in default, and None
for unknown keys, as qless-py did. ``all`` (and ``items()``/``values()``) show the raw
overview the core reports: stored values as strings, untouched defaults as numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import ItemsView, Iterator, KeysView, Mapping, MutableMapping, ValuesView
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qless_py.client import Client

NUMERIC_KEYS = frozenset({
    "heartbeat", "grace-period", "stats-history", "histogram-history", "jobs-history",
    "jobs-history-count", "max-worker-age", "max-job-history", "max-pop-retry",
})
NUMERIC_SUFFIXES = ("-heartbeat", "-max-concurrency", "-max-pop-retry")


def _parse(value: Any) -> Any:
    """Stored values are strings; numbers come back as int or float."""
    if not isinstance(value, str):
        return value
    try:
        return int(value)
    except ValueError:
        pass
    try:
        number = float(value)
    except ValueError:
        return value
    return number if number == number else value  # keep 'nan' as text


def check_setting(key: str, value: Any) -> str | int | float:
    """``value`` if it may be stored under ``key``, else ValueError/TypeError: numeric keys
    take finite numbers >= 0 (whole ones for ``<queue>-max-concurrency``)."""
    if not isinstance(key, str) or not key:
        raise ValueError("config keys are non-empty strings")
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise TypeError(f"config value for {key!r} must be a string or a number, "
                        f"not {type(value).__name__}")
    if key in NUMERIC_KEYS or key.endswith(NUMERIC_SUFFIXES):
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{key} must be a number, not {value!r}") from None
        if not math.isfinite(number) or number < 0:
            raise ValueError(f"{key} must be a finite number >= 0, not {value!r}")
        if key.endswith("-max-concurrency") and not number.is_integer():
            raise ValueError(f"{key} must be a whole number, not {value!r}")
    return value


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
        overview: dict[str, Any] = json.loads(self._client.core.call("config.get"))
        return overview

    def __getitem__(self, key: str) -> Any:
        return _parse(self._client.core.call("config.get", key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._client.core.call("config.set", key, check_setting(key, value))

    def __delitem__(self, key: str) -> None:
        self._client.core.call("config.unset", key)

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
        value = self[key]
        return default if value is None else value

    def pop(self, key: str, default: Any = None) -> Any:
        """Unset ``key`` and return its value (``default`` when it had none)."""
        value = self[key]
        self._client.core.call("config.unset", key)
        return default if value is None else value

    def clear(self) -> None:
        """Unset every stored key (defaults remain)."""
        for key in list(self.all):
            self._client.core.call("config.unset", key)

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        pairs = dict(other.items() if isinstance(other, Mapping) else other)
        pairs.update(kwargs)
        checked = {key: check_setting(key, value) for key, value in pairs.items()}
        for key, value in checked.items():
            self._client.core.call("config.set", key, value)
