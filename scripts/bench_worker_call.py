#!/usr/bin/env python
"""Client-side cost of one core call on the worker's path (qless_py.connect.resp, as after
``LuaCore.go_direct``): a ``get`` of a job that does not exist, repeated.

    python scripts/bench_worker_call.py --url redis://127.0.0.1:6379/0 [-n 20000] [--spin-us 0]

Prints microseconds per call (wall time: the round trip included). To compare two
checkouts, run it from outside the repository with ``PYTHONPATH=<checkout>``, alternating
between them. For instructions instead of time, run it under
``valgrind --tool=callgrind`` with two values of ``-n`` and divide the difference.
"""

from __future__ import annotations

import argparse
import time

from qless_py import Client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("-n", type=int, default=20000)
    parser.add_argument("--spin-us", type=int, default=0)
    args = parser.parse_args()
    client = Client(args.url, worker_name="bench")
    client.core.go_direct(client.endpoint(), args.spin_us / 1e6)
    client.core.call("get", "no-such-job")  # connects and loads the script
    started = time.perf_counter()
    for _ in range(args.n):
        client.core.call("get", "no-such-job")
    elapsed = time.perf_counter() - started
    print(f"worker-path core call: {elapsed / args.n * 1e6:.1f} us ({args.n} calls)")
    client.close()


if __name__ == "__main__":
    main()
