"""Jobs of other namespaces as a job's dependencies and dependents see them (pure: the sync
and the asyncio client share it). A remote member of a dependencies or dependents set is
byte 1, then JSON ``{"p": <the namespace's key prefix>, "jid": <jid>}`` (lua/remote.lua,
docs/protocol.md "Across namespaces")."""

from __future__ import annotations

import json
from dataclasses import dataclass

from qless_py.keys import namespace_of


@dataclass(frozen=True)
class RemoteJob:
    """Job ``jid`` of another namespace (None: the default one), as a dependency:
    ``queue.put(..., depends=[RemoteJob("billing", jid)])``."""

    namespace: str | None
    jid: str


def member(prefix: str, jid: str) -> str:
    """The remote member naming job ``jid`` of the namespace whose key prefix is ``prefix``
    (lua/remote.lua): byte 1, then JSON ``{"p", "jid"}``."""
    return "\x01" + json.dumps({"p": prefix, "jid": jid}, separators=(",", ":"))


def prefix_namespace(prefix: str) -> str | None:
    """The namespace whose key prefix ``prefix`` is (None: the default namespace)."""
    return namespace_of(prefix + "x")


def parse_member(text: str) -> RemoteJob | None:
    """The job of another namespace a remote member names, or None for a plain jid."""
    if not text.startswith("\x01"):
        return None
    try:
        value = json.loads(text[1:])
        return RemoteJob(prefix_namespace(str(value["p"])), str(value["jid"]))
    except (ValueError, KeyError, TypeError):
        return None


def shown(text: str) -> str:
    """A member of a job's dependencies or dependents for a person: the jid, with
    ``in namespace NAME`` for a job of another namespace (``(default)`` for the default)."""
    remote = parse_member(text)
    if remote is None:
        return text
    name = "(default)" if remote.namespace is None else remote.namespace
    return f"{remote.jid} in namespace {name}"
