"""queues, workers, failed, unfail, pause/unpause, stats, config and recur."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from freezegun import freeze_time

from qless_py import Client
from tests.cli.conftest import Run


def test_queues_counts_table_and_json(run: Run, client: Client) -> None:
    client.queues["a"].put("app.Job", {})
    client.queues["a"].put("app.Job", {}, delay=50)
    client.queues["b"].put("app.Job", {})
    assert client.queues["b"].pop() is not None
    rows = {q["name"]: q for q in run.json("queues")}
    assert (rows["a"]["waiting"], rows["a"]["scheduled"], rows["a"]["running"]) == (1, 1, 0)
    assert (rows["b"]["waiting"], rows["b"]["running"]) == (0, 1)
    table = run("queues").stdout
    assert "waiting" in table and "scheduled" in table and "b" in table


def test_workers_summary_and_detail(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="j1")
    assert client.queues["q"].pop() is not None
    summary = run.json("workers")
    assert summary == [{"name": "w1", "jobs": 1, "stalled": 0}]
    assert run.json("workers", "w1") == {"name": "w1", "jobs": ["j1"], "stalled": []}
    assert "w1" in run("workers").stdout
    assert "j1" in run("workers", "w1").stdout


def _fail(client: Client, queue: str, jid: str, group: str) -> None:
    client.queues[queue].put("app.Job", {}, jid=jid)
    job = client.queues[queue].pop()
    assert job is not None and job.jid == jid
    job.fail(group, f"{jid} broke")


def test_failed_groups_and_one_group(run: Run, client: Client) -> None:
    _fail(client, "q", "f1", "grp")
    _fail(client, "q", "f2", "grp")
    _fail(client, "q", "f3", "other")
    assert run.json("failed") == {"grp": 2, "other": 1}
    page = run.json("failed", "grp", "--count", "1")
    assert page["total"] == 2
    assert [j["jid"] for j in page["jobs"]] == ["f2"]
    text = run("failed", "grp").stdout
    assert "f1 broke" in text and "f2" in text
    assert "grp" in run("failed").stdout


def test_unfail_moves_the_oldest_back_to_their_queue(run: Run, client: Client) -> None:
    _fail(client, "q", "u1", "grp")
    _fail(client, "q", "u2", "grp")
    assert run("unfail", "grp", "--count", "1").stdout.strip() == "moved 1 job from grp to q"
    assert run.json("job", "u1")["state"] == "waiting"
    assert run.json("job", "u2")["state"] == "failed"
    assert "no such queue: 'elsewhere'" in run.error("unfail", "grp", "--queue", "elsewhere")
    client.queues["elsewhere"].put("app.Job", {})
    assert run("unfail", "grp", "--queue", "elsewhere").stdout.strip() == (
        "moved 1 job from grp to elsewhere")
    assert run.json("job", "u2")["queue"] == "elsewhere"
    assert run.error("unfail", "grp") == "Error: no failed jobs in group 'grp'"
    assert run.error("unfail", "grp", "--count", "0", code=2)


def test_unfail_asks_for_a_queue_when_jobs_come_from_several(
        run: Run, client: Client, snapshot: Callable[[], Any]) -> None:
    _fail(client, "a", "x1", "grp")
    _fail(client, "b", "x2", "grp")
    before = snapshot()
    assert "choose one with --queue" in run.error("unfail", "grp")
    assert snapshot() == before


def test_pause_and_unpause(run: Run, client: Client, snapshot: Callable[[], Any]) -> None:
    client.queues["q"].put("app.Job", {})
    before = snapshot()
    assert "no such queue: 'nope'" in run.error("pause", "q", "nope")
    assert snapshot() == before
    run("pause", "q")
    assert run.json("queues")[0]["paused"] is True
    assert client.queues["q"].pop() is None
    run("unpause", "q")
    assert run.json("queues")[0]["paused"] is False
    assert client.queues["q"].pop() is not None


def test_stats_counts_mean_std_and_histograms(run: Run, client: Client) -> None:
    queue = client.queues["q"]
    day = dt.datetime(2030, 1, 2, tzinfo=dt.UTC)
    with freeze_time(day + dt.timedelta(hours=1)) as frozen:
        queue.put("app.Job", {}, jid="s1")
        queue.put("app.Job", {}, jid="s2")
        frozen.tick(4)
        first = queue.pop()
        frozen.tick(2)
        second = queue.pop()
        assert first is not None and second is not None
        frozen.tick(3)
        first.complete()
        second.complete()
        stats = run.json("stats", "q")
    assert stats["wait"]["count"] == 2
    assert stats["wait"]["mean"] == 5
    assert round(stats["wait"]["std"], 6) == round(2 ** 0.5, 6)
    assert stats["wait"]["histogram"][4] == 1 and stats["wait"]["histogram"][6] == 1
    assert stats["run"]["count"] == 2
    assert stats["run"]["histogram"][5] == 1 and stats["run"]["histogram"][3] == 1
    assert stats["from"] == stats["to"] == "2030-01-02"
    same = run.json("stats", "q", "--date", "2030-01-02")
    assert same["wait"] == stats["wait"]
    assert run.json("stats", "q", "--date", "2030-01-01")["wait"]["count"] == 0
    both = run.json("stats", "q", "--date", "2030-01-03", "--days", "2")
    assert both["wait"]["count"] == 2 and both["from"] == "2030-01-02"
    text = run("stats", "q", "--date", "2030-01-02").stdout
    assert "wait: count 2  mean 5s  std 1.41s  p50 " in text and "█" in text
    # The bars are the fine histogram's: 4 s and 6 s in their 1/20-decade buckets.
    assert "3.98s-4.47s" in text and "5.62s-6.31s" in text
    assert 3.98 <= stats["wait"]["p50"] <= 4.47 and 5.62 <= stats["wait"]["p99"] <= 6.31
    assert [n for _, _, n in stats["wait"]["fine"]] == [1, 1]
    assert "--date must be YYYY-MM-DD" in run.error("stats", "q", "--date", "yesterday")
    assert run.error("stats", "nope") == "Error: no such queue: 'nope'"
    assert run.error("stats", "q", "--days", "0", code=2)


def test_config_list_get_set_unset(run: Run, snapshot: Callable[[], Any]) -> None:
    assert run.json("config", "list")["heartbeat"] == 60
    assert run("config", "get", "heartbeat").stdout.strip() == "60"
    assert run("config", "set", "heartbeat", "30").stdout.strip() == "heartbeat = 30"
    assert run.json("config", "get", "heartbeat") == {"heartbeat": "30"}
    run("config", "set", "q-max-concurrency", "2")
    assert run.json("config", "list")["q-max-concurrency"] == "2"
    before = snapshot()
    assert run.error("config", "set", "heartbeat", "soon") == (
        "Error: heartbeat must be a number, not 'soon'")
    assert "must be a whole number" in run.error("config", "set", "q-max-concurrency", "1.5")
    assert "unknown config key 'hearbeat'" in run.error("config", "set", "hearbeat", "3")
    assert snapshot() == before
    run("config", "set", "my-app-flag", "on", "--force")
    run("config", "unset", "heartbeat")
    assert run("config", "get", "heartbeat").stdout.strip() == "60"
    assert "is not set" in run.error("config", "get", "no-such-key")
    assert "heartbeat" in run("config", "list").stdout


def test_recur_create_list_update_cancel(run: Run, client: Client) -> None:
    jid = run("recur", "create", "q", "app.Tick", '{"n": 1}', "--interval", "60",
              "--jid", "tick", "--tag", "cron").stdout.strip()
    assert jid == "tick"
    listed = run.json("recur", "list")
    assert [(t["jid"], t["interval"], t["tags"], t["data"]) for t in listed] == [
        ("tick", 60, ["cron"], {"n": 1})]
    run("recur", "update", "tick", "--interval", "30", "--priority", "4", "--untag", "cron",
        "--tag", "hourly")
    obj = run.json("job", "tick")
    assert (obj["interval"], obj["priority"], obj["tags"]) == (30, 4, ["hourly"])
    assert "recurring job tick" in run("job", "tick").stdout
    assert [t["jid"] for t in run.json("recur", "list", "--queue", "q")] == ["tick"]
    assert "tick" in run("recur", "list").stdout
    assert "nothing to update" in run.error("recur", "update", "tick", code=2)
    assert "--data is not valid JSON" in run.error("recur", "update", "tick", "--data", "{")
    assert run.error("recur", "update", "ghost", "--priority", "1") == (
        "Error: no such recurring job: ghost")
    assert run.error("recur", "create", "q", "app.Tick", "--interval", "0", code=2)
    assert run("recur", "cancel", "tick").stdout.strip() == "tick no longer recurs"
    assert run.json("recur", "list") == []
    assert run.error("recur", "cancel", "tick") == "Error: no such recurring job: tick"


def test_failed_group_shows_the_last_line_of_a_traceback(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="tb")
    job = client.queues["q"].pop()
    assert job is not None
    job.fail("q-ValueError", 'Traceback (most recent call last):\n  File "x.py", line 1\n'
             "ValueError: bad thing\n")
    text = run("failed", "q-ValueError").stdout
    assert "ValueError: bad thing" in text and "Traceback" not in text


def test_recur_update_changes_every_field_given(run: Run, client: Client) -> None:
    run("recur", "create", "q", "app.Tick", "--interval", "60", "--jid", "tick")
    run("recur", "update", "tick", "--retries", "2", "--backlog", "3", "--data", '{"n": 5}',
        "--klass", "app.Tock", "--queue", "elsewhere")
    obj = run.json("job", "tick")
    assert (obj["retries"], obj["backlog"], obj["data"], obj["klass"], obj["queue"]) == (
        2, 3, {"n": 5}, "app.Tock", "elsewhere")
    assert [t["jid"] for t in run.json("recur", "list", "--queue", "elsewhere")] == ["tick"]
    assert run.error("recur", "update", "tick", "--klass", " ") == (
        "Error: --klass must not be empty")


def test_config_set_refuses_negative_and_unbounded_numbers(
        run: Run, snapshot: Callable[[], Any]) -> None:
    before = snapshot()
    assert run.error("config", "set", "heartbeat", "--", "-5") == (
        "Error: heartbeat must be a finite number >= 0, not '-5'")
    assert "finite number" in run.error("config", "set", "q-heartbeat", "inf")
    assert snapshot() == before


def test_stats_of_a_day_without_samples(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {})
    stats = run.json("stats", "q", "--date", "2031-05-06")
    assert stats["wait"] == {"count": 0, "mean": 0, "std": 0, "histogram": [0] * 148,
                             "p50": None, "p90": None, "p95": None, "p99": None, "fine": []}
    assert (stats["failures"], stats["failed"], stats["retries"]) == (0, 0, 0)
    text = run("stats", "q", "--date", "2031-05-06").stdout
    assert "wait: count 0" in text and "wait time histogram: no samples" in text
