"""Compare builds of the core on the commands the dashboard and the command line read with.

    python scripts/bench_reads.py --variant NAME=SCRIPT [--variant ...] [--rounds 30]

Starts one private Valkey per variant (the built core, qless_py/_lua/qless.lua, is always
one, as 'built'), fills each with the same small database (50 waiting jobs in one queue),
then, round after round, sends each read command 200 times to every variant in turn, so
that the machine's other work falls on every variant alike. A round's figure is the
server's main thread's time on a CPU per call (the kernel's schedstat, which other work on
the machine does not inflate). The report gives each command's median over the rounds,
per variant, and each variant's difference from 'built'.

These commands are not inlined into the dispatcher (the per-job ones are), so they are
where the cost of creating module functions on first use shows.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import redis

from qless_py import lua
from qless_py.server import ServerProcess

NOW = "1700000000.0"
READS: tuple[tuple[str, ...], ...] = (
    ("queues", NOW), ("config.get", NOW), ("stats", NOW, "q", NOW), ("tag", NOW, "top"),
    ("failed", NOW), ("jobs", NOW, "running", "q"), ("workers", NOW),
)
CALLS = 200  # calls of one command per round and variant


@dataclass
class Variant:
    name: str
    script: bytes
    server: ServerProcess | None = None
    conn: redis.Redis | None = None
    sha: str = ""
    schedstat: Path | None = None
    per_call: dict[str, list[float]] = field(default_factory=dict)

    def on_cpu(self) -> int:
        assert self.schedstat is not None
        return int(self.schedstat.read_text().split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", action="append", default=[], help="NAME=SCRIPT")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    variants = [Variant("built", lua.SOURCE)]
    for spec in args.variant:
        name, _, path = spec.partition("=")
        variants.append(Variant(name, Path(path).read_bytes()))
    root = Path(tempfile.mkdtemp(prefix="qlbr-", dir="/tmp"))
    try:
        for i, v in enumerate(variants):
            v.server = ServerProcess(root / f"v{i}").start()
            v.conn = redis.Redis.from_url(v.server.url)
            v.sha = v.conn.script_load(v.script)
            v.schedstat = Path(f"/proc/{v.server.pid}/task/{v.server.pid}/schedstat")
            for j in range(50):
                v.conn.evalsha(v.sha, 0, "put", NOW, "w", "q", f"j{j}", "K", "{}", "0")
        for _ in range(args.rounds):
            for v in variants:
                assert v.conn is not None
                for read in READS:
                    before = v.on_cpu()
                    for _ in range(CALLS):
                        v.conn.evalsha(v.sha, 0, *read)
                    v.per_call.setdefault(read[0], []).append(
                        (v.on_cpu() - before) / CALLS / 1000)
        print(f"server CPU per call, µs, median of {args.rounds} rounds of {CALLS} calls")
        print(f"{'command':12s}" + "".join(f"{v.name:>12s}" for v in variants)
              + "".join(f"{v.name + ' vs built':>20s}" for v in variants[1:]))
        for read in READS:
            medians = [statistics.median(v.per_call[read[0]]) for v in variants]
            print(f"{read[0]:12s}" + "".join(f"{m:12.1f}" for m in medians)
                  + "".join(f"{100 * (m - medians[0]) / medians[0]:+19.1f}%"
                            for m in medians[1:]))
    finally:
        for v in variants:
            if v.server is not None:
                v.server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
