#!/usr/bin/env python
"""Round-trip floor: how long one synchronous PING takes on this machine.

    python scripts/bench_rtt.py [--url redis://127.0.0.1:6379/0] [-n 20000]

A worker makes one synchronous round trip per job (its complete), so this is the floor of
one runner thread's time per job. Run it with the client and the server on different cores
and on the same core (``taskset``) to see what the cross-core wake-up costs.
"""

from __future__ import annotations

import argparse
import time

import redis


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("-n", type=int, default=20000)
    args = parser.parse_args()
    conn = redis.Redis.from_url(args.url)
    conn.ping()
    started = time.perf_counter()
    for _ in range(args.n):
        conn.ping()
    elapsed = time.perf_counter() - started
    print(f"PING round trip: {elapsed / args.n * 1e6:.1f} us ({args.n} calls)")


if __name__ == "__main__":
    main()
