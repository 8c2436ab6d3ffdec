"""JSON views of jobs and templates (``to_dict``) and cancelling several jobs at once
(each test runs with the sync and the async client)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qless_py import DependencyError
from tests.client.conftest import AnyClient, frozen, run

pytestmark = pytest.mark.asyncio

# The keys of the core's job object (protocol 2.10) and recurring object (2.11).
JOB_KEYS = {"jid", "klass", "state", "queue", "worker", "tracked", "priority", "expires",
            "retries", "remaining", "data", "tags", "history", "failure",
            "spawned_from_jid", "dependents", "dependencies"}
RECUR_KEYS = {"jid", "klass", "state", "queue", "priority", "interval", "retries", "count",
              "data", "tags", "backlog"}


async def _core(client: AnyClient, command: str, jid: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(await run(client(command, jid)))
    return reply


async def _job(client: AnyClient, jid: str) -> Any:
    found = await run(client.jobs[jid])
    assert type(found).__name__ == "Job"
    return found


async def test_job_to_dict_is_the_core_object_with_lists_and_decoded_data(
        client: AnyClient) -> None:
    with frozen():
        queue = client.queues["q"]
        await run(queue.put("app.Job", {"k": [1, 2]}, jid="a", tags=["x", "y"], priority=3,
                            retries=2))
        await run(queue.put("app.Job", {}, jid="b", depends=["a"]))
        running = await run(queue.pop())
        assert running is not None and running.jid == "a"
        view = (await _job(client, "a")).to_dict()
        core = await _core(client, "get", "a")
    assert set(view) == JOB_KEYS
    assert view["data"] == {"k": [1, 2]} and json.loads(core["data"]) == {"k": [1, 2]}
    for key in ("jid", "klass", "state", "queue", "worker", "tracked", "priority",
                "expires", "retries", "remaining", "tags", "history", "dependents"):
        assert view[key] == core[key], key
    # Integral numbers stay integers, as the core prints them.
    assert isinstance(view["expires"], int) and isinstance(view["priority"], int)
    # The core's ``{}`` (empty list / no failure) and ``false`` become [] and None.
    assert core["dependencies"] == {} and view["dependencies"] == []
    assert core["failure"] == {} and view["failure"] is None
    assert core["spawned_from_jid"] is False and view["spawned_from_jid"] is None
    assert json.loads(json.dumps(view)) == view


async def test_job_to_dict_failure_and_empty_lists(client: AnyClient) -> None:
    with frozen():
        await run(client.queues["q"].put("app.Job", {}, jid="f"))
        popped = await run(client.queues["q"].pop())
        assert popped is not None
        await run(popped.fail("grp", "it broke"))
    view = (await _job(client, "f")).to_dict()
    assert view["state"] == "failed"
    assert view["failure"] == {"group": "grp", "message": "it broke",
                               "when": (await _core(client, "get", "f"))["failure"]["when"],
                               "worker": "worker"}
    assert view["tags"] == [] and view["dependents"] == [] and view["dependencies"] == []


async def test_spawned_job_and_recurring_to_dict(client: AnyClient) -> None:
    with frozen():
        await run(client.queues["q"].recur("app.Tick", {"n": 1}, 90.5, jid="tick",
                                           tags=["cron"], retries=1, backlog=3))
        spawned = await run(client.queues["q"].pop())
        assert spawned is not None
    assert spawned.to_dict()["spawned_from_jid"] == "tick"
    template = await run(client.jobs["tick"])
    assert type(template).__name__ == "RecurringJob"
    view = template.to_dict()
    core = await _core(client, "recur.get", "tick")
    assert set(view) == RECUR_KEYS
    assert view == dict(core, data={"n": 1})
    assert view["interval"] == 90.5 and view["count"] == 1 and view["tags"] == ["cron"]
    await run(template.untag("cron"))
    assert template.to_dict()["tags"] == []


async def test_jobs_cancel_cancels_several_at_once(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put("app.Job", {}, jid="parent"))
    await run(queue.put("app.Job", {}, jid="child", depends=["parent"]))
    await run(queue.put("app.Job", {}, jid="alone"))
    assert await run(client.jobs.cancel()) == []
    with pytest.raises(DependencyError, match="is a dependency of child"):
        await run(client.jobs.cancel("parent", "alone"))
    assert [j.jid for j in await run(client.jobs.get("parent", "child", "alone"))] == [
        "parent", "child", "alone"]
    assert await run(client.jobs.cancel("parent", "child", "alone")) == [
        "parent", "child", "alone"]
    assert await run(client.jobs.get("parent", "child", "alone")) == []
