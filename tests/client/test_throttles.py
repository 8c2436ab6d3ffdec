"""Throttles, ordering keys, ttl and unique puts through the client (docs/throttles.md);
each test runs with the sync and the async client."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qless_py import CoreError, PutManyError
from qless_py.calls.queue import put_many_error
from tests.client.conftest import AnyClient, frozen, run

pytestmark = pytest.mark.asyncio

NOOP = "tests.client.jobs.Noop"


async def test_a_throttle_by_name(client: AnyClient) -> None:
    throttle = client.throttles["api"]
    assert (throttle.name, throttle.queue_name) == ("api", None)
    assert await run(throttle.maximum) == 0 and await run(throttle.ttl) == -2
    await run(throttle.set_maximum(2))
    assert await run(client.throttles["api"].maximum) == 2
    assert await run(throttle.ttl) == -1
    await run(throttle.set(3, ttl=600))
    assert await run(throttle.maximum) == 3 and 0 < await run(throttle.ttl) <= 600
    await run(throttle.delete())
    assert await run(throttle.maximum) == 0


async def test_the_sync_maximum_is_an_assignable_property(sync_client: Any) -> None:
    throttle = sync_client.throttles["api"]
    throttle.maximum = 4
    assert sync_client.throttles["api"].maximum == 4


async def test_a_throttle_limits_what_runs(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    queue = client.queues["q"]
    await run(client.throttles["api"].set_maximum(1))
    with frozen() as clock:
        for jid in ("a", "b", "c"):
            await run(queue.put(NOOP, {}, jid=jid, throttles=["api"]))
            clock.tick(1)
        [job] = await run(queue.pop(5))
        assert job.jid == "a" and job.throttles == ["api", tid("q")]
        assert await run(client.throttles["api"].locks()) == ["a"]
        assert await run(client.throttles["api"].pending()) == ["b", "c"]
        assert await run(queue.jobs.throttled()) == ["b", "c"]
        assert (await run(queue.counts))["throttled"] == 2
        b = await run(client.jobs["b"])
        assert b.state == "throttled" and b.history[-1]["what"] == "throttled"
        await run(job.complete())
        assert [j.jid for j in await run(queue.pop(5))] == ["b"]


async def test_release_by_hand(client: AnyClient) -> None:
    queue = client.queues["q"]
    throttle = client.throttles["api"]
    await run(throttle.set_maximum(1))
    await run(queue.put(NOOP, {}, jid="a", throttles=["api"]))
    await run(queue.pop())
    await run(throttle.release("a"))
    assert await run(throttle.locks()) == []
    await run(throttle.release())
    with pytest.raises(ValueError, match="jids must be non-empty strings"):
        await run(throttle.release(""))


async def test_the_queues_own_throttle(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    queue = client.queues["q"]
    assert queue.throttle.name == tid("q") and queue.throttle.queue_name == "q"
    assert queue.throttle == client.throttles[tid("q")]
    await run(queue.throttle.set_maximum(1))
    for jid in ("a", "b"):
        await run(queue.put(NOOP, {}, jid=jid))
    assert [j.jid for j in await run(queue.pop(5))] == ["a"]
    assert await run(queue.throttle.locks()) == ["a"]
    await run(queue.throttle.set_maximum(0))
    assert [j.jid for j in await run(queue.pop(5))] == ["b"]


async def test_throttle_names_find_set_and_used_throttles(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    await run(client.throttles["set-only"].set_maximum(2))
    await run(client.queues["q"].throttle.set_maximum(3))
    await run(client.queues["q"].put(NOOP, {}, jid="a", throttles=["used-only", "x-locks"]))
    await run(client.queues["q"].pop())
    assert await run(client.throttles.names()) == [tid("q"), "set-only", "used-only",
                                                   "x-locks"]


@pytest.mark.parametrize(("value", "error", "message"), [
    (-1, ValueError, "maximum must be >= 0"),
    (1.5, TypeError, "maximum must be an int"),
    (True, TypeError, "maximum must be an int"),
])
async def test_bad_maximum_is_refused_before_sending(client: AnyClient, value: Any,
                                                     error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        await run(client.throttles["t"].set_maximum(value))
    with pytest.raises(ValueError, match="ttl must be a positive number"):
        await run(client.throttles["t"].set(1, ttl=0))
    with pytest.raises(ValueError, match="a throttle name is required"):
        client.throttles[""]


# -- put options ------------------------------------------------------------------------------

async def test_job_attributes_and_shape(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="plain"))
    await run(queue.put(NOOP, {}, jid="flow", throttles=["t"], key="k", ttl=60))
    plain, flow = await run(client.jobs.get("plain", "flow"))
    assert (plain.throttles, plain.key, plain.start_within) == ([tid("q")], None, None)
    assert (flow.throttles, flow.key, flow.start_within) == (["t", tid("q")], "k", 60)
    assert "throttles" not in plain.to_dict() and "key" not in plain.to_dict()
    assert {k: flow.to_dict()[k] for k in ("throttles", "key", "ttl")} == {
        "throttles": ["t", tid("q")], "key": "k", "ttl": 60}


async def test_a_moved_job_keeps_its_named_throttles_and_leaves_its_old_queues(
        client: AnyClient) -> None:
    tid = client.keys.queue_tid
    a, b, c = (client.queues[name] for name in "abc")
    await run(a.throttle.set_maximum(1))
    await run(client.throttles["partner-api"].set_maximum(5))
    await run(a.put(NOOP, {}, jid="x"))
    assert [j.jid for j in await run(a.pop(5))] == ["x"]  # a's throttle is full
    await run(a.put(NOOP, {}, jid="j", throttles=["partner-api"]))
    job, stale = await run(client.jobs.get("j", "j"))
    assert await run(job.move("b")) == "j"
    assert (job.queue_name, job.throttles) == ("b", ["partner-api", tid("b")])
    assert (await run(client.jobs["j"])).throttles == ["partner-api", tid("b")]
    await run(job.move("c"))  # the same object again
    assert job.throttles == (await run(client.jobs["j"])).throttles == ["partner-api", tid("c")]
    [popped] = await run(c.pop(5))
    assert popped.jid == "j" and await run(client.throttles["partner-api"].locks()) == ["j"]
    await run(stale.move("b"))  # an object that still has it in a
    assert (await run(client.jobs["j"])).throttles == ["partner-api", tid("b")]
    assert [j.jid for j in await run(b.pop(5))] == ["j"]
    assert await run(a.throttle.locks()) == ["x"] and await run(a.pop(5)) == []


async def test_a_moved_plain_job_stays_plain(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    await run(client.queues["a"].put(NOOP, {}, jid="p"))
    job = await run(client.jobs["p"])
    await run(job.move("b"))
    moved = await run(client.jobs["p"])
    assert job.throttles == moved.throttles == [tid("b")]
    assert "throttles" not in moved.to_dict()


async def test_ordering_key_runs_one_at_a_time(client: AnyClient) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        for jid in ("a", "b"):
            await run(queue.put(NOOP, {}, jid=jid, key="customer-1"))
            clock.tick(1)
        job = await run(queue.pop())
        assert job.jid == "a" and job.key == "customer-1"
        assert await run(queue.pop()) is None
        await run(job.retry())
        assert (await run(queue.pop())).jid == "a"


async def test_ttl_expires_a_job_not_started_in_time(client: AnyClient) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        await run(queue.put(NOOP, {}, jid="a", ttl=10))
        clock.tick(11)
        assert await run(queue.pop()) is None
        assert await run(client.jobs["a"]) is None
        assert (await run(queue.stats())).expired == 1


async def test_unique_put(client: AnyClient) -> None:
    queue = client.queues["q"]
    assert await run(queue.put(NOOP, {}, jid="a", unique=True)) == "a"
    assert await run(queue.put(NOOP, {"other": 1}, jid="a", unique=True)) is None
    assert (await run(client.jobs["a"])).data == {}
    assert await run(queue.put(NOOP, {"other": 1}, jid="a")) == "a"


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"throttles": "api"}, TypeError, "throttles must be a list of throttle names"),
    ({"throttles": ["api", ""]}, ValueError, "throttles must be non-empty strings"),
    ({"throttles": [1]}, ValueError, "throttles must be non-empty strings"),
    ({"key": ""}, ValueError, "key must be a non-empty string"),
    ({"key": 5}, ValueError, "key must be a non-empty string"),
    ({"ttl": 0}, ValueError, "ttl must be a positive number"),
    ({"ttl": float("nan")}, ValueError, "ttl must be a positive number"),
    ({"ttl": "60"}, TypeError, "ttl must be a number"),
    ({"unique": 1}, TypeError, "unique must be True or False"),
])
async def test_bad_options_are_refused_before_sending(client: AnyClient, options: dict[str, Any],
                                                      error: type, message: str) -> None:
    queue = client.queues["q"]
    with pytest.raises(error, match=message):
        await run(queue.put(NOOP, {}, jid="a", **options))
    with pytest.raises(error, match=message):
        await run(queue.put_many([(NOOP, {})], **options))
    if "unique" not in options:
        with pytest.raises(error, match=message):
            await run(queue.put_many([{"klass": NOOP, "data": {}, **options}]))
        with pytest.raises(error, match=message):
            await run(queue.recur(NOOP, {}, 60, **options))
    assert await run(client.jobs["a"]) is None and await run(queue.length()) == 0


# -- put_many ---------------------------------------------------------------------------------

async def test_put_many_in_one_call_per_thousand(client: AnyClient) -> None:
    queue = client.queues["q"]
    batch = queue._put_many_batch([(NOOP, {"i": i}) for i in range(2500)], None, None, 0,
                                  None, None)
    assert len(batch.calls) == 3
    jids = await run(queue.put_many([(NOOP, {"i": i}) for i in range(2500)]))
    assert len(jids) == 2500 and await run(queue.length()) == 2500
    first = await run(queue.pop())
    assert first.jid == jids[0] and first.data == {"i": 0}


async def test_put_many_options_per_item_and_for_all(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    queue = client.queues["q"]
    jids = await run(queue.put_many(
        [(NOOP, {}), {"klass": NOOP, "data": {}, "jid": "x", "key": "k2", "ttl": 5,
                      "throttles": []}],
        throttles=["t"], key="k1", priority=2))
    first, second = await run(client.jobs.get(jids[0], "x"))
    assert (first.throttles, first.key, first.priority) == (["t", tid("q")], "k1", 2)
    assert (second.throttles, second.key, second.start_within) == ([tid("q")], "k2", 5)


async def test_put_many_unique(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a"))
    got = await run(queue.put_many([{"klass": NOOP, "jid": "a"}, {"klass": NOOP, "jid": "b"}],
                                   unique=True))
    assert got == [None, "b"]
    with pytest.raises(ValueError, match="unique applies to a whole put_many"):
        await run(queue.put_many([{"klass": NOOP, "jid": "c", "unique": True}]))


async def test_a_refused_put_many_call_names_the_item() -> None:
    error = put_many_error(CoreError("ERR user_script:9: qlpy.put_many(): job 3: Put(): Arg "
                                     '"delay" not a number: x'), 2000)
    assert isinstance(error, PutManyError) and error.index == 2002
    assert str(error).startswith("put_many item 2002: ")
    other = CoreError("something else")
    assert put_many_error(other, 0) is other


# -- recurring templates ----------------------------------------------------------------------

async def test_recur_with_throttles_key_and_ttl(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    queue = client.queues["q"]
    await run(queue.recur(NOOP, {}, 60, jid="r", throttles=["t"], key="rk", ttl=30))
    template = await run(client.jobs["r"])
    assert (template.throttles, template.key, template.start_within) == (
        ["t", tid("q")], "rk", 30)
    assert template.to_dict()["throttles"] == ["t", tid("q")]
    await run(template.set_throttles(["u", "t"]))
    await run(template.set_key(None))
    await run(template.set_ttl(None))
    assert (template.throttles, template.key, template.start_within) == (
        ["u", "t", tid("q")], None, None)
    again = await run(client.jobs["r"])
    assert (again.throttles, again.key, again.start_within) == (["u", "t", tid("q")], None,
                                                                None)
    await run(again.move("q2"))
    assert again.throttles == ["u", "t", tid("q2")]
    assert (await run(client.jobs["r"])).throttles == ["u", "t", tid("q2")]


async def test_recur_with_no_throttle_has_its_queues_tid(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    await run(client.queues["q"].recur(NOOP, {}, 60, jid="r"))
    template = await run(client.jobs["r"])
    assert template.throttles == [tid("q")] and "throttles" not in template.to_dict()
    await run(template.move("q2"))
    assert template.throttles == [tid("q2")]


async def test_spawned_jobs_carry_the_templates_extensions(client: AnyClient) -> None:
    tid = client.keys.queue_tid
    queue = client.queues["q"]
    with frozen() as clock:
        await run(queue.recur(NOOP, {}, 60, jid="r", throttles=["t"], key="rk"))
        clock.tick(1)
        job = await run(queue.pop())
        assert (job.jid, job.throttles, job.key) == ("r-1", ["t", tid("q")], "rk")


async def test_counts_of_every_queue_have_throttled(client: AnyClient) -> None:
    await run(client.throttles["t"].set_maximum(1))
    await run(client.queues["q"].put(NOOP, {}, jid="a", throttles=["t"]))
    await run(client.queues["q"].put(NOOP, {}, jid="b", throttles=["t"]))
    await run(client.queues["r"].put(NOOP, {}, jid="c"))
    counts = {c["name"]: c["throttled"] for c in await run(client.queues.counts)}
    assert counts == {"q": 1, "r": 0}


async def test_the_raw_counts_keep_qless_cores_shape(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    raw = json.loads(await run(client("queues", "q")))
    assert "throttled" not in raw
