"""RecurringJob: attributes, updates, move, cancel, tags (each test runs with the sync and
the async client)."""

from __future__ import annotations

from typing import Any

import pytest

from qless_py import Client, CoreError, RecurringJob
from tests.client import jobs as job_classes
from tests.client.conftest import AnyClient, frozen, run

pytestmark = pytest.mark.asyncio


async def _template(client: AnyClient, jid: str = "jid") -> Any:
    job = await run(client.jobs[jid])
    assert type(job).__name__ == "RecurringJob"
    return job


async def test_attributes(client: AnyClient) -> None:
    await run(client.queues["foo"].recur("Foo", {"whiz": "bang"}, 60, jid="jid",
                                         tags=["foo"], retries=3))
    job = await _template(client)
    assert (job.jid, job.klass_name, job.queue_name, job.state) == ("jid", "Foo", "foo", "recur")
    assert job.data == {"whiz": "bang"} and job.tags == ["foo"]
    assert (job.priority, job.retries, job.interval, job.count, job.backlog) == (0, 3, 60, 0, 0)


async def test_updates_write_through(client: AnyClient) -> None:
    await run(client.queues["foo"].recur("Foo", {}, 60, jid="jid"))
    job = await _template(client)
    await run(job.set_priority(10))
    await run(job.set_retries(2))
    await run(job.set_interval(10))
    await run(job.set_backlog(4))
    await run(job.set_data({"foo": "bar"}))
    await run(job.set_klass(job_classes.Noop))
    assert (job.priority, job.retries, job.interval, job.backlog) == (10, 2, 10, 4)
    assert job.data == {"foo": "bar"} and job.klass is job_classes.Noop
    fresh = await _template(client)
    assert (fresh.priority, fresh.retries, fresh.interval, fresh.backlog) == (10, 2, 10, 4)
    assert fresh.data == {"foo": "bar"} and fresh.klass is job_classes.Noop
    with pytest.raises(ValueError):
        await run(fresh.set_interval(0))


async def test_sync_setters_write_through(sync_client: Client) -> None:
    sync_client.queues["foo"].recur("Foo", {}, 60, jid="jid")
    job = sync_client.jobs["jid"]
    assert isinstance(job, RecurringJob)
    job.priority = 10
    job.retries = 2
    job.interval = 10
    job.backlog = 4
    job.data = {"foo": "bar"}
    job.klass = job_classes.Noop  # type: ignore[misc]  # read-only in BaseJob; __setattr__ writes
    fresh = sync_client.jobs["jid"]
    assert isinstance(fresh, RecurringJob)
    assert (fresh.priority, fresh.retries, fresh.interval, fresh.backlog) == (10, 2, 10, 4)
    assert fresh.data == {"foo": "bar"} and fresh.klass is job_classes.Noop
    with pytest.raises(ValueError):
        fresh.interval = 0


async def test_async_assignments_are_refused(server_url: str) -> None:
    from qless_py.aio import AsyncClient

    async with AsyncClient(server_url) as client:
        await client.queues["foo"].recur("Foo", {}, 60, jid="jid")
        job = await client.jobs["jid"]
        for name, value in (("data", {}), ("klass", "x.Y"), ("priority", 1)):
            with pytest.raises(AttributeError, match=r"await template\.set_"):
                setattr(job, name, value)


async def test_next_move_cancel_tags(client: AnyClient) -> None:
    with frozen():
        await run(client.queues["foo"].recur("Foo", {}, 60, jid="jid"))
        job = await _template(client)
        first = await run(job.next)
        assert first == pytest.approx(1893456000)
        await run(client.queues["foo"].pop())
        assert await run((await _template(client)).next) == pytest.approx(first + 60)
    await run(job.move("bar"))
    assert (await _template(client)).queue.name == "bar"
    assert await run(job.tag("t1", "t2")) == ["t1", "t2"]
    assert await run(job.untag("t1")) == ["t2"]
    await run(job.cancel())
    assert await run(client.jobs["jid"]) is None
    assert await run(job.next) is None
    with pytest.raises(CoreError):
        await run(job.set_priority(3))
