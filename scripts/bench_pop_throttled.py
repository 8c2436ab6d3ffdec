#!/usr/bin/env python
"""Does pop cost more when the queue holds many throttled jobs? (issue 24's target: within
20 % of pop with none.)

    python scripts/bench_pop_throttled.py [--server redis|valkey] [--throttled 100000]
    python scripts/bench_pop_throttled.py --dialect <reqless qless.lua>   # the dialect too

Each scenario gets its own private server, filled the same way with `-n` plain jobs to pop:

  none      only the plain jobs;
  throttle  `--throttled` jobs more, put before the plain ones, waiting for a throttle of
            maximum 1 whose lock a running job holds;
  key       `--throttled` jobs more, put before the plain ones, waiting behind the running
            first job of their ordering key.

Then every scenario pops its plain jobs one call at a time, the scenarios taking turns in
chunks of `--chunk` pops, and the server time of each pop is read from INFO commandstats
(EVALSHA usec). Printed: microseconds per pop and the ratio to `none`.

With --dialect, both cores also get the same puts into a fresh server each: `--throttled`
jobs of a throttle of maximum 1 that has room (no lock taken yet), then one plain job; the
script counts the pops made before one returns the plain job. The dialect's put sends every
throttled job to the work set, and its pop moves a few of them aside per call; qless_py's
put lets one in and makes the rest wait, so its second pop returns the plain job.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import redis
from bench_core import evalsha_usec, private_server

from qless_py import lua

T0 = 1_700_000_000.0
SCENARIOS = ("none", "throttle", "key")


def now_text(t: float) -> str:
    return f"{t:.6f}"


def put_many(conn: redis.Redis, sha: str, jids: list[str], now: float, *opts: Any) -> None:
    """Our core's qlpy.put_many, 1,000 jobs per call."""
    for i in range(0, len(jids), 1000):
        args: list[Any] = []
        for jid in jids[i:i + 1000]:
            args += [jid, "bench.Job", "{}", 0, len(opts) // 2, *opts]
        conn.evalsha(sha, 0, "qlpy.put_many", now_text(now), "w", "bench", *args)


def fill(conn: redis.Redis, sha: str, scenario: str, throttled: int, plain: int) -> None:
    now = T0
    if scenario == "throttle":
        conn.evalsha(sha, 0, "throttle.set", now_text(now), "t", 1)
        conn.evalsha(sha, 0, "put", now_text(now), "w", "bench", "holder", "bench.Job", "{}", 0,
                     "throttles", '["t"]')
        conn.evalsha(sha, 0, "pop", now_text(now + 0.5), "bench", "w", 1)
        put_many(conn, sha, [f"t{i:06}" for i in range(throttled)], now + 1,
                 "throttles", '["t"]')
        assert conn.zcard("ql:th:t-pending") == throttled
    elif scenario == "key":
        conn.evalsha(sha, 0, "put", now_text(now), "w", "bench", "holder", "bench.Job", "{}", 0,
                     "key", "k")
        conn.evalsha(sha, 0, "pop", now_text(now + 0.5), "bench", "w", 1)
        put_many(conn, sha, [f"k{i:06}" for i in range(throttled)], now + 1, "key", "k")
        assert conn.zcard("ql:q:bench-throttled") == throttled
    put_many(conn, sha, [f"p{i:06}" for i in range(plain)], now + 2)


def pops(conn: redis.Redis, sha: str, first: int, count: int) -> float:
    """Server usec of `count` pops, one call each."""
    conn.config_resetstat()
    for i in range(count):
        reply = conn.evalsha(sha, 0, "pop", now_text(T0 + 10 + (first + i) * 0.001), "bench",
                             "w", 1)
        if reply == b"{}":
            raise SystemExit("pop returned no job")
    calls, usec = evalsha_usec(conn)
    assert calls == count, calls
    return usec


def pops_before_plain(dialect: bytes, server: str, throttled: int) -> tuple[int, int]:
    """Pops made before one returns the plain job: the dialect's core, then ours."""
    out = []
    for source in (dialect, lua.SOURCE):
        with private_server(server) as conn:
            sha = conn.script_load(source)
            conn.evalsha(sha, 0, "throttle.set", now_text(T0), "t", 1)
            pipe = conn.pipeline(transaction=False)
            for i in range(throttled):
                pipe.evalsha(sha, 0, "put", now_text(T0 + 1), "w", "bench", f"t{i:06}",
                             "bench.Job", "{}", 0, "throttles", '["t"]')
                if len(pipe) >= 1000:
                    pipe.execute()
            pipe.evalsha(sha, 0, "put", now_text(T0 + 2), "w", "bench", "plain", "bench.Job",
                         "{}", 0)
            pipe.execute()
            made = 0
            while made <= throttled + 1:
                reply = conn.evalsha(sha, 0, "pop", now_text(T0 + 10 + made * 0.001), "bench",
                                     "w", 1)
                if b'"plain"' in reply:
                    break
                made += 1
            out.append(made)
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["redis", "valkey"], default="redis")
    parser.add_argument("--throttled", type=int, default=100_000)
    parser.add_argument("-n", type=int, default=5000, help="plain jobs popped per scenario")
    parser.add_argument("--chunk", type=int, default=250)
    parser.add_argument("--dialect", type=Path, help="the throttle dialect's qless.lua")
    args = parser.parse_args()
    servers, conns, shas = [], {}, {}
    try:
        for scenario in SCENARIOS:
            server = private_server(args.server)
            conn = server.__enter__()
            servers.append(server)
            conns[scenario] = conn
            shas[scenario] = conn.script_load(lua.SOURCE)
            fill(conn, shas[scenario], scenario, args.throttled, args.n)
        info = conns["none"].info("server")
        print(f"server: {args.server} {info.get('valkey_version') or info['redis_version']}; "
              f"{args.throttled:,} throttled jobs; {args.n:,} pops per scenario")
        usec = dict.fromkeys(SCENARIOS, 0.0)
        for first in range(0, args.n, args.chunk):
            count = min(args.chunk, args.n - first)
            order = SCENARIOS[first // args.chunk % 3:] + SCENARIOS[:first // args.chunk % 3]
            for scenario in order:
                usec[scenario] += pops(conns[scenario], shas[scenario], first, count)
        base = usec["none"] / args.n
        for scenario in SCENARIOS:
            per = usec[scenario] / args.n
            print(f"{scenario:>9}: {per:6.2f} us per pop  ({per / base:.2f} x none)")
    finally:
        for server in servers:
            server.__exit__(None, None, None)
    if args.dialect:
        theirs, ours = pops_before_plain(args.dialect.read_bytes(), args.server,
                                         args.throttled)
        print(f"pops before the plain job, behind {args.throttled:,} jobs of a throttle of "
              f"maximum 1 put while it had room: dialect {theirs:,}, qless_py {ours:,}")


if __name__ == "__main__":
    main()
