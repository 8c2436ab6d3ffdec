"""Many coroutines sharing one AsyncClient, and calls cancelled while in flight."""

from __future__ import annotations

import asyncio
import signal

import pytest
import redis

from qless_py import QlessConnectionError
from qless_py.aio import AsyncClient
from tests.conftest import PrivateServerFactory

pytestmark = pytest.mark.asyncio

NOOP = "tests.client.jobs.Noop"


async def test_many_coroutines_share_one_client(aclient: AsyncClient,
                                                redis_conn: redis.Redis) -> None:
    queue = aclient.queues["q"]
    jids = await queue.put_many([(NOOP, {"i": i}) for i in range(300)])

    async def work(name: str) -> list[str]:
        done = []
        while (job := await queue.pop(worker=name)) is not None:
            await job.heartbeat()
            job["by"] = name
            assert await job.complete() == "complete"
            done.append(job.jid)
        return done

    results = await asyncio.gather(*(work(f"w{n}") for n in range(50)))
    finished = [jid for part in results for jid in part]
    assert sorted(finished) == sorted(jids)  # each job popped and completed exactly once
    assert await queue.length() == 0
    assert len(await aclient.jobs.complete(count=500)) == 300
    # the calls went out on several connections at once, not one after another
    clients = [c for c in redis_conn.client_list() if c.get("cmd") != "client|list"]
    assert len(clients) > 1


async def test_more_calls_than_connections_wait_for_one(aclient: AsyncClient,
                                                        redis_conn: redis.Redis) -> None:
    from qless_py.connect.aio_redis_clients import DEFAULT_MAX_CONNECTIONS

    queue = aclient.queues["q"]
    calls = []
    for i in range(3 * DEFAULT_MAX_CONNECTIONS):
        calls.append(asyncio.create_task(queue.length()))
        if i % 50 == 49:  # the test's own set-up, in short steps (debug mode is costly)
            await asyncio.sleep(0)
    lengths = await asyncio.gather(*calls)
    assert lengths == [0] * 3 * DEFAULT_MAX_CONNECTIONS
    assert len(redis_conn.client_list()) <= DEFAULT_MAX_CONNECTIONS + 1  # + this one


async def test_a_pool_limit_makes_calls_wait_for_a_connection(server_url: str,
                                                                redis_conn: redis.Redis) -> None:
    async with AsyncClient(f"{server_url}?max_connections=2", client_name="limited") as client:
        queue = client.queues["q"]
        jids = await asyncio.gather(*(queue.put(NOOP, {}) for _ in range(40)))
        assert len(set(jids)) == 40 and await queue.length() == 40
        assert len([c for c in redis_conn.client_list() if c["name"] == "limited"]) <= 2


async def test_a_call_cancelled_in_flight_leaves_the_pool_usable(
        private_server: PrivateServerFactory) -> None:
    server = await asyncio.to_thread(private_server, "valkey")
    admin = redis.Redis.from_url(server.url)
    async with AsyncClient(server.url, worker_name="w") as client:
        queue = client.queues["q"]
        await queue.put(NOOP, {}, jid="before")
        server.signal(signal.SIGSTOP)  # the server reads nothing until it is woken
        try:
            pending = asyncio.create_task(queue.put(NOOP, {"big": "x" * 200_000}, jid="cut"))
            # the command is on its way (written whole or not at all) when it is cancelled
            await asyncio.sleep(0)
            while not any(c.is_connected for c in
                          client.redis.connection_pool._in_use_connections):
                await asyncio.sleep(0.001)
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
        finally:
            server.signal(signal.SIGCONT)
        # the connection that carried the cancelled call was closed, not reused: the next
        # calls get their own replies
        assert await queue.put(NOOP, {}, jid="after") == "after"
        after = await client.jobs["after"]
        assert after is not None and after.jid == "after"
        assert await client.jobs["nope"] is None
        jobs = {j.jid for j in await queue.peek(10)}
        # the cancelled put ran whole or not at all: never half a command
        assert jobs in ({"before", "after"}, {"before", "after", "cut"})
        assert admin.ping()
    admin.close()


async def test_an_unreachable_server_is_a_connection_error(
        private_server: PrivateServerFactory) -> None:
    server = await asyncio.to_thread(private_server, "valkey")
    async with AsyncClient(server.url) as client:
        await client.queues["q"].put(NOOP, {}, jid="a")
        await asyncio.to_thread(server.stop)  # the harness blocks; not in the loop
        with pytest.raises(QlessConnectionError, match="may or may not have run"):
            await client.queues["q"].put(NOOP, {}, jid="b")
        with pytest.raises(QlessConnectionError):
            await client.jobs["a"]


async def test_the_script_is_loaded_again_after_a_restart(
        private_server: PrivateServerFactory) -> None:
    server = await asyncio.to_thread(private_server, "valkey", appendonly=True)
    async with AsyncClient(server.url) as client:
        await client.queues["q"].put(NOOP, {}, jid="a")
        await asyncio.to_thread(server.restart)
        # the pooled connection is gone and the script with it: a new connection, a load
        await client.queues["q"].put(NOOP, {}, jid="b")
        assert await client.jobs["b"] is not None
