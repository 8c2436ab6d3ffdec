"""Client-level collections: jobs, queues, workers, tags, tracking, failures, config
(each test runs with the sync and the async client)."""

from __future__ import annotations

import pytest
import redis

from tests.client.conftest import AnyClient, frozen, run

pytestmark = pytest.mark.asyncio

NOOP = "tests.client.jobs.Noop"


def _flavoured(client: AnyClient, name: str) -> type:
    import qless_py
    import qless_py.aio

    module = qless_py.aio if type(client).__name__ == "AsyncClient" else qless_py
    kind: type = getattr(module, name)
    return kind


async def test_jobs_getitem_returns_job_template_or_none(client: AnyClient) -> None:
    assert await run(client.jobs["jid"]) is None
    await run(client.queues["q"].put(NOOP, {}, jid="jid"))
    await run(client.queues["q"].recur(NOOP, {}, 60, jid="rec"))
    assert isinstance(await run(client.jobs["jid"]), _flavoured(client, "Job"))
    assert isinstance(await run(client.jobs["rec"]), _flavoured(client, "RecurringJob"))


async def test_jobs_get_many_skips_unknown(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    await run(client.queues["q"].put(NOOP, {}, jid="b"))
    assert [j.jid for j in await run(client.jobs.get("b", "nope", "a"))] == ["b", "a"]
    assert await run(client.jobs.get()) == [] and await run(client.jobs.get("nope")) == []


async def test_jobs_complete(client: AnyClient) -> None:
    assert await run(client.jobs.complete()) == []
    with frozen() as clock:
        for jid in ("a", "b"):
            await run(client.queues["q"].put(NOOP, {}, jid=jid))
            await run((await run(client.queues["q"].pop())).complete())
            clock.tick(1)
    assert await run(client.jobs.complete()) == ["b", "a"]
    assert await run(client.jobs.complete(offset=1, count=1)) == ["a"]


async def test_tracking(client: AnyClient) -> None:
    assert await run(client.jobs.tracked()) == {"jobs": [], "expired": []}
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    await run(client.queues["q"].put(NOOP, {}, jid="b"))
    assert await run(client.track("a")) is True and await run(client.track("a")) is False
    await run(client.track("b"))
    tracked = await run(client.jobs.tracked())
    assert [j.jid for j in tracked["jobs"]] == ["a", "b"] and tracked["expired"] == []
    await run((await run(client.jobs["b"])).cancel())
    assert (await run(client.jobs.tracked()))["expired"] == ["b"]
    assert await run(client.untrack("a")) is True
    assert [j.jid for j in (await run(client.jobs.tracked()))["jobs"]] == []


async def test_tags_and_tagged(client: AnyClient) -> None:
    assert await run(client.tags()) == []
    assert await run(client.jobs.tagged("foo")) == {"total": 0, "jobs": []}
    for i in range(3):
        await run(client.queues["q"].put(NOOP, {}, jid=f"j{i}", tags=["foo"]))
    await run(client.queues["q"].put(NOOP, {}, jid="solo", tags=["bar"]))
    assert await run(client.tags()) == ["foo"]  # tags used at least twice
    assert await run(client.jobs.tagged("foo")) == {"total": 3, "jobs": ["j0", "j1", "j2"]}
    assert (await run(client.jobs.tagged("foo", offset=1, count=1)))["jobs"] == ["j1"]


async def test_failed_and_unfail(client: AnyClient) -> None:
    assert await run(client.jobs.failed()) == {}
    assert await run(client.jobs.failed("foo")) == {"total": 0, "jobs": []}
    jids = [str(i) for i in range(10)]
    for jid in jids:
        await run(client.queues["foo"].put(NOOP, {}, jid=jid))
        await run((await run(client.queues["foo"].pop())).fail("foo", "bar"))
    assert await run(client.jobs.failed()) == {"foo": 10}
    page = await run(client.jobs.failed("foo", 0, 3))
    assert page["total"] == 10 and [j.jid for j in page["jobs"]] == ["9", "8", "7"]
    assert all([(await run(client.jobs[jid])).state == "failed" for jid in jids])
    assert await run(client.unfail("foo", "foo", count=4)) == 4
    assert {j.jid for j in await run(client.queues["foo"].peek(10))} == {"0", "1", "2", "3"}
    assert await run(client.unfail("foo", "foo")) == 6
    assert all([(await run(client.jobs[jid])).state == "waiting" for jid in jids])
    assert await run(client.jobs.failed()) == {}
    with pytest.raises(ValueError):
        await run(client.unfail("foo", "foo", count=0))


async def test_workers(client: AnyClient, other: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="jid"))
    assert await run(client.workers.counts) == []
    assert await run(client.workers["other"]) == {"jobs": [], "stalled": []}
    await run(other.queues["q"].pop())
    assert await run(client.workers["other"]) == {"jobs": ["jid"], "stalled": []}
    assert await run(client.workers.counts) == [{"name": "other", "jobs": 1, "stalled": 0}]
    await run(client.workers.deregister("other"))
    assert await run(client.workers.counts) == []


async def test_queue_names(client: AnyClient) -> None:
    assert await run(client.queues.names()) == []
    await run(client.queues["b"].put(NOOP, {}))
    await run(client.queues["a"].put(NOOP, {}))
    assert sorted(await run(client.queues.names())) == ["a", "b"]


async def test_raw_call_returns_text(client: AnyClient) -> None:
    assert await run(client("failed")) == "{}"
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    assert await run(client("jobs", "complete")) == []
    assert await run(client("length", "q")) == 1
    assert await run(client("get", "nope")) is None


async def test_attribute_errors(client: AnyClient) -> None:
    with pytest.raises(AttributeError):
        client.foo  # noqa: B018
    with pytest.raises(AttributeError):
        client.queues.foo  # noqa: B018
    with pytest.raises(AttributeError):
        client.workers.foo  # noqa: B018


DEFAULTS = {"application": "qless", "grace-period": 10, "heartbeat": 60,
            "histogram-history": 7, "jobs-history": 604800, "jobs-history-count": 50000,
            "stats-history": 30}


async def test_config_defaults_and_overview(client: AnyClient) -> None:
    overview = await run(client.config.all)
    assert overview == DEFAULTS and len(overview) == 7
    assert await run(client.config["heartbeat"]) == 60
    assert await run(client.config["application"]) == "qless"
    assert await run(client.config.get("heartbeat")) == 60


async def test_config_set_get_unset(client: AnyClient) -> None:
    config = client.config
    assert await run(config["foo"]) is None and "foo" not in await run(config.all)
    assert await run(config.get("foo", 5)) == 5
    await run(config.set("foo", 5))
    assert await run(config["foo"]) == 5 and "foo" in await run(config.all)
    await run(config.set("name", "text"))
    assert await run(config["name"]) == "text"
    await run(config.unset("foo"))
    assert await run(config["foo"]) is None
    await run(config.set("foo", 1.5))
    assert await run(config.pop("foo")) == 1.5 and "foo" not in await run(config.all)
    assert await run(config.pop("foo", "gone")) == "gone"


async def test_config_update_and_clear(client: AnyClient) -> None:
    original = await run(client.config.all)
    await run(client.config.update({key: "1" for key in original}))
    assert await run(client.config.all) == {key: "1" for key in DEFAULTS}
    await run(client.config.clear())
    assert await run(client.config.all) == original


async def test_config_rejects_bad_values(client: AnyClient, redis_conn: redis.Redis) -> None:
    with pytest.raises(ValueError):
        await run(client.config.set("heartbeat", "soon"))
    with pytest.raises(ValueError):
        await run(client.config.set("q-max-concurrency", "lots"))
    with pytest.raises(TypeError):
        await run(client.config.set("foo", None))
    with pytest.raises(ValueError):
        await run(client.config.update({"ok": 1, "heartbeat": "x"}))
    assert redis_conn.hgetall(client.keys.config) == {}


async def test_the_sync_config_is_a_mapping_that_writes_through(sync_client: AnyClient) -> None:
    config = sync_client.config
    assert len(config) == 7 and set(config) == set(DEFAULTS)
    config["foo"] = 5
    assert config["foo"] == 5 and "foo" in config
    assert dict(config.items())["foo"] == "5" and "5" in config.values()
    del config["foo"]
    assert config["foo"] is None and "foo" not in config
