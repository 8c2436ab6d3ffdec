#!/usr/bin/env python
"""Client CPU per call of the async client against the sync one: ``queue.length()`` one
call at a time with each, then the same calls from many coroutines at once.

    python scripts/bench_async_client.py [--kind valkey|redis] [-n 3000]

Starts a private server on a unix socket. Prints the client's CPU per call
(``time.process_time``, the best of three rounds), which is what a loop spends on each
call; the round trip itself is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from qless_py import Client
from qless_py.aio import AsyncClient
from qless_py.server import ServerProcess


def _sync(url: str, n: int) -> float:
    client = Client(url, worker_name="bench")
    queue = client.queues["q"]
    queue.length()  # connects and loads the script
    best = float("inf")
    for _ in range(3):
        cpu = time.process_time()
        for _ in range(n):
            queue.length()
        best = min(best, (time.process_time() - cpu) / n)
    client.close()
    return best


async def _async(url: str, n: int) -> tuple[float, float]:
    async with AsyncClient(url, worker_name="bench") as client:
        queue = client.queues["q"]
        await queue.length()
        best = float("inf")
        for _ in range(3):
            cpu = time.process_time()
            for _ in range(n):
                await queue.length()
            best = min(best, (time.process_time() - cpu) / n)
        cpu = time.process_time()
        await asyncio.gather(*(queue.length() for _ in range(n)))
        return best, (time.process_time() - cpu) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=["valkey", "redis"], default="valkey")
    parser.add_argument("-n", type=int, default=3000)
    opts = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="qlba-", dir="/tmp"))
    server = ServerProcess(root, kind=opts.kind).start()
    try:
        sync = _sync(server.url, opts.n)
        one, many = asyncio.run(_async(server.url, opts.n))
        print(f"client CPU per call: sync {sync * 1e6:.1f} us, async one at a time "
              f"{one * 1e6:.1f} us, async {opts.n} at once {many * 1e6:.1f} us")
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
