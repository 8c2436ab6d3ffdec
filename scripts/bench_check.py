"""Compare builds of the core's check step by step, on the server's clock.

    python scripts/bench_check.py --live 100000 [--variant NAME=SCRIPT ...] [--budget N]
        [--repeats R] [--dump DIR]

Puts --live waiting jobs (as scripts/bench_growth.py does) into one private Valkey, copies
its data into one more server per variant, loads each variant's script (default: the
built core, qless_py/_lua/qless.lua, as 'built') and runs whole checks on all of them,
one step on each in turn, so that the machine's other work falls on every variant alike.
Each step's time is the server's own (SLOWLOG, logging every call); the report gives,
per variant, the calls, the server time they took in all, their median, p90, p99 and
longest, and how many took over 1 ms. --budget passes a budget to every step (default:
the script's own). --dump writes each variant's durations (one per line, µs) to DIR.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis
from bench_growth import put_live

from qless_py import lua
from qless_py.server import ServerProcess


@dataclass
class Variant:
    name: str
    script: bytes
    server: ServerProcess | None = None
    conn: redis.Redis | None = None
    sha: str = ""
    token: str = "0"
    calls: int = 0
    keys: int = 0
    findings: int = 0
    durations: list[int] = field(default_factory=list)
    cpu: list[int] = field(default_factory=list)
    schedstat: Path | None = None
    lua_heap: list[int] = field(default_factory=list)


def percentile(values: list[int], p: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def collect(v: Variant) -> None:
    """Move the check calls SLOWLOG holds into v.durations, and empty the log."""
    assert v.conn is not None
    for entry in v.conn.slowlog_get(10_000_000):
        if b"qlpy.check" in entry["command"]:
            v.durations.append(int(entry["duration"]))
    v.conn.slowlog_reset()


def on_cpu(v: Variant) -> int:
    """Nanoseconds the server's main thread has spent on a CPU (the kernel's schedstat)."""
    assert v.schedstat is not None
    return int(v.schedstat.read_text().split()[0])


def step(v: Variant, budget: int | None) -> bool:
    """One check step on v; False once its check is done."""
    assert v.conn is not None
    args: list[str | int | float] = ["qlpy.check", time.time(), v.token]
    if budget is not None:
        args.append(budget)
    before = on_cpu(v)
    reply = json.loads(v.conn.evalsha(v.sha, 0, *args))
    v.cpu.append((on_cpu(v) - before) // 1000)
    v.calls += 1
    v.findings += len(reply["findings"])
    v.keys = reply["keys"]
    v.token = reply["token"]
    return v.token != "0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", type=int, default=100_000)
    parser.add_argument("--variant", action="append", default=[],
                        help="NAME=SCRIPT: a built core to compare (repeatable)")
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--dump", type=Path, default=None)
    args = parser.parse_args()
    variants = [Variant("built", lua.SOURCE)]
    for spec in args.variant:
        name, _, path = spec.partition("=")
        variants.append(Variant(name, Path(path).read_bytes()))
    root = Path(tempfile.mkdtemp(prefix="qlbc-", dir="/tmp"))
    try:
        seed = ServerProcess(root / "seed").start()
        put_live(redis.Redis.from_url(seed.url), args.live)
        redis.Redis.from_url(seed.url).save()
        seed.stop()
        for i, v in enumerate(variants):
            directory = root / f"v{i}"
            directory.mkdir()
            shutil.copy(root / "seed" / "dump.rdb", directory / "dump.rdb")
            v.server = ServerProcess(directory).start(timeout=600)
            v.conn = redis.Redis.from_url(v.server.url)
            v.sha = v.conn.script_load(v.script)
            v.schedstat = Path(f"/proc/{v.server.pid}/task/{v.server.pid}/schedstat")
            v.conn.config_set("slowlog-log-slower-than", 0)
            v.conn.config_set("slowlog-max-len", 1_000_000)
            v.conn.slowlog_reset()
        started = time.perf_counter()
        for _ in range(args.repeats):
            for v in variants:
                v.token = "0"
            running = list(variants)
            while running:
                running = [v for v in running if step(v, args.budget)]
                if variants[0].calls % 5000 == 0:
                    for v in variants:
                        collect(v)
                        assert v.conn is not None
                        v.lua_heap.append(int(v.conn.info("memory")["used_memory_lua"]))
        for v in variants:
            collect(v)
        wall = time.perf_counter() - started
        print(f"{args.live} waiting jobs, {args.repeats} check(s) per variant, budget "
              f"{args.budget or 'default'}, {wall:.1f} s in all; per call in µs, 'cpu' the "
              f"server's main thread on a CPU, 'wall' SLOWLOG")
        print(f"{'variant':>12} {'calls':>7} {'keys':>8} {'found':>5} {'':>4} {'total s':>7} "
              f"{'median':>6} {'p90':>6} {'p99':>6} {'p99.9':>6} {'max':>6} {'>1ms':>6} "
              f"{'share':>6} {'lua heap KB':>12}")
        for v in variants:
            heap = f"{min(v.lua_heap or [0]) // 1024}-{max(v.lua_heap or [0]) // 1024}"
            for what, d in (("cpu", v.cpu), ("wall", v.durations)):
                over = sum(1 for x in d if x > 1000)
                print(f"{v.name:>12} {v.calls:>7} {v.keys:>8} {v.findings:>5} {what:>4} "
                      f"{sum(d) / 1e6:7.2f} {statistics.median(d):6.0f} {percentile(d, 90):6} "
                      f"{percentile(d, 99):6} {percentile(d, 99.9):6} {max(d):6} {over:6} "
                      f"{over / len(d):6.2%} {heap:>12}")
            if args.dump:
                args.dump.mkdir(parents=True, exist_ok=True)
                (args.dump / f"{v.name}.cpu").write_text("".join(f"{x}\n" for x in v.cpu))
                (args.dump / f"{v.name}.wall").write_text(
                    "".join(f"{x}\n" for x in v.durations))
    finally:
        for v in variants:
            if v.server is not None:
                v.server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
