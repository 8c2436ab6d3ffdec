"""Every signal of the worker's table, sent to the real ``qless-py worker`` command, for
both kinds of worker (threads, and ``--async`` with ``async def`` jobs)."""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest

from qless_py import Client, Job, keys
from tests.workers.conftest import CliWorker, Kind, wait_for

Start = Callable[..., CliWorker]


def start_one(cli_worker: Start, url: str, kind: Kind, *extra: str) -> CliWorker:
    worker = cli_worker("-q", "q", "--processes", "1", "--url", url, "--name", "sig",
                        "--interval", "30", *kind.args, *extra)
    wait_for(lambda: len(worker.children()) == 1)
    return worker


def registered(client: Client) -> list[str]:
    return [w["name"] for w in client.workers.counts]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_term_and_int_stop_at_once_and_give_the_job_back(
        server_url: str, client: Client, cli_worker: Start, signum: int, kind: Kind) -> None:
    jobs = kind.jobs
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 60}, retries=3)
    worker = start_one(cli_worker, server_url, kind)
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    worker.signal(signum)
    assert worker.wait(15) == 0  # the job would sleep for 60 s
    assert client.redis.hget(jobs.RECORD, jid) == b"stopped"  # told to stop, it did
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "waiting"
    assert job.retries_left == 3  # no retry spent
    assert "gave " + jid + " back" in worker.log
    assert "sig" not in registered(client)


def test_term_gives_a_job_back_only_after_its_handler_returned(
        server_url: str, client: Client, cli_worker: Start, kind: Kind) -> None:
    # The handler ignores the stop (the async one swallows its cancellation) and completes
    # its job 0.5 s later, within the worker's 2 s grace: the job was still leased to it,
    # so its complete counts and nothing ran the job a second time meanwhile.
    jobs = kind.jobs
    jid = client.queues["q"].put(jobs.Stubborn, {"seconds": 0.5}, retries=3)
    worker = start_one(cli_worker, server_url, kind)
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    assert client.redis.hget(jobs.RECORD, f"{jid}:sig") == b"completed"
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "complete"
    assert [entry["what"] for entry in job.history] == ["put", "popped", "done"]
    assert "back to its queue" not in worker.log


def test_quit_finishes_the_current_job_then_exits(
        server_url: str, client: Client, cli_worker: Start, kind: Kind) -> None:
    jobs = kind.jobs
    first = client.queues["q"].put(jobs.Sleeper, {"seconds": 1.0})
    one_at_a_time = ("--concurrency", "1") if kind.name == "async" else ()
    worker = start_one(cli_worker, server_url, kind, *one_at_a_time)
    wait_for(lambda: client.redis.hget(jobs.STARTED, first))
    second = client.queues["q"].put(jobs.Sleeper, {"seconds": 1.0})
    worker.signal(signal.SIGQUIT)
    assert worker.wait(15) == 0
    job = client.jobs[first]
    assert job is not None and job.state == "complete"
    assert client.redis.hget(jobs.RECORD, first) == b"slept"
    later = client.jobs[second]
    assert later is not None and later.state == "waiting"
    assert client.redis.hget(jobs.STARTED, second) is None
    assert "sig" not in registered(client)


def test_usr1_logs_every_thread_stack_and_keeps_working(
        server_url: str, client: Client, cli_worker: Start, kind: Kind) -> None:
    jobs = kind.jobs
    worker = start_one(cli_worker, server_url, kind, "--threads", "2")
    wait_for(lambda: "sig" in registered(client))
    worker.signal(signal.SIGUSR1)
    if kind.name == "async":  # every task of the loop, and every thread
        wait_for(lambda: "qless-listener" in worker.log)
        assert "stacks of every task" in worker.log
        assert "task qless-popper" in worker.log and "task qless-heartbeat" in worker.log
    else:
        wait_for(lambda: "qless-runner-1" in worker.log)
        assert "stacks" in worker.log and "qless-heartbeat" in worker.log
    jid = client.queues["q"].put(jobs.Noop, {})
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "complete")
    assert worker.proc.poll() is None


def test_usr2_pauses_popping_and_cont_resumes(
        server_url: str, client: Client, cli_worker: Start, kind: Kind) -> None:
    jobs = kind.jobs
    worker = start_one(cli_worker, server_url, kind)
    wait_for(lambda: "sig" in registered(client))
    channel = keys.worker_channel("sig")
    wait_for(lambda: client.redis.pubsub_numsub(channel) == [(channel.encode(), 1)])
    worker.signal(signal.SIGUSR2)
    wait_for(lambda: "paused" in worker.log)
    jid = client.queues["q"].put(jobs.Noop, {})
    # The put's notice and then this message reach the worker's listener in that order,
    # on one connection: once the listener has logged the message, it has woken the
    # worker for the job, which a worker that ignored the pause would have popped.
    client.redis.publish(channel, "not a notice")
    wait_for(lambda: "unreadable notice" in worker.log)
    job = client.jobs[jid]
    assert job is not None and job.state == "waiting"
    worker.signal(signal.SIGCONT)
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "complete",
             timeout=3)
    wait_for(lambda: f"start {jid}" in worker.log)  # written when its runner goes idle
    log = worker.log
    assert log.index("SIGCONT, resuming") < log.index(f"start {jid}")  # popped on resume
    assert worker.proc.poll() is None


def test_supervisor_restarts_a_killed_child(
        server_url: str, client: Client, cli_worker: Start, kind: Kind) -> None:
    jobs = kind.jobs
    worker = cli_worker("-q", "q", "--processes", "2", "--url", server_url,
                        "--interval", "30", *kind.args)
    first = wait_for(lambda: (c := worker.children()) and len(c) == 2 and c)
    import os

    os.kill(first[0], signal.SIGKILL)
    wait_for(lambda: len(c := worker.children()) == 2 and first[0] not in c)
    assert "killed by SIGKILL" in worker.log
    jid = client.queues["q"].put(jobs.Noop, {})
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "complete")
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0


def test_max_jobs_recycles_the_child_and_burst_exits(
        server_url: str, client: Client, cli_worker: Start, kind: Kind) -> None:
    jobs = kind.jobs
    jids = [client.queues["q"].put(jobs.Noop, {"i": i}) for i in range(5)]
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url, "--max-jobs", "2",
                        "--burst", *kind.args)
    assert worker.wait(30) == 0
    for jid in jids:
        job = client.jobs[jid]
        assert job is not None and job.state == "complete"
    assert worker.log.count("recycling") >= 2


def test_bad_options_are_usage_errors(cli_worker: Start) -> None:
    server_url = "redis://127.0.0.1:1/0"  # refused before any connection is made
    worker = cli_worker("-q", "q", "--threads", "0", "--url", server_url)
    assert worker.wait(15) == 2
    worker = cli_worker("--url", server_url)
    assert worker.wait(15) == 2
    worker = cli_worker("-q", "q", "--order", "zigzag", "--url", server_url)
    assert worker.wait(15) == 2
    worker = cli_worker("-q", "q", "--url", "http://example.com/")
    assert worker.wait(15) == 2
    assert "--url" in worker.log
    worker = cli_worker("-q", "q", "--url", server_url, "--import", "no_such_module_x")
    assert worker.wait(15) == 1
    assert "no_such_module_x" in worker.log
    worker = cli_worker("-q", "q", "--concurrency", "4", "--url", server_url)
    assert worker.wait(15) == 2
    assert "--concurrency needs --async" in worker.log
    worker = cli_worker("-q", "q", "--async", "--concurrency", "0", "--url", server_url)
    assert worker.wait(15) == 2
