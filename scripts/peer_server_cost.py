"""What a job costs the server, BullMQ beside us: instructions (valgrind callgrind) or
server CPU time. The exact form of the shared harness's Redis time per job, and the figure
that bounds a worker's throughput.

    python scripts/peer_server_cost.py --binary <server> [--bench ../shared/bench] \
        [--node-modules <peer-envs/bullmq/node_modules>] [-n 1000]
    python scripts/peer_server_cost.py --binary <server> --worker -n 2000
    python scripts/peer_server_cost.py --binary <server> --cpu -n 20000 --rounds 3

**Lifecycle** (the default): the server runs under callgrind, which counts only inside
EVALSHA (``--collect``: the server function of that command), and BullMQ is driven through
the harness's own driver (``node/bullmq_driver.js``: ``queue.add``, ``worker.getNextJob``,
``job.moveToCompleted`` without fetching the next job), one call per round trip: 200
lifecycles to warm up, then ``-n`` puts, ``-n`` pops and ``-n`` completes.
``count_instructions.py`` counts our core on the same binary with the same calls.

**--worker**: what a busy worker costs the server per job, in instructions (callgrind,
inside EVALSHA): ``-n`` no-op jobs are queued (untimed), then the worker runs them and is
counted until the last is complete. BullMQ's worker (``node/bullmq_worker.js``, concurrency
10: it completes a job and fetches the next one in one call) beside our asyncio worker
with concurrency 10 (in this process, with its listener, whose key tracking is part of what
each write costs the server), each on a server of its own. Our threaded worker is left
out: the size of its pops follows the time jobs take, which callgrind's slowness distorts.
``--queues N`` makes our worker serve N queues, all but the benchmark's empty.

**--cpu**: the same workers as the harness runs them (one process each: ``node
bullmq_worker.js Q 10``, ``qless-py worker --async --concurrency 10`` and ``qless-py worker
--threads 4``), each on a plain server of its own, taking turns for ``--rounds``; per run,
jobs per second after the first job and the server's main-thread CPU per job (``INFO
cpu``). With a server that is one thread, the jobs per second a worker fleet can reach is
at most 1,000,000 over the server CPU µs per job.

Needs valgrind (but for ``--cpu``) and node with BullMQ installed where ``--node-modules``
says (the harness's ``run.sh`` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from callgrind import CallgrindServer

from qless_py import Client
from qless_py.server import ServerProcess, free_port

PHASES = ("put", "pop", "complete")


class Driver:
    """The harness's BullMQ driver: one JSON request per line, one ``QLB`` reply line."""

    def __init__(self, bench: Path, node_modules: Path) -> None:
        env = dict(os.environ, NODE_PATH=str(node_modules))
        self.proc = subprocess.Popen(["node", str(bench / "node" / "bullmq_driver.js")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True)

    def ask(self, **request: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("peer_server_cost: the BullMQ driver exited")
            if line.startswith("QLB "):
                reply: dict[str, Any] = json.loads(line[4:])
                if not reply.get("ok"):
                    raise SystemExit(f"peer_server_cost: {reply.get('error')}")
                return reply

    def lifecycle(self, n: int, dump: Any = None) -> None:
        """``n`` puts, pops and completes; ``dump(phase)`` after each phase."""
        self.ask(op="put", n=n)
        if dump:
            dump("put")
        ids = self.ask(op="pop", n=n)["ids"]
        if dump:
            dump("pop")
        self.ask(op="complete", ids=[i for i in ids if i is not None])
        if dump:
            dump("complete")

    def close(self) -> None:
        try:
            self.ask(op="close")
        finally:
            self.proc.wait(30)


class NoopJob:
    """Our no-op job, as the harness's: the handler completes the job itself."""

    @staticmethod
    def process(job: Any) -> None:
        job.complete()


class AsyncNoopJob:
    @staticmethod
    async def process(job: Any) -> None:
        await job.complete()


def bullmq_worker(args: argparse.Namespace) -> float:
    """Server instructions per job of BullMQ's worker, concurrency 10."""
    server = CallgrindServer(args.binary, args.port, args.collect)
    driver = Driver(args.bench.resolve(), args.node_modules.resolve())
    worker = None
    try:
        driver.ask(op="init", url=server.url, queue="bench")
        driver.ask(op="put", n=args.n + 200)
        env = dict(os.environ, NODE_PATH=str(args.node_modules.resolve()),
                   QLBENCH_REDIS_URL=server.url)
        worker = subprocess.Popen(["node", str(args.bench.resolve() / "node"
                                               / "bullmq_worker.js"), "bench", "10"], env=env)
        while server.conn.zcard("bull:bench:completed") < 200:
            time.sleep(0.05)
        server.zero()
        start = server.conn.zcard("bull:bench:completed")
        while server.conn.zcard("bull:bench:completed") < args.n + 200:
            time.sleep(0.05)
        done = int(server.conn.zcard("bull:bench:completed")) - int(start)
        return server.dump("worker") / done
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(30)
        driver.close()
        server.stop()


def our_worker(args: argparse.Namespace, mode: str) -> float:
    """Server instructions per job of our worker (``threads`` 4 or ``async`` 10)."""
    from qless_py.workers.aio.worker import AsyncWorker
    from qless_py.workers.threaded.worker import Worker

    server = CallgrindServer(args.binary, args.port, args.collect)
    try:
        client = Client(server.url)
        queue = client.queues["bench"]
        klass = f"{__name__}.{'NoopJob' if mode == 'threads' else 'AsyncNoopJob'}"

        def run(count: int) -> None:
            for _ in range(0, count, 100):
                queue.put_many([(klass, {})] * 100)
            # the benchmark's queue, and --queues - 1 more that stay empty
            queues = ["bench", *(f"queue-{i:04d}" for i in range(1, args.queues))]
            if mode == "threads":
                Worker(client, queues, threads=4, burst=True, handle_signals=False).run()
            else:
                AsyncWorker(client, queues, concurrency=10, burst=True,
                            handle_signals=False).run()

        run(200)  # warm-up: the script is loaded, the keys exist
        for _ in range(0, args.n, 100):  # queued untimed, as the harness queues them
            queue.put_many([(klass, {})] * 100)
        server.zero()
        run(0)
        count = server.dump("worker") / int(args.n)
        client.close()
        return count
    finally:
        server.stop()


def cpu_run(args: argparse.Namespace, system: str) -> tuple[float, float]:
    """One worker run on a plain server of its own: jobs/s after the first job, and the
    server's main-thread CPU µs per job over the whole run."""
    server = ServerProcess(Path(tempfile.mkdtemp(prefix="qlcpu-", dir="/tmp")), kind="redis",
                           port=free_port(), unixsocket=False, binary=args.binary).start()
    url = server.url
    conn = redis.Redis.from_url(url)
    worker = None
    try:
        if system == "bullmq":
            driver = Driver(args.bench.resolve(), args.node_modules.resolve())
            try:
                driver.ask(op="init", url=url, queue="bench")
                driver.ask(op="put_many", n=args.n, batch=100)
            finally:
                driver.close()
            env = dict(os.environ, NODE_PATH=str(args.node_modules.resolve()),
                       QLBENCH_REDIS_URL=url)
            argv = ["node", str(args.bench.resolve() / "node" / "bullmq_worker.js"), "bench",
                    "10"]

            def done() -> int:
                return int(conn.zcard("bull:bench:completed"))
        else:
            client = Client(url)
            klass = "peer_server_cost.AsyncNoopJob" if "async" in system else \
                "peer_server_cost.NoopJob"
            for _ in range(0, args.n, 100):
                client.queues["bench"].put_many([(klass, {})] * 100)
            client.close()
            env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent.absolute()))
            argv = [sys.executable, "-m", "qless_py", "worker", "-q", "bench", "--url", url,
                    "--processes", "1", *system.split()[1:]]

            def done() -> int:
                return int(conn.zcard("ql:completed"))
        cpu = conn.info("cpu")
        before = cpu["used_cpu_user_main_thread"] + cpu["used_cpu_sys_main_thread"]
        worker = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        while done() < 1:
            time.sleep(0.001)
        first, first_at = done(), time.monotonic()
        while done() < args.n:
            time.sleep(0.005)
        rate = (args.n - first) / (time.monotonic() - first_at)
        cpu = conn.info("cpu")
        after = cpu["used_cpu_user_main_thread"] + cpu["used_cpu_sys_main_thread"]
        return rate, 1e6 * (after - before) / args.n
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(30)
        conn.close()
        server.stop()
        shutil.rmtree(server.directory, ignore_errors=True)


CPU_SYSTEMS = ("bullmq", "qless_py --async --concurrency 10", "qless_py --threads 4")


def cpu_table(args: argparse.Namespace) -> None:
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in CPU_SYSTEMS}
    for index in range(args.rounds):
        order = CPU_SYSTEMS[index % 3:] + CPU_SYSTEMS[:index % 3]  # each goes first in turn
        for name in order:
            rate, cpu = cpu_run(args, name)
            results[name].append((rate, cpu))
            print(f"round {index + 1}: {name:<36} {rate:>7,.0f} jobs/s  server CPU "
                  f"{cpu:>5.0f} µs/job", flush=True)
    print(f"\nmedians of {args.rounds} rounds, {args.n} no-op jobs, one worker process:")
    for name, runs in results.items():
        rate = statistics.median(r for r, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"  {name:<36} {rate:>7,.0f} jobs/s  server CPU {cpu:>5.0f} µs/job  (one "
              f"server thread's ceiling: {1e6 / cpu:,.0f} jobs/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True, help="server to run under valgrind")
    parser.add_argument("--bench", type=Path, default=Path("../shared/bench"),
                        help="the shared harness's directory (its node/bullmq_driver.js)")
    parser.add_argument("--node-modules", type=Path,
                        default=Path(tempfile.gettempdir()) / "peers" / "peer-envs" / "bullmq"
                        / "node_modules")
    parser.add_argument("-n", type=int, default=1000, help="calls per phase")
    parser.add_argument("--port", type=int, default=6732)
    parser.add_argument("--collect", default="evalShaCommand",
                        help="the server function whose instructions count (Redis 7: "
                             "evalShaCommand too; Redis 6.2: evalGenericCommand)")
    parser.add_argument("--worker", action="store_true",
                        help="count a busy worker's instructions per job")
    parser.add_argument("--cpu", action="store_true",
                        help="time the workers instead: jobs/s and server CPU per job")
    parser.add_argument("--rounds", type=int, default=3, help="--cpu: rounds of turns")
    parser.add_argument("--queues", type=int, default=1,
                        help="--worker: the queues our worker serves (all but one empty)")
    args = parser.parse_args()
    for tool in ("node",) if args.cpu else ("valgrind", "node"):
        if shutil.which(tool) is None:
            raise SystemExit(f"peer_server_cost: {tool} is not installed")
    if args.cpu:
        cpu_table(args)
        return
    if args.worker:
        print("server instructions per job (EVALSHA only), busy worker:")
        print(f"  BullMQ, concurrency 10:           {bullmq_worker(args):>10,.0f}")
        print(f"  qless_py asyncio, concurrency 10: {our_worker(args, 'async'):>10,.0f}")
        return
    server = CallgrindServer(args.binary, args.port, args.collect)
    counts: dict[str, float] = {}
    try:
        driver = Driver(args.bench.resolve(), args.node_modules.resolve())
        try:
            driver.ask(op="init", url=server.url, queue="bench")
            driver.lifecycle(200)  # warm-up: the scripts are loaded, the keys exist
            server.zero()
            driver.lifecycle(args.n, lambda phase: counts.__setitem__(
                phase, server.dump(phase) / args.n))
        finally:
            driver.close()
    finally:
        server.stop()
    print("BullMQ, instructions per call (EVALSHA only):")
    for phase in PHASES:
        print(f"{phase:>10}: {counts[phase]:>10,.0f}")
    print(f"{'lifecycle':>10}: {sum(counts.values()):>10,.0f}")


if __name__ == "__main__":
    main()
