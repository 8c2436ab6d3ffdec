"""A worker pipeline that runs into the memory limit (``maxmemory`` with ``noeviction``),
stalls while the server refuses writes, and finishes once memory is freed.

Real ``qless-py worker`` processes (threads, and ``--async``) on private servers. The jobs
make no call of their own (``Quiet``), so the only writes refused are the worker's: its
pops, heartbeats and the complete of a finished job, which it sends again until memory
frees (docs/operations.md, "At the memory limit"). Every job then completes exactly once
(one ``done`` in its history), none fails, none is lost, and the worker's log has no ERROR
line and no traceback, only one WARNING per part per outage.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import redis

from qless_py import Client, OutOfMemoryError
from tests.workers.conftest import KINDS, CliWorker, Kind, wait_for

Start = Callable[..., CliWorker]
GROUPS, FAN = 20, 10  # 200 members in q1, 20 joins in q2 waiting for their group
# The parts of a worker that log an outage (qless_py/workers/outage.py), and the settle retry
# of a finished job (qless_py/workers/memory.py): each says so once per outage.
WARNING = re.compile(r"WARNING (?:(\w+): the server cannot answer|(the server is out of memory))")


def _put_pipeline(client: Client, kind: Kind, tag: str) -> list[str]:
    jids: list[str] = []
    for g in range(GROUPS):
        members = [f"{tag}{g}-m{i}" for i in range(FAN)]
        client.queues["q1"].put_many([{"klass": kind.jobs.Quiet, "data": {"seconds": 0.01},
                                       "jid": jid} for jid in members])
        jids += members
        jids.append(client.queues["q2"].put(kind.jobs.Quiet, {"seconds": 0.01},
                                            jid=f"{tag}{g}-join", depends=members))
    return jids


def _done(client: Client) -> int:
    return int(client.redis.zcard("ql:completed"))


def _at_the_limit(conn: redis.Redis) -> None:
    conn.config_set("maxmemory-policy", "noeviction")
    conn.config_set("maxmemory", 1)


def _warnings(log: str) -> Counter[str]:
    return Counter(m.group(1) or "settle" for m in WARNING.finditer(log))


@pytest.mark.slow
@pytest.mark.parametrize("brand", ["valkey", "redis"])
@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_a_pipeline_stalls_at_the_memory_limit_and_finishes_once_memory_frees(
        private_server: Any, cli_worker: Start, kind: Kind, brand: str) -> None:
    server = private_server(brand)
    client = Client(server.url, worker_name="producer")
    jids = _put_pipeline(client, kind, "a")
    worker = cli_worker("-q", "q1", "-q", "q2", "--processes", "1", "--url", server.url,
                        "--interval", "1", *kind.args)
    wait_for(lambda: _done(client) >= 30, timeout=30)
    _at_the_limit(client.redis)
    with pytest.raises(OutOfMemoryError):
        client.queues["q1"].put(kind.jobs.Quiet, {}, jid="refused")
    time.sleep(1.5)  # jobs running when the limit came finish; their completes wait
    stalled = _done(client)
    time.sleep(2.0)
    assert _done(client) == stalled, "a write went through at the memory limit"
    assert stalled < len(jids)
    assert client.jobs["refused"] is None
    client.redis.config_set("maxmemory", 0)
    more = _put_pipeline(client, kind, "b")  # and the pipeline takes new work again
    everything = jids + more
    wait_for(lambda: _done(client) == len(everything), timeout=60)

    assert worker.proc.poll() is None, "the worker died"
    assert client.jobs.failed() == {}
    jobs = client.jobs.get(*everything)
    assert len(jobs) == len(everything), "jobs were lost"
    assert {j.state for j in jobs} == {"complete"}
    done = {j.jid: sum(1 for h in j.history if h.get("what") == "done") for j in jobs}
    assert set(done.values()) == {1}, {jid: n for jid, n in done.items() if n != 1}
    worker.signal(15)
    assert worker.wait(15) == 0
    log = worker.log
    assert "ERROR" not in log and "Traceback" not in log, log
    assert "could not complete" not in log and "unsettled" not in log, log
    starts = Counter(re.findall(r"INFO start (\S+) ", log))
    assert set(starts.values()) == {1}, "a handler ran twice"
    # A runner busy settling its finished job does not pop meanwhile, so which parts meet
    # the outage varies; each that does says so once, and says when it is over.
    warned = _warnings(log)
    assert warned and set(warned.values()) == {1}, log
    for part in set(warned) - {"settle"}:
        assert f"{part}: the server answers again" in log, log
    client.close()
