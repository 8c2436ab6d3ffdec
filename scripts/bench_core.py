"""Measure the Lua core's own server time (INFO commandstats usec of EVALSHA).

Lifecycle mode (default): n jobs put one call at a time, then popped one at a time, then
completed one at a time (as the shared benchmark harness does); prints the server
microseconds per put, pop and complete and per lifecycle. --interleaved puts, pops and
completes each job in turn instead and prints the lifecycle total.

    python scripts/bench_core.py --server valkey -n 20000

Pop-scaling mode: fills a queue with 1,000 and then with 1,000,000 waiting jobs (job hashes,
history and work set built server-side by a helper script, in the exact layout `put`
writes), then measures `pop` of one job at a time on each.

    python scripts/bench_core.py --server valkey --pop-scaling

Calls mode: the Redis commands each put, pop and complete makes inside the script, read from
INFO commandstats (which also counts the commands a script calls) over 1,000 lifecycles.

    python scripts/bench_core.py --server redis --calls

Versus mode: our core against another script (e.g. the qless-core reference) on the same
server, alternating short pipelined rounds and keeping the best round of each phase, so
that a busy machine affects both alike; prints both and the ratio. --legacy-put calls the
other script's put without the worker argument (qless-core as bundled by qless-py 0.11.4).

    python scripts/bench_core.py --server redis --versus reference.lua --legacy-put

The script starts its own private server (qless_py.server.ServerProcess) and removes it.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from qless_py import lua
from qless_py.server import ServerProcess

T0 = 1_700_000_000.0

# Builds `count` waiting jobs in queue ARGV[1] with jids <prefix><i>, as `put` would.
FILL = """
local queue, prefix, first, count, now = ARGV[1], ARGV[2], tonumber(ARGV[3]),
  tonumber(ARGV[4]), tonumber(ARGV[5])
for i = first, first + count - 1 do
  local jid = prefix .. i
  local t = now + i / 1000000
  redis.call('HMSET', 'ql:j:' .. jid, 'jid', jid, 'klass', 'bench.Job', 'data', '{}',
    'priority', 0, 'tags', '{}', 'state', 'waiting', 'worker', '', 'expires', 0,
    'queue', queue, 'retries', 5, 'remaining', 5, 'time', string.format('%.20f', t))
  redis.call('RPUSH', 'ql:j:' .. jid .. '-history',
    cjson.encode({math.floor(t), 'put', {q = queue}}))
  redis.call('ZADD', 'ql:q:' .. queue .. '-work', 0 - t / 10000000000, jid)
end
redis.call('ZADD', 'ql:queues', 'NX', now, queue)
return count
"""


@contextmanager
def private_server(kind: str, binary: Path | None = None) -> Iterator[redis.Redis]:
    root = Path(tempfile.mkdtemp(prefix="qlb-", dir="/tmp"))
    server = ServerProcess(root, kind=kind, binary=binary).start()
    conn = redis.Redis.from_url(server.url)
    try:
        yield conn
    finally:
        conn.close()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def evalsha_usec(conn: redis.Redis) -> tuple[int, int]:
    stats = conn.info("commandstats")
    entry = stats.get("cmdstat_evalsha", {"calls": 0, "usec": 0})
    return int(entry["calls"]), int(entry["usec"])


LEGACY_PUT = False  # --legacy-put: qless-core of qless-py 0.11.4 has no worker argument


WORKER = "bench-worker"
PHASES = ("put", "pop", "complete")


#: The job's data: "{}" (the shared harness's) unless --payload asks for a longer one.
DATA = "{}"


def payload(size: int) -> str:
    """A JSON object of exactly `size` bytes (at least 10), like a small real job's data."""
    if size <= 2:
        return "{}"
    pad = max(0, size - len('{"pad":""}'))
    return '{"pad":"' + "x" * pad + '"}'


def put_args(jid: str) -> tuple[str | int, ...]:
    if LEGACY_PUT:
        return ("bench", jid, "bench.Job", DATA, 0)
    return (WORKER, "bench", jid, "bench.Job", DATA, 0)


def call_args(phase: str, jid: str) -> tuple[str | int, ...]:
    """One call of a lifecycle phase: the command and its arguments after `now`."""
    if phase == "put":
        return ("put", *put_args(jid))
    if phase == "pop":
        return ("pop", "bench", WORKER, 1)
    return ("complete", jid, WORKER, "bench", "{}")


def lifecycle(conn: redis.Redis, sha: str, n: int) -> dict[str, float]:
    """Server usec per put, pop and complete: n puts, then n pops, then n completes.

    One call per round trip (no pipelining), INFO commandstats read only at the phase
    boundaries, as the shared benchmark harness does.
    """
    result: dict[str, float] = {}
    jids = [f"{i:032x}" for i in range(n)]
    conn.config_resetstat()
    for offset, name in enumerate(PHASES):
        _, before = evalsha_usec(conn)
        for i in range(n):
            command, *rest = call_args(name, jids[i])
            reply = conn.evalsha(sha, 0, command, f"{T0 + offset * 100 + i * 0.001:.6f}", *rest)
            if name == "pop" and reply == b"{}":
                raise SystemExit("pop returned no job")
        _, after = evalsha_usec(conn)
        result[name] = (after - before) / n
    calls, usec = evalsha_usec(conn)
    assert calls == 3 * n, (calls, n)
    result["lifecycle"] = usec / n
    return result


def calls(conn: redis.Redis, sha: str, n: int = 1000) -> dict[str, float]:
    """Redis commands per call that each phase's script makes, by command name."""
    result: dict[str, float] = {}
    jids = [f"{i:032x}" for i in range(n)]
    for offset, phase in enumerate(PHASES):
        conn.config_resetstat()
        for i in range(n):
            command, *rest = call_args(phase, jids[i])
            conn.evalsha(sha, 0, command, f"{T0 + offset * 100 + i * 0.001:.6f}", *rest)
        stats = conn.info("commandstats")
        inner = {name.removeprefix("cmdstat_"): int(entry["calls"]) / n
                 for name, entry in stats.items()
                 if name not in ("cmdstat_evalsha", "cmdstat_config")}
        result[phase] = sum(inner.values())
        for name, count in sorted(inner.items()):
            result[f"{phase}.{name}"] = count
    return result


def interleaved(conn: redis.Redis, sha: str, n: int) -> dict[str, float]:
    """Server usec per lifecycle when each job is put, popped and completed in turn."""
    conn.config_resetstat()
    for i in range(n):
        jid = f"{i:032x}"
        for step, phase in enumerate(PHASES):
            command, *rest = call_args(phase, jid)
            conn.evalsha(sha, 0, command, f"{T0 + i * 0.001 + step * 0.0002:.6f}", *rest)
    calls, usec = evalsha_usec(conn)
    assert calls == 3 * n, (calls, n)
    return {"lifecycle": usec / n}


def versus(conn: redis.Redis, ours: bytes, other: bytes, rounds: int,
           batch: int = 100, one_by_one: bool = False) -> dict[str, float]:
    """Our core against another script on the same server, in alternating short rounds.

    Each round puts, pops and completes `batch` jobs (phase by phase) with each script.
    Pipelined (the default), the best round of each phase is kept. With `one_by_one` every
    call waits for its reply, as the shared harness does, and the median round is kept: one
    call per round trip runs with cold caches, and its rounds scatter too widely for the
    best one to be typical. Alternating keeps the machine's load the same for both, which
    makes the ratio meaningful on a busy box.
    """
    global LEGACY_PUT
    shas = {"ours": conn.script_load(ours), "other": conn.script_load(other)}
    seen: dict[str, list[float]] = {f"{who}.{phase}": [] for who in shas for phase in PHASES}
    base = 0
    for _ in range(rounds):
        for who, sha in shas.items():
            LEGACY_PUT = who == "other" and LEGACY_OTHER
            jids = [f"{base + i:032x}" for i in range(batch)]
            for offset, phase in zip((0, 50, 70), PHASES, strict=True):
                phase_calls = [(T0 + base + offset + i * 0.001, call_args(phase, jids[i]))
                               for i in range(batch)]
                conn.config_resetstat()
                if one_by_one:
                    replies = [conn.evalsha(sha, 0, args[0], f"{now:.6f}", *args[1:])
                               for now, args in phase_calls]
                else:
                    pipe = conn.pipeline(transaction=False)
                    for now, args in phase_calls:
                        pipe.evalsha(sha, 0, args[0], f"{now:.6f}", *args[1:])
                    replies = pipe.execute()
                if phase == "pop" and b"{}" in replies:
                    raise SystemExit(f"{who}: pop returned no job")
                calls_done, usec = evalsha_usec(conn)
                seen[f"{who}.{phase}"].append(usec / calls_done)
            base += 1000
    pick = statistics.median if one_by_one else min
    best = {key: pick(values) for key, values in seen.items()}
    for who in shas:
        best[f"{who}.lifecycle"] = sum(best[f"{who}.{p}"] for p in PHASES)
    best["ratio"] = best["ours.lifecycle"] / best["other.lifecycle"]
    return best


LEGACY_OTHER = False


def pop_cost(conn: redis.Redis, sha: str, queue: str, pops: int, start: int) -> float:
    """Average server usec of `pop` (count 1) over `pops` calls."""
    conn.config_resetstat()
    pipe = conn.pipeline(transaction=False)
    for i in range(start, start + pops):
        pipe.evalsha(sha, 0, "pop", f"{T0 + 10 + i * 0.001:.6f}", queue, "w", 1)
    replies = pipe.execute()
    if any(reply == b"{}" for reply in replies):
        raise SystemExit("queue ran dry during the measurement")
    calls, usec = evalsha_usec(conn)
    assert calls == pops
    return usec / pops


def fill(conn: redis.Redis, queue: str, count: int, chunk: int = 20000) -> None:
    fill_sha = conn.script_load(FILL)
    for first in range(0, count, chunk):
        conn.evalsha(fill_sha, 0, queue, f"{queue}-", first, min(chunk, count - first), T0)


def pop_scaling(conn: redis.Redis, small: int, large: int, pops: int) -> dict[str, float]:
    sha = conn.script_load(lua.SOURCE)
    fill(conn, "small", small)
    fill(conn, "large", large)
    assert conn.zcard("ql:q:large-work") == large
    # Alternate short rounds on both queues and keep the best round of each, so that load
    # from other processes on the machine affects both sides alike.
    rounds, per_round = 10, max(1, pops // 10)
    best = {"small": float("inf"), "large": float("inf")}
    for r in range(rounds):
        for queue in ("small", "large"):
            best[queue] = min(best[queue], pop_cost(conn, sha, queue, per_round, r * per_round))
    return {f"pop@{small}": best["small"], f"pop@{large}": best["large"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["valkey", "redis"], default="valkey")
    parser.add_argument("-n", type=int, default=20000, help="jobs in lifecycle mode")
    parser.add_argument("--interleaved", action="store_true",
                        help="put, pop and complete each job in turn (total only)")
    parser.add_argument("--script", type=Path,
                        help="benchmark another core script instead of qless_py's "
                        "(also the 'ours' side of --versus)")
    parser.add_argument("--legacy-put", action="store_true",
                        help="put without the worker argument (old qless-core scripts)")
    parser.add_argument("--binary", type=Path, help="server binary to run instead")
    parser.add_argument("--versus", type=Path,
                        help="compare with another core script in alternating rounds")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--one-by-one", action="store_true",
                        help="--versus without pipelining: one call per round trip, median "
                        "round (as the shared harness calls the core)")
    parser.add_argument("--calls", action="store_true",
                        help="count the Redis commands inside each put, pop and complete")
    parser.add_argument("--pop-scaling", action="store_true",
                        help="compare pop on 1,000 vs 1,000,000 waiting jobs")
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--pops", type=int, default=500)
    parser.add_argument("--payload", type=int, default=2,
                        help="bytes of job data (default 2, '{}' as the harness puts; over 64 "
                        "the job hash is a hashtable instead of a ziplist/listpack)")
    args = parser.parse_args()
    global LEGACY_PUT, LEGACY_OTHER, DATA
    DATA = payload(args.payload)
    LEGACY_PUT = args.legacy_put
    LEGACY_OTHER = args.legacy_put and args.versus is not None
    with private_server(args.server, args.binary) as conn:
        version = conn.info("server").get("valkey_version") or conn.info("server")["redis_version"]
        print(f"server: {args.server} {version}")
        if args.versus:
            LEGACY_PUT = False
            ours = args.script.read_bytes() if args.script else lua.SOURCE
            result = versus(conn, ours, args.versus.read_bytes(), args.rounds,
                            one_by_one=args.one_by_one)
        elif args.calls:
            sha = conn.script_load(args.script.read_bytes() if args.script else lua.SOURCE)
            result = calls(conn, sha)
        elif args.pop_scaling:
            result = pop_scaling(conn, 1000, args.large, args.pops)
        else:
            sha = conn.script_load(args.script.read_bytes() if args.script else lua.SOURCE)
            run = interleaved if args.interleaved else lifecycle
            result = run(conn, sha, args.n)
    for name, value in result.items():
        unit = "" if name == "ratio" or args.calls else " usec"
        print(f"{name:>18}: {value:7.2f}{unit}")


if __name__ == "__main__":
    main()
