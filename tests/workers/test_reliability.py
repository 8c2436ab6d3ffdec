"""Reliability with real processes and real servers: kill -9, frozen workers, server outages.

These run on one server kind (Valkey, in a private server each) to keep the suite quick;
the behaviour under test lives in the worker, not in the server. Each runs for both kinds
of worker (``kind``: threads, and ``--async`` with ``async def`` twins of the jobs).
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

from qless_py import Client, Job
from qless_py.server import free_port
from tests import jobs
from tests.lookups import get_job
from tests.replies import text
from tests.workers.conftest import CliWorker, Kind, wait_for

Start = Callable[..., CliWorker]


def in_two_places(client: Client, queues: list[str]) -> set[str]:
    """Jids indexed in more than one queue set, from one atomic snapshot (MULTI/EXEC)."""
    pipe = client.redis.pipeline(transaction=True)
    for q in queues:
        for suffix in ("work", "locks", "scheduled", "depends"):
            pipe.zrange(f"ql:q:{q}-{suffix}", 0, -1)
    seen: dict[bytes, int] = {}
    for members in pipe.execute():
        for jid in members:
            seen[jid] = seen.get(jid, 0) + 1
    return {jid.decode() for jid, n in seen.items() if n > 1}


def fast_reclaim(client: Client) -> None:
    client.config["heartbeat"] = 2
    client.config["grace-period"] = 0


def all_complete(client: Client, jids: list[str]) -> bool:
    return all(j.state == "complete" for j in client.jobs.get(*jids)) and \
        len(client.jobs.get(*jids)) == len(jids)


def all_settled(client: Client, jids: list[str]) -> bool:
    """Every job complete, or failed because its handler's own call timed out (or, through
    redis.asyncio, found its connection closed by the timeout)."""
    found = client.jobs.get(*jids)
    return len(found) == len(jids) and all(
        j.state == "complete" or (j.state == "failed" and j.failure is not None
                                  and j.failure.group in ("q-TimeoutError",
                                                          "q-ConnectionError"))
        for j in found)


def queue_sets_empty(client: Client, queues: list[str]) -> bool:
    pipe = client.redis.pipeline(transaction=False)
    for q in queues:
        for suffix in ("work", "locks", "scheduled", "depends"):
            pipe.zcard(f"ql:q:{q}-{suffix}")
    return not any(pipe.execute())


@pytest.mark.slow
def test_kill_9_during_a_pipeline_loses_nothing_and_completes_once(
        private_server: Any, cli_worker: Start, kind: Kind) -> None:
    stage = kind.jobs.Stage
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    fast_reclaim(client)
    groups, fan = 125, 15
    stages = {"q1": "q2"}
    first_stage: list[str] = []
    joins: list[str] = []
    for g in range(groups):
        members = [f"g{g}-m{i}" for i in range(fan)]
        client.queues["q1"].put_many(
            [{"klass": stage, "data": {"next": stages, "work": 0.002}, "jid": jid,
              "retries": 20} for jid in members])
        first_stage += members
        joins.append(client.queues["q3"].put(stage, {"work": 0.001}, jid=f"g{g}-join",
                                             depends=members, retries=20))
    everything = first_stage + joins
    assert len(everything) == 2000
    worker = cli_worker("-q", "q1", "-q", "q2", "-q", "q3", "--processes", "2",
                        "--url", server.url, "--interval", "1", "--order", "round-robin",
                        *kind.args)
    rng = random.Random(20261121)
    kills = 0
    deadline = time.monotonic() + 60
    while not all_complete(client, everything) and time.monotonic() < deadline:
        time.sleep(rng.uniform(0.05, 0.3))
        assert in_two_places(client, ["q1", "q2", "q3"]) == set()
        children = worker.children()
        if kills < 12 and children:
            os.kill(rng.choice(children), signal.SIGKILL)
            kills += 1
    assert all_complete(client, everything), "jobs were lost"
    assert kills >= 5
    assert queue_sets_empty(client, ["q1", "q2", "q3"])
    assert client.jobs.failed() == {}
    counts = {text(k): int(v) for k, v in client.redis.hgetall(jobs.COMPLETED).items()}
    assert max(counts.values()) == 1, "a stage was completed twice"
    expected = [f"{j}:q1" for j in first_stage] + [f"{j}:q2" for j in first_stage] + \
        [f"{j}:q3" for j in joins]
    missing = set(expected) - set(counts)
    # a kill between complete() returning and the count being written loses one count
    # per job running in the process
    assert len(missing) <= kills * kind.at_once, missing
    assert "killed by SIGKILL" in worker.log
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    client.close()


def test_frozen_worker_loses_its_job_and_does_not_complete_it(
        private_server: Any, cli_worker: Start, kind: Kind) -> None:
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    fast_reclaim(client)
    jid = client.queues["q"].put(kind.jobs.Stubborn, {"seconds": 1.5})
    frozen = cli_worker("-q", "q", "--processes", "1", "--url", server.url, "--name", "frozen",
                        "--interval", "1", *kind.args)
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    child = frozen.children()[0]
    os.kill(child, signal.SIGSTOP)
    try:
        other = cli_worker("-q", "q", "--processes", "1", "--url", server.url,
                           "--name", "other", "--interval", "1", *kind.args)
        wait_for(lambda: client.redis.hget(jobs.COMPLETED, jid) == b"1", timeout=15)
        job = client.jobs[jid]
        assert isinstance(job, Job) and job.state == "complete" and job.worker_name == ""
        assert any(h.get("worker") == "other" for h in job.history if h.get("what") == "popped")
    finally:
        os.kill(child, signal.SIGCONT)
    # after SIGCONT the stale handler's complete is refused, and it is not counted; in the
    # asyncio worker the refused heartbeat may cancel the handler while its complete waits
    # for the (refusing) reply
    refusals = {b"refused: LockLostError"} | (
        {b"refused: CancelledError"} if kind.name == "async" else set())
    wait_for(lambda: client.redis.hget(jobs.RECORD, f"{jid}:frozen") in refusals, timeout=10)
    assert client.redis.hget(jobs.COMPLETED, jid) == b"1"
    assert client.redis.hget(jobs.RECORD, f"{jid}:other") == b"completed"
    wait_for(lambda: "lost" in frozen.log, timeout=5)
    for w in (frozen, other):
        w.signal(signal.SIGTERM)
        assert w.wait(15) == 0
    client.close()


def test_lost_job_that_will_not_stop_gets_its_process_replaced(
        private_server: Any, cli_worker: Start, kind: Kind) -> None:
    server = private_server("valkey")
    server_url = server.url
    client = Client(server_url, worker_name="producer")
    jid = client.queues["q"].put(kind.jobs.Stubborn, {"seconds": 30})
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url, "--interval", "30",
                        "--lost-grace", "0.5", *kind.args)
    wait_for(lambda: client.redis.hget(jobs.STARTED, jid))
    before = worker.children()
    client.core.call("timeout", jid)  # lock_lost for the holder
    wait_for(lambda: "did not stop" in worker.log, timeout=10)
    wait_for(lambda: (c := worker.children()) and c != before, timeout=10)
    # the replacement takes the job again (it was put back at the front as stalled)
    wait_for(lambda: int(client.redis.hget(jobs.RUNS, jid) or 0) == 2, timeout=10)
    assert client.redis.hget(jobs.COMPLETED, jid) is None
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    client.close()


def _flow(client: Client, n: int, kind: Kind) -> list[str]:
    return [client.queues["q"].put(kind.jobs.Sleeper, {"seconds": 0.01}, retries=20)
            for _ in range(n)]


def test_frozen_server_is_logged_retried_and_survived(
        private_server: Any, cli_worker: Start, kind: Kind) -> None:
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    fast_reclaim(client)
    jids = _flow(client, 150, kind)
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server.url, "--interval", "1",
                        "--socket-timeout", "0.5", *kind.args)
    wait_for(lambda: client.redis.hlen(jobs.COMPLETED) >= 20)
    server.signal(signal.SIGSTOP)
    time.sleep(3.0)
    server.signal(signal.SIGCONT)
    # A handler whose own Redis call hit the frozen server raised, so its job may end failed
    # (q-TimeoutError); every other job completes, and none is left running or waiting.
    wait_for(lambda: all_settled(client, jids), timeout=30)
    assert worker.proc.poll() is None, "the worker died"
    assert "retrying" in worker.log
    more = _flow(client, 5, kind)
    wait_for(lambda: all_complete(client, more), timeout=10)
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    client.close()


def test_server_killed_and_restarted_with_aof(private_server: Any, cli_worker: Start,
                                              kind: Kind) -> None:
    server = private_server("valkey", appendonly=True, port=free_port())
    server.unixsocket = False  # connect over TCP so the restarted server is the same URL
    url = server.url
    client = Client(url, worker_name="producer")
    fast_reclaim(client)
    jids = _flow(client, 150, kind)
    time.sleep(1.2)  # let the AOF fsync (everysec) cover the puts
    worker = cli_worker("-q", "q", "--processes", "1", "--url", url, "--interval", "1",
                        "--socket-timeout", "1", *kind.args)
    wait_for(lambda: client.redis.hlen(jobs.COMPLETED) >= 20)
    server.kill()
    time.sleep(2.0)
    server.start()
    client.close()
    client = Client(url, worker_name="producer")
    wait_for(lambda: all_complete(client, jids), timeout=40)
    assert worker.proc.poll() is None, "the worker died"
    assert "retrying" in worker.log
    assert client.jobs.failed() == {}
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    client.close()


def test_jobs_leased_by_a_lost_reply_are_adopted_after_recovery(private_server: Any,
                                                                 kind: Kind) -> None:
    import threading

    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from qless_py.workers import Worker
    from qless_py.workers.aio import AsyncWorker

    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    jid = client.queues["q"].put(kind.jobs.Noop, {}, retries=3)
    # a pop whose reply never reached the worker: the job is leased to its name (60 s lock)
    assert client.queues["q"].pop(worker="orph") is not None
    conn = redis.Redis.from_url(server.url, retry=Retry(NoBackoff(), 0), socket_timeout=0.3)
    orphan = Client(server.url, worker_name="orph", redis_client=conn)
    worker = Worker(orphan, ["q"], interval=0.2) if kind.name == "threads" else \
        AsyncWorker(orphan, ["q"], interval=0.2)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    wait_for(lambda: worker._listener is not None and worker._listener.subscribed)
    time.sleep(0.3)
    assert get_job(client, jid).state == "running"
    server.signal(signal.SIGSTOP)  # the worker's next pops time out ...
    time.sleep(1.0)
    server.signal(signal.SIGCONT)  # ... and once they work again it looks for orphans
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "complete", timeout=5)
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.retries_left == 3  # no lock expiry, no retry spent
    worker.stop("now")
    thread.join(10)
    worker.client.close()
    conn.close()
    client.close()
