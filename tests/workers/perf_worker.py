"""Worker throughput and where the CPU goes (a measurement script, not a test).

    python tests/workers/perf_worker.py --url redis://127.0.0.1:6501/0 --jobs 20000 \
        --processes 2 [--startup 5] [-- extra worker options]

Queues ``--jobs`` no-op jobs (the handler completes the job itself, as in the shared
benchmark), runs ``qless-py worker`` until the queue is empty, and prints the rate, the
server's CPU per job (``INFO cpu``, main thread) and the worker processes' CPU per job
(``getrusage`` of children). With ``--startup N`` it also starts the worker N times for a
single job and prints the time from spawn to that job's completion. The server is flushed
first: never point it at real data.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from qless_py import Client

JOB_MODULE = '''
class NoopJob:
    @staticmethod
    def process(job):
        job.complete()
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--jobs", type=int, default=20000)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--startup", type=int, default=0, metavar="N",
                        help="also measure spawn-to-first-completion N times")
    parser.add_argument("extra", nargs="*", help="more qless-py worker options (after --)")
    args = parser.parse_args()
    client = Client(args.url)
    if args.startup:
        startup(client, args)
    client.redis.flushall()
    queue = client.queues["perf"]
    for start in range(0, args.jobs, 500):
        queue.put_many([("perf_jobs.NoopJob", {})
                        for _ in range(min(500, args.jobs - start))])
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "perf_jobs.py").write_text(JOB_MODULE)
        cpu = client.redis.info("cpu")
        before = cpu["used_cpu_user_main_thread"] + cpu["used_cpu_sys_main_thread"]
        spawned = resource.getrusage(resource.RUSAGE_CHILDREN)  # the start-up runs' share
        started = time.monotonic()
        worker = subprocess.Popen(
            [sys.executable, "-m", "qless_py", "worker", "-q", "perf", "--url", args.url,
             "--processes", str(args.processes), "--path", tmp, *args.extra],
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
    print(f"{n} jobs in {elapsed:.2f}s = {n / elapsed:.0f} jobs/s (incl. start-up); "
          f"server CPU {1e6 * (after - before) / n:.0f} µs/job; "
          f"worker CPU {1e6 * worker_cpu / n:.0f} µs/job; "
          f"failed: {client.jobs.failed()}")


def startup(client: Client, args: argparse.Namespace) -> None:
    """Spawn the worker for one queued job, N times; print spawn-to-completion times."""
    queue = client.queues["perf"]
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "perf_jobs.py").write_text(JOB_MODULE)
        for _ in range(args.startup):
            client.redis.flushall()
            jid = queue.put("perf_jobs.NoopJob", {})
            started = time.monotonic()
            worker = subprocess.Popen(
                [sys.executable, "-m", "qless_py", "worker", "-q", "perf", "--url", args.url,
                 "--processes", str(args.processes), "--path", tmp, *args.extra],
                stderr=subprocess.DEVNULL, env=dict(os.environ))
            while client.redis.hget(f"ql:j:{jid}", "state") != b"complete":
                time.sleep(0.001)
            times.append(time.monotonic() - started)
            worker.terminate()
            worker.wait(30)
    times.sort()
    print(f"start-up (spawn to first completion), {args.processes} process(es): median "
          f"{times[len(times) // 2]:.3f}s, min {times[0]:.3f}s, max {times[-1]:.3f}s")


if __name__ == "__main__":
    main()
