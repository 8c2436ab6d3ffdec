"""The asyncio worker's pipelined connection: replies reach the call that sent their
command, whatever was cancelled or timed out in between, and the loop never blocks."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator

import pytest

from qless_py import Client, lua
from qless_py.aio.core import LeanCore
from qless_py.connect.aio_resp import PipelinedConnection
from qless_py.connect.endpoint import Endpoint
from qless_py.connect.resp import pack
from qless_py.connect.wire import ConnectionFailed
from tests.loopcheck import SLOW, collected, no_slow_callbacks


@pytest.fixture(autouse=True)
def _no_collection() -> Iterator[None]:
    with collected():
        yield


def endpoint(url: str, timeout: float = 5.0) -> Endpoint:
    return dataclasses.replace(Client(url).endpoint(), timeout=timeout)


async def one(conn: PipelinedConnection, *args: str | int | float) -> object:
    (reply,) = await conn.execute(pack(list(args)), 1)
    return reply


@pytest.mark.asyncio
async def test_many_calls_at_once_each_get_their_own_reply(server_url: str) -> None:
    conn = PipelinedConnection(endpoint(server_url))
    # Made before the check: 500 tasks made in one step take more CPU than a step may in
    # debug mode (each one records where it was made), which is the harness, not the calls.
    calls = asyncio.gather(*(one(conn, "ECHO", str(i)) for i in range(500)))
    async with no_slow_callbacks(SLOW):
        replies = await calls
        assert replies == [str(i).encode() for i in range(500)]
        await conn.aclose()


@pytest.mark.asyncio
async def test_a_cancelled_call_leaves_the_connection_in_step(server_url: str) -> None:
    conn = PipelinedConnection(endpoint(server_url))
    async with no_slow_callbacks(SLOW):
        assert await one(conn, "PING") == b"PONG"
        slow = asyncio.get_running_loop().create_task(one(conn, "BLPOP", "nothing", "0.2"))
        await asyncio.sleep(0.05)  # written, its reply not back
        slow.cancel()
        # the BLPOP's reply (nil) comes first and is dropped; ECHO gets its own
        assert await one(conn, "ECHO", "after") == b"after"
        with pytest.raises(asyncio.CancelledError):
            await slow
        await conn.aclose()


@pytest.mark.asyncio
async def test_a_timeout_fails_the_calls_waiting_and_the_next_call_reconnects(
        server_url: str) -> None:
    conn = PipelinedConnection(endpoint(server_url, timeout=0.2))
    async with no_slow_callbacks(SLOW):
        waiting = [asyncio.get_running_loop().create_task(one(conn, "BLPOP", "nothing", "2")),
                   asyncio.get_running_loop().create_task(one(conn, "PING"))]
        for task in waiting:  # the PING behind it is in doubt too: the stream is gone
            with pytest.raises(ConnectionFailed, match="Timeout"):
                await task
        assert await one(conn, "PING") == b"PONG"
        await conn.aclose()


@pytest.mark.asyncio
async def test_the_lean_core_loads_the_script_and_runs_the_core(server_url: str) -> None:
    conn = PipelinedConnection(endpoint(server_url))
    core = LeanCore(conn, lua.SOURCE, lua.SHA)
    async with no_slow_callbacks(SLOW):
        assert await one(conn, "SCRIPT", "FLUSH") == b"OK"  # NOSCRIPT: loaded, sent again
        jid = await core.call("put", "w", "q", "j1", "tests.jobs.Noop", "{}", 0)
        assert jid == "j1"
        replies = await core.call_many([["queues"], ["config.get", "heartbeat"]])
        assert len(replies) == 2 and '"name":"q"' in str(replies[0]).replace(" ", "")
        await conn.aclose()


@pytest.mark.asyncio
async def test_replies_that_came_while_the_loop_was_frozen_are_read_not_timed_out(
        server_url: str) -> None:
    conn = PipelinedConnection(endpoint(server_url, timeout=0.2))
    assert await one(conn, "PING") == b"PONG"
    calls = [asyncio.get_running_loop().create_task(one(conn, "ECHO", str(i)))
             for i in range(3)]
    await asyncio.sleep(0)  # their commands are written at the end of this turn
    await asyncio.sleep(0)
    time.sleep(0.5)  # the loop stands still (as under SIGSTOP) past the timeout
    assert await asyncio.gather(*calls) == [b"0", b"1", b"2"]
    await conn.aclose()
