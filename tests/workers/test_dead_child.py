"""A child of ``qless-py worker`` killed by a signal: its name and its jobs are settled at once."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable

import pytest

from qless_py import Client, Job
from qless_py.connect.resp import Endpoint
from qless_py.server import free_port
from qless_py.workers import dead_child
from tests import jobs
from tests.workers.conftest import ROOT, CliWorker, wait_for

Start = Callable[..., CliWorker]


def registered(client: Client) -> list[str]:
    return [w["name"] for w in client.workers.counts]


def cli_workers(url: str) -> list[str]:
    """The names ``qless-py workers --json`` lists."""
    out = subprocess.run([sys.executable, "-m", "qless_py", "workers", "--json", "--url", url],
                         check=True, capture_output=True, text=True, cwd=str(ROOT)).stdout
    return [w["name"] for w in json.loads(out)]


def holder(client: Client, jid: str) -> str:
    """The worker name running ``jid``, once its handler has started."""
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "running"
    return job.worker_name


def test_a_child_killed_with_kill_9_is_deregistered_and_its_job_retried_at_once(
        server_url: str, client: Client, cli_worker: Start) -> None:
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 60}, retries=2)
    worker = cli_worker("-q", "q", "--processes", "2", "--url", server_url, "--interval", "30")
    name = holder(client, jid)  # hostname-pid
    pid = int(name.rsplit("-", 1)[1])
    assert pid in worker.children() and name in registered(client)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: f"worker process {pid} (slot" in worker.log)  # the supervisor noticed
    wait_for(lambda: name not in registered(client), timeout=1.0)
    assert f"worker {name} (process {pid}, killed by SIGKILL) deregistered" in worker.log
    assert name not in cli_workers(server_url)
    # its job spent one retry, as the lock's expiry would have a minute later, and runs again
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.retries_left == 1 and job.worker_name != name
    assert job.failure is not None and job.failure.group == "failed-retries-q"
    assert f"process {pid}) was killed by SIGKILL" in job.failure.message
    wait_for(lambda: int(client.redis.hget(jobs.RUNS, jid) or 0) == 2)
    assert not any(entry["what"] == "timed-out" for entry in job.history)


def test_a_job_with_no_retries_left_fails_when_its_process_is_killed(
        server_url: str, client: Client, cli_worker: Start) -> None:
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 60}, retries=0)
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url, "--name", "w",
                        "--interval", "30")
    assert holder(client, jid) == "w"
    os.kill(worker.children()[0], signal.SIGKILL)
    wait_for(lambda: "w (process" in worker.log and "deregistered" in worker.log)
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "failed"
    assert job.failure is not None and job.failure.group == "failed-retries-q"
    # the replacement under the same name started after the settle and runs on
    wait_for(lambda: len(worker.children()) == 1 and "w" in registered(client))


def test_a_child_the_supervisor_kills_at_shutdown_gives_its_job_back_unspent(
        server_url: str, client: Client, cli_worker: Start) -> None:
    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 60}, retries=2)
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url, "--name", "w",
                        "--interval", "30")
    assert holder(client, jid) == "w"
    child = worker.children()[0]
    os.kill(child, signal.SIGSTOP)  # it cannot stop by itself, nor give its job back
    worker.signal(signal.SIGTERM)
    wait_for(lambda: "stopping the worker processes" in worker.log)
    worker.signal(signal.SIGTERM)  # a second TERM: the supervisor kills the children
    assert worker.wait(15) == 0
    assert f"worker w (process {child}, killed by SIGKILL) deregistered" in worker.log
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "waiting" and job.retries_left == 2
    assert "w" not in registered(client)


def test_a_server_out_of_reach_leaves_the_jobs_to_their_locks_and_says_so(
        caplog: pytest.LogCaptureFixture) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    info = {"name": "w", "url": url, "endpoint": dataclasses.asdict(Endpoint.from_url(url))}
    with caplog.at_level(logging.INFO, logger="qless_py.worker"):
        dead_child.settle(info, 123, "killed by SIGKILL", spend_retry=True)
    assert "could not settle the jobs of worker w (process 123, killed by SIGKILL)" in \
        caplog.text
    assert "they wait for their locks to expire" in caplog.text
