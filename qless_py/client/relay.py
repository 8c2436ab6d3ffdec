"""The relay: what one namespace owes others (its outbox, lua/remote.lua) applied to them.

A step takes up to ``count`` messages from a namespace's outbox, each leased for ``lease``
seconds, applies each to the namespace it names and acknowledges the ones applied. Every
application is idempotent, so a relay that dies anywhere in a step loses nothing and
repeats nothing: the messages it took come back when their lease runs out, and the
second application of a message changes nothing (docs/protocol.md, "Across
namespaces"). Workers run it (qless_py.workers.relay); ``Client.relay()`` runs one step
by hand.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from qless_py.calls.remote import RemoteJob, member, parse_member, prefix_namespace, shown
from qless_py.keys import Keys

if TYPE_CHECKING:
    from qless_py.client.client import Client
from qless_py.shards import shard_names, shard_of

__all__ = ["Relay", "RemoteJob", "member", "parse_member", "prefix_namespace", "shown"]

log = logging.getLogger("qless_py.relay")

LEASE = 30.0  # seconds a taken message is the taker's before another relay may take it
COUNT = 100  # messages per step

ClientFor = Callable[[str | None], "Client"]


class Relay:
    """Applies namespaces' outboxes, with ``client_for(namespace)`` giving each namespace's
    client (a namespace of several shards is found from its recorded count)."""

    def __init__(self, client_for: ClientFor) -> None:
        self.client_for = client_for
        self._shards: dict[str | None, int] = {}

    def step(self, source: Client, *, count: int = COUNT, lease: float = LEASE,
             stop_before_ack: Callable[[], None] | None = None) -> int:
        """Relay up to ``count`` messages of ``source``'s outbox; returns how many were
        applied. A message whose namespace cannot be reached stays taken and comes back
        after ``lease`` seconds. ``stop_before_ack`` is a test hook, called between the
        applications and the acknowledgement."""
        taken = source("qlpy.outbox", "take", lease, count)
        done: list[str] = []
        # releases go to each namespace in one call; the rest one message at a time
        releases: dict[str | None, list[tuple[str, dict[str, Any]]]] = {}
        for raw in taken:
            message = json.loads(raw)
            if message["op"] == "release":
                releases.setdefault(prefix_namespace(message["p"]), []).append((raw, message))
                continue
            if self._applied(source, lease, partial(self.apply, message)):
                done.append(raw)
        for namespace, batch in releases.items():
            args = [arg for _, m in batch for arg in (m["jid"], m["from"], m["dep"])]
            if self._applied(source, lease, partial(self.client_for(namespace), "qlpy.remote",
                                                    "releases", *args)):
                done += [raw for raw, _ in batch]
        if stop_before_ack is not None and done:
            stop_before_ack()
        if done:
            source("qlpy.outbox", "ack", *done)
        return len(done)

    @staticmethod
    def _applied(source: Client, lease: float, apply: Callable[[], Any]) -> bool:
        """Whether ``apply`` ran; a failure is logged, and its messages come back after
        their lease."""
        try:
            apply()
        except Exception as exc:
            log.warning("relay: messages of namespace %s could not be applied yet (%s: %s); "
                        "they are taken again in %gs", source.keys.namespace,
                        type(exc).__name__, exc, lease)
            return False
        return True

    def apply(self, message: dict[str, Any]) -> Any:
        """Apply one message to the namespace it names; the reply of ``qlpy.remote``."""
        op, prefix, jid = message["op"], message["p"], message["jid"]
        target = self._target(prefix, jid, resolve=op == "put")
        if op == "release":
            return target("qlpy.remote", "release", jid, message["from"], message["dep"])
        if op == "forget":
            return target("qlpy.remote", "forget", jid, message["from"], message["dependent"])
        if op == "put":
            args: list[Any] = [message["id"], "", message["queue"], jid, message["klass"],
                               message["data"], message.get("delay") or 0,
                               "priority", message["priority"], "tags", message["tags"],
                               "retries", message["retries"]]
            if message.get("depends"):
                args += ["depends", message["depends"]]
            return target("qlpy.remote", "put", *args)
        raise ValueError(f"unknown message {op!r}")

    def _target(self, prefix: str, jid: str, *, resolve: bool) -> Client:
        """The client of the namespace ``prefix`` names; for a hand-off (``resolve``) into
        a sharded namespace, the client of ``jid``'s shard."""
        namespace = prefix_namespace(prefix)
        if resolve and namespace is not None:
            count = self._count(namespace)
            if count > 1:
                namespace = shard_names(namespace, count)[shard_of(jid, count)]
        return self.client_for(namespace)

    def _count(self, namespace: str) -> int:
        """The namespace's recorded number of shards (1 when none is recorded)."""
        if namespace not in self._shards:
            client = self.client_for(namespace)
            raw = client.core.transport.call("GET", Keys(namespace).shards) \
                if client.core.transport is not None else client.redis.get(
                    Keys(namespace).shards)
            self._shards[namespace] = int(raw) if raw else 1
        return self._shards[namespace]
