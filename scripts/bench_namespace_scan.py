"""What ``qless-py web --all-namespaces`` pays to find the namespaces of a large keyspace.

Fills a private server with --keys plain keys (and --namespaces namespaces of one queue
each), then runs the dashboard's discovery (``qless_py.web.namespaces.discover``: SCAN
MATCH ql:{*}:queues TYPE zset, COUNT 1000 per call) --rounds times and prints its round
trips and wall time each time, with the machine's load average.

    python scripts/bench_namespace_scan.py --keys 1000000

The script starts its own server (qless_py.server.ServerProcess) and removes it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

import redis

from qless_py import Client
from qless_py.server import ServerProcess
from qless_py.web.namespaces import discover

BATCH = 10_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--namespaces", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="qlb-", dir="/tmp"))
    server = ServerProcess(root, kind="valkey").start()
    try:
        conn = redis.Redis.from_url(server.url)
        pipe = conn.pipeline(transaction=False)
        for i in range(args.keys):
            pipe.set(f"ql:j:filler-{i}", "x")
            if i % BATCH == BATCH - 1:
                pipe.execute()
        pipe.execute()
        for n in range(args.namespaces):
            with Client(server.url, namespace=f"ns-{n}") as client:
                client.queues["q"].put("bench.Job", {})
        print(f"{conn.dbsize():,} keys, load average {os.getloadavg()[0]:.2f}")
        with Client(server.url) as client:
            for _ in range(args.rounds):
                scan = discover(client, limit=max(args.keys * 2, 1000))
                print(f"found {len(scan.found)} namespaces in {scan.calls} round trips, "
                      f"{scan.seconds * 1000:.1f} ms (complete: {scan.complete})")
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
