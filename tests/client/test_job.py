"""Job: attributes and every command a job object sends."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from qless_py import Client, CoreError, Failure, Job, JobNotFoundError, LockLostError
from tests.client import jobs as job_classes
from tests.client.conftest import T0

NOOP = "tests.client.jobs.Noop"


def _pop(client: Client, queue: str = "q") -> Job:
    job = client.queues[queue].pop()
    assert job is not None
    return job


def test_attributes(client: Client) -> None:
    client.queues["q"].put("Foo", {"whiz": "bang"}, jid="jid", tags=["foo"], retries=3)
    job = client.jobs["jid"]
    assert isinstance(job, Job)
    assert job.data == {"whiz": "bang"} and job["whiz"] == "bang"
    assert (job.jid, job.klass_name, job.queue_name, job.state) == ("jid", "Foo", "q", "waiting")
    assert job.priority == 0 and job.tags == ["foo"]
    assert job.expires_at == 0.0 and isinstance(job.expires_at, float)
    assert (job.original_retries, job.retries_left) == (3, 3)
    assert job.worker_name == "" and job.tracked is False
    assert job.dependents == [] and job.dependencies == []
    assert job.failure is None and job.spawned_from_jid is None
    assert [h["what"] for h in job.history] == ["put"] and job.history[0]["q"] == "q"
    assert job.finished is False and job.stopping is False and job.workdir is None
    assert repr(job) == "<Foo jid>"


def test_item_access_and_complete_writes_data_back(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    job = _pop(client)
    job["k"] = [1, 2]
    assert job.complete() == "complete"
    assert job.finished and job.state == "complete"
    done = client.jobs["a"]
    assert isinstance(done, Job) and done.data == {"k": [1, 2]} and done.state == "complete"
    assert client.jobs.complete() == ["a"]


def test_complete_into_next_queue(client: Client) -> None:
    client.queues["one"].put(NOOP, {}, jid="a")
    assert _pop(client, "one").complete(next="two") == "waiting"
    job = client.jobs["a"]
    assert isinstance(job, Job) and job.queue_name == "two" and job.state == "waiting"
    assert _pop(client, "two").complete(next="three", delay=10) == "scheduled"
    with pytest.raises(ValueError):
        job.complete(delay=5)


def test_complete_by_someone_else_raises_lock_lost(client: Client, other: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    _pop(client)
    stolen = other.jobs["a"]
    assert isinstance(stolen, Job)
    with pytest.raises(LockLostError, match="another worker"):
        stolen.complete()
    assert stolen.finished is False


def test_fail_records_a_failure(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    with freeze_time(T0):
        assert _pop(client).fail("broken", "it broke") == "a"
    job = client.jobs["a"]
    assert isinstance(job, Job) and job.state == "failed"
    assert job.failure == Failure("broken", "it broke", job.failure.when, "worker")  # type: ignore[union-attr]
    assert job.failure is not None and job.failure.when == pytest.approx(1893456000.0)
    assert job.failure["group"] == "broken"
    with pytest.raises(ValueError):
        job.fail("", "x")


def test_retry_uses_up_retries_then_fails(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="a", retries=1)
    assert _pop(client).retry() == 0
    assert client.jobs["a"].state == "waiting"  # type: ignore[union-attr]
    job = _pop(client)
    assert job.retry(group="grp", message="gave up") == -1
    failed = client.jobs["a"]
    assert isinstance(failed, Job) and failed.state == "failed"
    assert failed.failure is not None and failed.failure.group == "grp"
    assert failed.failure.message == "gave up"


def test_retry_with_delay_schedules(client: Client) -> None:
    with freeze_time(T0) as frozen:
        client.queues["q"].put(NOOP, {}, jid="a")
        _pop(client).retry(delay=30)
        assert client.queues["q"].pop() is None
        frozen.tick(31)
        assert _pop(client).jid == "a"


def test_retry_of_a_job_not_running_raises(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    job = client.jobs["a"]
    assert isinstance(job, Job)
    with pytest.raises(CoreError, match="not currently running"):
        job.retry()


def test_heartbeat_extends_the_lock(client: Client) -> None:
    client.config["heartbeat"] = 10
    with freeze_time(T0) as frozen:
        client.queues["q"].put(NOOP, {}, jid="a")
        job = _pop(client)
        assert job.ttl == pytest.approx(10, abs=0.01)
        frozen.tick(5)
        assert job.ttl == pytest.approx(5, abs=0.01)
        client.config["heartbeat"] = 20
        expiry = job.heartbeat()
        assert expiry == pytest.approx(1893456000 + 25, abs=1)
        assert job.ttl == pytest.approx(20, abs=1)


def test_heartbeat_after_the_lock_moved_raises_lock_lost(client: Client, other: Client) -> None:
    client.config["grace-period"] = 0
    with freeze_time(T0) as frozen:
        client.queues["q"].put(NOOP, {}, jid="a")
        job = _pop(client)
        frozen.tick(61)
        taken = other.queues["q"].pop()
        assert taken is not None and taken.jid == "a" and taken.worker_name == "other"
        with pytest.raises(LockLostError):
            job.heartbeat()
        with pytest.raises(LockLostError):
            job.complete()


def test_heartbeat_of_a_waiting_job_raises(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    job = client.jobs["a"]
    assert isinstance(job, Job)
    with pytest.raises(LockLostError):
        job.heartbeat()


def test_cancel_move_timeout(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="a")
    queue.put(NOOP, {}, jid="b")
    job = client.jobs["a"]
    assert isinstance(job, Job)
    job.cancel()
    assert job.finished and client.jobs["a"] is None
    b = client.jobs["b"]
    assert isinstance(b, Job)
    assert b.move("elsewhere") == "b"
    assert client.jobs["b"].queue.name == "elsewhere"  # type: ignore[union-attr]
    running = _pop(client, "elsewhere")
    running.timeout()
    assert client.jobs["b"].state == "stalled"  # type: ignore[union-attr]
    assert running.finished


def test_priority_writes_through(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a", priority=0)
    client.queues["q"].put(NOOP, {}, jid="b", priority=0)
    job = client.jobs["b"]
    assert isinstance(job, Job)
    job.priority = 10
    assert client.jobs["b"].priority == 10  # type: ignore[union-attr]
    assert _pop(client).jid == "b"
    with pytest.raises(JobNotFoundError):
        Job(client, {"jid": "ghost", "klass": "x.Y", "data": "{}"}).priority = 3


def test_tag_untag_track_untrack(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    job = client.jobs["a"]
    assert isinstance(job, Job)
    assert job.tag("x", "y") == ["x", "y"]
    assert client.jobs["a"].tags == ["x", "y"]  # type: ignore[union-attr]
    assert job.untag("x", "y") == []
    assert client.jobs["a"].tags == []  # type: ignore[union-attr]
    assert job.track() is True and client.jobs["a"].tracked  # type: ignore[union-attr]
    assert job.untrack() is True and not client.jobs["a"].tracked  # type: ignore[union-attr]


def test_depend_and_undepend(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="a")
    queue.put(NOOP, {}, jid="b")
    queue.put(NOOP, {}, jid="c", depends=["a"])
    c = client.jobs["c"]
    assert isinstance(c, Job) and c.dependencies == ["a"] and c.state == "depends"
    assert client.jobs["a"].dependents == ["c"]  # type: ignore[union-attr]
    c.depend("b")
    assert sorted(client.jobs["c"].dependencies) == ["a", "b"]  # type: ignore[union-attr]
    c.undepend("a")
    assert client.jobs["c"].dependencies == ["b"]  # type: ignore[union-attr]
    c.undepend(all=True)
    after = client.jobs["c"]
    assert isinstance(after, Job) and after.dependencies == [] and after.state == "waiting"


def test_log_appends_history(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    job = client.jobs["a"]
    assert isinstance(job, Job)
    job.log("checkpoint", {"step": 3})
    job.log("plain")
    history = client.jobs["a"].history  # type: ignore[union-attr]
    assert history[-2]["what"] == "checkpoint" and history[-2]["step"] == 3
    assert history[-1]["what"] == "plain"


def test_klass_imports_the_class(client: Client) -> None:
    client.queues["q"].put(job_classes.Noop, {}, jid="a")
    client.queues["q"].put("tests.client.jobs.Missing", {}, jid="b")
    client.queues["q"].put("no_such_module_xyz.Job", {}, jid="c")
    assert client.jobs["a"].klass is job_classes.Noop  # type: ignore[union-attr]
    with pytest.raises(AttributeError):
        client.jobs["b"].klass  # type: ignore[union-attr]  # noqa: B018
    with pytest.raises(ImportError):
        client.jobs["c"].klass  # type: ignore[union-attr]  # noqa: B018


def test_process_runs_the_handler_or_fails_the_job(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(job_classes.Mark, {}, jid="ok")
    queue.put(job_classes.Boom, {}, jid="boom")
    queue.put(job_classes.NoMethod, {}, jid="nomethod")
    queue.put("no_such_module_xyz.Job", {}, jid="noimport")
    for _ in range(4):
        _pop(client).process()
    assert client.jobs["ok"].data == {"seen": True}  # type: ignore[union-attr]
    failures = {jid: client.jobs[jid].failure.group  # type: ignore[union-attr]
                for jid in ("boom", "nomethod", "noimport")}
    assert failures == {"boom": "q-RuntimeError", "nomethod": "q-method-missing",
                        "noimport": "q-ImportError"}
    client.queues["stage1"].put(job_classes.Mark, {}, jid="adv")
    _pop(client, "stage1").process()
    assert client.jobs["adv"].queue_name == "stage2"  # type: ignore[union-attr]


def test_retry_decorator(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(job_classes.Flaky, {}, jid="a", tags=["transient"])
    _pop(client).process()
    job = client.jobs["a"]
    assert isinstance(job, Job) and job.state == "waiting" and job.retries_left == 4
    job.untag("transient")
    _pop(client).process()
    assert client.jobs["a"].state == "failed"  # type: ignore[union-attr]


def test_stop_event(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="a")
    job = _pop(client)
    assert not job.stopping
    job.stop_event.set()
    assert job.stopping


def test_complete_into_next_queue_with_dependencies(client: Client) -> None:
    client.queues["one"].put(NOOP, {}, jid="a")
    client.queues["one"].put(NOOP, {}, jid="gate")
    job = client.queues["one"].pop()
    assert job is not None and job.jid == "a"
    assert job.complete(next="two", depends=["gate"]) == "depends"
    assert client.queues["two"].jobs.depends() == ["a"]
    gate = client.queues["one"].pop()
    assert gate is not None and gate.complete() == "complete"
    assert client.jobs["a"].state == "waiting"  # type: ignore[union-attr]


def test_dependency_errors_are_typed(client: Client) -> None:
    from qless_py import DependencyError

    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="a")
    queue.put(NOOP, {}, jid="b", depends=["a"])
    a = client.jobs["a"]
    assert isinstance(a, Job)
    with pytest.raises(DependencyError, match="not in the depends state"):
        a.depend("b")
    with pytest.raises(DependencyError, match="is a dependency of b"):
        a.cancel()
    assert a.finished is False and client.jobs["a"] is not None
    client("cancel", "a", "b")
    assert client.jobs["a"] is None and client.jobs["b"] is None
