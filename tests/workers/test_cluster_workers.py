"""``qless-py worker`` on real clusters of 3 masters and 3 replicas.

A worker of a namespace wakes on its work through key tracking on the namespace's master
and follows the namespace when its slot moves to another master. A fan-in pipeline in
three namespaces on three different masters, with two worker processes that each serve
all three, runs to its end, every job complete once and none failed, while one
namespace's slot is moved, while a master is killed with kill -9 and its replica
promoted, and while client connections are dropped.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
import redis

from qless_py import Client, Job
from qless_py.connect.cluster import key_slot, spread
from qless_py.keys import namespace_prefix
from qless_py.local_cluster import LocalCluster, Node
from tests.conftest import flushed_cluster_url
from tests.workers.conftest import KINDS, CliWorker, Kind, wait_for
from tests.workers.test_dropped_connections import (
    FAN,
    OPTIONS,
    STAGE,
    STAGES,
    all_complete,
    done_counts,
    put_once,
    steady,
)

Start = Callable[..., CliWorker]
MakeCluster = Callable[..., LocalCluster]
GROUPS = 6  # fan-in groups per namespace: 180 members, 6 joins, 1 report


def slot_of(namespace: str) -> int:
    return key_slot(namespace_prefix(namespace))


def test_a_worker_wakes_on_its_work_and_follows_a_move(
        private_cluster: MakeCluster, cli_worker: Start, kind: Kind) -> None:
    _wakes_and_follows(private_cluster("valkey", replicas=0), cli_worker, kind)


def test_on_redis_6_2_the_listener_finds_the_move_by_itself(
        private_cluster: MakeCluster, cli_worker: Start) -> None:
    # no sharded pub/sub, so no unasked sunsubscribe when the slot leaves: the listener's
    # check of its node after 5 s of silence finds the move
    _wakes_and_follows(private_cluster("redis6", replicas=0), cli_worker, KINDS[0])


def _wakes_and_follows(made: LocalCluster, cli_worker: Start, kind: Kind) -> None:
    url = made.url(query="namespace=billing")
    client = Client(url, worker_name="producer")
    worker = cli_worker("-q", "q", "--processes", "1", "--url", url, "--interval", "60",
                        *kind.args)
    wait_for(lambda: client.workers.counts != [], timeout=20)  # popped once, idle now
    # the put wakes the idle worker (its interval is 60 s)
    first = client.queues["q"].put(STAGE[kind.name], {})
    wait_for(lambda: (job := client.jobs[first]) is not None and job.state == "complete",
             timeout=20)
    # the namespace moves to another master; the worker's listener follows it
    source = made.master_of(slot_of("billing"))
    target = next(node for node in made.masters_now() if node is not source)
    made.migrate_slot(slot_of("billing"), target)
    wait_for(lambda: "subscribing on its new master" in worker.log, timeout=20)
    second = client.queues["q"].put(STAGE[kind.name], {})
    wait_for(lambda: (job := client.jobs[second]) is not None and job.state == "complete",
             timeout=20)
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
    assert " ERROR " not in worker.log and "Traceback" not in worker.log
    client.close()


def _put_pipeline(client: Client, stage: str) -> list[str]:
    """``GROUPS`` groups of ``FAN`` members through stages s1, s2, s3; a join in s4 per
    group waits for its members, and a report in s5 waits for every join."""
    jids: list[str] = []
    joins: list[str] = []
    for g in range(GROUPS):
        group = [f"g{g}-m{i}" for i in range(FAN)]
        put_once(client, partial(client.queues["s1"].put_many,
                 [{"klass": stage, "jid": jid, "data": {"next": STAGES, "work": 0.005}}
                  for jid in group]), group[0])
        put_once(client, partial(client.queues["s4"].put, stage, {"work": 0.001},
                                 jid=f"g{g}-join", depends=group), f"g{g}-join")
        jids += group
        joins.append(f"g{g}-join")
    put_once(client, partial(client.queues["s5"].put, stage, {"work": 0.001},
                             jid="report", depends=joins), "report")
    return [*jids, *joins, "report"]


def _ended(client: Client, jids: list[str]) -> bool:
    """Every job complete, or some job failed (the assertions then say which)."""
    return bool(all_complete(client, jids) or steady(client.jobs.failed))


def _dependency_sets(client: Client, namespace: str) -> list[bytes]:
    return list(client.redis.scan_iter(f"ql:{{{namespace}}}:j:*-depend*"))


def _past(client: Client, count: int) -> bool:
    return _completed(client) >= count


def _completed(client: Client) -> int:
    return int(steady(lambda: len(client.jobs.complete(0, 10_000))))


def _fail_over(made: LocalCluster, master: Node) -> None:
    """kill -9 ``master``, wait for its replica to take over, then start it again: it
    joins as the new master's replica, so writes that wait for one replica go on."""
    made.kill(master)
    promoted = made.wait_failover(master)
    master.server.start()
    wait_for(lambda: master in made.replicas_of(promoted), timeout=30, step=0.1)


@pytest.mark.slow
# each event, each server, each worker kind (not every product: a cluster takes seconds
# to start, and the suite's time is bounded)
@pytest.mark.parametrize(("server", "event", "worker_kind"), [
    ("valkey", "move", "threads"), ("redis", "failover", "async"),
    ("valkey", "drops", "async"),
])
def test_a_pipeline_over_three_masters_survives(
        private_cluster: MakeCluster, cli_worker: Start, server: str, event: str,
        worker_kind: str) -> None:
    made = private_cluster(server, replicas=1 if event == "failover" else 0)
    namespaces = spread(made.slot_map(), 3)
    assert len({made.master_of(slot_of(ns)).port for ns in namespaces}) == 3
    # every write waits for a replica, so a master's death loses no acknowledged write
    wait = "&wait_replicas=1&wait_timeout=2" if event == "failover" else ""
    urls = {ns: made.url(query=f"namespace={ns}{wait}") for ns in namespaces}
    clients = {ns: Client(urls[ns], worker_name="producer") for ns in namespaces}
    jids = {ns: _put_pipeline(clients[ns], STAGE[worker_kind]) for ns in namespaces}
    # two processes, each serving the three namespaces (wait_replicas rides on the URL)
    served = [arg for ns in namespaces for arg in ("--namespace", ns)]
    url = made.url(query=wait[1:]) if wait else made.url()
    workers = [cli_worker("-q", "s1", "-q", "s2", "-q", "s3", "-q", "s4", "-q", "s5",
                          "--processes", "1", *OPTIONS[worker_kind], "--url", url, *served,
                          "--interval", "1", "--order", "round-robin", "--name", f"w{i}")
               for i in range(2)]
    hit = namespaces[0]
    # the event strikes while the pipeline runs
    wait_for(lambda: _completed(clients[hit]) >= FAN, timeout=60, step=0.05)
    if event == "move":
        source = made.master_of(slot_of(hit))
        target = next(n for n in made.masters_now() if n is not source)
        made.migrate_slot(slot_of(hit), target)
        assert made.master_of(slot_of(hit)) is target
    elif event == "failover":
        _fail_over(made, made.master_of(slot_of(hit)))
    else:
        _drop_while_running(made, clients[hit], len(jids[hit]))
    # the event struck mid-run: the namespace it hit still had work left
    assert _completed(clients[hit]) < len(jids[hit]), "the pipeline ended first: lengthen it"
    for ns in namespaces:
        wait_for(partial(_ended, clients[ns], jids[ns]), timeout=120, step=0.2)
    for ns in namespaces:
        client = clients[ns]
        assert steady(client.jobs.failed) == {}, ns
        counts = done_counts(client, jids[ns])
        members = [jid for jid in jids[ns] if "-m" in jid]
        assert {jid for jid in members if counts[jid] != 3} == set(), (ns, "a stage ran twice")
        assert {jid for jid in jids[ns] if jid not in members and counts[jid] != 1} == set()
        left = steady(partial(_dependency_sets, client, ns))
        assert left == [], (ns, "dependency sets left behind")
    for worker in workers:
        worker.signal(signal.SIGTERM)
    for worker in workers:
        assert worker.wait(30) == 0
        assert "Traceback" not in worker.log
    for client in clients.values():
        client.close()


def _drop_while_running(made: LocalCluster, client: Client, total: int) -> None:
    """Drop every normal client connection on every master (CLIENT KILL), four times, each
    time once the pipeline has completed a few more jobs since the last drop."""
    admins = [redis.Redis(host="127.0.0.1", port=node.port) for node in made.masters_now()]
    try:
        for _ in range(4):
            done = _completed(client)
            assert done < total - 20, "the pipeline is ending: lengthen it"
            for admin in admins:
                admin.client_kill_filter(_type="normal", skipme=True)
            wait_for(partial(_past, client, done + 5), timeout=60, step=0.02)
    finally:
        for admin in admins:
            admin.close()


def test_a_killed_child_is_settled_and_deregistered_in_its_namespace(
        _clusters: Any, cli_worker: Start) -> None:
    made = _clusters["valkey"]
    url = flushed_cluster_url(made, "billing")
    client = Client(url, worker_name="producer")
    jid = client.queues["q"].put(STAGE["threads"], {"work": 60}, retries=2)
    worker = cli_worker("-q", "q", "--processes", "1", "--url", url, "--interval", "30")
    wait_for(lambda: (job := client.jobs[jid]) is not None and job.state == "running",
             timeout=20)
    job = client.jobs[jid]
    assert isinstance(job, Job)
    name = job.worker_name
    pid = int(name.rsplit("-", 1)[1])
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: f"worker {name} (process {pid}, killed by SIGKILL) deregistered"
             in worker.log, timeout=20)
    assert name not in [w["name"] for w in client.workers.counts]
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.retries_left == 1
    assert job.failure is not None and job.failure.group == "failed-retries-q"
    # it runs again, in the replacement process
    wait_for(lambda: isinstance(again := client.jobs[jid], Job) and again.state == "running"
             and again.worker_name != name, timeout=20)
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
    client.close()
