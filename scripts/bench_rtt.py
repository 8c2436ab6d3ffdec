#!/usr/bin/env python
"""Round-trip floor: how long one synchronous PING takes, and what waiting awake saves.

    python scripts/bench_rtt.py [--url URL | --server redis|valkey [--binary PATH]] [-n 20000]

A worker makes one synchronous round trip per job (its complete), so this is the floor of
one runner thread's time per job. It times PING three ways, in alternating rounds: through
redis-py, and through the worker's own connection (``qless_py.connect.resp``) once sleeping in
``recv`` for each reply (``--spin-us 0``) and once spinning for it first (the worker's
default, 300 us). Without ``--url`` it starts a private server on a loopback TCP port.
Run it with ``taskset`` to compare client and server on one core or on two.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_worker import server_url

from qless_py.connect.resp import Connection, Endpoint


def per_call(ping: Callable[[], object], n: int) -> float:
    """Microseconds per call of ``ping`` over ``n`` calls."""
    started = time.perf_counter()
    for _ in range(n):
        ping()
    return (time.perf_counter() - started) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="measure against this server")
    parser.add_argument("--server", choices=["redis", "valkey"], default="redis")
    parser.add_argument("--binary", type=Path, help="server binary to run instead")
    parser.add_argument("-n", type=int, default=5000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    with server_url(args) as url:
        plain = redis.Redis.from_url(url)
        asleep = Connection(Endpoint.from_url(url), spin=0.0)
        awake = Connection(Endpoint.from_url(url), spin=0.0003)
        ways: dict[str, Callable[[], object]] = {
            "redis-py": plain.ping,
            "qless_py.connect.resp, --spin-us 0": lambda: asleep.call("PING"),
            "qless_py.connect.resp, --spin-us 300": lambda: awake.call("PING"),
        }
        seen: dict[str, list[float]] = {name: [] for name in ways}
        for ping in ways.values():
            per_call(ping, 200)  # connect, warm up
        for _ in range(args.rounds):
            for name, ping in ways.items():
                seen[name].append(per_call(ping, args.n))
        for name, values in seen.items():
            print(f"PING round trip, {name:<29}: {statistics.median(values):6.1f} us "
                  f"(median of {args.rounds} rounds of {args.n}, "
                  f"{min(values):.1f}-{max(values):.1f})")
        plain.close()
        asleep.close()
        awake.close()


if __name__ == "__main__":
    main()
