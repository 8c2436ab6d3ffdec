#!/usr/bin/env python
"""What waiting across namespaces costs, in core calls (deterministic: counted, not timed).

    python scripts/bench_remote.py [--server valkey|redis] [--jobs 1000]

On a private server, two namespaces a and b. ``--jobs`` dependencies are put in a, and as
many dependents in b, each waiting for one job of a (``RemoteJob``); the dependencies are
popped and completed, and ``client.relay()`` applies a's outbox in steps of 100. The same
is done within one namespace for comparison. Printed: EVALSHA calls per released
dependent in each phase (INFO commandstats), and the difference.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import redis

from qless_py import Client, RemoteJob
from qless_py.server import ServerProcess


def calls(conn: redis.Redis) -> int:
    stats = conn.info("commandstats").get("cmdstat_evalsha", {})
    return int(stats.get("calls", 0))


def run(url: str, jobs: int, across: bool) -> dict[str, float]:
    conn = redis.Redis.from_url(url)
    conn.flushall()
    a = Client(url, namespace="a", worker_name="w")
    b = a.other("b") if across else a
    phases: dict[str, float] = {}
    mark = calls(conn)

    def phase(name: str) -> None:
        nonlocal mark
        now = calls(conn)
        phases[name] = (now - mark) / jobs
        mark = now

    deps = [a.queues["q"].put("x.Dep", {}) for _ in range(jobs)]
    phase("put the dependencies")
    dependents = [b.queues["q2"].put("x.Waits", {}, depends=[RemoteJob("a", dep)] if across
                                     else [dep]) for dep in deps]
    phase("put the dependents")
    for _ in range(0, jobs, 100):
        for job in a.queues["q"].pop(100):
            job.complete()
    phase("pop and complete the dependencies")
    if across:
        while a.relay(100):
            pass
    phase("relay")
    assert all(job.state == "waiting" for job in b.jobs.get(*dependents))
    a.close()
    conn.close()
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["valkey", "redis"], default="valkey")
    parser.add_argument("--jobs", type=int, default=1000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="qlbr-"))
    server = ServerProcess(root, kind=args.server).start()
    try:
        within = run(server.url, args.jobs, False)
        across = run(server.url, args.jobs, True)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"core calls (EVALSHA) per dependent, {args.jobs} dependents, each waiting for "
          "one job:")
    print(f"  {'phase':<36} {'one namespace':>14} {'across two':>11}")
    for name in across:
        print(f"  {name:<36} {within.get(name, 0):14.2f} {across[name]:11.2f}")
    extra = sum(across.values()) - sum(within.values())
    print(f"  {'extra per released dependent':<36} {'':>14} {extra:11.2f}")


if __name__ == "__main__":
    main()
