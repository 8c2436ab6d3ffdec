#!/usr/bin/env python
"""Issue 2's lifecycle figure, with the shared harness's own adapters, on paired servers.

The shared harness (../shared/bench) measures one system's whole lifecycle (20,000 puts,
then 20,000 pops, then 20,000 completes, one call per round trip, EVALSHA time from INFO
commandstats), then the next system's, on the same server. On a shared VM whose speed
drifts by tens of per cent within minutes, the two measurements then see different
machines. This script runs the same lifecycle through the same adapters (qless-py 0.11.4
with its qless-core script, and qless_py, both through their client libraries), but each
system gets a server of its own, started from one binary, and the two take turns every
``--chunk`` calls. A drift then hits both alike, and the ratio of the two is the figure
the issue asks for.

``--carry-over`` first runs the reference's whole lifecycle on our server and flushes the
keys, as the harness does when it measures qless-py before qless_py on one server.
FLUSHALL keeps the Lua state, and with it the globals the reference's script defined.

Run it with the harness's Python (it needs qless 0.11.4, qless_py and redis), with this
checkout installed there (the harness's ``QLESS_PY_SRC=<checkout> ./run.sh`` does that),
since both this script and the harness's adapter import qless_py from that environment:

    $QLBENCH_VENV/bin/python scripts/bench_paired.py --binary <redis-server 6.2.5> --runs 3
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import redis

from qless_py.server import ServerProcess, free_port

PHASES = ("put", "pop", "complete")
ROOT = Path(__file__).resolve().parent.parent


def evalsha_usec(conn: redis.Redis) -> tuple[float, int]:
    stat = conn.info("commandstats").get("cmdstat_evalsha", {"usec": 0, "calls": 0})
    return float(stat["usec"]), int(stat["calls"])


def lifecycle(adapter: Any, n: int) -> None:
    """The reference's whole lifecycle, unmeasured (the harness's run before ours)."""
    for _ in range(n):
        adapter.put()
    for job in [adapter.pop() for _ in range(n)]:
        adapter.complete(job)


def paired_run(adapters: Any, urls: dict[str, str], n: int, chunk: int, order: list[str],
               carry_over: bool) -> dict[str, float]:
    sides = {"ref": adapters.QlessPyPeer(urls["ref"], "bench", str(ROOT), None),
             "ours": adapters.QlessPyNew(urls["ours"], "bench", str(ROOT), None)}
    conns = {who: redis.Redis.from_url(url) for who, url in urls.items()}
    if carry_over:
        before = adapters.QlessPyPeer(urls["ours"], "bench", str(ROOT), None)
        before.connect()
        lifecycle(before, n)
        before.close()
        conns["ours"].flushall()
    for who in order:
        sides[who].connect()
        # the harness's warm-up: load the script, open connections, import lazily
        for _ in range(200):
            sides[who].put()
        for job in [sides[who].pop() for _ in range(200)]:
            sides[who].complete(job)
    jobs: dict[str, list[Any]] = {who: [] for who in order}
    result: dict[str, float] = {}
    for phase in PHASES:
        chunks: dict[str, list[float]] = {who: [] for who in order}
        for start in range(0, n, chunk):
            stop = min(n, start + chunk)
            for who in order:
                adapter = sides[who]
                usec0, calls0 = evalsha_usec(conns[who])
                if phase == "put":
                    for _ in range(start, stop):
                        adapter.put()
                elif phase == "pop":
                    jobs[who].extend(adapter.pop() for _ in range(start, stop))
                else:
                    for job in jobs[who][start:stop]:
                        adapter.complete(job)
                usec1, calls1 = evalsha_usec(conns[who])
                if calls1 - calls0 != stop - start:
                    raise SystemExit(f"{who} {phase}: {calls1 - calls0} EVALSHA calls "
                                     f"for {stop - start} jobs")
                chunks[who].append((usec1 - usec0) / (stop - start))
        for who in order:
            result[f"{who}.{phase}"] = statistics.mean(chunks[who])
    for who in order:
        if not all(jobs[who]):
            raise SystemExit(f"{who}: a pop returned no job")
        sides[who].close()
        result[f"{who}.lifecycle"] = sum(result[f"{who}.{p}"] for p in PHASES)
    result["ratio"] = result["ours.lifecycle"] / result["ref.lifecycle"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, required=True,
                        help="redis-server to run (the reference needs Redis <= 6.2.6)")
    parser.add_argument("--harness", type=Path, default=ROOT.parent / "shared" / "bench",
                        help="the shared harness directory (its adapters.py is used)")
    parser.add_argument("-n", type=int, default=20000, help="jobs per phase")
    parser.add_argument("--chunk", type=int, default=500, help="calls per turn")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs; their order alternates (ours first, then the reference)")
    parser.add_argument("--carry-over", action="store_true",
                        help="run the reference's lifecycle on our server first (as the harness)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.harness.resolve()))
    adapters = importlib.import_module("adapters")
    ratios = []
    for run in range(args.runs):
        order = ["ours", "ref"] if run % 2 == 0 else ["ref", "ours"]
        root = Path(tempfile.mkdtemp(prefix="qlpair-", dir="/tmp"))
        servers = {who: ServerProcess(root / who, kind="redis", port=free_port(),
                                      unixsocket=False, binary=args.binary).start()
                   for who in ("ours", "ref")}
        try:
            urls = {who: server.url for who, server in servers.items()}
            result = paired_run(adapters, urls, args.n, args.chunk, order, args.carry_over)
        finally:
            for server in servers.values():
                server.stop()
            shutil.rmtree(root, ignore_errors=True)
        ratios.append(result["ratio"])
        parts = {who: " + ".join(f"{result[f'{who}.{p}']:.1f}" for p in PHASES)
                 for who in ("ours", "ref")}
        print(f"run {run + 1} ({order[0]} first): qless_py {parts['ours']} = "
              f"{result['ours.lifecycle']:.1f} us, reference {parts['ref']} = "
              f"{result['ref.lifecycle']:.1f} us, ratio {result['ratio']:.3f}", flush=True)
    if len(ratios) > 1:
        print(f"median ratio {statistics.median(ratios):.3f} over {len(ratios)} runs")


if __name__ == "__main__":
    main()
