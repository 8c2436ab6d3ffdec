"""Events without the listening: the names a callback can be given, the channels they come
on, and what a published message means. ``qless_py.client.events.Events`` (a thread) and
``qless_py.aio.events.Events`` (a task) listen and deliver.

* ``canceled completed failed popped stalled put track untrack``: the jid (``str``), from
  the per-job channels ``ql:<name>`` (published for tracked jobs only, except track/untrack);
* ``log``: every ``ql:log`` message as a dict; ``log.<event>`` (e.g. ``log.lock_lost``,
  ``log.config_set``) only messages whose ``event`` matches;
* ``worker``: messages on the client's own channel ``ql:w:<worker name>`` as dicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from qless_py.keys import DEFAULT, Keys

JOB_EVENTS = ("canceled", "completed", "failed", "popped", "stalled", "put", "track", "untrack",
              "expired")


@dataclass(frozen=True, slots=True)
class Event:
    """One published message: its most specific event name (``completed``, ``log.put``,
    ``worker``...) and what a callback for it receives."""

    name: str
    data: Any


def check_name(event: str) -> None:
    """NotImplementedError for a name no message is ever delivered under."""
    if event in JOB_EVENTS or event in ("log", "worker"):
        return
    if event.startswith("log.") and len(event) > 4:
        return
    raise NotImplementedError(
        f"unknown event {event!r}: use one of {', '.join(JOB_EVENTS)}, log, log.<event>, "
        "worker")


def channels(worker_name: str, names: Keys = DEFAULT) -> list[str]:
    """Every channel a listener subscribes to (in the namespace of ``names``)."""
    return [names.channel(name) for name in JOB_EVENTS] + [
        names.channel("log"), names.worker_channel(worker_name)]


# The kinds of pub/sub push that carry a message, confirm a subscription, or end one: a
# namespace's events come by sharded pub/sub where the server has it (docs/protocol.md).
MESSAGES = frozenset({b"message", "message", b"smessage", "smessage"})
SUBSCRIBED = frozenset({b"subscribe", "subscribe", b"ssubscribe", "ssubscribe"})
UNSUBSCRIBED = frozenset({b"unsubscribe", "unsubscribe", b"sunsubscribe", "sunsubscribe"})


def sharded(names: Keys, server_info: dict[str, Any]) -> bool:
    """Whether the core publishes the events of ``names``' namespace with SPUBLISH: a
    namespace, on a server with sharded pub/sub (``redis_version`` 7 or later: Redis 7.0,
    and Valkey, which reports 7.2). ``server_info`` is INFO's server section."""
    if names.namespace is None:
        return False
    try:
        return int(str(server_info.get("redis_version", "0")).split(".")[0]) >= 7
    except ValueError:
        return False


def deliveries(channel: str, payload: str, names: Keys = DEFAULT) -> list[tuple[str, Any]]:
    """The callbacks a message goes to, as ``(event name, value)``, least specific first
    (``log`` before ``log.<event>``)."""
    name = channel[len(names.prefix):]
    if name in JOB_EVENTS:
        return [(name, payload)]
    if name == "log":
        event = _json(payload)
        if isinstance(event, dict) and "event" in event:
            return [("log", event), (f"log.{event['event']}", event)]
        return [("log", event)]
    if name.startswith("w:"):
        return [("worker", _json(payload))]
    return []


def text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _json(payload: str) -> Any:
    try:
        return json.loads(payload)
    except ValueError:
        return payload


# An unsubscribe nobody asked for: the node gave the namespace's slot away (a cluster's
# slot moved; Redis 7 and Valkey end sharded subscriptions then), so subscribe again.
MOVED_AWAY = "the server ended the subscription (the namespace's slot moved?)"

