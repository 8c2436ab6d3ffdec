#!/usr/bin/env python
"""How pop takes jids off a work set: ZPOPMAX against ZREVRANGE + ZREM, inside a script.

    python scripts/bench_pop_take.py [--server redis|valkey] [--binary PATH] [--rounds 8]

Fills a sorted set with ``--size`` members scored like a queue's work set, then times, in
one EVAL each, ``--loops`` takes of ``count`` members (1 and 16, the worker's batch) by
both methods, alternating rounds on fresh sets, and prints the median server time per
take (INFO commandstats of EVAL). The set shrinks by at most ``loops * count`` members
during a round. ZPOPMAX replies with every member's score, which the server formats as
text; ZREVRANGE without WITHSCORES does not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import private_server

FILL = """
for i = 1, tonumber(ARGV[1]) do
  redis.call('ZADD', KEYS[1], 0 - (1700000000 + i / 1000) / 10000000000, 'jid' .. i)
end
"""

TAKE = {
    "ZPOPMAX": """
local n = ARGV[2]
for _ = 1, tonumber(ARGV[1]) do redis.call('ZPOPMAX', KEYS[1], n) end
""",
    "ZREVRANGE + ZREM": """
local last = tostring(tonumber(ARGV[2]) - 1)
for _ = 1, tonumber(ARGV[1]) do
  local top = redis.call('ZREVRANGE', KEYS[1], '0', last)
  redis.call('ZREM', KEYS[1], unpack(top))
end
""",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["redis", "valkey"], default="redis")
    parser.add_argument("--binary", type=Path, help="server binary to run instead")
    parser.add_argument("--size", type=int, default=32000, help="members in the set")
    parser.add_argument("--loops", type=int, default=1000, help="takes per EVAL")
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    with private_server(args.server, args.binary) as conn:
        info = conn.info("server")
        print(f"server: {args.server} {info.get('valkey_version') or info['redis_version']}")
        for count in (1, 16):
            seen: dict[str, list[float]] = {name: [] for name in TAKE}
            for _ in range(args.rounds):
                for name, body in TAKE.items():
                    conn.delete("w")
                    conn.eval(FILL, 1, "w", args.size + args.loops * count)
                    conn.config_resetstat()
                    conn.eval(body, 1, "w", args.loops, count)
                    usec = conn.info("commandstats")["cmdstat_eval"]["usec"]
                    seen[name].append(usec / args.loops)
            for name, values in seen.items():
                print(f"count {count:>2}, {name:<17}: {statistics.median(values):6.2f} us "
                      f"per take (median of {args.rounds}, {min(values):.2f}-{max(values):.2f})")


if __name__ == "__main__":
    main()
