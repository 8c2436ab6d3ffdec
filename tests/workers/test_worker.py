"""The in-process Worker on a real server: running jobs, outcomes, workdirs, order, resume."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qless_py import Client, Job
from qless_py.workers import Worker
from tests import jobs
from tests.replies import text
from tests.workers.conftest import Background, wait_for


def run_burst(url: str, queues: list[str], name: str = "w1", **kwargs: object) -> Worker:
    with Client(url, worker_name=name) as c:
        worker = Worker(c, queues, burst=True, handle_signals=False, **kwargs)  # type: ignore[arg-type]
        assert worker.run() == Worker.EXIT_DONE
    return worker


def test_returning_handler_gets_its_job_completed(server_url: str, client: Client) -> None:
    jids = [client.queues["q"].put(jobs.Noop, {"i": i}) for i in range(5)]
    worker = run_burst(server_url, ["q"])
    assert worker.stats.jobs == 5
    for jid in jids:
        job = client.jobs[jid]
        assert job is not None and job.state == "complete"
    assert len(client.queues["q"]) == 0


def test_handler_that_completes_itself_is_not_completed_twice(
        server_url: str, client: Client, redis_conn: object) -> None:
    jid = client.queues["q"].put("tests.jobs.SelfComplete", {})
    worker = run_burst(server_url, ["q"])
    assert worker.stats.outcomes == {"complete": 1}
    assert client.redis.hget(jobs.COMPLETED, jid) == b"1"


def test_raising_handler_fails_with_queue_and_exception_group(
        server_url: str, client: Client) -> None:
    jid = client.queues["q"].put(jobs.Raiser, {})
    run_burst(server_url, ["q"])
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "failed"
    assert job.failure is not None
    assert job.failure.group == "q-ValueError"
    assert "Traceback" in job.failure.message and f"boom from {jid}" in job.failure.message
    assert job.failure.worker == "w1"


@pytest.mark.parametrize(("klass", "group"), [
    ("tests.jobs.NoMethod", "q-method-missing"),
    ("tests.jobs.DoesNotExist", "q-AttributeError"),
    ("no_such_module_anywhere.Job", "q-ImportError"),
    ("nodots", "q-ImportError"),
    ("tests.workers.broken_job_module.Job", "q-RuntimeError"),
])
def test_missing_class_or_method_fails_as_job_process_fails_it(
        server_url: str, client: Client, klass: str, group: str) -> None:
    # the worker and Job.process find handlers in one place (qless_py.handlers)
    by_worker = client.queues["q"].put(klass, {})
    run_burst(server_url, ["q"])
    by_process = client.queues["q"].put(klass, {})
    popped = client.queues["q"].pop(worker="w1")
    assert popped is not None and popped.jid == by_process
    popped.process()
    failures = []
    for jid in (by_worker, by_process):
        job = client.jobs[jid]
        assert isinstance(job, Job) and job.state == "failed" and job.failure is not None
        failures.append((job.failure.group, job.failure.message))
    assert failures[0] == failures[1]
    assert failures[0][0] == group and klass in failures[0][1]


def test_method_named_after_the_queue_wins_over_process(
        server_url: str, client: Client) -> None:
    special = client.queues["special"].put(jobs.QueueNamed, {})
    other = client.queues["other"].put(jobs.QueueNamed, {})
    run_burst(server_url, ["special", "other"])
    assert client.redis.hget(jobs.RECORD, special) == b"special"
    assert client.redis.hget(jobs.RECORD, other) == b"process"


def test_handler_that_fails_or_retries_is_left_as_it_chose(
        server_url: str, client: Client) -> None:
    failed = client.queues["q"].put(jobs.Fails, {})
    retried = client.queues["q"].put(jobs.Retries, {}, retries=3)
    worker = run_burst(server_url, ["q"])
    job = client.jobs[failed]
    assert isinstance(job, Job) and job.state == "failed"
    assert job.failure is not None and job.failure.group == "custom-group"
    job = client.jobs[retried]
    assert isinstance(job, Job) and job.state == "scheduled" and job.retries_left == 2
    assert sorted(worker.stats.outcomes) == ["failed", "scheduled"]


def test_single_thread_runs_each_job_in_a_clean_workdir(
        server_url: str, client: Client, tmp_path: Path) -> None:
    jids = [client.queues["q"].put(jobs.WorkdirProbe, {}) for _ in range(2)]
    before = os.getcwd()
    run_burst(server_url, ["q"], workdir=str(tmp_path))
    assert os.getcwd() == before
    for jid in jids:
        cwd, workdir, listing = text(client.redis.hget(jobs.RECORD, jid)).split("|")
        assert os.path.realpath(cwd) == os.path.realpath(workdir)
        assert workdir.startswith(str(tmp_path))
        assert listing == "left-behind.txt"  # only its own file: the previous one's is gone
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_threads_get_separate_workdirs_and_keep_the_cwd(
        server_url: str, client: Client, tmp_path: Path) -> None:
    jids = [client.queues["q"].put(jobs.WorkdirProbe, {}) for _ in range(6)]
    before = os.getcwd()
    worker = run_burst(server_url, ["q"], threads=3, workdir=str(tmp_path))
    assert worker.stats.jobs == 6
    dirs = set()
    for jid in jids:
        cwd, workdir, _ = text(client.redis.hget(jobs.RECORD, jid)).split("|")
        assert cwd == before
        assert workdir.startswith(str(tmp_path))
        dirs.add(workdir)
    assert 1 <= len(dirs) <= 3


def test_ordered_takes_the_first_queue_until_it_is_empty(
        server_url: str, client: Client) -> None:
    for i in range(3):
        client.queues["low"].put(jobs.Noop, {"i": i}, jid=f"low{i}")
        client.queues["high"].put(jobs.Noop, {"i": i}, jid=f"high{i}")
    run_burst(server_url, ["high", "low"], order="ordered")
    started = {text(k): float(v) for k, v in client.redis.hgetall(jobs.STARTED).items()}
    order = sorted(started, key=started.__getitem__)
    assert order[:3] == ["high0", "high1", "high2"]


def test_round_robin_alternates_between_queues(server_url: str, client: Client) -> None:
    for i in range(3):
        client.queues["a"].put(jobs.Noop, {}, jid=f"a{i}")
        client.queues["b"].put(jobs.Noop, {}, jid=f"b{i}")
    run_burst(server_url, ["a", "b"], order="round-robin", max_batch=1)
    started = {text(k): float(v) for k, v in client.redis.hgetall(jobs.STARTED).items()}
    order = [j[0] for j in sorted(started, key=started.__getitem__)]
    assert order == ["a", "b", "a", "b", "a", "b"]


def test_max_jobs_stops_after_that_many(server_url: str, client: Client) -> None:
    for i in range(5):
        client.queues["q"].put(jobs.Noop, {"i": i})
    # closed at the end: its job threads' redis-py sockets, left to the garbage collector
    # in a reference cycle, would be reported unclosed whenever a later collection runs
    with Client(server_url, worker_name="w1") as c:
        worker = Worker(c, ["q"], max_jobs=3, handle_signals=False, max_batch=1)
        assert worker.run() == Worker.EXIT_RECYCLE
    assert worker.stats.jobs == 3
    assert client.queues["q"].counts["waiting"] == 2


def test_resume_takes_back_jobs_held_under_the_same_name(
        server_url: str, client: Client) -> None:
    jid = client.queues["q"].put(jobs.Noop, {})
    held = client.queues["q"].pop(worker="steady")
    assert held is not None and held.jid == jid
    run_burst(server_url, ["q"], name="steady")  # without --resume it is left alone
    job = client.jobs[jid]
    assert job is not None and job.state == "running"
    worker = run_burst(server_url, ["q"], name="steady", resume=True)
    assert worker.stats.jobs == 1
    job = client.jobs[jid]
    assert job is not None and job.state == "complete"


def test_worker_deregisters_when_it_exits(server_url: str, client: Client) -> None:
    client.queues["q"].put(jobs.Noop, {})
    run_burst(server_url, ["q"], name="leaving")
    assert "leaving" not in [w["name"] for w in client.workers.counts]


def test_bad_arguments_are_refused(server_url: str) -> None:
    c = Client(server_url, worker_name="w1")
    with pytest.raises(ValueError, match="at least one queue"):
        Worker(c, [])
    with pytest.raises(ValueError, match="threads"):
        Worker(c, ["q"], threads=0)
    with pytest.raises(ValueError, match="unknown queue order"):
        Worker(c, ["q"], order="random")
    with pytest.raises(ValueError, match="spin"):
        Worker(c, ["q"], spin=0.5)
    with pytest.raises(ValueError, match="spin"):
        Worker(c, ["q"], spin=-0.001)
    c.close()


def test_spin_reaches_the_runner_connections(server_url: str, client: Client) -> None:
    client.queues["q"].put(jobs.Noop, {})
    c = Client(server_url, worker_name="spinner")
    worker = Worker(c, ["q"], burst=True, spin=0.05, handle_signals=False)
    assert worker.transport.spin == 0.05
    assert worker.run() == 0
    conn = worker.transport.connection()  # this thread's; the runner thread had its own
    assert conn.spin_ns == 50_000_000
    assert client.queues["q"].counts["waiting"] == 0
    # the runner's pops and its complete were answered while it spun (50 ms is plenty)
    assert worker.stats.spin_hits >= 2 and worker.stats.spin_misses == 0
    c.close()
    c = Client(server_url, worker_name="sleeper")
    client.queues["q"].put(jobs.Noop, {})
    worker = Worker(c, ["q"], burst=True, spin=0, handle_signals=False)
    assert worker.run() == 0
    assert (worker.stats.spin_hits, worker.stats.spin_misses) == (0, 0)
    c.close()


def test_stop_now_gives_the_running_job_back_without_spending_a_retry(
        client: Client, background: Background) -> None:
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 30}, retries=2)
    bg = background(["q"], name="bg")
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    bg.stop("now")
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "waiting"
    assert job.retries_left == 2
    assert client.redis.hget(jobs.RECORD, jid) == b"stopped"
    assert "bg" not in [w["name"] for w in client.workers.counts]


def test_stop_drain_lets_the_running_job_finish(client: Client, background: Background) -> None:
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 0.5})
    bg = background(["q"], name="bg")
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    bg.stop("drain")
    job = client.jobs[jid]
    assert job is not None and job.state == "complete"
    assert client.redis.hget(jobs.RECORD, jid) == b"slept"


def test_lock_lost_notice_stops_the_job_and_it_is_not_completed(
        client: Client, background: Background) -> None:
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 30})
    bg = background(["q"], name="bg")
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    client.core.call("timeout", jid)  # publishes lock_lost on ql:w:bg
    wait_for(lambda: client.redis.hget(jobs.RECORD, jid) == b"stopped")
    # timeout put it back at the front of the queue, so the worker takes it again
    wait_for(lambda: client.redis.hget(jobs.RUNS, jid) == b"2")
    bg.stop("now")
    assert client.redis.hget(jobs.COMPLETED, jid) is None
    job = client.jobs[jid]
    assert job is not None and job.state != "complete"


def test_heartbeats_keep_the_lock_of_a_long_job(client: Client, background: Background) -> None:
    client.config["q-heartbeat"] = 1
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 2.5})
    background(["q"], name="bg")
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    first = float(client.redis.hget(f"ql:j:{jid}", "expires") or 0)
    wait_for(lambda: float(client.redis.hget(f"ql:j:{jid}", "expires") or 0) > first + 0.5,
             timeout=3)
    # a competitor popping after the original 1 s lock would have run out gets nothing
    client.config["grace-period"] = 0
    later = float(text(client.redis.hget(jobs.STARTED, jid))) + 1.4
    wait_for(lambda: float(client.redis.hget(f"ql:j:{jid}", "expires") or 0) > later,
             timeout=3)
    assert client.redis.evalsha(client.core.sha, 0, "pop", later, "q", "thief", 1) in (
        b"{}", b"[]")
    wait_for(lambda: client.redis.hget(jobs.COMPLETED, jid) == b"1", timeout=5)


def test_job_reclaimed_by_a_worker_of_the_same_name_runs_to_completion(
        client: Client, background: Background) -> None:
    # A restarted worker keeps its name; reclaiming its predecessor's expired lock sends it
    # a lock_lost notice for a job it holds again. That stale notice must not stop the job.
    client.config["q-heartbeat"] = 1
    client.config["grace-period"] = 0
    jid = client.queues["q"].put(jobs.Noop, {})
    assert client.queues["q"].pop(worker="steady") is not None  # the crashed predecessor
    background(["q"], name="steady", interval=30)
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "complete", timeout=5)
    assert client.redis.hget(jobs.RUNS, jid) == b"1"


def test_one_log_line_per_job_start_and_end_and_tracebacks_for_errors(
        server_url: str, client: Client, caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import re

    ok = client.queues["q"].put(jobs.Noop, {})
    bad = client.queues["q"].put(jobs.Raiser, {})
    with caplog.at_level(logging.INFO, logger="qless_py.worker"):
        run_burst(server_url, ["q"])
    lines = caplog.text.splitlines()
    assert sum(f"start {ok} queue=q klass=tests.jobs.Noop" in line for line in lines) == 1
    assert any(re.search(rf"end {ok} queue=q klass=tests.jobs.Noop complete in \d+\.\d{{3}}s",
                         line) for line in lines)
    assert any(re.search(rf"end {bad} queue=q klass=tests.jobs.Raiser failed in", line)
               for line in lines)
    assert "Traceback" in caplog.text and f"boom from {bad}" in caplog.text
