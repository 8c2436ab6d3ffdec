"""Client reads and bulk actions the dashboard uses: waiting jobs by page, every recurring
template, one failed job or whole failure groups back to work (retried or cancelled in
bounded batches)."""

from __future__ import annotations

from typing import Any

import pytest

from qless_py.failures import NotFailedError, retry_job
from tests.client.conftest import AnyClient, frozen, run

NOOP = "tests.client.jobs.Noop"
pytestmark = pytest.mark.asyncio


async def test_waiting_pages_follow_pop_order(client: AnyClient) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        for i in range(7):
            await run(queue.put(NOOP, {}, jid=f"j{i}", priority=10 if i == 5 else 0))
            clock.tick(1)
        await run(queue.put(NOOP, {}, jid="later", delay=60))
    assert await run(queue.jobs.waiting(0, 3)) == ["j5", "j0", "j1"]
    assert await run(queue.jobs.waiting(3, 10)) == ["j2", "j3", "j4", "j6"]
    assert await run(queue.jobs.waiting(0, 0)) == [] and await run(queue.jobs.waiting(20)) == []
    with frozen():
        peeked = await run(queue.peek(7))
        assert [job.jid for job in peeked] == await run(queue.jobs.waiting(0, 7))
    with pytest.raises(ValueError):
        await run(queue.jobs.waiting(-1))


async def test_recurring_templates_of_every_queue(client: AnyClient) -> None:
    with frozen():
        await run(client.queues["a"].recur(NOOP, {}, interval=60, jid="ra", offset=30))
        await run(client.queues["b"].recur(NOOP, {"x": 1}, interval=5, jid="rb", offset=30))
        await run(client.queues["c"].put(NOOP, {}, jid="plain"))
        found = await run(client.jobs.recurring())
    assert sorted(t.jid for t in found) == ["ra", "rb"]
    assert [t.data for t in found if t.jid == "rb"] == [{"x": 1}]
    assert [t.jid for t in await run(client.jobs.recurring(["b"]))] == ["rb"]
    assert await run(client.jobs.recurring(["c"])) == []
    assert await run(client.jobs.recurring([])) == []


async def fail_jobs(client: AnyClient, queue: str, jids: list[str], group: str = "g") -> None:
    with frozen():
        for jid in jids:
            await run(client.queues[queue].put(NOOP, {"jid": jid}, jid=jid))
            job = await run(client.queues[queue].pop())
            assert job is not None
            await run(job.fail(group, f"boom {jid}"))


async def test_retry_job_puts_a_failed_job_back_and_refuses_others(client: AnyClient) -> None:
    await fail_jobs(client, "q", ["f"])
    with frozen():
        await run(client.queues["q"].put(NOOP, {}, jid="w"))
    waiting = await run(client.jobs["w"])
    with pytest.raises(NotFailedError, match="not failed"):
        await run(retry_job(waiting))
    await run(retry_job(await run(client.jobs["f"])))
    job = await run(client.jobs["f"])
    assert job.state == "waiting" and job.queue_name == "q"
    assert await run(client.jobs.failed()) == {}


async def test_retry_group_puts_each_job_back_where_it_failed(client: AnyClient) -> None:
    await fail_jobs(client, "q1", [f"a{i}" for i in range(7)])
    await fail_jobs(client, "q2", ["b0", "b1"])
    await fail_jobs(client, "q1", ["other"], group="h")
    result = await run(client.jobs.retry_group("g", batch=3))
    assert (result.done, result.refused) == (9, 0)
    assert await run(client.jobs.failed()) == {"h": 1}
    assert sorted(await run(client.queues["q1"].jobs.waiting(0, 20))) == [
        f"a{i}" for i in range(7)]
    assert sorted(await run(client.queues["q2"].jobs.waiting())) == ["b0", "b1"]
    job = await run(client.jobs["a3"])
    assert job is not None and job.state == "waiting" and job.data == {"jid": "a3"}
    assert (await run(client.jobs.retry_group("g"))).done == 0


async def test_a_group_from_one_queue_goes_back_with_unfail(
        client: AnyClient, monkeypatch: pytest.MonkeyPatch) -> None:
    await fail_jobs(client, "q", [f"u{i}" for i in range(5)])
    commands: list[str] = []
    call = client.core.call

    def spy(command: str, *args: Any) -> Any:
        commands.append(command)
        return call(command, *args)

    monkeypatch.setattr(client.core, "call", spy)
    result = await run(client.jobs.retry_group("g", batch=2))
    assert (result.done, result.refused) == (5, 0)
    assert commands.count("unfail") == 3  # 2 + 2 + 1, oldest first
    assert sorted(await run(client.queues["q"].jobs.waiting(0, 10))) == [
        f"u{i}" for i in range(5)]


async def test_cancel_group_skips_jobs_whose_dependents_stay(client: AnyClient) -> None:
    await fail_jobs(client, "q", [f"c{i}" for i in range(5)])
    with frozen():
        await run(client.queues["q"].put(NOOP, {}, jid="child", depends=["c2"]))
    result = await run(client.jobs.cancel_group("g", batch=2))
    assert (result.done, result.refused) == (4, 1)
    assert "child" in result.errors[0] or "c2" in result.errors[0]
    assert await run(client.jobs.failed()) == {"g": 1}
    assert await run(client.jobs["c2"]) is not None and await run(client.jobs["c0"]) is None


async def test_group_actions_reject_a_bad_batch(client: AnyClient) -> None:
    await fail_jobs(client, "q", ["x"])
    for action in (client.jobs.retry_group, client.jobs.cancel_group):
        for batch in (0, -1, True, 1.5):
            with pytest.raises(ValueError):
                await run(action("g", batch))
    assert await run(client.jobs.failed()) == {"g": 1}
