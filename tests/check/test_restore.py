"""Damage from outside the core that the check must judge rightly: an older RDB restored
under a running pipeline, and other cores (the throttle dialect's, as an old client or a
reqless worker) writing beside ours.

An RDB is one point in time of the whole keyspace, so every invariant of the core holds in
it: restored, it holds no finding. What a restore breaks lies outside the data (work done
since the snapshot runs again, puts since it are gone), and the workers ride it out: every
job the restored data holds completes, none fails.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from typing import Any

import pytest

from qless_py import Client
from tests.check.support import Db
from tests.core.support import T0, Core
from tests.workers.conftest import CliWorker, Kind, wait_for
from tests.workers.test_reliability import all_complete, fast_reclaim

Start = Callable[..., CliWorker]


def _put(client: Client, kind: Kind, tag: str, groups: int) -> list[str]:
    jids: list[str] = []
    for g in range(groups):
        members = [f"{tag}{g}-m{i}" for i in range(10)]
        client.queues["q1"].put_many([{"klass": kind.jobs.Quiet, "data": {"seconds": 0.02},
                                       "jid": jid, "tags": ["restore"]} for jid in members])
        jids += members
        jids.append(client.queues["q2"].put(kind.jobs.Quiet, {"seconds": 0.02},
                                            jid=f"{tag}{g}-join", depends=members,
                                            throttles=["restore"], ttl=3600))
    return jids


def _done(client: Client) -> int:
    return int(client.redis.zcard("ql:completed"))


@pytest.mark.slow
def test_an_older_rdb_restored_under_a_pipeline(private_server: Any, cli_worker: Start,
                                               kind: Kind) -> None:
    server = private_server("valkey")
    client = Client(server.url, worker_name="producer")
    fast_reclaim(client)
    client.throttles["restore"].maximum = 2
    early = _put(client, kind, "a", 30)
    worker = cli_worker("-q", "q1", "-q", "q2", "--processes", "1", "--url", server.url,
                        "--interval", "1", "--socket-timeout", "1", *kind.args)
    wait_for(lambda: _done(client) >= 60, timeout=30)
    client.redis.save()
    shutil.copy(server.directory / "dump.rdb", server.directory / "old.rdb")
    saved = _done(client)
    late = _put(client, kind, "b", 5)  # gone with the restore
    wait_for(lambda: _done(client) >= saved + 100, timeout=30)
    server.kill()
    shutil.copy(server.directory / "old.rdb", server.directory / "dump.rdb")
    server.start()
    client.close()
    client = Client(server.url, worker_name="producer")
    assert _done(client) < saved + 100, "the restore did not take the data back"
    assert client.check().findings == []
    assert client.jobs.get(*late) == []
    wait_for(lambda: all_complete(client, early), timeout=60)
    assert client.jobs.failed() == {}
    report = client.check(repair=True)
    assert report.findings == [] and report.repaired == 0
    assert worker.proc.poll() is None, "the worker died"
    worker.signal(15)
    assert worker.wait(15) == 0
    client.close()


def _both_cores(db: Db, dialect: Core, rounds: int, seed: int) -> None:
    """Puts (tagged, throttled, dependent), pops, completes, fails, retries, heartbeats,
    timeouts and unfails, each sent by ours or by the dialect's core at random, on one
    database."""
    rng = random.Random(seed)
    now = T0
    db("throttle.set", "t", 2, now=now)
    held: list[tuple[str, str]] = []  # jobs popped and left running
    for n in range(rounds):
        now += 1
        core_of = rng.choice(["ours", "theirs"])

        def call(*args: Any, core_of: str = core_of, now: float = now) -> Any:
            if core_of == "ours":
                return db(*args, now=now)
            return dialect(args[0], now, *args[1:])

        opts: list[Any] = []
        if n % 3 == 0:
            opts += ["throttles", '["t"]']
        if n % 4 == 0:
            opts += ["tags", '["x", "y"]']
        if n % 5 == 0 and n:
            opts += ["depends", f'["j{n - 1}"]']
        call("put", "w0", rng.choice(["q", "r"]), f"j{n}", "K", "{}", 0, *opts)
        for queue in ("q", "r"):
            popped = json.loads(call("pop", queue, "w1", 2) or "[]")
            for job in popped if isinstance(popped, list) else []:
                verb = rng.choice(["complete", "complete", "fail", "retry", "hold"])
                if verb == "hold":
                    held.append((job["jid"], queue))
                elif verb == "complete":
                    call("complete", job["jid"], "w1", queue, "{}")
                elif verb == "fail":
                    call("fail", job["jid"], "w1", "g", "boom", "{}")
                else:
                    call("retry", job["jid"], queue, "w1", 0)
        if n % 10 == 9:
            call("unfail", "q", "g", 5)
        if n % 7 == 6 and held:
            jid, queue = held.pop(rng.randrange(len(held)))
            if db.state(jid) == "running":
                call("heartbeat", jid, "w1", "{}")
                call("timeout", jid)


@pytest.mark.parametrize("seed", [20261129, 7, 1234])
def test_the_dialect_core_writing_beside_ours_leaves_no_finding(db: Db, dialect: Core,
                                                                seed: int) -> None:
    db.now = T0
    _both_cores(db, dialect, 300, seed)
    assert db.findings() == set()
    dialect("tag", T0 + 500, "add", "j0", "z")  # the dialect's own commands too
    dialect("tag", T0 + 500, "remove", "j4", "x")
    dialect("cancel", T0 + 500, "j1")
    dialect("throttle.set", T0 + 500, "t", 1)
    assert db.findings() == set()
