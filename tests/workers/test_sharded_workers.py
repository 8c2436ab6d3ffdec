"""``qless-py worker --shards`` on a real cluster of 3 masters: a namespace of 6 shards is
spread 2 to a master, two worker processes that serve every shard run each job once, and
each master does a third of the work; a worker whose count disagrees with the recorded one
stops in one line."""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from qless_py import ShardedClient
from qless_py.connect.cluster import key_slot
from qless_py.keys import namespace_prefix
from qless_py.local_cluster import LocalCluster
from qless_py.workers import Worker
from qless_py.workers.aio import AsyncWorker
from tests.conftest import flushed_cluster_url
from tests.workers.conftest import CliWorker, wait_for
from tests.workers.test_dropped_connections import STAGE

Start = Callable[..., CliWorker]


def _evalsha_calls(made: LocalCluster) -> dict[int, int]:
    """EVALSHA calls so far on each master, by port."""
    return {node.port: int(node.call("INFO", "commandstats")
                           .get("cmdstat_evalsha", {}).get("calls", 0))
            for node in made.masters_now()}


def _all_complete(client: ShardedClient, jids: list[str]) -> bool:
    return all(job.state == "complete" for job in client.jobs.get(*jids)) and \
        len(client.jobs.get(*jids)) == len(jids)


def test_two_workers_serve_every_shard_and_each_master_does_a_third(
        _clusters: Any, cli_worker: Start) -> None:
    made: LocalCluster = _clusters["valkey"]
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
