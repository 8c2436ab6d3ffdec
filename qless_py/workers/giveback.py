"""Giving a held job back to its queue without spending a retry, and without races.

A plain ``put`` would also resurrect a job that its handler completed a moment ago, so the
job hash is WATCHed: the ``put`` runs (in MULTI/EXEC) only if the job is still ``running``
under this worker and nothing touched it in between. ``put`` keeps the job's priority, tags
and retry budget and resets ``remaining``.
"""

from __future__ import annotations

import logging
from typing import Any

from qless_py import clock
from qless_py.resp import ConnectionFailed, ReplyError

log = logging.getLogger("qless_py.worker")


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value or "")


def give_back(client: Any, jid: str, worker: str, attempts: int = 5) -> bool:
    """Put ``jid`` back into its queue if ``worker`` still holds it; True if it was.

    Runs on this thread's direct connection (the client's core must be direct, as a
    worker's is). Connection errors propagate as ``ConnectionFailed``."""
    key = f"ql:j:{jid}"
    core = client.core
    conn = core.transport.ready()
    for _ in range(attempts):
        try:
            conn.call("WATCH", key)
            state, owner, queue, klass, data = conn.call(
                "HMGET", key, "state", "worker", "queue", "klass", "data")
            if _text(state) != "running" or _text(owner) != worker:
                conn.call("UNWATCH")
                return False
            replies = conn.pipeline([
                ["MULTI"],
                ["EVALSHA", core.sha, 0, "put", clock.now(), worker, queue, jid, klass, data, 0],
                ["EXEC"]])
        except ConnectionFailed:
            raise
        except BaseException:
            conn.close()  # WATCH state unknown: start afresh
            raise
        result = replies[-1]
        if result is None:  # a heartbeat or the handler changed it: look again
            continue
        if isinstance(result, ReplyError):
            raise result
        error = result[0] if isinstance(result, list) and result else None
        if isinstance(error, ReplyError):
            if error.noscript:
                core.load()
                continue
            raise error
        return True
    log.warning("could not give %s back after %d attempts", jid, attempts)
    return False
