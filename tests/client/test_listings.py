"""Client reads and bulk actions the dashboard uses: waiting jobs by page, every recurring
template, and whole failure groups retried or cancelled in bounded batches."""

from __future__ import annotations

from typing import Any

import pytest
from freezegun import freeze_time

from qless_py import Client
from qless_py.failures import cancel_group, retry_group
from tests.client.conftest import T0

NOOP = "tests.client.jobs.Noop"


def test_waiting_pages_follow_pop_order(client: Client) -> None:
    queue = client.queues["q"]
    with freeze_time(T0) as frozen:
        for i in range(7):
            queue.put(NOOP, {}, jid=f"j{i}", priority=10 if i == 5 else 0)
            frozen.tick(1)
        queue.put(NOOP, {}, jid="later", delay=60)
    assert queue.jobs.waiting(0, 3) == ["j5", "j0", "j1"]
    assert queue.jobs.waiting(3, 10) == ["j2", "j3", "j4", "j6"]
    assert queue.jobs.waiting(0, 0) == [] and queue.jobs.waiting(20) == []
    with freeze_time(T0):
        assert [job.jid for job in queue.peek(7)] == queue.jobs.waiting(0, 7)
    with pytest.raises(ValueError):
        queue.jobs.waiting(-1)


def test_recurring_templates_of_every_queue(client: Client) -> None:
    with freeze_time(T0):
        client.queues["a"].recur(NOOP, {}, interval=60, jid="ra", offset=30)
        client.queues["b"].recur(NOOP, {"x": 1}, interval=5, jid="rb", offset=30)
        client.queues["c"].put(NOOP, {}, jid="plain")
        found = client.jobs.recurring()
    assert sorted(t.jid for t in found) == ["ra", "rb"]
    assert [t.jid for t in client.jobs.recurring(["b"])] == ["rb"]
    assert client.jobs.recurring(["c"]) == []


def fail_jobs(client: Client, queue: str, jids: list[str], group: str = "g") -> None:
    with freeze_time(T0):
        for jid in jids:
            client.queues[queue].put(NOOP, {"jid": jid}, jid=jid)
            job = client.queues[queue].pop()
            assert job is not None
            job.fail(group, f"boom {jid}")


def test_retry_group_puts_each_job_back_where_it_failed(client: Client) -> None:
    fail_jobs(client, "q1", [f"a{i}" for i in range(7)])
    fail_jobs(client, "q2", ["b0", "b1"])
    fail_jobs(client, "q1", ["other"], group="h")
    result = client.jobs.retry_group("g", batch=3)
    assert (result.done, result.refused) == (9, 0)
    assert client.jobs.failed() == {"h": 1}
    assert sorted(client.queues["q1"].jobs.waiting(0, 20)) == [f"a{i}" for i in range(7)]
    assert sorted(client.queues["q2"].jobs.waiting()) == ["b0", "b1"]
    job = client.jobs["a3"]
    assert job is not None and job.state == "waiting" and job.data == {"jid": "a3"}
    assert client.jobs.retry_group("g").done == 0


def test_a_group_from_one_queue_goes_back_with_unfail(client: Client,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    fail_jobs(client, "q", [f"u{i}" for i in range(5)])
    commands: list[str] = []
    call = client.core.call

    def spy(command: str, *args: Any) -> Any:
        commands.append(command)
        return call(command, *args)

    monkeypatch.setattr(client.core, "call", spy)
    result = client.jobs.retry_group("g", batch=2)
    assert (result.done, result.refused) == (5, 0)
    assert commands.count("unfail") == 3  # 2 + 2 + 1, oldest first
    assert sorted(client.queues["q"].jobs.waiting(0, 10)) == [f"u{i}" for i in range(5)]


def test_cancel_group_skips_jobs_whose_dependents_stay(client: Client) -> None:
    fail_jobs(client, "q", [f"c{i}" for i in range(5)])
    with freeze_time(T0):
        client.queues["q"].put(NOOP, {}, jid="child", depends=["c2"])
    result = cancel_group(client, "g", batch=2)
    assert (result.done, result.refused) == (4, 1)
    assert "child" in result.errors[0] or "c2" in result.errors[0]
    assert client.jobs.failed() == {"g": 1}
    assert client.jobs["c2"] is not None and client.jobs["c0"] is None


def test_group_actions_reject_a_bad_batch(client: Client) -> None:
    for action in (retry_group, cancel_group):
        with pytest.raises(ValueError):
            action(client, "g", 0)
