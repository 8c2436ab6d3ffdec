#!/usr/bin/env python
"""Count the instructions the sync client spends per call (valgrind callgrind), exactly.

Client CPU per call is a few microseconds, well inside the noise of timing on a shared VM;
instruction counts repeat to a fraction of a per cent. This script starts a private server,
then runs a small driver under callgrind twice, with ``-n`` and ``3 * -n`` operations, and
prints the difference per operation (start-up, imports and warm-up cancel out):

- ``lifecycle``: ``queue.put`` + ``queue.pop()`` + ``job.heartbeat()`` + ``job.complete()``
- ``get``: ``client.core.call("get", ...)`` of a missing job (scripts/bench_worker_call.py)

each on the worker's path (``LuaCore.go_direct``, qless_py.connect.resp) and on a plain client's
(redis-py). To compare two checkouts, run it from outside the repository with
``PYTHONPATH=<checkout>``:

    python scripts/count_client_instructions.py [-n 1000] [--path worker|plain] [--op ...]

Needs valgrind (Debian: apt-get install valgrind). Only the client process is counted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import redis

from qless_py.server import ServerProcess

OPS = ("lifecycle", "get")
PATHS = ("worker", "plain")

DRIVER = r"""
import sys
from qless_py import Client
url, path, op, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
client = Client(url, worker_name="count")
if path == "worker":
    client.core.go_direct(client.endpoint())
queue = client.queues["q"]

def lifecycle(i):
    queue.put("bench.Noop", {}, jid=f"j{i}")
    job = queue.pop()
    job.heartbeat()
    job.complete()

def get(i):
    client.core.call("get", "no-such-job")

step = lifecycle if op == "lifecycle" else get
for i in range(200):  # warm-up: connections, script load, first-use imports
    step(-1 - i)
for i in range(n):
    step(i)
client.close()
"""


def _instructions(url: str, path: str, op: str, n: int, root: Path) -> int:
    out = root / f"cg-{path}-{op}-{n}.out"
    admin = redis.Redis.from_url(url)
    admin.flushall()
    admin.close()
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         sys.executable, "-c", DRIVER, url, path, op, str(n)],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONHASHSEED": "0"})  # same dict layouts in every run
    match = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
    if match is None:
        raise SystemExit(f"no summary line in {out}")
    return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--path", choices=PATHS, action="append")
    parser.add_argument("--op", choices=OPS, action="append")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("count_client_instructions: valgrind is not installed")
    root = Path(tempfile.mkdtemp(prefix="qlci-", dir="/tmp"))
    server = ServerProcess(root, kind="valkey").start()
    try:
        for path in args.path or PATHS:
            for op in args.op or OPS:
                low = _instructions(server.url, path, op, args.n, root)
                high = _instructions(server.url, path, op, 3 * args.n, root)
                per = (high - low) / (2 * args.n)
                print(f"{path:6} {op:9} {per:12,.0f} instructions per operation")
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
