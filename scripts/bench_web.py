"""Server time of the dashboard's main pages and /metrics on a large database.

Fills a private server with --queues queues holding --jobs waiting jobs in all (put through
the core, in batches), adds a day's traffic (popped, completed and failed jobs on every
queue, several workers), then asks for the overview, a queue page, a job page and /metrics
--rounds times each through the app in-process and prints the server time the app reports
(its Server-Timing header: from the request's arrival to the response's start, rendering
included), median, p90 and max, in milliseconds.

    python scripts/bench_web.py --queues 100 --jobs 1000000

The script starts its own server (qless_py.server.ServerProcess) and removes it.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from qless_py import Client
from qless_py.server import ServerProcess
from qless_py.web import create_app

BATCH = 5000


def fill(client: Client, queues: int, jobs: int) -> None:
    names = [f"queue-{i:03d}" for i in range(queues)]
    per_queue, extra = divmod(jobs, queues)
    started = time.monotonic()
    done = 0
    for i, name in enumerate(names):
        left = per_queue + (1 if i < extra else 0)
        while left:
            n = min(BATCH, left)
            client.queues[name].put_many([("bench.Job", {"i": k}) for k in range(n)])
            left -= n
            done += n
        if i % 10 == 9:
            print(f"  {done:,} jobs in {i + 1} queues, {time.monotonic() - started:.0f} s")


def traffic(url: str, queues: int) -> None:
    """Per queue: 40 jobs popped and completed, 3 failed, by ten workers."""
    workers = [Client(url, worker_name=f"worker-{w}") for w in range(10)]
    for i in range(queues):
        name = f"queue-{i:03d}"
        worker = workers[i % len(workers)]
        for job in worker.queues[name].pop(43):
            if job.jid and len(job.data) and job.data["i"] % 15 == 0:
                job.fail(f"{name}-ValueError", "Traceback (most recent call last):\nValueError")
            else:
                job.complete()
        worker.queues[name].pop(2)  # running now
    for worker in workers:
        worker.close()


def measure(web: TestClient, path: str, rounds: int) -> list[float]:
    times = []
    for i in range(rounds + 3):
        answer = web.get(path, headers={"accept": "text/html"})
        assert answer.status_code == 200, (path, answer.status_code)
        if i >= 3:  # the first answers warm the client's connections and the templates
            times.append(float(answer.headers["server-timing"].split("dur=")[1]))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queues", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--server", default="valkey", help="valkey or redis")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="qlbw-", dir="/tmp"))
    server = ServerProcess(root, kind=args.server).start()
    try:
        client = Client(server.url, worker_name="bench")
        print(f"filling {args.queues} queues with {args.jobs:,} jobs")
        fill(client, args.queues, args.jobs)
        traffic(server.url, args.queues)
        job = client.queues["queue-007"].jobs.waiting(100, 1)[0]
        web = TestClient(create_app(client))
        paths = {"overview": "/", "queue page": "/queues/queue-007",
                 "job page": f"/jobs/{job}", "/metrics": "/metrics"}
        print(f"server time in ms over {args.rounds} requests ({args.server}):")
        for label, path in paths.items():
            times = sorted(measure(web, path, args.rounds))
            p90 = times[int(len(times) * 0.9) - 1]
            print(f"  {label:>11}: median {statistics.median(times):6.1f}  "
                  f"p90 {p90:6.1f}  max {times[-1]:6.1f}")
        web.close()
        client.close()
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
