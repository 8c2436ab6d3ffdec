"""Memory per job while jobs run to completion, and the check's speed on what is left.

    python scripts/bench_growth.py [--jobs N] [--batch B] [--url URL] [--live M] [--check]

Drives the core directly (put, pop, complete in pipelined batches of B) on a private
Valkey (or URL), with the default jobs-history settings, and prints used_memory every
tenth of the run and bytes per job retained. Once completed-job trimming starts
(jobs-history-count, 50,000 by default) memory stays flat. --live M then puts M jobs that
stay waiting (qlpy.put_many), and --check times ``Client.check`` over the database: keys
per second, the longest single call as the client saw it, and SLOWLOG's longest.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import redis

from qless_py import Client, lua
from qless_py.server import ServerProcess


def run(conn: redis.Redis, jobs: int, batch: int) -> None:
    sha = conn.script_load(lua.SOURCE)
    base = int(conn.info("memory")["used_memory"])
    done, step = 0, max(jobs // 10, batch)
    while done < jobs:
        now = time.time()
        pipe = conn.pipeline(transaction=False)
        for i in range(done, done + batch):
            pipe.evalsha(sha, 0, "put", now, "w", "q", f"j{i}", "K", "{}", 0)
        pipe.evalsha(sha, 0, "pop", now, "q", "w", batch)
        pipe.execute()
        pipe = conn.pipeline(transaction=False)
        for i in range(done, done + batch):
            pipe.evalsha(sha, 0, "complete", now, f"j{i}", "w", "q", "{}")
        pipe.execute()
        done += batch
        if done % step == 0 or done >= jobs:
            used = int(conn.info("memory")["used_memory"]) - base
            kept = conn.zcard("ql:completed")
            print(f"{done:>9} jobs run  {used / 1e6:8.1f} MB above start  "
                  f"{kept:>7} kept  {used / max(kept, 1):7.0f} B per kept job", flush=True)


def put_live(conn: redis.Redis, jobs: int) -> None:
    sha = conn.script_load(lua.SOURCE)
    for first in range(0, jobs, 10_000):
        pipe = conn.pipeline(transaction=False)
        for start in range(first, min(first + 10_000, jobs), 1000):
            args: list[str | int] = []
            for i in range(start, min(start + 1000, jobs)):
                args += [f"live{i}", "K", "{}", 0, 1, "tags", '["live"]']
            pipe.evalsha(sha, 0, "qlpy.put_many", time.time(), "w", "live", *args)
        pipe.execute()
    print(f"{jobs} waiting jobs put; used_memory {conn.info('memory')['used_memory_human']}")


def time_check(client: Client) -> None:
    longest, calls, started = 0.0, 0, time.perf_counter()
    token = ""
    keys = 0
    while True:
        t0 = time.perf_counter()
        report = client.check(resume=token, steps=1)
        longest = max(longest, time.perf_counter() - t0)
        calls += 1
        token, keys = report.token, report.keys
        if not token:
            break
    total = time.perf_counter() - started
    print(f"check: {keys} keys in {total:.1f} s ({keys / total:,.0f} keys/s), {calls} calls, "
          f"longest call {longest * 1000:.2f} ms (round trip included)")


def check_on_server(conn: redis.Redis, url: str) -> None:
    """time_check() with the server's view: its CPU per call (which other work on the
    machine does not inflate) and every call SLOWLOG saw over 200 us (the log is made long
    enough to keep them all; its default keeps the last 128)."""
    conn.config_set("slowlog-log-slower-than", 200)
    conn.config_set("slowlog-max-len", 1_000_000)
    conn.slowlog_reset()
    cpu = conn.info("cpu")
    calls = int(conn.info("commandstats").get("cmdstat_evalsha", {}).get("calls", 0))
    with Client(url) as client:
        time_check(client)
    after = conn.info("cpu")
    calls = int(conn.info("commandstats")["cmdstat_evalsha"]["calls"]) - calls
    used = sum(after[k] - cpu[k] for k in ("used_cpu_user", "used_cpu_sys"))
    slow = sorted((e["duration"] for e in conn.slowlog_get(1_000_000)
                   if b"qlpy.check" in e["command"]), reverse=True)
    over = sum(1 for d in slow if d > 1000)
    print(f"server CPU {used:.1f} s, {used / max(calls, 1) * 1e6:.0f} us per call; SLOWLOG: "
          f"{len(slow)} check calls over 200 us, {over} over 1 ms, longest {slow[:5]} us")
    conn.config_set("slowlog-max-len", 128)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--url", default=None)
    parser.add_argument("--live", type=int, default=0)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    server = None
    url = args.url
    if url is None:
        server = ServerProcess(Path(tempfile.mkdtemp(prefix="qlb-", dir="/tmp"))).start()
        url = server.url
    try:
        conn = redis.Redis.from_url(url)
        if args.jobs:
            run(conn, args.jobs, args.batch)
        if args.live:
            put_live(conn, args.live)
        if args.check:
            check_on_server(conn, url)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
