"""put, job, jobs, retry, cancel, move, priority, track/untrack, tag through the real group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qless_py import Client
from tests.cli.conftest import Run


def test_put_prints_jid_and_job_shows_data_tags_and_history(run: Run) -> None:
    jid = run("put", "q", "app.Resize", '{"size": 3}', "--tag", "red", "--tag", "blue",
              "--priority", "7", "--jid", "j1").stdout.strip()
    assert jid == "j1"
    view = run("job", "j1").stdout
    for fragment in ("app.Resize", '"size": 3', "red, blue", "waiting", "history", "put"):
        assert fragment in view
    obj = run.json("job", "j1")
    assert obj["data"] == {"size": 3}
    assert obj["tags"] == ["red", "blue"]
    assert obj["priority"] == 7
    assert obj["queue"] == "q"
    assert [h["what"] for h in obj["history"]] == ["put"]
    assert obj["failure"] is None


def test_put_generates_a_jid_and_honours_delay_and_retries(run: Run) -> None:
    jid = run("put", "q", "app.Job", "--delay", "60", "--retries", "2").stdout.strip()
    assert len(jid) == 32
    obj = run.json("job", jid)
    assert obj["state"] == "scheduled"
    assert obj["retries"] == 2


def test_put_with_bad_json_writes_nothing(run: Run, snapshot: Callable[[], Any]) -> None:
    before = snapshot()
    message = run.error("put", "q", "app.Job", "{nope")
    assert "DATA is not valid JSON" in message
    assert snapshot() == before


def test_put_with_empty_names_writes_nothing(run: Run, snapshot: Callable[[], Any]) -> None:
    before = snapshot()
    assert run.error("put", "", "app.Job") == "Error: QUEUE must not be empty"
    assert "KLASS must not be empty" in run.error("put", "q", " ")
    assert run.error("put", "q", "app.Job", "--jid", "") == "Error: --jid must not be empty"
    assert snapshot() == before


def test_put_with_unknown_dependency_writes_nothing(run: Run,
                                                    snapshot: Callable[[], Any]) -> None:
    before = snapshot()
    assert run.error("put", "q", "app.Job", "--depends", "ghost") == "Error: no such job: ghost"
    assert snapshot() == before


def test_bad_numbers_and_unknown_options_are_usage_errors(run: Run) -> None:
    assert "priority" in run.error("put", "q", "app.Job", "--priority", "high", code=2)
    assert "No such option" in run.error("put", "q", "app.Job", "--colour", "red", code=2)
    assert "No such command" in run.error("frobnicate", code=2)


def test_put_with_depends_then_job_lists_the_dependency(run: Run) -> None:
    run("put", "q", "app.Job", "--jid", "a")
    run("put", "q", "app.Job", "--jid", "b", "--depends", "a")
    obj = run.json("job", "b")
    assert obj["state"] == "depends"
    assert obj["dependencies"] == ["a"]
    assert "depends on" in run("job", "b").stdout
    assert run.json("job", "a")["dependents"] == ["b"]


def test_job_unknown_is_one_clear_line(run: Run) -> None:
    assert run.error("job", "nope") == "Error: no such job: nope"


def test_job_shows_failure(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="f1")
    job = client.queues["q"].pop()
    assert job is not None
    job.fail("io-error", "disk full\nmore detail")
    obj = run.json("job", "f1")
    assert obj["state"] == "failed"
    assert obj["failure"]["group"] == "io-error"
    view = run("job", "f1").stdout
    assert "failure" in view and "io-error" in view and "disk full" in view


def test_jobs_by_queue_and_state_with_paging(run: Run, client: Client) -> None:
    queue = client.queues["q"]
    for i in range(5):
        queue.put("app.Job", {}, jid=f"w{i}")
    queue.put("app.Job", {}, jid="later", delay=100)
    queue.put("app.Job", {}, jid="dep", depends=["w0"])
    running = queue.pop()
    assert running is not None and running.jid == "w0"
    page = run.json("jobs", "--queue", "q", "--count", "2")
    assert [j["jid"] for j in page["jobs"]] == ["w1", "w2"]
    page = run.json("jobs", "--queue", "q", "--offset", "2", "--count", "5")
    assert [j["jid"] for j in page["jobs"]] == ["w3", "w4"]
    assert [j["jid"] for j in run.json("jobs", "-q", "q", "-s", "running")["jobs"]] == ["w0"]
    assert [j["jid"] for j in run.json("jobs", "-q", "q", "-s", "scheduled")["jobs"]] == [
        "later"]
    assert [j["jid"] for j in run.json("jobs", "-q", "q", "-s", "depends")["jobs"]] == ["dep"]
    table = run("jobs", "--queue", "q").stdout
    assert "waiting jobs in q" in table and "w1" in table and "w4" in table


def test_jobs_by_tag_tracked_complete_and_failure_group(run: Run, client: Client) -> None:
    queue = client.queues["q"]
    queue.put("app.Job", {}, jid="t1", tags=["blue"])
    queue.put("app.Job", {}, jid="t2", tags=["blue"])
    queue.put("app.Job", {}, jid="t3")
    tagged = run.json("jobs", "--tag", "blue")
    assert sorted(j["jid"] for j in tagged["jobs"]) == ["t1", "t2"]
    assert tagged["total"] == 2
    assert run.json("jobs", "--tag", "blue", "--count", "1")["total"] == 2
    run("track", "t3")
    assert [j["jid"] for j in run.json("jobs", "--tracked")["jobs"]] == ["t3"]
    first = queue.pop()
    assert first is not None
    first.complete()
    assert [j["jid"] for j in run.json("jobs", "--state", "complete")["jobs"]] == [first.jid]
    second = queue.pop()
    assert second is not None
    second.fail("grp", "boom")
    failed = run.json("jobs", "--failed", "grp")
    assert [j["jid"] for j in failed["jobs"]] == [second.jid]


def test_jobs_of_an_unknown_queue_is_an_error(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {})
    assert run.error("jobs", "--queue", "qq") == "Error: no such queue: 'qq' (known: q)"


def test_a_recurring_jid_points_at_recur(run: Run, client: Client) -> None:
    client.queues["q"].recur("app.Tick", {}, 60, jid="tick")
    assert "tick is a recurring job" in run.error("cancel", "tick")
    assert "tick is a recurring job" in run.error("priority", "tick", "3")


def test_jobs_requires_exactly_one_listing(run: Run) -> None:
    assert "choose one listing" in run.error("jobs", code=2)
    assert "choose one listing" in run.error("jobs", "--tag", "a", "--tracked", code=2)
    assert "needs --queue" in run.error("jobs", "--state", "running", code=2)


def test_retry_puts_a_failed_job_back_and_refuses_others(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {"k": 1}, jid="r1", priority=3, tags=["x"])
    job = client.queues["q"].pop()
    assert job is not None
    job.fail("grp", "boom")
    assert "r1 put back into q" in run("retry", "r1").stdout
    obj = run.json("job", "r1")
    assert (obj["state"], obj["queue"], obj["priority"], obj["tags"], obj["data"]) == (
        "waiting", "q", 3, ["x"], {"k": 1})
    assert run.error("retry", "r1") == "Error: job r1 is not failed (state: waiting)"
    assert run.error("retry", "ghost") == "Error: no such job: ghost"


def test_cancel_checks_every_jid_first(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="c1")
    assert run.error("cancel", "c1", "ghost") == "Error: no such job: ghost"
    assert run.json("job", "c1")["state"] == "waiting"
    assert run("cancel", "c1").stdout.strip() == "canceled c1"
    assert run.error("job", "c1") == "Error: no such job: c1"


def test_cancel_refuses_a_job_whose_dependents_stay(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="p")
    client.queues["q"].put("app.Job", {}, jid="child", depends=["p"])
    message = run.error("cancel", "p")
    assert "is a dependency of child" in message
    assert run.json("job", "p")["state"] == "waiting"
    run("cancel", "p", "child")


def test_move_keeps_the_job_and_changes_queue(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {"a": 1}, jid="m1", tags=["t"], priority=2)
    assert run("move", "m1", "other").stdout.strip() == "m1 moved to other"
    obj = run.json("job", "m1")
    assert (obj["queue"], obj["data"], obj["tags"], obj["priority"]) == (
        "other", {"a": 1}, ["t"], 2)
    assert run.error("move", "ghost", "other") == "Error: no such job: ghost"


def test_priority_track_untrack_and_tag(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="p1")
    assert run("priority", "p1", "9").stdout.strip() == "p1 priority 9"
    assert run.json("job", "p1")["priority"] == 9
    assert "not a valid integer" in run.error("priority", "p1", "nine", code=2)
    assert run("track", "p1").stdout.strip() == "p1 tracked"
    assert run("track", "p1").stdout.strip() == "p1 was already tracked"
    assert run.json("job", "p1")["tracked"] is True
    assert run("untrack", "p1").stdout.strip() == "p1 untracked"
    assert run.json("job", "p1")["tracked"] is False
    assert run.json("tag", "p1", "a", "b") == ["a", "b"]
    assert run("tag", "p1", "a", "--remove").stdout.strip() == "b"
    assert run.json("job", "p1")["tags"] == ["b"]
    assert run.error("tag", "ghost", "a") == "Error: no such job: ghost"
    assert run.error("track", "ghost") == "Error: no such job: ghost"


def test_job_json_has_every_key_of_the_core_object(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {"x": 1}, jid="k1")
    assert set(run.json("job", "k1")) == {
        "jid", "klass", "state", "queue", "worker", "tracked", "priority", "expires",
        "retries", "remaining", "data", "tags", "history", "failure", "spawned_from_jid",
        "dependents", "dependencies"}


def test_jobs_tracked_shows_a_cancelled_job_as_expired(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="gone")
    client.queues["q"].put("app.Job", {}, jid="here")
    run("track", "gone")
    run("track", "here")
    run("cancel", "gone")
    listing = run.json("jobs", "--tracked")
    assert listing["total"] == 2
    assert [(j["jid"], j["state"]) for j in listing["jobs"]] == [
        ("here", "waiting"), ("gone", "expired")]
    assert [j["jid"] for j in run.json("jobs", "--tracked", "--offset", "1")["jobs"]] == [
        "gone"]


def test_jobs_lists_recurring_templates_of_a_queue(run: Run, client: Client) -> None:
    client.queues["q"].recur("app.Tick", {"n": 2}, 30, jid="tick")
    rows = run.json("jobs", "-q", "q", "-s", "recurring")["jobs"]
    assert [(r["jid"], r["state"], r["interval"], r["data"]) for r in rows] == [
        ("tick", "recur", 30, {"n": 2})]
    assert "tick" in run("jobs", "-q", "q", "-s", "recurring").stdout


def test_move_takes_a_running_job_from_its_worker(run: Run, client: Client) -> None:
    client.queues["q"].put("app.Job", {}, jid="busy")
    assert client.queues["q"].pop() is not None
    run("move", "busy", "other", "--delay", "30")
    obj = run.json("job", "busy")
    assert (obj["queue"], obj["state"], obj["worker"]) == ("other", "scheduled", "")
    assert client.workers["w1"]["jobs"] == []
