"""Where a connection for an :class:`~qless_py.connect.endpoint.Endpoint` goes: the
endpoint itself, the current master of its Sentinel service
(``qless_py.connect.sentinel``), or the master that serves its namespace's slot in a
cluster (``qless_py.connect.cluster``).

Both searches do no I/O: they yield questions, each with its ``command()`` and a
``read(reply)`` of the reply (error replies included), or a ``Pause``. Every connection
module answers them its own way (blocking in ``qless_py.connect.resp``, asyncio in
``qless_py.connect.aio_redis_clients``) and drives the search here, so clients and workers
follow failovers and moves by the same rules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any

from qless_py.connect import cluster, sentinel
from qless_py.connect.drive import at_once, drive
from qless_py.connect.endpoint import Endpoint


def search(ep: Endpoint) -> Generator[Any, Any, Endpoint] | None:
    """The search that finds where ``ep`` connects, or None when it is direct."""
    if ep.sentinels:
        return sentinel.find_master(ep)
    if ep.cluster:
        return cluster.find_master(ep)
    return None


def locate(ep: Endpoint, ask: Callable[[Any], Any]) -> Endpoint:
    """The direct endpoint for ``ep``, each question answered by the blocking ``ask``
    (which raises ConnectionFailed or SetupFailed when it cannot)."""
    steps = search(ep)
    if steps is None:
        return ep

    async def answer(question: Any) -> Any:
        return ask(question)

    return at_once(drive(steps, answer))


async def async_locate(ep: Endpoint, ask: Callable[[Any], Awaitable[Any]]) -> Endpoint:
    """:func:`locate` with a coroutine ``ask``, for asyncio connections."""
    steps = search(ep)
    if steps is None:
        return ep
    return await drive(steps, ask)
