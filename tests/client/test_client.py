"""Client-level collections: jobs, queues, workers, tags, tracking, failures, config."""

from __future__ import annotations

import pytest
import redis
from freezegun import freeze_time

from qless_py import Client, Job, RecurringJob
from tests.client.conftest import T0

NOOP = "tests.client.jobs.Noop"


def test_jobs_getitem_returns_job_template_or_none(client: Client) -> None:
    assert client.jobs["jid"] is None
    client.queues["q"].put(NOOP, {}, jid="jid")
    client.queues["q"].recur(NOOP, {}, 60, jid="rec")
    assert isinstance(client.jobs["jid"], Job)
    assert isinstance(client.jobs["rec"], RecurringJob)


def test_jobs_get_many_skips_unknown(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    client.queues["q"].put(NOOP, {}, jid="b")
    assert [j.jid for j in client.jobs.get("b", "nope", "a")] == ["b", "a"]
    assert client.jobs.get() == [] and client.jobs.get("nope") == []


def test_jobs_complete(client: Client) -> None:
    assert client.jobs.complete() == []
    with freeze_time(T0) as frozen:
        for jid in ("a", "b"):
            client.queues["q"].put(NOOP, {}, jid=jid)
            client.queues["q"].pop().complete()  # type: ignore[union-attr]
            frozen.tick(1)
    assert client.jobs.complete() == ["b", "a"]
    assert client.jobs.complete(offset=1, count=1) == ["a"]


def test_tracking(client: Client) -> None:
    assert client.jobs.tracked() == {"jobs": [], "expired": []}
    client.queues["q"].put(NOOP, {}, jid="a")
    client.queues["q"].put(NOOP, {}, jid="b")
    assert client.track("a") is True and client.track("a") is False
    client.track("b")
    tracked = client.jobs.tracked()
    assert [j.jid for j in tracked["jobs"]] == ["a", "b"] and tracked["expired"] == []
    client.jobs["b"].cancel()  # type: ignore[union-attr]
    assert client.jobs.tracked()["expired"] == ["b"]
    assert client.untrack("a") is True
    assert [j.jid for j in client.jobs.tracked()["jobs"]] == []


def test_tags_and_tagged(client: Client) -> None:
    assert client.tags() == []
    assert client.jobs.tagged("foo") == {"total": 0, "jobs": []}
    for i in range(3):
        client.queues["q"].put(NOOP, {}, jid=f"j{i}", tags=["foo"])
    client.queues["q"].put(NOOP, {}, jid="solo", tags=["bar"])
    assert client.tags() == ["foo"]  # tags used at least twice
    assert client.jobs.tagged("foo") == {"total": 3, "jobs": ["j0", "j1", "j2"]}
    assert client.jobs.tagged("foo", offset=1, count=1)["jobs"] == ["j1"]


def test_failed_and_unfail(client: Client) -> None:
    assert client.jobs.failed() == {}
    assert client.jobs.failed("foo") == {"total": 0, "jobs": []}
    jids = [str(i) for i in range(10)]
    for jid in jids:
        client.queues["foo"].put(NOOP, {}, jid=jid)
        client.queues["foo"].pop().fail("foo", "bar")  # type: ignore[union-attr]
    assert client.jobs.failed() == {"foo": 10}
    page = client.jobs.failed("foo", 0, 3)
    assert page["total"] == 10 and [j.jid for j in page["jobs"]] == ["9", "8", "7"]
    assert all(client.jobs[jid].state == "failed" for jid in jids)  # type: ignore[union-attr]
    assert client.unfail("foo", "foo", count=4) == 4
    assert {j.jid for j in client.queues["foo"].peek(10)} == {"0", "1", "2", "3"}
    assert client.unfail("foo", "foo") == 6
    assert all(client.jobs[jid].state == "waiting" for jid in jids)  # type: ignore[union-attr]
    assert client.jobs.failed() == {}
    with pytest.raises(ValueError):
        client.unfail("foo", "foo", count=0)


def test_workers(client: Client, other: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="jid")
    assert client.workers.counts == []
    assert client.workers["other"] == {"jobs": [], "stalled": []}
    other.queues["q"].pop()
    assert client.workers["other"] == {"jobs": ["jid"], "stalled": []}
    assert client.workers.counts == [{"name": "other", "jobs": 1, "stalled": 0}]
    client.workers.deregister("other")
    assert client.workers.counts == []


def test_raw_call_returns_text(client: Client) -> None:
    assert client("failed") == "{}"
    client.queues["q"].put(NOOP, {}, jid="a")
    assert client("jobs", "complete") == []
    assert client("length", "q") == 1
    assert client("get", "nope") is None


def test_attribute_errors(client: Client) -> None:
    with pytest.raises(AttributeError):
        client.foo  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError):
        client.queues.foo  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError):
        client.workers.foo  # type: ignore[attr-defined]  # noqa: B018


DEFAULTS = {"application": "qless", "grace-period": 10, "heartbeat": 60,
            "histogram-history": 7, "jobs-history": 604800, "jobs-history-count": 50000,
            "stats-history": 30}


def test_config_defaults_and_overview(client: Client) -> None:
    assert client.config.all == DEFAULTS
    assert len(client.config) == 7
    assert client.config["heartbeat"] == 60 and client.config["application"] == "qless"
    assert set(client.config) == set(DEFAULTS)


def test_config_set_get_unset(client: Client) -> None:
    config = client.config
    assert config["foo"] is None and "foo" not in config
    assert config.get("foo", 5) == 5
    config["foo"] = 5
    assert config["foo"] == 5 and "foo" in config
    config["name"] = "text"
    assert config["name"] == "text"
    del config["foo"]
    assert config["foo"] is None
    config["foo"] = 1.5
    assert config.pop("foo") == 1.5 and "foo" not in config


def test_config_update_and_clear(client: Client) -> None:
    original = dict(client.config.items())
    client.config.update({key: "1" for key in client.config})
    assert client.config.all == {key: "1" for key in DEFAULTS}
    assert all(value == "1" for value in client.config.values())
    client.config.clear()
    assert client.config.all == original


def test_config_rejects_bad_values(client: Client, redis_conn: redis.Redis) -> None:
    with pytest.raises(ValueError):
        client.config["heartbeat"] = "soon"
    with pytest.raises(ValueError):
        client.config["q-max-concurrency"] = "lots"
    with pytest.raises(TypeError):
        client.config["foo"] = None
    with pytest.raises(ValueError):
        client.config.update({"ok": 1, "heartbeat": "x"})
    assert redis_conn.hgetall("ql:config") == {}
