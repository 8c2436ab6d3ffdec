"""``check`` beside a chaos pipeline finds nothing: real ``qless-py worker`` processes run a
pipeline of stages and fan-in jobs (with tags, a throttle and ordering keys) while their
children are killed with kill -9 and every client connection is dropped (CLIENT KILL) at
random. The core is the only writer, so each of the checks made meanwhile, and one made
after, reports no finding."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

from qless_py import Client, QlessConnectionError
from qless_py.calls.check import Finding
from tests.workers.conftest import CliWorker, Kind, wait_for
from tests.workers.test_dropped_connections import Dropper, put_once, steady
from tests.workers.test_reliability import all_complete, fast_reclaim

Start = Callable[..., CliWorker]
GROUPS, FAN = 40, 10  # 480 jobs at first, and 36 more between checks
CHECKS = 10


def _put_group(client: Client, kind: Kind, g: int) -> list[str]:
    """Ten members in q1 (tagged), a join in q2 waiting for them (throttled), and a job in
    q3 with an ordering key (both with a ttl); each put made once, however the drops fall."""
    stage = kind.jobs.Quiet
    members = [f"g{g}-m{i}" for i in range(FAN)]
    put_once(client, lambda: client.queues["q1"].put_many(
        [{"klass": stage, "data": {"seconds": 0.01}, "jid": jid, "retries": 50,
          "tags": ["chaos", f"g{g}"]} for jid in members]), members[0])
    put_once(client, lambda: client.queues["q2"].put(
        stage, {"seconds": 0.01}, jid=f"g{g}-join", depends=members, retries=50,
        throttles=["chaos"], ttl=3600), f"g{g}-join")
    put_once(client, lambda: client.queues["q3"].put(
        stage, {"seconds": 0.01}, jid=f"g{g}-k", retries=50, key=f"k{g % 3}", ttl=3600),
        f"g{g}-k")
    return [*members, f"g{g}-join", f"g{g}-k"]


def _check(client: Client) -> list[Finding]:
    """One whole check, each step sent again when a drop hits it (a step writes nothing)."""
    found: list[Finding] = []
    token = ""
    for _ in range(100_000):
        try:
            report = client.check(resume=token, budget=40, steps=20)
        except QlessConnectionError:
            continue
        found += report.findings
        token = report.token
        if not token:
            return found
    raise AssertionError("the check did not end")


@pytest.mark.slow
def test_checks_beside_a_chaos_pipeline_find_nothing(private_server: Any, cli_worker: Start,
                                                     kind: Kind) -> None:
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    fast_reclaim(client)
    client.throttles["chaos"].maximum = 3
    jids = [jid for g in range(GROUPS) for jid in _put_group(client, kind, g)]
    worker = cli_worker("-q", "q1", "-q", "q2", "-q", "q3", "--processes", "2",
                        "--url", server.url, "--interval", "1", "--order", "round-robin",
                        *kind.args)
    rng = random.Random(20261129)
    checker = Client(server.url, worker_name="checker")
    findings: list[Finding] = []
    checks = kills = 0
    with Dropper(server.url, 20261129) as dropper:
        while checks < CHECKS:
            findings += _check(checker)
            checks += 1
            children = worker.children()
            if children and kills < 8 and rng.random() < 0.7:
                os.kill(rng.choice(children), signal.SIGKILL)
                kills += 1
            for _ in range(3):  # the pipeline never runs dry while the checks go on
                jids += _put_group(client, kind, len(jids) // (FAN + 2))
            time.sleep(rng.uniform(0.05, 0.3))
        drops = dropper.drops
        busy = steady(lambda: int(client.redis.zcard("ql:completed"))) < len(jids)
    assert findings == [], findings
    assert busy, "the pipeline ended before the checks did: make it longer"
    wait_for(lambda: steady(lambda: all_complete(client, jids)), timeout=90)
    assert _check(checker) == []
    assert kills >= 3 and drops >= 1, (kills, drops)
    assert steady(lambda: client.jobs.failed()) == {}
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    checker.close()
    client.close()
