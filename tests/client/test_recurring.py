"""RecurringJob: attributes, write-through setters, move, cancel, tags."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from qless_py import Client, CoreError, RecurringJob
from tests.client import jobs as job_classes
from tests.client.conftest import T0


def _template(client: Client, jid: str = "jid") -> RecurringJob:
    job = client.jobs[jid]
    assert isinstance(job, RecurringJob)
    return job


def test_attributes(client: Client) -> None:
    client.queues["foo"].recur("Foo", {"whiz": "bang"}, 60, jid="jid", tags=["foo"], retries=3)
    job = _template(client)
    assert (job.jid, job.klass_name, job.queue_name, job.state) == ("jid", "Foo", "foo", "recur")
    assert job.data == {"whiz": "bang"} and job.tags == ["foo"]
    assert (job.priority, job.retries, job.interval, job.count, job.backlog) == (0, 3, 60, 0, 0)


def test_setters_write_through(client: Client) -> None:
    client.queues["foo"].recur("Foo", {}, 60, jid="jid")
    job = _template(client)
    job.priority = 10
    job.retries = 2
    job.interval = 10
    job.backlog = 4
    job.data = {"foo": "bar"}
    job.klass = job_classes.Noop  # type: ignore[misc]
    fresh = _template(client)
    assert (fresh.priority, fresh.retries, fresh.interval, fresh.backlog) == (10, 2, 10, 4)
    assert fresh.data == {"foo": "bar"} and fresh.klass is job_classes.Noop
    with pytest.raises(ValueError):
        fresh.interval = 0


def test_next_move_cancel_tags(client: Client) -> None:
    with freeze_time(T0):
        client.queues["foo"].recur("Foo", {}, 60, jid="jid")
        job = _template(client)
        first = job.next
        assert first == pytest.approx(1893456000)
        client.queues["foo"].pop()
        assert _template(client).next == pytest.approx(first + 60)  # type: ignore[operator]
    job.move("bar")
    assert _template(client).queue.name == "bar"
    assert job.tag("t1", "t2") == ["t1", "t2"]
    assert job.untag("t1") == ["t2"]
    job.cancel()
    assert client.jobs["jid"] is None
    with pytest.raises(CoreError):
        job.priority = 3
