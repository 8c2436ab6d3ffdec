"""The dashboard and /metrics of a sharded namespace: every page shows the namespace as one,
merged over its shards, and actions reach the shard that holds their subject."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from qless_py import ShardedClient
from qless_py.shards import jid_on
from qless_py.web import create_app
from tests.web.conftest import Web


@pytest.fixture
def sharded(server_url: str) -> Iterator[ShardedClient]:
    client = ShardedClient(server_url, namespace="billing", shards=4, worker_name="web-test")
    yield client
    client.close()


@pytest.fixture
def sharded_web(sharded: ShardedClient) -> Iterator[Web]:
    dashboard = create_app(sharded)  # type: ignore[arg-type]
    web = Web(dashboard)
    yield web
    web.close()
    dashboard.close()


def _fill(sharded: ShardedClient) -> list[str]:
    """One job per shard, tagged; the first two failed, the third running, the last
    waiting; a recurring job."""
    queue = sharded.queues["q"]
    jids = [queue.put("app.Job", {"n": n}, jid=jid_on(n, 4), tags=["blue"]) for n in range(4)]
    for jid in jids[:3]:
        job = sharded.client_of(jid).queues["q"].pop()
        assert job is not None and job.jid == jid
        if jid != jids[2]:
            job.fail("boom", "it broke")
    queue.recur("app.Tick", {}, interval=60)
    return jids


def test_every_page_shows_the_namespace_merged(sharded: ShardedClient,
                                               sharded_web: Web) -> None:
    jids = _fill(sharded)
    overview = sharded_web.get("/api/overview").json()
    [row] = overview["queues"]
    assert (row["waiting"], row["running"], row["recurring"]) == (1, 1, 1)
    assert overview["failed"] == {"boom": 2}
    assert overview["workers"] == [{"name": "web-test", "jobs": 1, "stalled": 0}]
    group = sharded_web.get("/api/failed/boom").json()
    assert group["total"] == 2 and {job["jid"] for job in group["jobs"]} == set(jids[:2])
    assert sharded_web.get("/api/jobs/" + jids[3]).json()["state"] == "waiting"
    tagged = sharded_web.get("/api/tags/blue").json()
    assert tagged["total"] == 4
    assert sharded_web.get("/api/workers/web-test").json()["jobs"] == [jids[2]]
    assert len(sharded_web.get("/api/recurring").json()) == 1
    for page in ("/", "/queues", "/queues/q", f"/jobs/{jids[0]}", "/failed", "/failed/boom",
                 "/workers", "/workers/web-test", "/tags/blue", "/recurring", "/config"):
        sharded_web.html(page)
    metrics = sharded_web.get("/metrics").text
    assert 'qless_queue_jobs{namespace="billing",queue="q",state="waiting"} 1' in metrics
    assert 'qless_queue_jobs{namespace="billing",queue="q",state="running"} 1' in metrics
    assert 'qless_failed_jobs{namespace="billing",group="boom"} 2' in metrics
    assert 'qless_job_wait_seconds_count{namespace="billing",queue="q"} 3' in metrics


def test_actions_reach_the_shard_of_their_subject(sharded: ShardedClient,
                                                  sharded_web: Web) -> None:
    jids = _fill(sharded)
    assert sharded_web.act(f"/api/jobs/{jids[0]}/retry").status_code == 200
    assert sharded.jobs[jids[0]].state == "waiting"  # type: ignore[union-attr]
    answer = sharded_web.act("/api/failed/boom/retry", {"confirm": "yes"})
    assert answer.status_code == 200, answer.text
    assert sharded.jobs.failed() == {}
    assert sharded_web.act("/api/queues/q/pause").status_code == 200
    assert sharded.queues["q"].paused


def test_a_job_page_names_the_namespace_of_a_remote_dependency(sharded: ShardedClient,
                                                               sharded_web: Web) -> None:
    first = sharded.queues["q"].put("app.Job", {}, jid=jid_on(0, 4))
    second = sharded.queues["q"].put("app.Job", {}, jid=jid_on(1, 4), depends=[first])
    page = sharded_web.html(f"/jobs/{second}")
    assert f"{first} in namespace {sharded.shards.names[0]}" in page
    assert f"Stop depending on {first} in namespace {sharded.shards.names[0]}" in page
