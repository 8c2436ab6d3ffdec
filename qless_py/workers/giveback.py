"""Giving a held job back to its queue without spending a retry, and without races.

A plain ``put`` would also resurrect a job that its handler completed a moment ago, so the
job hash is WATCHed: the ``put`` runs (in MULTI/EXEC) only if the job is still ``running``
under this worker and nothing touched it in between. ``put`` keeps the job's priority, tags
and retry budget and resets ``remaining``.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from redis.exceptions import NoScriptError, WatchError

from qless_py import clock

log = logging.getLogger("qless_py.worker")


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value or "")


def give_back(client: Any, jid: str, worker: str, attempts: int = 5) -> bool:
    """Put ``jid`` back into its queue if ``worker`` still holds it; True if it was."""
    key = f"ql:j:{jid}"
    core = client.core
    for _ in range(attempts):
        with client.redis.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(key)
                state, owner, queue, klass, data = pipe.hmget(
                    key, "state", "worker", "queue", "klass", "data")
                if _text(state) != "running" or _text(owner) != worker:
                    return False
                pipe.multi()
                pipe.evalsha(core.sha, 0, "put", clock.now(), worker, queue, jid, klass,
                             data, 0)
                pipe.execute()
                return True
            except WatchError:  # a heartbeat or the handler changed it: look again
                continue
            except NoScriptError:
                core.load()
                continue
            except redis.ResponseError as exc:
                if "NOSCRIPT" in str(exc):
                    core.load()
                    continue
                raise
    log.warning("could not give %s back after %d attempts", jid, attempts)
    return False
