"""The JSON API: every page's twin, in the shapes ``qless-py ... --json`` prints where both
show the same thing (the command's output is run through the real CLI and compared)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from freezegun import freeze_time

from qless_py import Client
from qless_py.cli import cli
from tests.web.conftest import Web, frozen_at


@pytest.fixture(autouse=True)
def frozen() -> Iterator[None]:
    with frozen_at("2030-01-01 12:00:00"):
        yield


def cli_json(url: str, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["--url", url, *args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def populate(client: Client) -> None:
    queue = client.queues["q"]
    with freeze_time("2030-01-01 11:00:00") as tick:
        for i in range(4):
            queue.put("a.Job", {"i": i}, jid=f"j{i}", tags=["t"], priority=i)
            tick.tick(1)
        for _ in range(2):
            job = queue.pop()
            assert job is not None
            tick.tick(0.25)
            job.fail("g", "boom")
        assert queue.pop() is not None
        job = queue.pop()
        assert job is not None
        job.complete()
        queue.recur("a.Job", {"r": 1}, interval=30, jid="r1", offset=60)
        client.queues["other"].put("a.Job", {}, jid="o1", delay=300)
        client.track("j0")


def jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def test_shapes_match_the_command(client: Client, web: Web, server_url: str) -> None:
    populate(client)
    same = [
        ("/api/failed", ["failed"]),
        ("/api/workers", ["workers"]),
        (f"/api/workers/{client.worker_name}", ["workers", client.worker_name]),
        ("/api/jobs/j0", ["job", "j0"]),
        ("/api/jobs/r1", ["job", "r1"]),
        ("/api/recurring", ["recur", "list"]),
        ("/api/config", ["config", "list"]),
    ]
    for path, args in same:
        assert web.get(path).json() == cli_json(server_url, *args), path
    # Pages that show more than the command keep its keys and add their own.
    queues = web.get("/api/queues").json()
    assert [{k: v for k, v in row.items() if k != "today"} for row in queues] == \
        cli_json(server_url, "queues")
    group = web.get("/api/failed/g").json()
    assert {k: group[k] for k in ("group", "total", "jobs")} == cli_json(server_url, "failed", "g")
    tagged = web.get("/api/tags/t?count=2").json()
    assert {k: tagged[k] for k in ("jobs", "offset", "count", "total")} == \
        cli_json(server_url, "jobs", "--tag", "t", "--count", "2")
    queue = web.get("/api/queues/q?state=depends").json()
    assert queue["today"] == cli_json(server_url, "stats", "q")
    assert queue["week"] == cli_json(server_url, "stats", "q", "--days", "7")
    for state in ("running", "scheduled", "recurring"):
        listing = cli_json(server_url, "jobs", "--queue", "q", "--state", state)
        assert web.get(f"/api/queues/q?state={state}").json()["jobs"] == listing["jobs"]


def test_throttled_jobs_have_a_tab_their_flow_fields_and_a_gauge(
        client: Client, web: Web) -> None:
    client.throttles["api"].maximum = 1
    queue = client.queues["q"]
    queue.put("a.Job", {}, jid="first", throttles=["api"])
    queue.put("a.Job", {}, jid="second", throttles=["api"], key="<b>k</b>", ttl=60)
    assert queue.pop() is not None  # "first" takes the throttle's one lock
    listing = web.get("/api/queues/q?state=throttled").json()
    assert listing["total"] == 1 and [j["jid"] for j in listing["jobs"]] == ["second"]
    page = web.get("/queues/q?state=throttled").text
    assert 'href="/jobs/second"' in page
    job = web.get("/api/jobs/second").json()
    assert job["throttles"] == ["api", "ql:q:q"] and job["key"] == "<b>k</b>"
    assert job["ttl"] == 60
    page = web.get("/jobs/second").text
    assert "ordering key" in page and "&lt;b&gt;k&lt;/b&gt;" in page and "<b>k</b>" not in page
    assert "must start within 60 s" in page
    metrics = web.get("/metrics").text
    assert 'qless_queue_jobs{queue="q",state="throttled"} 1' in metrics


def test_overview_and_queue_values(client: Client, web: Web) -> None:
    populate(client)
    overview = web.get("/api/overview").json()
    assert set(overview) == {"queues", "failed", "workers", "tracked"}
    row = next(r for r in overview["queues"] if r["name"] == "q")
    assert row["today"]["completed"] == 1 and row["today"]["failures"] == 2
    assert row["today"]["wait_p50"] is not None and row["today"]["run_p50"] is not None
    assert overview["failed"] == {"g": 2}
    assert [job["jid"] for job in overview["tracked"]["jobs"]] == ["j0"]
    queue = web.get("/api/queues/q").json()
    assert queue["state"] == "waiting" and queue["total"] == 0 and queue["jobs"] == []
    assert queue["queue"]["name"] == "q" and queue["queue"]["stalled"] == 1  # lock ran out
    assert web.get("/api/queues/q?state=recurring").json()["jobs"][0]["jid"] == "r1"


def test_api_errors_are_json(client: Client, web: Web) -> None:
    for path, status in (("/api/jobs/none", 404), ("/api/queues/none", 404),
                         ("/api/failed/none", 404), ("/api/tags/none", 404),
                         ("/api/workers/none", 404), ("/api/queues/q?count=x", 400),
                         ("/api/queues/q?count=100000", 400)):
        client.queues["q"].put("a.Job", {}, jid="only")
        answer = web.get(path)
        assert answer.status_code == status and list(answer.json()) == ["error"], path
