"""JSON views of jobs and templates (``to_dict``) and cancelling several jobs at once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from freezegun import freeze_time

from qless_py import Client, DependencyError, Job, RecurringJob
from tests.client.conftest import T0

# The keys of the core's job object (protocol 2.10) and recurring object (2.11).
JOB_KEYS = {"jid", "klass", "state", "queue", "worker", "tracked", "priority", "expires",
            "retries", "remaining", "data", "tags", "history", "failure",
            "spawned_from_jid", "dependents", "dependencies"}
RECUR_KEYS = {"jid", "klass", "state", "queue", "priority", "interval", "retries", "count",
              "data", "tags", "backlog"}


def _core(client: Client, command: str, jid: str) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(client(command, jid))
    return reply


def _job(client: Client, jid: str) -> Job:
    found = client.jobs[jid]
    assert isinstance(found, Job)
    return found


def test_job_to_dict_is_the_core_object_with_lists_and_decoded_data(client: Client) -> None:
    with freeze_time(T0):
        queue = client.queues["q"]
        queue.put("app.Job", {"k": [1, 2]}, jid="a", tags=["x", "y"], priority=3, retries=2)
        queue.put("app.Job", {}, jid="b", depends=["a"])
        running = queue.pop()
        assert running is not None and running.jid == "a"
        view = _job(client, "a").to_dict()
        core = _core(client, "get", "a")
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


def test_job_to_dict_failure_and_empty_lists(client: Client) -> None:
    with freeze_time(T0):
        client.queues["q"].put("app.Job", {}, jid="f")
        popped = client.queues["q"].pop()
        assert popped is not None
        popped.fail("grp", "it broke")
    view = _job(client, "f").to_dict()
    assert view["state"] == "failed"
    assert view["failure"] == {"group": "grp", "message": "it broke",
                               "when": _core(client, "get", "f")["failure"]["when"],
                               "worker": "worker"}
    assert view["tags"] == [] and view["dependents"] == [] and view["dependencies"] == []


def test_spawned_job_and_recurring_to_dict(client: Client) -> None:
    with freeze_time(T0):
        client.queues["q"].recur("app.Tick", {"n": 1}, 90.5, jid="tick", tags=["cron"],
                                 retries=1, backlog=3)
        spawned = client.queues["q"].pop()
        assert spawned is not None
    assert spawned.to_dict()["spawned_from_jid"] == "tick"
    template = client.jobs["tick"]
    assert isinstance(template, RecurringJob)
    view = template.to_dict()
    core = _core(client, "recur.get", "tick")
    assert set(view) == RECUR_KEYS
    assert view == dict(core, data={"n": 1})
    assert view["interval"] == 90.5 and view["count"] == 1 and view["tags"] == ["cron"]
    template.untag("cron")
    assert template.to_dict()["tags"] == []


def test_jobs_cancel_cancels_several_at_once(client: Client) -> None:
    queue = client.queues["q"]
    queue.put("app.Job", {}, jid="parent")
    queue.put("app.Job", {}, jid="child", depends=["parent"])
    queue.put("app.Job", {}, jid="alone")
    assert client.jobs.cancel() == []
    with pytest.raises(DependencyError, match="is a dependency of child"):
        client.jobs.cancel("parent", "alone")
    assert [j.jid for j in client.jobs.get("parent", "child", "alone")] == [
        "parent", "child", "alone"]
    assert client.jobs.cancel("parent", "child", "alone") == ["parent", "child", "alone"]
    assert client.jobs.get("parent", "child", "alone") == []
