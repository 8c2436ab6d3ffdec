"""AsyncShardedClient: the sharded namespace for asyncio code, placed and merged as the sync
ShardedClient does (tests/client/test_sharded.py has the placement rules themselves)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from qless_py import Client, RemoteJob, ShardedClient
from qless_py.aio import AsyncClient, AsyncShardedClient
from qless_py.shards import ShardsMismatch, jid_on, key_shard

pytestmark = pytest.mark.asyncio


def _sync_find(url: str, jid: str) -> bool:
    with ShardedClient(url, namespace="billing", shards=4) as sync:
        return sync.jobs[jid] is not None


def _relay(url: str, namespace: str, shards: int | None) -> int:
    with Client(url, namespace=namespace, shards=shards) as client:
        return int(client.relay())


@pytest_asyncio.fixture
async def sharded(server_url: str, _loop_check: None) -> AsyncIterator[AsyncShardedClient]:
    async with AsyncShardedClient(server_url, namespace="billing", shards=4,
                                  worker_name="w") as client:
        yield client


async def test_jobs_are_placed_found_popped_and_merged(sharded: AsyncShardedClient) -> None:
    queue = sharded.queues["q"]
    jids = [await queue.put("a.Job", {"n": n}, tags=["blue"]) for n in range(8)]
    assert Counter(sharded.shards.of(jid) for jid in jids if jid) == {0: 2, 1: 2, 2: 2, 3: 2}
    keyed = [await queue.put("a.Job", {}, key="account-7") for _ in range(3)]
    assert {sharded.shards.of(jid) for jid in keyed if jid} == {key_shard("account-7", 4)}
    counts = await queue.counts
    assert counts["waiting"] == await queue.length() == 9 and counts["throttled"] == 2
    assert [row["waiting"] for row in await sharded.queues.counts] == [9]
    assert await sharded.queues.names() == ["q"]
    found = await sharded.jobs.get(*[jid for jid in jids if jid])
    assert [job.jid for job in found] == jids
    assert (await sharded.jobs.tagged("blue", 0, 20))["total"] == 8
    assert set(await queue.jobs.waiting(0, 20)) == set(jids) | {keyed[0]}
    assert set(await queue.jobs.throttled(0, 20)) == set(keyed[1:])
    popped = await queue.pop(20)
    assert isinstance(popped, list) and len(popped) == 9  # the key's later jobs wait
    assert await sharded.workers.counts == [{"name": "w", "jobs": 9, "stalled": 0}]
    for job in popped[:4]:
        await job.fail("boom", "it broke")
    for job in popped[4:]:
        await job.complete()
    assert await sharded.jobs.failed() == {"boom": 4}
    assert (await sharded.jobs.failed("boom", 0, 10))["total"] == 4
    assert len(await sharded.jobs.complete(0, 20)) == 5
    assert (await sharded.jobs.retry_group("boom")).done == 4
    await sharded.config.set("heartbeat", 90)
    assert [await c.config["heartbeat"] for c in sharded.clients] == [90] * 4
    assert (await sharded.queues["q"].stats()).run.count == 5
    assert (await sharded.check()).findings == []


async def test_it_shares_the_count_and_the_placement_with_the_sync_client(
        server_url: str, sharded: AsyncShardedClient) -> None:
    jid = jid_on(2, 4)
    await sharded.queues["q"].put("a.Job", {}, jid=jid)
    # the sync client (off the loop: its calls block) finds the job on the same shard
    assert await asyncio.to_thread(_sync_find, server_url, jid)
    other = AsyncShardedClient(server_url, namespace="billing", shards=8)
    with pytest.raises(ShardsMismatch, match="has 4 shards"):
        await other.queues["q"].put("a.Job", {})
    await other.close()
    made = AsyncClient(server_url, namespace="billing", shards=4)
    assert isinstance(made, AsyncShardedClient) and made.shards.count == 4
    await made.close()


async def test_an_async_job_hands_off_to_another_namespace(server_url: str,
                                                           _loop_check: None) -> None:
    async with AsyncClient(server_url, namespace="a", worker_name="w") as a:
        jid = await a.queues["q"].put("x.Job", {"n": 1})
        job = await a.queues["q"].pop()
        assert job is not None
        assert await job.complete(next="q2", namespace="b") == "complete"
        assert job.queue_name == "q"  # it stays (complete) in a; b gets its next stage
    # what a worker's relay does (off the loop: the sync client's calls block)
    assert await asyncio.to_thread(_relay, server_url, "a", None) == 1
    async with AsyncClient(server_url, namespace="b") as b:
        moved = await b.jobs[jid]
        assert moved is not None and moved.queue_name == "q2" and moved.data == {"n": 1}


async def test_async_puts_wait_across_shards_and_namespaces(
        server_url: str, sharded: AsyncShardedClient) -> None:
    queue = sharded.queues["q"]
    first = await queue.put("a.Job", {}, jid=jid_on(0, 4))
    second = await queue.put("a.Job", {}, jid=jid_on(1, 4))
    both = await queue.put("a.Job", {}, depends=[first, second])
    async with AsyncClient(server_url, namespace="elsewhere", worker_name="w") as other:
        far = await other.queues["q"].put("a.Job", {}, depends=[RemoteJob(
            sharded.shards.names[0], first)])
        for job in await queue.pop(2):
            await job.complete()
        # one release for each shard's remote dependent
        assert await asyncio.to_thread(_relay, server_url, "billing", 4) == 2
        assert (await sharded.jobs[both]).state == "waiting"  # type: ignore[union-attr]
        assert (await other.jobs[far]).state == "waiting"  # type: ignore[union-attr]
