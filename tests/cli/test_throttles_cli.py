"""``qless-py throttle ...``, ``put --throttle/--key/--ttl/--unique``, the throttled count
of ``queues`` and ``jobs --state throttled`` through the real group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from freezegun import freeze_time

from qless_py import Client
from tests.cli.conftest import Run


def test_throttle_set_get_list_and_delete(run: Run) -> None:
    assert run("throttle", "set", "api", "2").stdout.strip() == "throttle api: maximum 2"
    assert run.json("throttle", "get", "api") == {
        "name": "api", "maximum": 2, "ttl": -1, "locks": 0, "pending": 0}
    assert "maximum 2, settings expire never, 0 running, 0 waiting" in run(
        "throttle", "get", "api").stdout
    run("throttle", "set", "api", "3", "--ttl", "600")
    shown = run.json("throttle", "get", "api")
    assert shown["maximum"] == 3 and 0 < shown["ttl"] <= 600
    run("throttle", "set", "--queue", "q", "5")
    assert run.json("throttle", "get", "--queue", "q")["maximum"] == 5
    assert [row["name"] for row in run.json("throttle", "list")] == ["api", "ql:q:q"]
    assert "ql:q:q" in run("throttle", "list").stdout
    assert run("throttle", "delete", "api").stdout.strip() == "throttle api deleted"
    assert run.json("throttle", "get", "api")["maximum"] == 0


def test_locks_and_pending(run: Run, client: Client) -> None:
    run("throttle", "set", "api", "1")
    run("put", "q", "app.Job", "--jid", "a", "--throttle", "api")
    run("put", "q", "app.Job", "--jid", "b", "--throttle", "api", "--throttle", "db")
    client.queues["q"].pop()
    assert run.json("throttle", "locks", "api") == ["a"]
    assert run("throttle", "pending", "api").stdout.strip() == "b"
    assert run("throttle", "pending", "db").stdout.strip() == "(none)"
    assert run.json("queues")[0]["throttled"] == 1
    assert "throttled" in run("queues").stdout
    assert [row["jid"] for row in run.json("jobs", "-q", "q", "--state", "throttled")["jobs"]] \
        == ["b"]
    job = run.json("job", "b")
    assert job["state"] == "throttled" and job["throttles"] == ["api", "db", "ql:q:q"]
    assert "throttles" in run("job", "b").stdout


def test_put_with_key_ttl_and_unique(run: Run) -> None:
    run("put", "q", "app.Job", "--jid", "a", "--key", "customer-1", "--ttl", "60")
    job = run.json("job", "a")
    assert (job["key"], job["ttl"]) == ("customer-1", 60)
    view = run("job", "a").stdout
    assert "customer-1" in view and "must start within 60 s" in view
    result = run("put", "q", "app.Job", "{}", "--jid", "a", "--unique")
    assert result.stdout == "" and "a exists and is not complete: left alone" in result.stderr
    assert run.json("job", "a")["key"] == "customer-1"


def test_stats_count_expired_jobs(run: Run, client: Client) -> None:
    with freeze_time("2030-01-02 01:00:00") as clock:
        run("put", "q", "app.Job", "--jid", "a", "--ttl", "10")
        clock.tick(11)
        assert client.queues["q"].pop() is None
        assert run.json("stats", "q")["expired"] == 1
        assert "expired 1" in run("stats", "q").stdout
    assert client.jobs["a"] is None


def test_recur_with_throttles_key_and_ttl(run: Run, client: Client,
                                          snapshot: Callable[[], Any]) -> None:
    run("recur", "create", "q", "app.Tick", "--interval", "60", "--jid", "tick",
        "--throttle", "api", "--key", "k1", "--ttl", "30")
    obj = run.json("job", "tick")
    assert (obj["throttles"], obj["key"], obj["ttl"]) == (["api", "ql:q:q"], "k1", 30)
    run("recur", "update", "tick", "--throttle", "db", "--throttle", "api", "--key", "k2",
        "--ttl", "5")
    obj = run.json("job", "tick")
    assert (obj["throttles"], obj["key"], obj["ttl"]) == (["db", "api", "ql:q:q"], "k2", 5)
    before = snapshot()
    assert "--key and --no-key contradict" in run.error(
        "recur", "update", "tick", "--key", "k3", "--no-key", code=2)
    assert run.error("recur", "update", "tick", "--throttle", "") == (
        "Error: --throttle must not be empty")
    assert run.error("recur", "create", "q", "app.Tick", "--interval", "60", "--key", " ") \
        == "Error: --key must not be empty"
    assert snapshot() == before
    run("recur", "update", "tick", "--no-throttles", "--no-key", "--no-ttl")
    obj = run.json("job", "tick")
    assert "throttles" not in obj and "key" not in obj and "ttl" not in obj
    template = client.jobs["tick"]
    assert template is not None and template.throttles == ["ql:q:q"]


def test_bad_input_is_one_line_and_writes_nothing(run: Run,
                                                  snapshot: Callable[[], Any]) -> None:
    run("throttle", "set", "api", "1")
    before = snapshot()
    assert run.error("put", "q", "app.Job", "--unique") == (
        "Error: --unique needs --jid (a new random jid is always unique)")
    assert run.error("put", "q", "app.Job", "--throttle", " ") == (
        "Error: --throttle must not be empty")
    assert run.error("put", "q", "app.Job", "--key", "") == "Error: --key must not be empty"
    assert run.error("throttle", "get", " ") == "Error: NAME must not be empty"
    assert run.error("throttle", "delete", "--queue", "") == "Error: --queue must not be empty"
    assert "--ttl" in run.error("put", "q", "app.Job", "--ttl", "0", code=2)
    assert "MAXIMUM must be 0 or more" in run.error("throttle", "set", "api", "--", "-1",
                                                   code=2)
    assert "MAXIMUM must be a whole number" in run.error("throttle", "set", "api", "x", code=2)
    assert "give NAME MAXIMUM" in run.error("throttle", "set", "api", code=2)
    assert "not both" in run.error("throttle", "get", "api", "--queue", "q", code=2)
    assert "not both" in run.error("throttle", "locks", code=2)
    assert "--ttl" in run.error("throttle", "set", "api", "2", "--ttl", "0", code=2)
    assert snapshot() == before
