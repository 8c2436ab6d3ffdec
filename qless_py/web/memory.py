"""The dashboard at the server's memory limit: the line every page shows while the server
refuses writes (``maxmemory`` with ``noeviction``), and the answer to a refused action.

Reads go on working at the limit, so every page still renders; only actions are refused.
The server tells through ``INFO memory``; where it will not (an ACL without INFO), a
refusal seen by an action in the last minute says the same. docs/operations.md, "At the
memory limit".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from qless_py import Client

# How long a refused action keeps the line up when INFO cannot tell.
REFUSAL_SHOWN_FOR = 60.0

REFUSED = ("the server is at its memory limit (maxmemory) and refused the change; "
           "free memory (see docs/operations.md, \"At the memory limit\"), then try again")


def _number(info: Mapping[str, Any], name: str) -> int:
    try:
        return int(info.get(name) or 0)
    except (TypeError, ValueError):
        return 0


def limit_line(info: Mapping[str, Any]) -> str | None:
    """The line to show for an ``INFO memory`` reply (parsed), or None when writes go on."""
    used, limit = _number(info, "used_memory"), _number(info, "maxmemory")
    if limit <= 0 or used < limit or info.get("maxmemory_policy") != "noeviction":
        return None
    return (f"The server is at its memory limit ({used:,} bytes used, maxmemory "
            f"{limit:,}, noeviction): it refuses every change (puts, pops, completes and "
            "the actions here) until memory is freed. Pages still show the data.")


class MemoryWatch:
    """What the pages of one app know of the server's memory limit."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._refused_at: float | None = None

    def refused(self) -> None:
        """An action was refused for memory."""
        self._refused_at = time.monotonic()

    def line(self) -> str | None:
        """The line for the top of every page, or None."""
        try:
            info = self.client.redis.info("memory")
        except Exception:  # an ACL without INFO, or a server that will not say
            info = None
        if isinstance(info, Mapping):
            self._refused_at = None
            return limit_line(info)
        at = self._refused_at
        if at is not None and time.monotonic() - at < REFUSAL_SHOWN_FOR:
            return "The server refused a change for memory (maxmemory) a moment ago: " \
                "it is at its memory limit, and refuses changes until memory is freed."
        return None
