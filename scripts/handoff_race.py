"""The hand-off race, measured (a measurement script, not a test).

    python scripts/handoff_race.py [--jobs 200] [--threads 4] [--tails 0,0.5,1,5]

One in-process worker with several threads takes jobs trickling into queue ``a``. Each
handler completes its job into ``b`` and then goes on working for a while (the tail, in
ms); another thread of the same process pops the job from ``b`` meanwhile. A lease that
process drops shows as a ``timed-out`` entry in the job's history once its lock runs out,
so the lock is short here (``heartbeat`` 1 s, no grace period). For each tail the script
prints how many jobs were hit and how long the pipeline took. It starts its own Valkey.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from qless_py import Client
from qless_py.server import ServerProcess
from qless_py.workers import Worker


class Handoff:
    """Stage ``a`` completes into ``b``, then works ``data['tail']`` seconds more (the
    worker runs in this process, so it finds the class as ``__main__.Handoff``)."""

    @staticmethod
    def a(job: Any) -> None:
        job.complete(next="b")
        tail = float(job.data.get("tail", 0))
        if tail:
            time.sleep(tail)

    @staticmethod
    def b(job: Any) -> None:
        job.complete()


def timed_out(client: Client, jids: list[str]) -> list[str]:
    """The jids whose history shows a lock that ran out."""
    return [job.jid for job in client.jobs.get(*jids)
            if any(entry.get("what") == "timed-out" for entry in job.history)]


def run(url: str, jobs: int, threads: int, tail: float, gap: float) -> tuple[int, float]:
    """Run the pipeline once; (jobs hit, seconds until every job was complete)."""
    client = Client(url, worker_name="producer")
    client.redis.flushall()
    client.config["heartbeat"] = 1
    client.config["grace-period"] = 0
    worker = Worker(Client(url, worker_name="race"), ["a", "b"], threads=threads,
                    interval=0.5, handle_signals=False)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    started = time.monotonic()
    jids = []
    for i in range(jobs):
        jids.append(client.queues["a"].put(Handoff, {"tail": tail / 1000}, jid=f"j{i}"))
        time.sleep(gap)
    while sum(j.state == "complete" for j in client.jobs.get(*jids)) < jobs:
        time.sleep(0.05)
    took = time.monotonic() - started
    worker.stop("now")
    thread.join(10)
    hit = timed_out(client, jids)
    client.close()
    return len(hit), took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--gap", type=float, default=0.005, help="seconds between puts")
    parser.add_argument("--tails", default="0,0.5,1,5", help="ms of work after the hand-off")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="qlr-", dir="/tmp"))
    server = ServerProcess(root).start()
    try:
        results = {}
        for tail in [float(t) for t in args.tails.split(",")]:
            hit, took = run(server.url, args.jobs, args.threads, tail, args.gap)
            results[tail] = hit
            print(f"tail {tail:g} ms: {hit} of {args.jobs} jobs hit "
                  f"(pipeline done in {took:.1f}s)", flush=True)
        print(json.dumps(results))
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
