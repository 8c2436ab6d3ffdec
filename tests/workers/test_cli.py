"""``qless-py worker`` options that shape where and how jobs run: --path, --import, --workdir."""

from __future__ import annotations

import signal
import textwrap
from collections.abc import Callable
from pathlib import Path

from qless_py import Client
from tests import jobs
from tests.lookups import get_job
from tests.replies import text
from tests.workers.conftest import CliWorker, wait_for

Start = Callable[..., CliWorker]

MODULE = '''
import os

PRELOADED_BY = os.getpid()


class PathJob:
    @staticmethod
    def process(job):
        job.client.redis.hset("test:record", job.jid,
                              "%d|%d|%s" % (PRELOADED_BY, os.getpid(), os.getcwd()))
'''


def test_path_import_and_workdir(server_url: str, client: Client, cli_worker: Start,
                                 tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "qlpy_pathjobs.py").write_text(textwrap.dedent(MODULE))
    workdir = tmp_path / "work"
    jid = client.queues["q"].put("qlpy_pathjobs.PathJob", {})
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url, "--burst",
                        "--path", str(code), "--import", "qlpy_pathjobs",
                        "--workdir", str(workdir), "--name", "pathy")
    assert worker.wait(30) == 0
    job = client.jobs[jid]
    assert job is not None and job.state == "complete"
    preloaded_by, ran_in, cwd = text(client.redis.hget(jobs.RECORD, jid)).split("|")
    assert preloaded_by == str(worker.proc.pid)  # imported once, before forking
    assert ran_in != preloaded_by  # and run in a forked child
    assert cwd.startswith(str(workdir / "pathy"))
    assert not any(workdir.rglob("*"))  # everything the worker made there is gone


def test_default_workdir_is_removed_when_the_supervisor_exits(
        server_url: str, client: Client, cli_worker: Start) -> None:
    jid = client.queues["q"].put(jobs.WorkdirProbe, {})
    worker = cli_worker("-q", "q", "--processes", "2", "--url", server_url, "--interval", "30")
    wait_for(lambda: client.redis.hget(jobs.RECORD, jid))
    cwd = text(client.redis.hget(jobs.RECORD, jid)).split("|")[0]
    root = Path(cwd).parents[1]
    assert root.name.startswith("qless-py-") and root.exists()
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    assert not root.exists()


def test_processes_and_threads_combine(server_url: str, client: Client,
                                       cli_worker: Start) -> None:
    # two groups of four jobs, each job waiting for its whole group to run at once
    jids = [client.queues["q"].put(jobs.Gather, {"group": n // 4, "size": 4})
            for n in range(8)]
    worker = cli_worker("-q", "q", "--processes", "2", "--threads", "2", "--url", server_url,
                        "--interval", "30")
    wait_for(lambda: all((j := client.jobs[jid]) is not None and j.state == "complete"
                         for jid in jids), timeout=30)
    assert [client.redis.hget(jobs.RECORD, jid) for jid in jids] == [b"met"] * 8
    popped_by = {h["worker"] for jid in jids for h in get_job(client, jid).history
                 if h.get("what") == "popped"}
    assert len(popped_by) == 2  # two processes, each with its own worker name
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0


def test_a_killed_childs_job_runs_again_at_once_in_its_replacement(
        server_url: str, client: Client, cli_worker: Start) -> None:
    import os

    jid = client.queues["q"].put(jobs.Sleeper, {"seconds": 0.5})
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url, "--name", "steady",
                        "--resume", "--interval", "30")
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    child = worker.children()[0]
    os.kill(child, signal.SIGKILL)  # the lock (60 s) is still held by "steady"
    # the supervisor retries it at once, before the replacement (same name) starts, so
    # that a job that kills its process spends its retries instead of being resumed for ever
    wait_for(lambda: client.redis.hget(jobs.RUNS, jid) == b"2", timeout=10)
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "complete", timeout=5)
    assert "steady (process" in worker.log and f"{jid} retried" in worker.log
    assert "resuming" not in worker.log  # nothing was left for --resume
    history = get_job(client, jid).history
    assert [e["worker"] for e in history if e["what"] == "popped"] == ["steady", "steady"]
    assert not any(e["what"] == "timed-out" for e in history)
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0


def test_spin_option_reaches_the_worker_and_bad_values_are_refused(
        server_url: str, client: Client, cli_worker: Start) -> None:
    jid = client.queues["q"].put(jobs.Noop, {})
    worker = cli_worker("-q", "q", "--processes", "0", "--url", server_url, "--burst",
                        "--spin-us", "250")
    assert worker.wait(30) == 0
    assert "spin 250 us" in worker.log
    job = client.jobs[jid]
    assert job is not None and job.state == "complete"
    default = cli_worker("-q", "q", "--processes", "0", "--url", server_url, "--burst")
    assert default.wait(30) == 0
    assert "spin 0 us" in default.log  # off unless asked for
    bad = cli_worker("-q", "q", "--processes", "0", "--url", server_url, "--spin-us", "-1")
    assert bad.wait(30) == 2
    assert "--spin-us" in bad.log and "Traceback" not in bad.log
