#!/usr/bin/env python
"""qless_py on a local 3-master cluster: each master's share of a spread workload, a
worker's throughput on a cluster against a standalone server of the same binary, and a
call's cost through each kind of client.

    python scripts/bench_cluster.py [--server valkey|redis] [--namespaces 6] [--jobs 30000]
        [--rounds 3] [--calls 3000] [--shards 6] [--parts calls,throughput,spread,shards]

Three measurements, all in one run on the same machine:

1. Cost per call: ``queue.length()`` (one core call) ``--calls`` times through our client
   on the standalone server, our client on a namespace of the cluster, and redis-py's
   ``RedisCluster`` sending the same EVALSHA (it routes by the declared key), in
   interleaved rounds; the median of the rounds' mean microseconds per call.
2. Throughput of one worker (``qless-py worker --processes 1``, no-op jobs that complete
   themselves) on one namespace: ``--jobs`` jobs on the standalone server and on the
   cluster, in interleaved rounds; the median jobs/s of each and their ratio.
3. Spread: ``--namespaces`` namespaces whose slots fall on the masters in turn (chosen as
   docs/cluster.md advises), ``--jobs`` jobs split evenly between them, one worker per
   namespace, all at once; each master's share of the commands it processed and of its
   main thread's CPU (``INFO stats``, ``INFO cpu``) over the run.
4. Shards: ``--jobs`` jobs in one namespace of ``--shards`` shards (docs/cluster.md,
   "Sharded namespaces") and the same jobs in one plain namespace, each drained by one
   worker process (``--shards`` for the first), in interleaved rounds: jobs/s of each,
   the servers' main-thread CPU per job summed over the masters, and each master's share
   of the commands and CPU of the sharded runs.

The servers are private (loopback, random ports, no persistence) and removed afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from redis.cluster import RedisCluster

from qless_py import Client, lua
from qless_py.connect.cluster import spread
from qless_py.keys import namespace_prefix
from qless_py.local_cluster import LocalCluster, Node
from qless_py.server import ServerProcess, free_port

JOB_MODULE = '''
class NoopJob:
    @staticmethod
    def process(job):
        job.complete()
'''


def per_call(label: str, call: Callable[[], object], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return 1e6 * (time.perf_counter() - started) / calls


def cost_per_call(standalone: str, made: LocalCluster, args: argparse.Namespace) -> None:
    plain = Client(standalone, namespace="bench")
    ours = Client(made.url(query="namespace=bench"))
    seed = made.nodes[0]
    routed = RedisCluster(host="127.0.0.1", port=seed.port)
    prefix = namespace_prefix("bench")
    sha = routed.script_load(lua.SOURCE)
    for node in made.masters_now():
        node.call("SCRIPT", "LOAD", lua.SOURCE)
    now = str(time.time())
    kinds: dict[str, Callable[[], object]] = {
        "our client, standalone": lambda: plain.queues["q"].length(),
        "our client, cluster": lambda: ours.queues["q"].length(),
        "redis-py RedisCluster": lambda: routed.evalsha(sha, 1, prefix, "length", now, "q"),
    }
    for call in kinds.values():  # connect and warm up
        for _ in range(200):
            call()
    results: dict[str, list[float]] = {name: [] for name in kinds}
    names = list(kinds)
    for r in range(args.rounds * 2):
        for name in names[r % len(names):] + names[:r % len(names)]:
            results[name].append(per_call(name, kinds[name], args.calls))
    print("cost per call (queue.length(), one core call), µs, median of "
          f"{len(results[names[0]])} rounds of {args.calls}:")
    for name in names:
        print(f"  {name:<24} {statistics.median(results[name]):7.1f}  "
              f"(range {min(results[name]):.1f}-{max(results[name]):.1f})")
    plain.close()
    ours.close()
    routed.close()


def drain(url: str, jobs: int, path: str, client: Client) -> tuple[float, float]:
    """``jobs`` no-op jobs through one worker process: jobs/s from spawn to empty, and the
    server's main-thread CPU per job in microseconds (of the node that holds them)."""
    queue = client.queues["bench"]
    for start in range(0, jobs, 500):
        queue.put_many([("bench_jobs.NoopJob", {}) for _ in range(min(500, jobs - start))])
    cpu_before = _cpu(client)
    started = time.monotonic()
    worker = subprocess.Popen([sys.executable, "-m", "qless_py", "worker", "-q", "bench",
                               "--url", url, "--processes", "1", "--path", path],
                              stderr=subprocess.DEVNULL)
    while len(queue) > 0:
        time.sleep(0.005)
    elapsed = time.monotonic() - started
    cpu = _cpu(client) - cpu_before
    worker.terminate()
    worker.wait(30)
    client("queue.forget", "bench")
    return jobs / elapsed, 1e6 * cpu / jobs


def _cpu(client: Client) -> float:
    info = client.redis.info("cpu")
    return float(info["used_cpu_user_main_thread"]) + float(info["used_cpu_sys_main_thread"])


def throughput(standalone: str, made: LocalCluster, args: argparse.Namespace,
               path: str) -> None:
    urls = {"standalone": f"{standalone}?namespace=bench",
            "cluster": made.url(query="namespace=bench")}
    clients = {name: Client(url) for name, url in urls.items()}
    rates: dict[str, list[float]] = {name: [] for name in urls}
    cpus: dict[str, list[float]] = {name: [] for name in urls}
    for r in range(args.rounds):
        order = list(urls) if r % 2 == 0 else list(urls)[::-1]
        for name in order:
            rate, cpu = drain(urls[name], args.jobs, path, clients[name])
            rates[name].append(rate)
            cpus[name].append(cpu)
    mid = {name: statistics.median(values) for name, values in rates.items()}
    print(f"one worker process, one namespace, {args.jobs} no-op jobs, median of "
          f"{args.rounds} interleaved rounds:")
    for name, values in rates.items():
        print(f"  {name:<11} {mid[name]:7.0f} jobs/s  (rounds: "
              f"{', '.join(f'{v:.0f}' for v in values)}); server CPU "
              f"{statistics.median(cpus[name]):.0f} µs/job")
    print(f"  cluster / standalone: {mid['cluster'] / mid['standalone']:.3f}")
    for client in clients.values():
        client.close()


def _counters(node: Node) -> tuple[int, float]:
    conn = redis.Redis(host="127.0.0.1", port=node.port)
    try:
        stats, cpu = conn.info("stats"), conn.info("cpu")
        return (int(stats["total_commands_processed"]),
                float(cpu["used_cpu_user_main_thread"]) + float(cpu["used_cpu_sys_main_thread"]))
    finally:
        conn.close()


def shares(made: LocalCluster, args: argparse.Namespace, path: str) -> None:
    names = spread(made.slot_map(), args.namespaces)
    clients = {ns: Client(made.url(query=f"namespace={ns}")) for ns in names}
    each = args.jobs // len(names)
    for client in clients.values():
        queue = client.queues["bench"]
        for start in range(0, each, 500):
            queue.put_many([("bench_jobs.NoopJob", {}) for _ in range(min(500, each - start))])
    masters = made.masters_now()
    before = {node.port: _counters(node) for node in masters}
    started = time.monotonic()
    workers = [subprocess.Popen([sys.executable, "-m", "qless_py", "worker", "-q", "bench",
                                 "--url", made.url(query=f"namespace={ns}"),
                                 "--processes", "1", "--path", path],
                                stderr=subprocess.DEVNULL) for ns in names]
    while any(len(client.queues["bench"]) > 0 for client in clients.values()):
        time.sleep(0.01)
    elapsed = time.monotonic() - started
    after = {node.port: _counters(node) for node in masters}
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.wait(30)
    commands = {port: after[port][0] - before[port][0] for port in after}
    cpu = {port: after[port][1] - before[port][1] for port in after}
    print(f"{len(names)} namespaces ({', '.join(names)}) spread over {len(masters)} masters, "
          f"{each * len(names)} jobs, {len(names)} worker processes, {elapsed:.1f}s "
          f"({each * len(names) / elapsed:.0f} jobs/s):")
    for port in sorted(commands):
        print(f"  master :{port}  commands {commands[port]:>8}  "
              f"({100 * commands[port] / sum(commands.values()):5.1f} %)   CPU "
              f"{cpu[port]:6.2f}s ({100 * cpu[port] / sum(cpu.values()):5.1f} %)")
    for client in clients.values():
        client.close()


def _drain_all(url: str, total: int, put: Callable[[], None], waiting: Callable[[], int],
               made: LocalCluster, path: str, extra: list[str]) -> dict[str, Any]:
    """Put ``total`` jobs, then drain them with one worker process; what each master did."""
    put()
    masters = made.masters_now()
    before = {node.port: _counters(node) for node in masters}
    started = time.monotonic()
    worker = subprocess.Popen([sys.executable, "-m", "qless_py", "worker", "-q", "bench",
                               "--url", url, "--processes", "1", "--path", path, *extra],
                              stderr=subprocess.DEVNULL)
    while waiting() > 0:
        time.sleep(0.005)
    elapsed = time.monotonic() - started
    after = {node.port: _counters(node) for node in masters}
    worker.terminate()
    worker.wait(30)
    return {"rate": total / elapsed,
            "commands": {port: after[port][0] - before[port][0] for port in after},
            "cpu": {port: after[port][1] - before[port][1] for port in after}}


def _one_call_a_look(shards: Any) -> Callable[[], int]:
    """Whether jobs remain in a sharded namespace, at one call per look as for a plain
    one (the looks run every 5 ms during the drain, so they must cost both the same): a
    shard found empty stays empty (nothing is put meanwhile), so each look asks the next
    shard not yet found empty, in turn (the looks' cost falls on every master alike)."""
    left = list(range(shards.shards.count))
    turn = [0]

    def look() -> int:
        while left:
            turn[0] = (turn[0] + 1) % len(left)
            if shards.queues["bench"].on(left[turn[0]]).length() > 0:
                return 1
            left.pop(turn[0])
        left.extend(range(shards.shards.count))  # for the next round
        return 0

    return look


def sharded(made: LocalCluster, args: argparse.Namespace, path: str) -> None:
    from qless_py import ShardedClient

    shards = ShardedClient(made.url(query="namespace=sharded"), shards=args.shards)
    plain = Client(made.url(query="namespace=plain"))

    def put_to(queue: Any) -> Callable[[], None]:
        def put() -> None:
            for start in range(0, args.jobs, 500):
                queue.put_many([("bench_jobs.NoopJob", {})
                                for _ in range(min(500, args.jobs - start))])
        return put

    runs: dict[str, list[dict[str, Any]]] = {"plain": [], "sharded": []}
    for r in range(args.rounds):
        for name in (["plain", "sharded"] if r % 2 == 0 else ["sharded", "plain"]):
            if name == "plain":
                runs[name].append(_drain_all(
                    made.url(query="namespace=plain"), args.jobs,
                    put_to(plain.queues["bench"]), plain.queues["bench"].length, made, path,
                    []))
                plain("queue.forget", "bench")
            else:
                runs[name].append(_drain_all(
                    made.url(query="namespace=sharded"), args.jobs,
                    put_to(shards.queues["bench"]), _one_call_a_look(shards), made,
                    path, ["--shards", str(args.shards)]))
                for client in shards.clients:
                    client("queue.forget", "bench")
    print(f"one worker process, {args.jobs} no-op jobs, median of {args.rounds} interleaved "
          f"rounds: one namespace of {args.shards} shards ({', '.join(shards.shards.names)}) "
          "against one plain namespace:")
    mid: dict[str, tuple[float, float]] = {}
    for name, each in runs.items():
        rates = [run["rate"] for run in each]
        cpu = [1e6 * sum(run["cpu"].values()) / args.jobs for run in each]
        mid[name] = (statistics.median(rates), statistics.median(cpu))
        commands = statistics.median(sum(run["commands"].values()) / args.jobs for run in each)
        print(f"  {name:<8} {mid[name][0]:7.0f} jobs/s (rounds: "
              f"{', '.join(f'{v:.0f}' for v in rates)}); server CPU {mid[name][1]:.0f} µs/job "
              f"(rounds: {', '.join(f'{v:.0f}' for v in cpu)}); {commands:.1f} commands/job")
    print(f"  sharded / plain: throughput {mid['sharded'][0] / mid['plain'][0]:.3f}, server "
          f"CPU per job {mid['sharded'][1] / mid['plain'][1]:.3f}")
    commands: dict[int, int] = {}
    cpu_of: dict[int, float] = {}
    for run in runs["sharded"]:
        for port, n in run["commands"].items():
            commands[port] = commands.get(port, 0) + n
        for port, seconds in run["cpu"].items():
            cpu_of[port] = cpu_of.get(port, 0.0) + seconds
    print("  each master's share of the sharded runs:")
    for port in sorted(commands):
        print(f"    master :{port}  commands {commands[port]:>8} "
              f"({100 * commands[port] / sum(commands.values()):5.1f} %)   CPU "
              f"{cpu_of[port]:6.2f}s ({100 * cpu_of[port] / sum(cpu_of.values()):5.1f} %)")
    shards.close()
    plain.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["valkey", "redis"], default="valkey")
    parser.add_argument("--namespaces", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=30000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--shards", type=int, default=6)
    parser.add_argument("--parts", default="calls,throughput,spread,shards",
                        help="which measurements (comma-separated)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="qlbc-"))
    server = ServerProcess(root / "standalone", kind=args.server, port=free_port(),
                           unixsocket=False, appendonly=False).start()
    made = LocalCluster(root / "cluster", masters=3, replicas=0, kind=args.server,
                        appendonly=False).start()
    try:
        with tempfile.TemporaryDirectory() as path:
            Path(path, "bench_jobs.py").write_text(JOB_MODULE)
            if "calls" in args.parts:
                cost_per_call(server.url, made, args)
            if "throughput" in args.parts:
                throughput(server.url, made, args, path)
            if "spread" in args.parts:
                shares(made, args, path)
            if "shards" in args.parts:
                sharded(made, args, path)
    finally:
        made.stop()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
