"""Client connections dropped every 0.3-1.5 s while ``qless-py worker`` runs a pipeline.

Proxies, failovers and idle timeouts close connections under a running worker; the server
stays up. Whatever call a drop hits (a pop, a handler's complete, a heartbeat), every job
must end complete, none failed, none completed twice in a stage, no dependency left. It
runs for the threaded worker (``--threads 4``) and for the asyncio worker (``--async
--concurrency 8``, with ``async def`` stages).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import pytest
import redis

from qless_py import Client, QlessConnectionError
from tests.workers.conftest import CliWorker, wait_for

Start = Callable[..., CliWorker]
T = TypeVar("T")

FAN = 30  # members per fan-in job
WAVE = 10  # fan-in groups put at a time: 300 members, 10 fan-in jobs
MIN_WAVES = 7  # at least 2,170 jobs
DROPS = 6  # drops while the workers are busy
STAGES = {"s1": "s2", "s2": "s3"}  # members go s1, s2, s3; fan-in jobs in s4 wait for them
SEED = 20261121


def steady(read: Callable[[], T]) -> T:
    """A read of the test's own, repeated when a drop hits its connection too."""
    for _ in range(20):
        try:
            return read()
        except (QlessConnectionError, redis.ConnectionError):
            continue
    return read()


def put_once(client: Client, put: Callable[[], object], jid: str) -> None:
    """A put of the test's own that a drop may hit after the server ran it: put again only
    if ``jid`` (the put's first job; a batch is one atomic core call) is not there. A
    second put of a job that a worker has meanwhile started would run a stage again."""
    for _ in range(20):
        try:
            put()
            return
        except (QlessConnectionError, redis.ConnectionError):
            if steady(lambda: client.jobs[jid]) is not None:
                return
    put()


class Dropper:
    """Kills every normal client connection (not itself, not pub/sub) at random intervals."""

    def __init__(self, url: str, seed: int) -> None:
        self.conn = redis.Redis.from_url(url)
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.drops = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(self.rng.uniform(0.3, 1.5)):
            self.conn.client_kill_filter(_type="normal", skipme=True)
            self.drops += 1

    def __enter__(self) -> Dropper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)
        self.conn.close()


STAGE = {"threads": "tests.workers.fault_jobs.Stage",
         "async": "tests.workers.async_jobs.CoreOnlyStage"}
OPTIONS = {"threads": ("--threads", "4"), "async": ("--async", "--concurrency", "8")}


def put_wave(client: Client, wave: int, stage: str) -> tuple[list[str], list[str]]:
    """``WAVE`` groups: ``FAN`` members each, and a fan-in job waiting for each group."""
    members: list[str] = []
    joins: list[str] = []
    for g in range(wave * WAVE, (wave + 1) * WAVE):
        group = [f"g{g}-m{i}" for i in range(FAN)]
        put_once(client, partial(client.queues["s1"].put_many,
            [{"klass": stage, "jid": jid,
              "data": {"next": STAGES, "work": 0.0005}} for jid in group]), group[0])
        members += group
        put_once(client, partial(client.queues["s4"].put,
            stage, {"work": 0.0005}, jid=f"g{g}-join",
            depends=group), f"g{g}-join")
        joins.append(f"g{g}-join")
    return members, joins


def backlog(client: Client) -> int:
    """Jobs waiting in any queue: the producer keeps it small, so the drain is short."""
    return sum(int(q["waiting"]) for q in steady(lambda: client.queues.counts))


def done_counts(client: Client, jids: list[str]) -> dict[str, int]:
    found: list[Any] = []
    for start in range(0, len(jids), 500):
        found += steady(partial(client.jobs.get, *jids[start:start + 500]))
    return {job.jid: [e["what"] for e in job.history].count("done") for job in found}


def all_complete(client: Client, jids: list[str]) -> bool:
    for start in range(0, len(jids), 500):
        found = steady(partial(client.jobs.get, *jids[start:start + 500]))
        if len(found) < len(jids[start:start + 500]) or \
                any(job.state != "complete" for job in found):
            return False
    return True


@pytest.mark.parametrize("kind", ["threads", "async"])
def test_dropped_connections_fail_no_job_and_complete_none_twice(
        private_server: Any, cli_worker: Start, kind: str) -> None:
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    client.config["heartbeat"] = 10  # short enough that a dropped lease would show
    client.config["grace-period"] = 0
    members, joins = put_wave(client, 0, STAGE[kind])
    worker = cli_worker("-q", "s1", "-q", "s2", "-q", "s3", "-q", "s4", "--processes", "2",
                        *OPTIONS[kind], "--url", server.url, "--interval", "1",
                        "--order", "round-robin")
    wait_for(lambda: " end g0-" in worker.log)
    waves = 1
    with Dropper(server.url, SEED) as dropper:
        # keep the workers busy until enough drops have hit them (and enough jobs were put)
        while dropper.drops < DROPS or waves < MIN_WAVES:
            if backlog(client) < FAN * WAVE:
                more, more_joins = put_wave(client, waves, STAGE[kind])
                members, joins, waves = members + more, joins + more_joins, waves + 1
            else:
                dropper.stop.wait(0.02)
        everything = members + joins
        # (a failed job never completes: stop waiting then, the assertions say which)
        wait_for(lambda: all_complete(client, everything) or steady(client.jobs.failed),
                 timeout=60, step=0.2)
    assert len(everything) >= 2000
    assert steady(client.jobs.failed) == {}
    counts = done_counts(client, everything)
    assert {jid for jid in members if counts[jid] != 3} == set(), "a stage ran twice or not"
    assert {jid for jid in joins if counts[jid] != 1} == set()
    left = steady(lambda: list(client.redis.scan_iter("ql:j:*-depend*")))
    assert left == [], "dependency sets left behind"
    log = worker.log
    assert "Traceback" not in log and " lost (" not in log
    hits = log.count("may or may not have run (the connection dropped)")
    assert hits > 0, "no handler's call was hit: the test proved nothing"
    print(f"{len(everything)} jobs, {dropper.drops} drops, {hits} handler completes hit")
    client.close()
