"""Batch paths: put_many/pop(count) and call_many (with the sync and the async client), and
the benchmark harness's pipeline binding of the sync ``client._lua`` (it swaps the runner
for one bound to a redis-py pipeline)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis

from qless_py import Client, CoreError
from tests.client.conftest import AnyClient, run
from tests.lookups import get_job

NOOP = "tests.client.jobs.Noop"


@pytest.fixture
def client(sync_client: Client) -> Client:
    """The pipeline binding is the sync client's (redis-py)."""
    return sync_client


@contextmanager
def pipelined(client: Client) -> Iterator[Any]:
    """What the shared benchmark harness does (QlessFamilyAdapter._pipelined)."""
    script = client._lua
    pipe = client.redis.pipeline(transaction=False)

    def bound(keys: Any = (), args: Any = (), client: Any = None) -> Any:
        return script(keys=list(keys), args=list(args), client=pipe)

    client._lua = bound
    try:
        yield pipe
    finally:
        client._lua = script
    pipe.execute()


def test_put_and_complete_through_a_bound_pipeline(client: Client,
                                                   redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    redis_conn.script_flush()  # the pipeline must load the script itself
    with pipelined(client):
        jids = [queue.put(NOOP, {}) for _ in range(20)]
        assert len(queue.client.redis.keys("ql:j:*")) == 0  # nothing sent yet
    assert len(queue) == 20 and len(set(jids)) == 20
    jobs = queue.pop(20)
    assert len(jobs) == 20
    with pipelined(client):
        for job in jobs:
            job.complete()
    assert all(get_job(client, jid).state == "complete" for jid in jids)
    assert len(queue) == 0
    assert json.loads(client("failed")) == {}
    assert client._lua is client.core.script  # restored: normal calls again


@pytest.mark.asyncio
async def test_put_many_then_pop_many(any_client: AnyClient) -> None:
    queue = any_client.queues["q"]
    jids = await run(queue.put_many([(NOOP, {"i": i}) for i in range(250)]))
    popped = await run(queue.pop(100))
    assert [j.jid for j in popped] == jids[:100]
    assert [j.data["i"] for j in popped] == list(range(100))
    assert await run(queue.length()) == 250
    assert (await run(any_client.queues["q"].counts))["running"] == 100


@pytest.mark.asyncio
async def test_put_many_keeps_batch_order_for_equal_priorities(any_client: AnyClient) -> None:
    queue = any_client.queues["q"]
    for priority in (0, 2, -3):
        jids = await run(queue.put_many([(NOOP, {}) for _ in range(100)], priority=priority))
        assert [j.jid for j in await run(queue.pop(100))] == jids


@pytest.mark.asyncio
async def test_call_many_reports_refusals_in_place(any_client: AnyClient) -> None:
    results = await run(any_client.core.call_many([
        ("put", "w", "q", "a", NOOP, "{}", 0),
        ("put", "w", "q", "b", NOOP, "{}", "soon"),
        ("nope",),
        ("length", "q"),
    ]))
    assert results[0] == "a" and results[3] == 1
    assert isinstance(results[1], CoreError) and 'Arg "delay" not a number' in str(results[1])
    assert isinstance(results[2], CoreError) and "Unknown command nope" in str(results[2])


@pytest.mark.asyncio
async def test_put_many_refuses_a_bad_delay_before_sending(any_client: AnyClient,
                                                           redis_conn: redis.Redis) -> None:
    with pytest.raises(TypeError):
        await run(any_client.queues["q"].put_many(
            [(NOOP, {}), {"klass": NOOP, "delay": "soon"}]))
    with pytest.raises(TypeError):
        await run(any_client.queues["q"].put(NOOP, {}, delay="soon"))
    assert redis_conn.keys("ql:*") == []
