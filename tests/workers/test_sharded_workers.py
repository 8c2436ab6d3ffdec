"""``qless-py worker --shards`` on a real cluster of 3 masters: a namespace of 6 shards is
spread 2 to a master, two worker processes that serve every shard run each job once, and
each master does a third of the work; a worker whose count disagrees with the recorded one
stops in one line."""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from qless_py import Client, ShardedClient
from qless_py.client.relay import RemoteJob
from qless_py.connect.cluster import key_slot, spread
from qless_py.keys import namespace_prefix
from qless_py.local_cluster import LocalCluster
from qless_py.workers import Worker
from qless_py.workers.aio import AsyncWorker
from tests.conftest import flushed_cluster_url
from tests.workers.conftest import CliWorker, wait_for
from tests.workers.test_cluster_workers import _fail_over
from tests.workers.test_dropped_connections import STAGE, steady

Start = Callable[..., CliWorker]


def _evalsha_calls(made: LocalCluster) -> dict[int, int]:
    """EVALSHA calls so far on each master, by port."""
    return {node.port: int(node.call("INFO", "commandstats")
                           .get("cmdstat_evalsha", {}).get("calls", 0))
            for node in made.masters_now()}


def _all_complete(client: ShardedClient, jids: list[str]) -> bool:
    return all(job.state == "complete" for job in client.jobs.get(*jids)) and \
        len(client.jobs.get(*jids)) == len(jids)


@pytest.mark.parametrize("server", ["valkey", "redis"])
def test_two_workers_serve_every_shard_and_each_master_does_a_third(
        _clusters: Any, cli_worker: Start, server: str) -> None:
    made: LocalCluster = _clusters[server]
    url = flushed_cluster_url(made, "billing")
    client = ShardedClient(url, shards=6, worker_name="producer")
    try:
        masters = Counter(made.master_of(key_slot(namespace_prefix(name))).port
                          for name in client.shards.names)
        assert sorted(masters.values()) == [2, 2, 2]
        stage = STAGE["threads"]
        keyed = [client.queues["q"].put(stage, {"work": 0}, key="account-7")
                 for _ in range(6)]
        jids = keyed + client.queues["q"].put_many(
            [(stage, {"work": 0, "n": n}) for n in range(294)])
        before = _evalsha_calls(made)
        workers = [cli_worker("-q", "q", "--processes", "1", "--threads", "2", "--url", url,
                              "--shards", "6", "--interval", "1", "--order", "round-robin",
                              "--name", f"w{i}") for i in range(2)]
        wait_for(partial(_all_complete, client, jids), timeout=120, step=0.2)
        after = _evalsha_calls(made)
        for worker in workers:
            worker.signal(signal.SIGTERM)
        for worker in workers:
            assert worker.wait(30) == 0
            assert "Traceback" not in worker.log and " ERROR " not in worker.log
        # each job ran once, on its own shard
        runs = Counter(entry["what"] for job in client.jobs.get(*jids) for entry in job.history)
        assert runs["done"] == len(jids) and runs["popped"] == len(jids)
        # the keyed jobs ran in put order
        done_at = {job.jid: job.history[-1]["when"] for job in client.jobs.get(*keyed)}
        assert sorted(keyed, key=lambda jid: done_at[jid]) == keyed
        # every master did its share of the calls (a third, give or take: the idle
        # workers' pops and reads of due times fall evenly too)
        calls = [after[port] - before[port] for port in after]
        assert min(calls) > 0.6 * max(calls), calls
    finally:
        client.close()


def test_a_worker_whose_count_disagrees_stops_in_one_line(_clusters: Any,
                                                          cli_worker: Start) -> None:
    made: LocalCluster = _clusters["valkey"]
    url = flushed_cluster_url(made, "billing")
    client = ShardedClient(url, shards=6)
    try:
        client.queues["q"].put("a.Job", {})
        worker = cli_worker("-q", "q", "--processes", "1", "--url", url, "--shards", "4")
        assert worker.wait(30) == 1
        assert "cannot start the workers: namespace 'billing' has 6 shards (recorded in " \
               "ql:{billing}:shards), not 4" in worker.log
        assert len(client.queues["q"]) == 1
    finally:
        client.close()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _peak(spans: list[tuple[float, float]]) -> int:
    """The most runs in progress at one moment."""
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans],
                    key=lambda event: (event[0], event[1]))
    peak = running = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak


def test_a_throttle_of_3_over_6_shards_runs_3_at_once(_clusters: Any,
                                                      cli_worker: Start) -> None:
    made: LocalCluster = _clusters["valkey"]
    url = flushed_cluster_url(made, "billing")
    client = ShardedClient(url, shards=6, worker_name="producer")
    try:
        client.throttles["api"].maximum = 3
        throttled = [client.queues["q"].put("tests.workers.shard_jobs.Span", {"seconds": 0.05},
                                            throttles=["api"]) for _ in range(30)]
        free = [client.queues["q"].put("tests.workers.shard_jobs.Span", {"seconds": 0.01})
                for _ in range(30)]
        # 2 processes x 8 threads
        worker = cli_worker("-q", "q", "--processes", "2", "--threads", "8", "--url", url,
                            "--shards", "6", "--interval", "1")
        wait_for(partial(_all_complete, client, throttled + free), timeout=120, step=0.2)
        worker.signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        home = client.clients[client.shards.throttle_shard("api")]
        spans = {_text(jid): _text(span) for jid, span in
                 home.redis.hgetall(home.keys.prefix + "test:spans").items()}
        assert set(spans) >= set(throttled)  # every throttled job ran on the throttle's shard
        # the jobs recorded their own runs: never more than 3 at once, and 3 at times
        runs = [(float(spans[jid].split()[0]), float(spans[jid].split()[1]))
                for jid in throttled]
        assert _peak(runs) == 3
    finally:
        client.close()


def test_per_key_order_holds_across_shards_under_retries(_clusters: Any,
                                                         cli_worker: Start) -> None:
    made: LocalCluster = _clusters["valkey"]
    url = flushed_cluster_url(made, "billing")
    client = ShardedClient(url, shards=6, worker_name="producer")
    try:
        keys = [f"account-{n}" for n in range(6)]
        put = {key: [client.queues["q"].put("tests.workers.shard_jobs.RetriedOnce",
                                            {"key": key}, key=key, retries=2)
                     for _ in range(5)] for key in keys}
        worker = cli_worker("-q", "q", "--processes", "2", "--threads", "4", "--url", url,
                            "--shards", "6", "--interval", "1")
        jids = [jid for each in put.values() for jid in each]
        wait_for(partial(_all_complete, client, jids), timeout=120, step=0.2)
        worker.signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        for key, jids_of_key in put.items():
            shard = client.clients[client.shards.of(jids_of_key[0])]
            done = [_text(jid) for jid in
                    shard.redis.lrange(shard.keys.prefix + "test:order:" + key, 0, -1)]
            assert done == jids_of_key, key
    finally:
        client.close()


@pytest.mark.parametrize("kind", ["threads", "async"])
def test_a_worker_given_a_sharded_client_serves_every_shard(server_url: str,
                                                            kind: str) -> None:
    client = ShardedClient(server_url, namespace="billing", shards=4, worker_name="w")
    try:
        jids = [client.queues["q"].put(STAGE[kind], {"work": 0}) for _ in range(12)]
        worker_type = Worker if kind == "threads" else AsyncWorker
        worker = worker_type(client, ["q"], burst=True,  # type: ignore[arg-type]
                             handle_signals=False, interval=0.2)
        assert worker.order == "round-robin"
        assert [part.namespace for part in worker.parts] == list(client.shards.names)
        assert worker.run() == Worker.EXIT_DONE
        assert _all_complete(client, jids)
        with pytest.raises(ValueError, match="not both"):
            worker_type(client, ["q"], namespaces=["billing"])  # type: ignore[arg-type]
    finally:
        client.close()


def _slot(namespace: str) -> int:
    return key_slot(namespace_prefix(namespace))


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as listed:
        return [int(child) for child in listed.read().split()]


def _history(client: ShardedClient, jids: list[str]) -> dict[str, list[dict[str, Any]]]:
    return {job.jid: job.history for job in client.jobs.get(*jids)}


def _when(history: list[dict[str, Any]], what: str) -> list[float]:
    return [float(entry["when"]) for entry in history if entry["what"] == what]


# each fault on one of the two cluster legs, both legs for each test (a cluster takes
# seconds to start, and the suite's time is bounded)
FAN_IN = [("valkey", "none"), ("redis", "none"), ("valkey", "kill -9"),
          ("redis", "relay dies before its ack"), ("redis", "failover"), ("valkey", "drops")]
PIPELINE = [("redis", "none"), ("valkey", "relay dies before its ack"), ("redis", "kill -9"),
            ("valkey", "failover"), ("redis", "drops")]


@pytest.mark.parametrize(("server", "fault"), FAN_IN)
def test_a_fan_in_across_six_shards_runs_each_job_once(
        _clusters: Any, private_cluster: Callable[..., LocalCluster], cli_worker: Start,
        server: str, fault: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's shape: files spread over 6 shards on 3 masters, a package job per 10
    files (on other shards, mostly), a report waiting for every package; two worker
    processes, while a fault strikes."""
    if fault in ("failover", "drops"):
        made = private_cluster(server, replicas=1 if fault == "failover" else 0)
    else:
        made = _clusters[server]
    # with a failover ahead, every write waits for a replica (docs/cluster.md)
    wait = "&wait_replicas=1&wait_timeout=2" if fault == "failover" else ""
    url = flushed_cluster_url(made, "billing") + wait
    client = ShardedClient(url, shards=6, worker_name="producer")
    monkeypatch.setenv("QLESS_RELAY_LEASE", "1")
    if fault == "relay dies before its ack":
        monkeypatch.setenv("QLESS_TEST_RELAY_CRASH", str(tmp_path / "relay-crashed"))
    try:
        stage = STAGE["threads"]
        files = [[client.queues["files"].put(stage, {"work": 0.05}) for _ in range(10)]
                 for _ in range(6)]
        packages = [client.queues["packages"].put(stage, {"work": 0.02}, depends=group)
                    for group in files]
        report = client.queues["report"].put(stage, {"work": 0}, depends=packages)
        spread_over = {client.shards.of(jid) for group in files for jid in group}
        assert len(spread_over) == 6
        worker = cli_worker("-q", "files", "-q", "packages", "-q", "report",
                            "--processes", "2", "--threads", "2", "--url", url,
                            "--shards", "6", "--interval", "1")
        every = [jid for group in files for jid in group] + packages + [report]
        if fault != "none":  # strike once some files are done
            wait_for(lambda: len(steady(partial(client.jobs.complete, 0, 100))) >= 10,
                     timeout=60, step=0.01)
        if fault == "kill -9":
            os.kill(_children(worker.proc.pid)[0], signal.SIGKILL)
        elif fault == "failover":
            hit = made.master_of(_slot(client.shards.names[0]))
            _fail_over(made, hit)
        elif fault == "drops":
            for node in made.masters_now():
                node.call("CLIENT", "KILL", "TYPE", "normal")
        if fault != "none":
            ended = steady(lambda: client.jobs[report])
            assert ended is not None and ended.state != "complete", \
                "the pipeline ended before the fault: lengthen it"
        wait_for(lambda: steady(partial(_all_complete, client, every)), timeout=120, step=0.2)
        # and every message was acknowledged (a dead relay's come back after their lease)
        wait_for(lambda: steady(lambda: sum(int(c("qlpy.outbox", "length"))
                                            for c in client.clients)) == 0,
                 timeout=30, step=0.1)
        worker.signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        if fault == "relay dies before its ack":
            assert "dying before the acknowledgement" in worker.log
        history = _history(client, every)
        # every job completed once, and every fan-in ran after all it waited for
        assert {jid for jid in every if len(_when(history[jid], "done")) != 1} == set()
        for group, package in zip(files, packages, strict=True):
            assert min(_when(history[package], "popped")) >= \
                max(_when(history[jid], "done")[0] for jid in group)
        assert min(_when(history[report], "popped")) >= \
            max(_when(history[jid], "done")[0] for jid in packages)
        assert client.check().findings == []
    finally:
        client.close()


@pytest.mark.parametrize(("server", "fault"), PIPELINE)
def test_a_pipeline_across_two_namespaces_hands_each_job_over_once(
        _clusters: Any, private_cluster: Callable[..., LocalCluster], cli_worker: Start,
        server: str, fault: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stage 1 in namespace a, stage 2 in namespace b on another master (a hand-off per
    job), and a report in b waiting for every stage-1 job of a; two worker processes
    serving both, while a fault strikes."""
    if fault in ("failover", "drops"):
        made = private_cluster(server, replicas=1 if fault == "failover" else 0)
    else:
        made = _clusters[server]
    first, second = spread(made.slot_map(), 2)
    assert made.master_of(_slot(first)) is not made.master_of(_slot(second))
    flushed_cluster_url(made, first)
    wait = "&wait_replicas=1&wait_timeout=2" if fault == "failover" else ""
    a = Client(made.url(query=f"namespace={first}{wait}"), worker_name="producer")
    b = a.other(second)
    monkeypatch.setenv("QLESS_RELAY_LEASE", "1")
    if fault == "relay dies before its ack":
        monkeypatch.setenv("QLESS_TEST_RELAY_CRASH", str(tmp_path / "relay-crashed"))
    try:
        hand = "tests.workers.shard_jobs.HandOff"
        jids = [a.queues["s1"].put(hand, {"work": 0.05, "next": "s2", "namespace": second})
                for _ in range(40)]
        waits: list[Any] = [RemoteJob(first, jid) for jid in jids]
        report = b.queues["report"].put(hand, {}, depends=waits)
        assert b.jobs[report].state == "depends"  # type: ignore[union-attr]
        worker = cli_worker("-q", "s1", "-q", "s2", "-q", "report", "--processes", "2",
                            "--threads", "2", "--url", made.url(query=wait[1:]),
                            "--namespace", first, "--namespace", second, "--interval", "1")
        if fault != "none":
            wait_for(lambda: len(steady(partial(a.jobs.complete, 0, 100))) >= 10,
                     timeout=60, step=0.01)
        if fault == "kill -9":
            os.kill(_children(worker.proc.pid)[0], signal.SIGKILL)
        elif fault == "failover":
            _fail_over(made, made.master_of(_slot(second)))
        elif fault == "drops":
            for node in made.masters_now():
                node.call("CLIENT", "KILL", "TYPE", "normal")
        if fault != "none":
            ended = steady(lambda: b.jobs[report])
            assert ended is not None and ended.state != "complete", \
                "the pipeline ended before the fault: lengthen it"

        def done() -> bool:
            found = steady(partial(b.jobs.get, *jids, report))
            return len(found) == len(jids) + 1 and all(j.state == "complete" for j in found)

        wait_for(done, timeout=120, step=0.2)
        wait_for(lambda: steady(lambda: a("qlpy.outbox", "length")
                                + b("qlpy.outbox", "length")) == 0, timeout=30, step=0.1)
        worker.signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        if fault == "relay dies before its ack":
            assert "dying before the acknowledgement" in worker.log
        here = {job.jid: job.history for job in a.jobs.get(*jids)}
        there = {job.jid: job.history for job in b.jobs.get(*jids, report)}
        # each job completed once in a, was put once in b and completed once there
        for jid in jids:
            assert len(_when(here[jid], "done")) == 1, jid
            assert len(_when(there[jid], "put")) == 1, jid
            assert len(_when(there[jid], "done")) == 1, jid
        assert min(_when(there[report], "popped")) >= \
            max(_when(here[jid], "done")[0] for jid in jids)
        assert a.check().findings == [] and b.check().findings == []
    finally:
        a.close()
