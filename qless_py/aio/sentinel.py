"""Find the current master of a Sentinel-managed service without blocking the loop: the
search of :func:`qless_py.sentinel.find_master`, its questions asked over asyncio
connections. Connections that break or answer READONLY are closed and look the master up
again when they reconnect, so async clients follow a failover too."""

from __future__ import annotations

from typing import Any

from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from qless_py.aio.errors import translate
from qless_py.dial import ConnectionFailed
from qless_py.endpoint import Endpoint
from qless_py.resp import ReplyError
from qless_py.sentinel import (
    Ask,
    Role,
    find_master,
    master_address,
    role_name,
    role_refusal,
    sentinel_refusal,
)


async def master_endpoint(ep: Endpoint) -> Endpoint:
    """The direct endpoint of ``ep.service``'s master, with ``ep``'s settings."""
    search = find_master(ep)
    try:
        question = next(search)
        while True:
            try:
                answer = await _answer(question)
            except ConnectionFailed as exc:  # SetupFailed included
                question = search.throw(exc)
            else:
                question = search.send(answer)
    except StopIteration as found:
        master: Endpoint = found.value
        return master


async def _answer(question: Ask | Role) -> Any:
    from qless_py.aio.connections import AsyncEndpointConnection

    ep = question.endpoint
    conn = AsyncEndpointConnection(
        endpoint=ep, username=ep.username, password=ep.password,
        socket_timeout=ep.timeout, socket_connect_timeout=ep.connect_timeout,
        retry=Retry(NoBackoff(), 0))
    try:
        if isinstance(question, Ask):
            await conn.send_command("SENTINEL", "get-master-addr-by-name", question.service)
        else:
            await conn.send_command("ROLE")
        reply = await conn.read_response()
    except Exception as exc:
        mine = translate(exc)
        if isinstance(mine, ReplyError):
            raise (sentinel_refusal(question, mine) if isinstance(question, Ask)
                   else role_refusal(question, mine)) from exc
        if mine is None:
            raise
        raise mine from exc
    finally:
        await conn.disconnect(nowait=True)
    return master_address(reply) if isinstance(question, Ask) else role_name(reply)
