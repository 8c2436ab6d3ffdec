"""A server restarted under running workers answers ``LOADING`` while it reads its AOF.

The workers must ride that out as the server condition it is: one WARNING per part and
outage, an INFO line when the server answers again, no ERROR line and no traceback, and
every job complete exactly once. A child killed during that window has its jobs settled by
the supervisor as soon as the server answers, not a lock length later.

The server's AOF holds enough filler keys, loaded with ``key-load-delay``, that it answers
``LOADING`` for a couple of seconds; the tests wait on the server's ``loading`` flag (INFO
persistence), never on a sleep. ``appendfsync always`` makes every acknowledged write
durable, so a kill -9 of the server loses nothing a worker was told had happened.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable
from typing import Any

import redis

from qless_py import Client, Job
from qless_py.server import ServerProcess, free_port
from tests.workers.conftest import CliWorker, Kind, wait_for

Start = Callable[..., CliWorker]

FILLER = 10_000  # keys in the AOF's base ...
KEY_LOAD_DELAY = "150"  # ... each taking this many microseconds to load: about 2 s


def _info(server: ServerProcess) -> dict[str, Any] | None:
    """The server's persistence section, or None while it cannot be read."""
    try:
        conn = redis.Redis.from_url(server.url, socket_timeout=1)
        try:
            return conn.info("persistence")
        finally:
            conn.close()
    except (redis.RedisError, OSError):
        return None


def _loading_server(private_server: Any) -> ServerProcess:
    """An AOF server whose base file holds FILLER keys (so a restart loads for a while)."""
    server: ServerProcess = private_server("valkey", appendonly=True, port=free_port())
    server.unixsocket = False  # TCP: the restarted server is the same URL
    server.extra_args = ("--appendfsync", "always",
                         "--loading-process-events-interval-bytes", "1024")
    server.restart()
    conn = redis.Redis.from_url(server.url)
    pipe = conn.pipeline(transaction=False)
    for i in range(FILLER):
        pipe.set(f"filler:{i}", i)
    pipe.execute()
    conn.bgrewriteaof()  # the filler goes into the AOF's base, where key-load-delay applies
    wait_for(lambda: (info := _info(server)) is not None
             and not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]
             and info["aof_last_bgrewrite_status"] == "ok", timeout=30)
    conn.close()
    server.extra_args += ("--key-load-delay", KEY_LOAD_DELAY)
    return server


def _restart_loading(server: ServerProcess) -> None:
    """kill -9 the server, start it again and return once it is loading its data."""
    server.kill()
    server.start(wait=False)
    wait_for(lambda: (info := _info(server)) is not None and info["loading"] == 1,
             timeout=10, step=0.005)


def _loaded(server: ServerProcess) -> None:
    wait_for(lambda: (info := _info(server)) is not None and info["loading"] == 0,
             timeout=60)


def _done_once(client: Client, jids: list[str]) -> bool:
    jobs = client.jobs.get(*jids)
    return len(jobs) == len(jids) and all(
        job.state == "complete" and [e["what"] for e in job.history].count("done") == 1
        for job in jobs)


def _quiet_log(text: str) -> None:
    """No ERROR line and no traceback: a restart the worker handles is not an error."""
    assert " ERROR " not in text and "Traceback" not in text, text[-4000:]


def test_workers_ride_out_a_server_loading_its_data(private_server: Any, cli_worker: Start,
                                                     kind: Kind) -> None:
    server = _loading_server(private_server)
    client = Client(server.url, worker_name="producer")
    jids = client.queues["q"].put_many(
        [(kind.jobs.Quiet, {"seconds": 0.01})] * 400, retries=20)
    worker = cli_worker("-q", "q", "--processes", "2", "--url", server.url,
                        "--interval", "1", "--socket-timeout", "1", *kind.args)
    wait_for(lambda: sum(job.state == "complete" for job in client.jobs.get(*jids[:60])) >= 20,
             timeout=30)
    _restart_loading(server)
    _loaded(server)
    client.close()
    client = Client(server.url, worker_name="producer")
    wait_for(lambda: _done_once(client, jids), timeout=60)
    assert client.jobs.failed() == {}
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    log = worker.log
    _quiet_log(log)
    # it met the outage, said so once per part, and said when it was over
    assert re.search(r"WARNING .*(LOADING|refused|Connection)", log), log[-4000:]
    assert "the server answers again" in log or "subscribed again" in log
    client.close()


def test_a_child_killed_while_the_server_loads_is_settled_once_it_answers(
        private_server: Any, cli_worker: Start, kind: Kind) -> None:
    server = _loading_server(private_server)
    client = Client(server.url, worker_name="producer")
    jids = [client.queues["q"].put(kind.jobs.Quiet, {"seconds": 4}, retries=5)
            for _ in range(2)]
    worker = cli_worker("-q", "q", "--processes", "2", "--url", server.url,
                        "--interval", "1", "--socket-timeout", "1", *kind.args)
    jobs = wait_for(lambda: len(running := [job for job in client.jobs.get(*jids)
                                            if job.state == "running"]) == 2 and running)
    victim: Job = jobs[0]
    pid = int(victim.worker_name.rsplit("-", 1)[1])
    assert pid in worker.children()
    lock_ends = victim.expires_at  # the job's lock would run out then (60 s heartbeat)
    client.close()
    _restart_loading(server)
    os.kill(pid, signal.SIGKILL)  # while the server answers LOADING to everyone
    wait_for(lambda: "cannot settle the jobs of worker" in worker.log)
    _loaded(server)
    client = Client(server.url, worker_name="producer")
    # settled as soon as the server answers: retried (one retry spent), not left running
    retried = wait_for(lambda: (job := client.jobs[victim.jid]) is not None
                       and isinstance(job, Job) and job.retries_left == 4 and job, timeout=20)
    assert time.time() < lock_ends - 20, "settled only near the lock's expiry"
    wait_for(lambda: f"worker {victim.worker_name} (process {pid}, killed by SIGKILL) "
             "deregistered (after" in worker.log)
    assert retried.state != "running" or retried.worker_name != victim.worker_name
    wait_for(lambda: _done_once(client, jids), timeout=30)
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    _quiet_log(worker.log)
    client.close()
