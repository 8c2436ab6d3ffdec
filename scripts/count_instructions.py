"""Count the instructions a Redis server spends on each core command (valgrind callgrind).

Timing on a shared VM moves by several per cent between runs, so small changes to the core
are lost in the noise. Instruction counts are exact and repeatable: this script runs a
redis-server under callgrind (collecting only inside EVAL/EVALSHA), warms the core up with
200 lifecycles, then puts, pops and completes `-n` jobs one call at a time, with the calls
of scripts/bench_core.py, and prints the instructions per call of each phase.

    python scripts/count_instructions.py --binary <redis-server 6.2.5>
    python scripts/count_instructions.py --binary <...> --script scripts/floor.lua
    python scripts/count_instructions.py --binary <...> --script <qless-core qless.lua> --legacy-put
    python scripts/count_instructions.py --binary <...> --namespace billing
    python scripts/count_instructions.py --binary <valkey-server> --collect evalShaCommand
    python scripts/count_instructions.py --binary <...> --breakdown
    python scripts/count_instructions.py --binary <...> --tracking 5

``--tracking N`` keeps a connection open that tracks keys as a worker's listener serving N
queues does (``CLIENT TRACKING ... BCAST`` with the listener's prefixes,
``listener.tracked_keys``: each queue's work, scheduled and recurring sets and its own
throttle, and the namespace's paused set, config and outbox): the server then matches
every key a script writes against every prefix.

Needs valgrind (Debian: apt-get install valgrind). Instructions are not time: memory
stalls cost more than they count, so confirm a gain with bench_core.py --versus.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import bench_core
import redis
from bench_core import PHASES, T0, call_args
from callgrind import CallgrindServer

from qless_py import keys, lua
from qless_py.workers.listener import tracked_keys

KEYS: tuple[str, ...] = ()  # --namespace: the namespace's prefix, the calls' one key


def call(conn: redis.Redis, sha: str, phase: str, i: int, offset: float,
         prefix: str = "") -> None:
    command, *rest = call_args(phase, f"{prefix}{i:0{32 - len(prefix)}x}")
    conn.evalsha(sha, len(KEYS), *KEYS, command, f"{T0 + offset + i * 0.001:.6f}", *rest)


COMMAND = re.compile(r"^\s*([\d,]+) \([^)]*\)\s+\S*?:?(\w+Command)(?:'\d+)? ")


def commands_in(dump: Path, collect: str, calls: int) -> dict[str, float]:
    """Each server command function's inclusive instructions per call in a callgrind dump
    (callgrind_annotate --inclusive), leaving out the collected EVAL entry point."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                           str(dump)], capture_output=True, text=True, check=True).stdout
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = COMMAND.match(line)
        # generic* helpers run inside a command already counted; processCommand holds the
        # whole EVALSHA, afterCommand is the bookkeeping after every command
        if m and m.group(2) not in (collect, "evalGenericCommand", "evalCommand",
                                    "processCommand", "afterCommand") \
                and "eneric" not in m.group(2):
            out[m.group(2)] = max(out.get(m.group(2), 0.0),
                                  int(m.group(1).replace(",", "")) / calls)
    return out


def track_like_a_listener(port: int, queues: int) -> redis.Redis:
    """A connection that tracks the keys a worker's listener tracks for ``queues`` queues
    (the benchmark's and others named so that no prefix covers another)."""
    prefixes = tracked_keys(keys.DEFAULT,
                            ["bench", *(f"queue-{i:04d}" for i in range(1, queues))])
    conn = redis.Redis(port=port, protocol=2, single_connection_client=True)
    args: list[str | int] = ["CLIENT", "TRACKING", "ON", "REDIRECT", conn.client_id(), "BCAST"]
    for prefix in prefixes:
        args += ["PREFIX", prefix]
    conn.execute_command(*args)
    return conn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True, help="redis-server to run under valgrind")
    parser.add_argument("--script", type=Path, help="core script (default: qless_py's)")
    parser.add_argument("--legacy-put", action="store_true",
                        help="put without the worker argument (old qless-core scripts)")
    parser.add_argument("-n", type=int, default=1000, help="calls per phase")
    parser.add_argument("--port", type=int, default=6731)
    parser.add_argument("--namespace", help="call the core in this namespace (one key), with "
                        "the namespace's own script unless --script names one")
    parser.add_argument("--collect", default="evalGenericCommand",
                        help="the server function whose instructions count (Valkey 8 and "
                        "later: evalShaCommand)")
    parser.add_argument("--breakdown", action="store_true",
                        help="also print, per phase, the server commands the script ran "
                             "(each *Command function's inclusive instructions per call)")
    parser.add_argument("--tracking", type=int, default=0, metavar="N",
                        help="with a connection that tracks keys as a worker's listener "
                             "serving N queues does")
    args = parser.parse_args()
    global KEYS
    if args.namespace:
        KEYS = (f"ql:{{{args.namespace}}}:",)
    bench_core.LEGACY_PUT = args.legacy_put
    # The script a client calls: the shipped one, or for a namespace that namespace's own
    # (--script qless_py/_lua/qless.lua counts the shipped script's namespaced body).
    script = args.script.read_bytes() if args.script else lua.script_for(args.namespace)[0]
    server = CallgrindServer(args.binary, args.port, args.collect)
    tracker = None
    try:
        conn = server.conn
        sha = conn.script_load(script)
        tracker = track_like_a_listener(args.port, args.tracking) if args.tracking else None
        for offset, phase in zip((0, 100, 200), PHASES, strict=True):
            for i in range(200):
                call(conn, sha, phase, i, offset, prefix="w")
        counts: dict[str, float] = {}
        breakdowns: dict[str, dict[str, float]] = {}
        for offset, phase in zip((1000, 1100, 1200), PHASES, strict=True):
            server.zero()
            for i in range(args.n):
                call(conn, sha, phase, i, offset)
            counts[phase] = server.dump(phase) / args.n
            if args.breakdown:
                breakdowns[phase] = commands_in(server.last_dump, args.collect, args.n)
    finally:
        if tracker is not None:
            tracker.close()
        server.stop()
    for phase in PHASES:
        print(f"{phase:>10}: {counts[phase]:>10,.0f} instructions per call")
    print(f"{'lifecycle':>10}: {sum(counts.values()):>10,.0f}")
    for phase, commands in breakdowns.items():
        inside = sum(commands.values())
        print(f"\n{phase}: server commands inside the script, {inside:,.0f} instructions per "
              f"call ({100 * inside / counts[phase]:.0f} %; the rest is the Lua VM, the "
              "calls' argument and reply conversion, and EVALSHA itself)")
        for name, cost in sorted(commands.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<28} {cost:>9,.0f}")


if __name__ == "__main__":
    main()
