"""The namespaces one worker serves: one ``Part`` each, and what the worker reads across them.

A part holds a namespace's client (switched to the worker's own connections, to the
namespace's master), the leases held there, and what the listener keeps of it
(``watch``). Everything a worker says to the core about a job goes through the job's own
part: its pop, heartbeats, settling, give-back and adoption; deregistration is said in
each. A worker of one namespace has one part, and its per-job path is the same as if it
had none.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic

from qless_py import Client, clock
from qless_py.client.siblings import sibling_maker
from qless_py.connect.resp import Transport
from qless_py.workers.jobrun import note_connection_error
from qless_py.workers.leases import J, Leases
from qless_py.workers.listener import Watched
from qless_py.workers.lookout import Look, look
from qless_py.workers.pops import Rest

if TYPE_CHECKING:  # the threaded worker never imports the asyncio client
    from qless_py.aio.client import AsyncClient


class Part(Generic[J]):
    """One namespace of a worker. ``leases`` is set by the worker's mode; the asyncio
    worker adds the namespace's async client and core (``aclient``, ``core``) and its
    heartbeat task when it starts."""

    leases: Leases[J]

    def __init__(self, client: Client, spin: float) -> None:
        self.client = client
        # Core calls and the worker's own reads go through qless_py.connect.resp, not redis-py.
        client.core.go_direct(client.endpoint(), spin)
        # A handler's calls that fail on the connection must not fail its job (jobrun).
        client.core.on_connection_error = note_connection_error
        transport = client.core.transport
        assert transport is not None  # go_direct made it
        self.transport: Transport = transport
        self.namespace = client.keys.namespace
        self.watch = Watched(client.keys, transport, lambda jid, event: None)
        self.rest = Rest(self.namespace)  # its pops, among several namespaces
        self.aclient: AsyncClient | None = None
        self.core: Any = None  # the asyncio worker's LeanCore for this namespace
        self.heartbeat: Any = None  # the asyncio worker's AsyncHeartbeat for it

    def __repr__(self) -> str:
        return f"<Part {self.namespace or '(default)'}>"


def part_clients(client: Client, namespaces: Sequence[str | None] | None) -> list[Client]:
    """The clients of the namespaces a worker serves: ``client`` alone (None), or one per
    namespace, ``client`` itself for its own namespace and clients like it (same server,
    settings, codec and worker name) for the others, in the order given."""
    if namespaces is None:
        return [client]
    wanted = list(dict.fromkeys(namespaces))
    if not wanted:
        raise ValueError("a worker needs at least one namespace")
    if wanted == [client.keys.namespace]:
        return [client]
    make = sibling_maker(client, "a worker cannot serve other namespaces with a client whose "
                         "connection settings its URL does not say (made with "
                         "redis_client=?)")
    return [client if ns == client.keys.namespace else make(ns) for ns in wanted]


class PartQueue:
    """A queue of one namespace, as the reserver of a worker serving several sees it:
    ``queue`` is the namespace's client's queue (the sync or the async client's)."""

    __slots__ = ("name", "part", "queue")

    def __init__(self, part: Part[Any], queue: Any) -> None:
        self.name: str = queue.name
        self.part, self.queue = part, queue

    def pop(self, count: int, *, worker: str | None = None) -> Any:
        return self.queue.pop(count, worker=worker)


def look_all(parts: Sequence[Part[Any]], queues: Sequence[str]) -> Look:
    """What ``lookout.look`` reads, in every namespace: the earliest due time of them all,
    and whether a job may wait in any (one round trip per namespace). A resting namespace
    is not read: its rest's end is a due time."""
    due: float | None = None
    poppable = False
    for part in parts:
        if part.rest.resting:
            end = clock.now() + max(0.0, part.rest.until - time.monotonic())
            due = end if due is None else min(due, end)
            continue
        seen = look(part.transport, queues, part.watch.caps, names=part.client.keys)
        poppable = poppable or seen.poppable
        if seen.due is not None:
            due = seen.due if due is None else min(due, seen.due)
    return Look(due, poppable)
