"""The core's settings without the sending: which values a key takes, how stored values
read back, and the ``config.*`` calls. ``qless_py.client.config.Config`` (a mapping that writes
through) and ``qless_py.aio.config.Config`` send them.

Reading a key returns the stored value (numbers parsed) or the built-in default, and None
for unknown keys, as qless-py did. ``all`` shows the raw overview the core reports: stored
values as strings, untouched defaults as numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from qless_py.calls.base import Call, Steps

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


def _overview(reply: Any) -> dict[str, Any]:
    overview: dict[str, Any] = json.loads(reply)
    return overview


def all_call() -> Call[dict[str, Any]]:
    """Every listed default overlaid with every stored value."""
    return ("config.get", (), _overview)


def get_call(key: str) -> Call[Any]:
    """One key's value (parsed), or None."""
    return ("config.get", (key,), _parse)


def set_call(key: str, value: Any) -> Call[None]:
    return ("config.set", (key, check_setting(key, value)), lambda _: None)


def unset_call(key: str) -> Call[None]:
    return ("config.unset", (key,), lambda _: None)


def get_steps(key: str, default: Any) -> Steps[Any]:
    value = yield get_call(key)
    return default if value is None else value


def pop_steps(key: str, default: Any) -> Steps[Any]:
    """Unset ``key`` and return its value (``default`` when it had none)."""
    value = yield get_call(key)
    yield unset_call(key)
    return default if value is None else value


def clear_steps() -> Steps[None]:
    """Unset every stored key (defaults remain)."""
    for key in list((yield all_call())):
        yield unset_call(key)


def update_steps(other: Any, kwargs: Mapping[str, Any]) -> Steps[None]:
    """Set several keys; every value is checked before the first is written."""
    pairs = dict(other.items() if isinstance(other, Mapping) else other)
    pairs.update(kwargs)
    checked = {key: check_setting(key, value) for key, value in pairs.items()}
    for key, value in checked.items():
        yield ("config.set", (key, value), lambda _: None)
