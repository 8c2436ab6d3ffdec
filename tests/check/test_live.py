"""The check on a live database: workers putting, popping and completing beside it find
nothing wrong; a check resumed from its token finds what one walk finds; both clients
agree."""

from __future__ import annotations

import threading

import pytest
import redis

from qless_py import Client
from tests.check.support import Db
from tests.client.conftest import AnyClient, MakeClient, run


def _pipeline(url: str, stop: threading.Event, index: int) -> None:
    """Put, pop and complete (with tags, dependencies and a throttle) until told to stop."""
    with Client(url, worker_name=f"pipe{index}") as c:
        queue = c.queues["live"]
        n = 0
        while not stop.is_set():
            n += 1
            first = queue.put("tests.jobs.Noop", {}, jid=f"p{index}-{n}", tags=["live"])
            queue.put("tests.jobs.Noop", {}, jid=f"p{index}-{n}-dep", depends=[first],
                      throttles=["live-throttle"])
            for job in queue.pop(count=3):
                job.complete()


def test_a_check_beside_a_running_pipeline_finds_nothing(db: Db, server_url: str) -> None:
    db.build()
    db.client.throttles["live-throttle"].maximum = 2
    stop = threading.Event()
    threads = [threading.Thread(target=_pipeline, args=(server_url, stop, i)) for i in range(2)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(5):
            assert db.client.check(budget=20).findings == []
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert db.findings() == set()


def test_a_resumed_check_finds_what_one_walk_finds(db: Db) -> None:
    db.build()
    db.conn.delete("ql:j:a2", "ql:completed", "ql:q:kq-key:K")
    whole = db.findings()
    token, found = "", set()
    for _ in range(1000):
        report = db.client.check(resume=token, budget=3, steps=2)
        found |= {(f.invariant, f.key, f.member) for f in report.findings}
        token = report.token
        if not token:
            break
    assert found == whole and len(whole) == 7


@pytest.mark.asyncio
async def test_both_clients_check_and_repair_alike(server_url: str, make_client: MakeClient,
                                                   db: Db) -> None:
    db.build()
    db.conn.delete("ql:t:t2")
    checker: AnyClient = make_client(server_url)
    report = await run(checker.check())
    assert [(f.invariant, f.key, f.member) for f in report.findings] == [
        ("tag-unindexed", "ql:j:a2", "t2")]
    assert (await run(checker.check(repair=True))).repaired == 1
    assert (await run(checker.check())).clean
    summary = await run(checker.last_check())
    assert summary is not None and summary.counts == {}


def _many_jobs(db: Db, redis_conn: redis.Redis) -> bool:
    """3000 waiting jobs put; whether the server lends scripts a clock (os.clock: Valkey
    and Redis 8, not Redis 6.2 and 7)."""
    db.client.queues["many"].put_many(("tests.jobs.Noop", {}) for _ in range(3000))
    return bool(redis_conn.eval("return rawget(_G, 'os') and 1 or 0", 0) == 1)


def test_a_step_ends_on_the_servers_clock_where_the_server_has_one(
        db: Db, redis_conn: redis.Redis) -> None:
    # with a clock a step ends after about 0.3 ms whatever its budget; without one the
    # budget alone ends it
    has_clock = _many_jobs(db, redis_conn)
    total = sum(1 for _ in redis_conn.scan_iter("ql:*", count=1000))
    report = db.client.check(budget=1_000_000, steps=1)
    if has_clock:
        assert report.token and 0 < report.keys < total
    else:
        assert not report.token and report.keys == total


def test_a_step_without_a_budget_takes_the_cores_default(
        db: Db, redis_conn: redis.Redis) -> None:
    # 40 server calls where the server lends a clock (and 0.3 ms), 25 where it does not;
    # a step may go a few calls over while it finishes a key
    has_clock = _many_jobs(db, redis_conn)
    db.client.check(steps=1)  # the connection and the script are ready
    redis_conn.config_resetstat()
    db.client.check(steps=1)
    skip = ("cmdstat_evalsha", "cmdstat_config", "cmdstat_info", "cmdstat_script")
    calls = sum(int(stats["calls"]) for name, stats in redis_conn.info("commandstats").items()
                if not name.startswith(skip))
    assert (0 < calls <= 50) if has_clock else (25 <= calls <= 35)
