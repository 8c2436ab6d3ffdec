"""Queue: put, pop, peek, batch, recur, counts, settings and listings (each test runs with
the sync and the async client)."""

from __future__ import annotations

import pytest
import redis

from qless_py import Client, CoreError
from tests.client.conftest import AnyClient, frozen, run
from tests.client.jobs import Noop

pytestmark = pytest.mark.asyncio

NOOP = "tests.client.jobs.Noop"


async def test_put_then_pop_returns_the_job_leased_to_the_worker(client: AnyClient) -> None:
    queue = client.queues["q"]
    jid = await run(queue.put(Noop, {"a": 1}, jid="j1"))
    assert jid == "j1"
    job = await run(queue.pop())
    assert job is not None and type(job).__name__ == "Job"
    assert (job.jid, job.klass_name, job.state, job.worker_name) == (
        "j1", NOOP, "running", "worker")
    assert job.data == {"a": 1} and job.queue_name == "q"
    assert await run(queue.pop()) is None


async def test_put_generates_hex_jids(client: AnyClient) -> None:
    jid = await run(client.queues["q"].put(NOOP, {}))
    assert len(jid) == 32 and int(jid, 16) >= 0


async def test_pop_with_count_returns_a_list(client: AnyClient) -> None:
    queue = client.queues["q"]
    assert await run(queue.pop(5)) == []
    for i in range(3):
        await run(queue.put(NOOP, {}, jid=f"j{i}"))
    jobs = await run(queue.pop(10))
    assert [j.jid for j in jobs] == ["j0", "j1", "j2"]


async def test_pop_as_another_worker(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a"))
    job = await run(queue.pop(worker="w7"))
    assert job is not None and job.worker_name == "w7"
    await run(job.complete())  # acts as the popping worker, not the client's name
    assert (await run(client.jobs["a"])).state == "complete"


async def test_priority_orders_pops(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="low", priority=-1))
    await run(queue.put(NOOP, {}, jid="mid"))
    await run(queue.put(NOOP, {}, jid="high", priority=5))
    assert [j.jid for j in await run(queue.pop(3))] == ["high", "mid", "low"]


async def test_peek_does_not_lease(client: AnyClient) -> None:
    queue = client.queues["q"]
    assert await run(queue.peek()) is None and await run(queue.peek(3)) == []
    await run(queue.put(NOOP, {}, jid="a"))
    await run(queue.put(NOOP, {}, jid="b"))
    peeked = await run(queue.peek())
    assert peeked is not None and peeked.jid == "a" and peeked.state == "waiting"
    assert len(await run(queue.peek(10))) == 2
    assert (await run(queue.counts))["waiting"] == 2


async def test_delayed_job_is_invisible_until_due(client: AnyClient) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        await run(queue.put(NOOP, {}, jid="a", delay=30))
        assert await run(queue.pop()) is None
        assert await run(queue.jobs.scheduled()) == ["a"]
        clock.tick(31)
        job = await run(queue.pop())
        assert job is not None and job.jid == "a"


async def test_counts_and_length(client: AnyClient) -> None:
    queue = client.queues["q"]
    assert await run(client.queues.counts) == []
    await run(queue.put(NOOP, {}, jid="a"))
    await run(queue.put(NOOP, {}, jid="b", delay=100))
    await run(queue.put(NOOP, {}, jid="c", depends=["a"]))
    await run(queue.pop())
    expected = {"name": "q", "waiting": 0, "stalled": 0, "running": 1, "scheduled": 1,
                "depends": 1, "recurring": 0, "paused": False, "throttled": 0}
    assert await run(queue.counts) == expected
    assert await run(client.queues.counts) == [expected]
    # running + scheduled; depending jobs are not counted
    assert await run(queue.length()) == 2


async def test_len_of_a_sync_queue(sync_client: Client) -> None:
    queue = sync_client.queues["q"]
    queue.put(NOOP, {}, jid="a")
    assert len(queue) == 1


async def test_pause_and_unpause(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a"))
    await run(queue.pause())
    assert await run(queue.paused) and (await run(queue.counts))["paused"] is True
    assert await run(queue.pop()) is None
    await run(queue.unpause())
    assert not await run(queue.paused)
    assert await run(queue.pop()) is not None


async def test_heartbeat_setting(client: AnyClient) -> None:
    queue = client.queues["q"]
    assert await run(queue.heartbeat) == 60
    await run(client.config.set("heartbeat", 30))
    assert await run(queue.heartbeat) == 30
    await run(queue.set_heartbeat(10))
    assert await run(queue.heartbeat) == 10 and await run(client.config["q-heartbeat"]) == 10
    with frozen():
        await run(queue.put(NOOP, {}, jid="a"))
        job = await run(queue.pop())
        assert job is not None and job.ttl == pytest.approx(10, abs=1)
    with pytest.raises(ValueError):
        await run(queue.set_heartbeat(0))
    assert await run(queue.heartbeat) == 10


async def test_max_concurrency_setting(client: AnyClient) -> None:
    queue = client.queues["q"]
    assert await run(queue.max_concurrency) == 0
    await run(queue.set_max_concurrency(1))
    assert await run(queue.max_concurrency) == 1
    await run(queue.put(NOOP, {}, jid="a"))
    await run(queue.put(NOOP, {}, jid="b"))
    assert len(await run(queue.pop(5))) == 1
    with pytest.raises(ValueError):
        await run(queue.set_max_concurrency(-1))


async def test_sync_settings_are_properties(sync_client: Client) -> None:
    queue = sync_client.queues["q"]
    queue.heartbeat = 12
    queue.max_concurrency = 2
    assert (queue.heartbeat, queue.max_concurrency) == (12, 2)
    with pytest.raises(ValueError):
        queue.heartbeat = 0


async def test_job_listings(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}))
    assert await run(queue.jobs.running()) == [] and await run(queue.jobs.stalled()) == []
    assert await run(queue.jobs.scheduled()) == [] and await run(queue.jobs.depends()) == []
    assert await run(queue.jobs.recurring()) == []
    with frozen() as clock:
        await run(queue.put(NOOP, {}, jid="a"))
        await run(queue.put(NOOP, {}, jid="s", delay=10))
        await run(queue.put(NOOP, {}, jid="b", depends=["a"]))
        await run(queue.recur(NOOP, {}, 60, jid="r"))
        running = await run(queue.pop(2))
        assert sorted(await run(queue.jobs.running())) == sorted(j.jid for j in running)
        assert await run(queue.jobs.depends()) == ["b"]
        assert await run(queue.jobs.scheduled()) == ["s"]
        assert await run(queue.jobs.recurring()) == ["r"]
        clock.tick(61 + 10)
        assert sorted(await run(queue.jobs.stalled())) == sorted(j.jid for j in running)


async def test_bad_put_changes_nothing(client: AnyClient, redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    with pytest.raises(TypeError):
        await run(queue.put(NOOP, {}, tags="one"))
    with pytest.raises(ValueError):
        await run(queue.put(NOOP, {}, retries=-1))
    with pytest.raises(ValueError):
        await run(queue.put("", {}))
    with pytest.raises(ValueError):
        await run(queue.put(NOOP, {"x": float("nan")}))
    with pytest.raises(ValueError):
        client.queues[""]
    assert redis_conn.keys("ql:*") == []


async def test_put_keeps_existing_options_unless_given(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a", priority=3, tags=["t"], retries=2))
    await run(client.queues["other"].put(NOOP, {"moved": True}, jid="a"))
    job = await run(client.jobs["a"])
    assert (job.queue_name, job.priority, job.tags, job.original_retries) == (
        "other", 3, ["t"], 2)


async def test_put_many_in_one_round_trip(client: AnyClient) -> None:
    queue = client.queues["q"]
    jids = await run(queue.put_many([(Noop, {"i": i}) for i in range(50)], priority=1))
    assert len(jids) == 50 and len(set(jids)) == 50
    assert await run(queue.length()) == 50
    first = await run(queue.pop())
    assert first is not None and first.jid == jids[0] and first.priority == 1
    more = await run(queue.put_many([
        {"klass": NOOP, "data": {}, "jid": "x", "priority": 9, "tags": ["t"]}, (NOOP, {})]))
    assert more[0] == "x"
    top = await run(queue.pop())
    assert top is not None and top.jid == "x" and top.tags == ["t"]
    assert await run(queue.put_many([])) == []


async def test_put_many_reloads_the_script_after_a_flush(client: AnyClient,
                                                         redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}))
    redis_conn.script_flush()
    jids = await run(queue.put_many([(NOOP, {}) for _ in range(5)]))
    assert await run(queue.length()) == 6 and len(jids) == 5


async def test_put_many_checks_every_item_first(client: AnyClient,
                                                redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    with pytest.raises(ValueError):
        await run(queue.put_many([(NOOP, {}), {"klass": NOOP, "bogus": 1}]))
    with pytest.raises(ValueError):
        await run(queue.put_many([(NOOP, {}), (NOOP, {"bad": float("inf")})]))
    assert redis_conn.keys("ql:*") == []


async def test_recur_spawns_on_schedule(client: AnyClient) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        jid = await run(queue.recur(NOOP, {"r": 1}, 60, jid="tick", tags=["t"], retries=2))
        assert jid == "tick"
        job = await run(queue.pop())
        assert job is not None and job.jid == "tick-1" and job.spawned_from_jid == "tick"
        assert job.data == {"r": 1} and job.tags == ["t"] and job.original_retries == 2
        assert await run(queue.pop()) is None
        clock.tick(60)
        job = await run(queue.pop())
        assert job is not None and job.jid == "tick-2"
    with pytest.raises(ValueError):
        await run(queue.recur(NOOP, {}, 0))


async def test_core_rejects_bad_count(client: AnyClient) -> None:
    with pytest.raises(CoreError, match="not a number"):
        await run(client("pop", "q", "worker", "many"))


async def test_negative_counts_are_refused(client: AnyClient, redis_conn: redis.Redis) -> None:
    with pytest.raises(ValueError):
        await run(client.queues["q"].pop(-1))
    with pytest.raises(ValueError):
        await run(client.queues["q"].peek(-1))
    assert redis_conn.keys("ql:*") == []


@pytest.mark.parametrize("kwargs", [
    {"priority": "high"}, {"priority": float("nan")}, {"retries": 2.5}, {"retries": True},
    {"delay": float("inf")}, {"depends": "a"},
])
async def test_bad_put_options_are_refused_before_sending(
        client: AnyClient, redis_conn: redis.Redis, kwargs: dict[str, object]) -> None:
    with pytest.raises((TypeError, ValueError)):
        await run(client.queues["q"].put(NOOP, {}, **kwargs))
    with pytest.raises((TypeError, ValueError)):
        await run(client.queues["q"].put_many([(NOOP, {})], **kwargs))
    assert redis_conn.keys("ql:*") == []
