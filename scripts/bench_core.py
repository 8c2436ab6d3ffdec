"""Measure the Lua core's own server time (INFO commandstats usec of EVALSHA).

Lifecycle mode (default): n jobs, one at a time, each put, popped and completed; prints the
server microseconds per put, pop and complete and per lifecycle.

    python scripts/bench_core.py --server valkey -n 20000

Pop-scaling mode: fills a queue with 1,000 and then with 1,000,000 waiting jobs (job hashes,
history and work set built server-side by a helper script, in the exact layout `put`
writes), then measures `pop` of one job at a time on each.

    python scripts/bench_core.py --server valkey --pop-scaling

The script starts its own private server (qless_py.server.ServerProcess) and removes it.
"""

from __future__ import annotations

import argparse
import shutil
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
def private_server(kind: str) -> Iterator[redis.Redis]:
    root = Path(tempfile.mkdtemp(prefix="qlb-", dir="/tmp"))
    server = ServerProcess(root, kind=kind).start()
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


def lifecycle(conn: redis.Redis, sha: str, n: int, batch: int = 200) -> dict[str, float]:
    """Server usec per put, pop and complete over n one-at-a-time lifecycles."""
    conn.flushall()
    conn.config_resetstat()
    sums = {"put": 0, "pop": 0, "complete": 0}
    last = 0
    done = 0
    while done < n:
        pipe = conn.pipeline(transaction=False)
        size = min(batch, n - done)
        for i in range(done, done + size):
            now = T0 + i * 0.001
            jid = f"job-{i:08d}"
            pipe.evalsha(sha, 0, "put", f"{now:.6f}", "w", "bench", jid, "bench.Job", "{}", 0)
            pipe.info("commandstats")
            pipe.evalsha(sha, 0, "pop", f"{now + 0.0002:.6f}", "bench", "w", 1)
            pipe.info("commandstats")
            pipe.evalsha(sha, 0, "complete", f"{now + 0.0004:.6f}", jid, "w", "bench", "{}")
            pipe.info("commandstats")
        replies = pipe.execute()
        for j in range(size):
            chunk = replies[j * 6:(j + 1) * 6]
            if chunk[2] == b"{}" or chunk[4] != b"complete":
                raise SystemExit(f"unexpected replies: {chunk[::2]!r}")
            for name, stat in zip(("put", "pop", "complete"), chunk[1::2], strict=True):
                usec = int(stat["cmdstat_evalsha"]["usec"])
                sums[name] += usec - last
                last = usec
        done += size
    calls, usec = evalsha_usec(conn)
    assert calls == 3 * n, (calls, n)
    result = {name: total / n for name, total in sums.items()}
    result["lifecycle"] = usec / n
    return result


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
    parser.add_argument("--pop-scaling", action="store_true",
                        help="compare pop on 1,000 vs 1,000,000 waiting jobs")
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--pops", type=int, default=500)
    args = parser.parse_args()
    with private_server(args.server) as conn:
        version = conn.info("server").get("valkey_version") or conn.info("server")["redis_version"]
        print(f"server: {args.server} {version}")
        if args.pop_scaling:
            result = pop_scaling(conn, 1000, args.large, args.pops)
        else:
            sha = conn.script_load(lua.SOURCE)
            result = lifecycle(conn, sha, args.n)
    for name, value in result.items():
        print(f"{name:>14}: {value:7.1f} usec")


if __name__ == "__main__":
    main()
