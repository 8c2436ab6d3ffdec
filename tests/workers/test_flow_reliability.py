"""Throttles and ordering keys with real worker processes, also while children are killed
with kill -9: never more jobs running under a throttle than its maximum, and the jobs of
an ordering key one at a time, in put order, retried and killed ones again before the next.

The jobs themselves record what they see (tests/workers/flow_jobs.py). Some are victims:
their first run waits until the test kills the process running it, so every kill hits a
running job. These run on one server kind (Valkey, a private server each), like
test_reliability.py, and for both kinds of worker (threads, and ``--async``, whose thread
pool runs these plain-function jobs).
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from qless_py import Client
from tests.replies import text
from tests.workers import flow_jobs
from tests.workers.conftest import CliWorker

Start = Callable[..., CliWorker]


def victims_running(client: Client, members: list[str], victims: set[str]) -> dict[str, int]:
    """Victim jid -> the live process running it, from the jobs' own run sets."""
    found = {}
    for name in members:
        for raw in client.redis.smembers(name):
            pid, start, jid = text(raw).split(":", 2)
            if jid in victims and flow_jobs.process_id(int(pid)) == f"{pid}:{start}":
                found[jid] = int(pid)
    return found


def victims_of(client: Client, members: list[str], victims: set[str],
               pids: set[int]) -> set[str]:
    """The victims whose first run was counted in one of the processes ``pids`` (from the
    run sets): it will not wait to be killed again."""
    found = set()
    for name in members:
        for raw in client.redis.smembers(name):
            pid, _, jid = text(raw).split(":", 2)
            if jid in victims and int(pid) in pids \
                    and int(client.redis.hget(flow_jobs.RUNS, jid) or 0) >= 1:
                found.add(jid)
    return found


def settle(client: Client, jids: list[str], worker: CliWorker, members: list[str],
           victims: set[str], timeout: float = 90) -> int:
    """Wait until every job is complete, killing with kill -9 the process of each victim
    while it runs (once each); check the throttle's locks on the way. Returns the kills."""
    killed: set[str] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = client.jobs.get(*jids)
        if len(found) == len(jids) and all(j.state == "complete" for j in found):
            return len(killed)
        assert client.redis.zcard("ql:th:api-locks") <= 3
        running = victims_running(client, members, victims - killed)
        pids = set(running.values())
        for pid in pids:  # two victims may share a process: one kill
            os.kill(pid, signal.SIGKILL)
        killed |= set(running)
        # a victim that started in a killed process after the read above died with it
        killed |= victims_of(client, members, victims, pids)
        time.sleep(0.05)
    states = {j.jid: j.state for j in client.jobs.get(*jids)}
    raise AssertionError(f"jobs not complete after {timeout}s: "
                         f"{ {k: v for k, v in states.items() if v != 'complete'} }\n"
                         f"{worker.log[-3000:]}")


# eight jobs at a time in each process, in runner threads or in an asyncio worker
MODES = {"threads": ("--threads", "8"), "async": ("--async", "--concurrency", "8")}


def start_worker(cli_worker: Start, url: str, mode: str, processes: int = 2) -> CliWorker:
    return cli_worker("-q", "q", "--processes", str(processes), *MODES[mode], "--url", url,
                      "--interval", "0.2")


def retried_by_supervisor(worker: CliWorker) -> Counter[str]:
    """Jid -> how often the supervisor retried it for a killed child, from its log lines
    (``... deregistered; its jobs: <jid> retried, ...``)."""
    found: Counter[str] = Counter()
    for line in worker.log.splitlines():
        if "deregistered; its jobs: " in line:
            for part in line.split("its jobs: ", 1)[1].split(", "):
                jid, _, what = part.partition(" ")
                if what == "retried":
                    found[jid] += 1
    return found


def check_runs(client: Client, jids: list[str], victims: set[str],
               worker: CliWorker) -> None:
    """Every job ran once, plus at most once more each time the supervisor retried it for
    a killed child (a job popped but not started when its process died ran no more); every
    victim was retried, and no job was retried without a kill."""
    runs = {text(k): int(v) for k, v in client.redis.hgetall(flow_jobs.RUNS).items()}
    retried = retried_by_supervisor(worker)
    assert set(runs) == set(jids)
    assert set(retried) <= set(jids)
    for jid in jids:
        assert 1 <= runs[jid] <= 1 + retried[jid], (jid, runs[jid], retried[jid])
    check_killed(worker, victims)


def check_killed(worker: CliWorker, victims: set[str]) -> None:
    """Each victim's process was killed while it ran it, and the supervisor retried it."""
    retried = retried_by_supervisor(worker)
    assert all(retried[jid] >= 1 for jid in victims), (victims, retried)
    assert (worker.log.count("killed by SIGKILL") >= 1) == bool(victims)


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kills", [0, 4])
def test_a_throttle_of_three_runs_at_most_three_across_processes(
        private_server: Any, cli_worker: Start, kills: int, mode: str) -> None:
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    client.throttles["api"].maximum = 3
    items = [(flow_jobs.Concurrent, {"work": 0.1}) for _ in range(60)]
    items[10:10 + 8 * kills:8] = [(flow_jobs.Concurrent, {"work": 0.1, "victim": True})] * kills
    jids = client.queues["q"].put_many(items, throttles=["api"], retries=20)
    victims = {jid for jid, (_, data) in zip(jids, items, strict=True) if data.get("victim")}
    assert len(victims) == kills
    worker = start_worker(cli_worker, server.url, mode)
    assert settle(client, jids, worker, [flow_jobs.RUNNING], victims) == kills
    seen = [int(n) for n in client.redis.lrange(flow_jobs.SEEN, 0, -1)]
    check_runs(client, jids, victims, worker)
    assert len(seen) == sum(int(n) for n in client.redis.hvals(flow_jobs.RUNS))
    assert max(seen) <= 3, sorted(seen)[-10:]
    assert max(seen) == 3  # the throttle, not the worker, was the limit
    for suffix in ("locks", "pending", "ready"):
        assert client.redis.zcard(f"ql:th:api-{suffix}") == 0
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    client.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kills", [0, 4])
def test_ordering_keys_hold_under_retries_and_kill_9(
        private_server: Any, cli_worker: Start, kills: int, mode: str) -> None:
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    keys = [f"customer-{k}" for k in range(4)]
    per_key = 12
    jids: list[str] = []
    victims: set[str] = set()
    # put in an interleaved order, in batches, as a producer would; the fourth job of the
    # first `kills` keys is a victim
    for seq in range(per_key):
        items: list[Any] = [
            {"klass": flow_jobs.Ordered, "key": k, "retries": 50,
             "data": {"key": k, "seq": seq, "work": 0.02, "retry": 0.3,
                      "victim": seq == 3 and i < kills}}
            for i, k in enumerate(keys)]
        put = client.queues["q"].put_many(items)
        victims |= {jid for jid, item in zip(put, items, strict=True)
                    if item["data"]["victim"]}
        jids += put
    worker = start_worker(cli_worker, server.url, mode)
    members = [f"{flow_jobs.RUNNING}:{k}" for k in keys]
    assert settle(client, jids, worker, members, victims) == kills
    assert client.redis.lrange(flow_jobs.OVERLAP, 0, -1) == []
    for k in keys:
        runs = [int(n) for n in client.redis.lrange(flow_jobs.ORDER + k, 0, -1)]
        collapsed = [n for i, n in enumerate(runs) if i == 0 or runs[i - 1] != n]
        assert collapsed == list(range(per_key)), (k, runs)
    retried = sum(int(n) > 1 for n in client.redis.hvals(flow_jobs.RUNS))
    assert retried >= 5  # the jobs' own retries did happen
    check_killed(worker, victims)
    assert client.queues["q"].jobs.throttled() == []
    for k in keys:
        assert client.redis.zcard(f"ql:q:q-key:{k}") == 0
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    client.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
def test_a_stopped_worker_gives_back_its_throttle_locks(
        private_server: Any, cli_worker: Start, mode: str) -> None:
    """TERM makes the worker give back the jobs it holds (qlpy.giveback): their throttle
    locks go with them, once their handlers have returned, and a second worker runs every
    job, still three at a time."""
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    client.throttles["api"].maximum = 3
    # the jobs the first worker starts run until it is told to stop
    client.redis.set(flow_jobs.HOLD, 1)
    items = [(flow_jobs.Concurrent, {"work": 0.01, "hold": True}) for _ in range(8)]
    jids = client.queues["q"].put_many(items, throttles=["api"])
    first = start_worker(cli_worker, server.url, mode, processes=1)
    throttle = client.throttles["api"]
    wait_for_runs(client, 3)
    assert len(throttle.locks()) == 3
    first.signal(signal.SIGTERM)
    assert first.wait(30) == 0
    assert first.log.count("back to its queue") == 3, first.log[-2000:]
    assert throttle.locks() == []
    states = {job.state for job in client.jobs.get(*jids)}
    assert states <= {"waiting", "throttled"}, states
    client.redis.delete(flow_jobs.HOLD)
    second = start_worker(cli_worker, server.url, mode)
    assert settle(client, jids, second, [flow_jobs.RUNNING], set()) == 0
    seen = [int(n) for n in client.redis.lrange(flow_jobs.SEEN, 0, -1)]
    assert max(seen) <= 3
    runs = {text(k): int(v) for k, v in client.redis.hgetall(flow_jobs.RUNS).items()}
    assert sum(runs.values()) == len(jids) + 3  # the three given back ran again
    for suffix in ("locks", "pending", "ready"):
        assert client.redis.zcard(f"ql:th:api-{suffix}") == 0
    second.signal(signal.SIGTERM)
    assert second.wait(15) == 0
    client.close()


def wait_for_runs(client: Client, n: int, timeout: float = 30) -> None:
    """Wait until ``n`` runs have started (the jobs count themselves)."""
    deadline = time.monotonic() + timeout
    while int(client.redis.llen(flow_jobs.SEEN)) < n:
        assert time.monotonic() < deadline, "the runs did not start"
        time.sleep(0.02)
