"""Giving a held job back to its queue without spending a retry.

One core call, ``qlpy.giveback`` (docs/protocol.md): it checks and changes the job in one
atomic step, so a job its handler completed (or whose lock another worker took) a moment
earlier is left alone.
"""

from __future__ import annotations

from qless_py import Client


def give_back(client: Client, jid: str, worker: str) -> bool:
    """Put ``jid`` back into its queue if ``worker`` still holds it; True if it did.

    Raises QlessConnectionError when the connection failed (the call may or may not have
    run: the job is then given back, or its lock expires)."""
    return bool(client.core.call("qlpy.giveback", jid, worker))
