"""Job: attributes and every command a job object sends (each test runs with the sync and
the async client)."""

from __future__ import annotations

from typing import Any

import pytest

from qless_py import (
    Client,
    CoreError,
    DependencyError,
    Failure,
    Job,
    JobNotFoundError,
    LockLostError,
)
from tests.client import jobs as job_classes
from tests.client.conftest import AnyClient, frozen, run
from tests.lookups import get_job, pop_job

pytestmark = pytest.mark.asyncio

NOOP = "tests.client.jobs.Noop"


async def _pop(client: AnyClient, queue: str = "q") -> Any:
    job = await run(client.queues[queue].pop())
    assert job is not None
    return job


async def _job(client: AnyClient, jid: str) -> Any:
    job = await run(client.jobs[jid])
    assert job is not None and hasattr(job, "retries_left")  # a Job, not a template
    return job


async def test_attributes(client: AnyClient) -> None:
    await run(client.queues["q"].put("Foo", {"whiz": "bang"}, jid="jid", tags=["foo"],
                                     retries=3))
    job = await _job(client, "jid")
    assert job.data == {"whiz": "bang"} and job["whiz"] == "bang"
    assert (job.jid, job.klass_name, job.queue_name, job.state) == ("jid", "Foo", "q", "waiting")
    assert job.priority == 0 and job.tags == ["foo"]
    assert job.expires_at == 0.0 and isinstance(job.expires_at, float)
    assert (job.original_retries, job.retries_left) == (3, 3)
    assert job.worker_name == "" and job.tracked is False
    assert job.dependents == [] and job.dependencies == []
    assert job.failure is None and job.spawned_from_jid is None
    assert [h["what"] for h in job.history] == ["put"] and job.history[0]["q"] == "q"
    assert job.finished is False and job.stopping is False and job.workdir is None
    assert repr(job) == "<Foo jid>"
    assert job.queue.name == "q" and type(job.queue) is type(client.queues["q"])


async def test_item_access_and_complete_writes_data_back(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    job = await _pop(client)
    job["k"] = [1, 2]
    assert await run(job.complete()) == "complete"
    assert job.finished and job.state == "complete"
    done = await _job(client, "a")
    assert done.data == {"k": [1, 2]} and done.state == "complete"
    assert await run(client.jobs.complete()) == ["a"]


async def test_complete_into_next_queue(client: AnyClient) -> None:
    await run(client.queues["one"].put(NOOP, {}, jid="a"))
    assert await run((await _pop(client, "one")).complete(next="two")) == "waiting"
    job = await _job(client, "a")
    assert job.queue_name == "two" and job.state == "waiting"
    assert await run((await _pop(client, "two")).complete(next="three", delay=10)) == \
        "scheduled"
    with pytest.raises(ValueError):
        await run(job.complete(delay=5))


async def test_complete_by_someone_else_raises_lock_lost(client: AnyClient,
                                                         other: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    await _pop(client)
    stolen = await _job(other, "a")
    with pytest.raises(LockLostError, match="another worker"):
        await run(stolen.complete())
    assert stolen.finished is False and stolen.settling is None
    assert stolen.lease_gone is not None and not stolen.lease_open


async def test_fail_records_a_failure(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    with frozen():
        assert await run((await _pop(client)).fail("broken", "it broke")) == "a"
    job = await _job(client, "a")
    assert job.state == "failed" and job.failure is not None
    assert job.failure == Failure("broken", "it broke", job.failure.when, "worker")
    assert job.failure.when == pytest.approx(1893456000.0)
    assert job.failure["group"] == "broken"
    with pytest.raises(ValueError):
        await run(job.fail("", "x"))


async def test_retry_uses_up_retries_then_fails(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a", retries=1))
    assert await run((await _pop(client)).retry()) == 0
    assert (await _job(client, "a")).state == "waiting"
    job = await _pop(client)
    assert await run(job.retry(group="grp", message="gave up")) == -1
    failed = await _job(client, "a")
    assert failed.state == "failed"
    assert failed.failure is not None and failed.failure.group == "grp"
    assert failed.failure.message == "gave up"


async def test_retry_with_delay_schedules(client: AnyClient) -> None:
    with frozen() as clock:
        await run(client.queues["q"].put(NOOP, {}, jid="a"))
        await run((await _pop(client)).retry(delay=30))
        assert await run(client.queues["q"].pop()) is None
        clock.tick(31)
        assert (await _pop(client)).jid == "a"


async def test_retry_of_a_job_not_running_raises(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    job = await _job(client, "a")
    with pytest.raises(CoreError, match="not currently running"):
        await run(job.retry())


async def test_heartbeat_extends_the_lock(client: AnyClient) -> None:
    await run(client.config.set("heartbeat", 10))
    with frozen() as clock:
        await run(client.queues["q"].put(NOOP, {}, jid="a"))
        job = await _pop(client)
        assert job.ttl == pytest.approx(10, abs=0.01)
        clock.tick(5)
        assert job.ttl == pytest.approx(5, abs=0.01)
        await run(client.config.set("heartbeat", 20))
        expiry = await run(job.heartbeat())
        assert expiry == pytest.approx(1893456000 + 25, abs=1)
        assert job.ttl == pytest.approx(20, abs=1)


async def test_heartbeat_after_the_lock_moved_raises_lock_lost(client: AnyClient,
                                                               other: AnyClient) -> None:
    await run(client.config.set("grace-period", 0))
    with frozen() as clock:
        await run(client.queues["q"].put(NOOP, {}, jid="a"))
        job = await _pop(client)
        clock.tick(61)
        taken = await run(other.queues["q"].pop())
        assert taken is not None and taken.jid == "a" and taken.worker_name == "other"
        with pytest.raises(LockLostError):
            await run(job.heartbeat())
        with pytest.raises(LockLostError):
            await run(job.complete())


async def test_heartbeat_of_a_waiting_job_raises(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    job = await _job(client, "a")
    with pytest.raises(LockLostError):
        await run(job.heartbeat())


async def test_cancel_move_timeout(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a"))
    await run(queue.put(NOOP, {}, jid="b"))
    job = await _job(client, "a")
    await run(job.cancel())
    assert job.finished and await run(client.jobs["a"]) is None
    b = await _job(client, "b")
    assert await run(b.move("elsewhere")) == "b"
    assert (await _job(client, "b")).queue.name == "elsewhere"
    running = await _pop(client, "elsewhere")
    await run(running.timeout())
    assert (await _job(client, "b")).state == "stalled"
    assert running.finished


async def test_priority_writes_through(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a", priority=0))
    await run(client.queues["q"].put(NOOP, {}, jid="b", priority=0))
    job = await _job(client, "b")
    await run(job.set_priority(10))
    assert job.priority == 10 and (await _job(client, "b")).priority == 10
    assert (await _pop(client)).jid == "b"
    ghost = type(job)(client, {"jid": "ghost", "klass": "x.Y", "data": "{}"})
    with pytest.raises(JobNotFoundError):
        await run(ghost.set_priority(3))


async def test_the_sync_priority_setter_writes_through(sync_client: Client) -> None:
    sync_client.queues["q"].put(NOOP, {}, jid="a")
    job = sync_client.jobs["a"]
    assert job is not None
    job.priority = 7
    assert get_job(sync_client, "a").priority == 7


async def test_the_async_priority_is_read_only(server_url: str) -> None:
    from qless_py.aio import AsyncClient

    async with AsyncClient(server_url) as client:
        await client.queues["q"].put(NOOP, {}, jid="a")
        job = await client.jobs["a"]
        assert job is not None
        with pytest.raises(AttributeError):
            job.priority = 7  # type: ignore[misc]  # read-only: what this test checks


async def test_tag_untag_track_untrack(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    job = await _job(client, "a")
    assert await run(job.tag("x", "y")) == ["x", "y"]
    assert (await _job(client, "a")).tags == ["x", "y"]
    assert await run(job.untag("x", "y")) == []
    assert (await _job(client, "a")).tags == []
    assert await run(job.track()) is True and (await _job(client, "a")).tracked
    assert await run(job.untrack()) is True and not (await _job(client, "a")).tracked


async def test_depend_and_undepend(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a"))
    await run(queue.put(NOOP, {}, jid="b"))
    await run(queue.put(NOOP, {}, jid="c", depends=["a"]))
    c = await _job(client, "c")
    assert c.dependencies == ["a"] and c.state == "depends"
    assert (await _job(client, "a")).dependents == ["c"]
    await run(c.depend("b"))
    assert sorted((await _job(client, "c")).dependencies) == ["a", "b"]
    await run(c.undepend("a"))
    assert (await _job(client, "c")).dependencies == ["b"]
    await run(c.undepend(all=True))
    after = await _job(client, "c")
    assert after.dependencies == [] and after.state == "waiting"


async def test_log_appends_history(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    job = await _job(client, "a")
    await run(job.log("checkpoint", {"step": 3}))
    await run(job.log("plain"))
    history = (await _job(client, "a")).history
    assert history[-2]["what"] == "checkpoint" and history[-2]["step"] == 3
    assert history[-1]["what"] == "plain"


async def test_klass_imports_the_class(client: AnyClient) -> None:
    await run(client.queues["q"].put(job_classes.Noop, {}, jid="a"))
    await run(client.queues["q"].put("tests.client.jobs.Missing", {}, jid="b"))
    await run(client.queues["q"].put("no_such_module_xyz.Job", {}, jid="c"))
    assert (await _job(client, "a")).klass is job_classes.Noop
    b, c = await _job(client, "b"), await _job(client, "c")
    with pytest.raises(AttributeError):
        b.klass  # noqa: B018
    with pytest.raises(ImportError):
        c.klass  # noqa: B018


async def test_stop_event(client: AnyClient) -> None:
    await run(client.queues["q"].put(NOOP, {}, jid="a"))
    job = await _pop(client)
    assert not job.stopping
    job.stop_event.set()
    assert job.stopping


async def test_complete_into_next_queue_with_dependencies(client: AnyClient) -> None:
    await run(client.queues["one"].put(NOOP, {}, jid="a"))
    await run(client.queues["one"].put(NOOP, {}, jid="gate"))
    job = await _pop(client, "one")
    assert job.jid == "a"
    assert await run(job.complete(next="two", depends=["gate"])) == "depends"
    assert await run(client.queues["two"].jobs.depends()) == ["a"]
    gate = await _pop(client, "one")
    assert await run(gate.complete()) == "complete"
    assert (await _job(client, "a")).state == "waiting"


async def test_dependency_errors_are_typed(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put(NOOP, {}, jid="a"))
    await run(queue.put(NOOP, {}, jid="b", depends=["a"]))
    a = await _job(client, "a")
    with pytest.raises(DependencyError, match="not in the depends state"):
        await run(a.depend("b"))
    with pytest.raises(DependencyError, match="is a dependency of b"):
        await run(a.cancel())
    assert a.finished is False and a.settling is None
    assert await run(client.jobs["a"]) is not None
    await run(client("cancel", "a", "b"))
    assert await run(client.jobs["a"]) is None and await run(client.jobs["b"]) is None


# -- job.process() runs a handler in this process: the sync client's --------------------
async def test_process_runs_the_handler_or_fails_the_job(sync_client: Client) -> None:
    client = sync_client
    queue = client.queues["q"]
    queue.put(job_classes.Mark, {}, jid="ok")
    queue.put(job_classes.Boom, {}, jid="boom")
    queue.put(job_classes.NoMethod, {}, jid="nomethod")
    queue.put("no_such_module_xyz.Job", {}, jid="noimport")
    for _ in range(4):
        popped = queue.pop()
        assert popped is not None
        popped.process()
    assert get_job(client, "ok").data == {"seen": True}
    failures = {jid: failure.group for jid in ("boom", "nomethod", "noimport")
                if (failure := get_job(client, jid).failure) is not None}
    assert failures == {"boom": "q-RuntimeError", "nomethod": "q-method-missing",
                        "noimport": "q-ImportError"}
    client.queues["stage1"].put(job_classes.Mark, {}, jid="adv")
    pop_job(client.queues["stage1"]).process()
    assert get_job(client, "adv").queue_name == "stage2"


async def test_retry_decorator(sync_client: Client) -> None:
    client = sync_client
    queue = client.queues["q"]
    queue.put(job_classes.Flaky, {}, jid="a", tags=["transient"])
    pop_job(queue).process()
    job = client.jobs["a"]
    assert isinstance(job, Job) and job.state == "waiting" and job.retries_left == 4
    job.untag("transient")
    pop_job(queue).process()
    assert get_job(client, "a").state == "failed"
