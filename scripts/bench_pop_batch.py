#!/usr/bin/env python
"""Redis time per job of pop(count), against another core script in alternating rounds.

    python scripts/bench_pop_batch.py --versus OLD.lua [--binary REDIS_SERVER] [--count 16]

Each round flushes a private server, puts 4,000 jobs, then pops them ``count`` at a time,
and reads the EVALSHA time from INFO commandstats; the best round per script is printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import private_server

from qless_py import lua

T = 1_700_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versus", type=Path, required=True)
    parser.add_argument("--binary", type=Path, help="redis-server to run instead of PATH's")
    parser.add_argument("--count", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    sources = {"ours": lua.SOURCE, "other": args.versus.read_bytes()}
    with private_server("redis", args.binary) as conn:
        shas = {name: conn.script_load(src) for name, src in sources.items()}
        best = dict.fromkeys(shas, float("inf"))
        base = 0
        for _ in range(args.rounds):
            for name, sha in shas.items():
                conn.flushall()
                pipe = conn.pipeline(transaction=False)
                for i in range(4000):
                    pipe.evalsha(sha, 0, "put", T + base + i * 0.0001, "w", "q", f"j{base + i}",
                                 "K", "{}", 0)
                pipe.execute()
                conn.config_resetstat()
                pipe = conn.pipeline(transaction=False)
                for i in range(4000 // args.count):
                    pipe.evalsha(sha, 0, "pop", T + base + 50 + i * 0.001, "q", "w", args.count)
                pipe.execute()
                usec = conn.info("commandstats")["cmdstat_evalsha"]["usec_per_call"]
                best[name] = min(best[name], usec / args.count)
                base += 10000
    for name, usec in best.items():
        print(f"{name}: pop({args.count}) {usec:.2f} us of Redis time per job")


if __name__ == "__main__":
    main()
