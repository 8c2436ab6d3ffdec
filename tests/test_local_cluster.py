"""qless_py.local_cluster on real nodes: a cluster of 3 masters and 3 replicas forms, a
namespace's data written through the core moves with its slot to another master, and a
master killed with kill -9 is replaced by its replica with that data."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from qless_py import lua
from qless_py.local_cluster import SLOTS, LocalCluster
from tests.conftest import need_server

PREFIX = "ql:{billing}:"


def _core(node_port: int) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=node_port)


@pytest.fixture(params=["valkey", "redis"])
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LocalCluster]:
    need_server(request.param)
    made = LocalCluster(tmp_path, masters=3, replicas=1, kind=request.param).start()
    yield made
    made.stop()


def test_a_namespace_follows_its_slot_and_survives_its_masters_death(
        cluster: LocalCluster) -> None:
    ranges = cluster.slot_map()
    assert sum(high - low + 1 for low, high, _ in ranges) == SLOTS
    assert len({port for _, _, port in ranges}) == 3
    slot = int(_core(cluster.nodes[0].port).cluster("KEYSLOT", PREFIX))
    master = cluster.master_of(slot)
    conn = _core(master.port)
    sha = conn.script_load(lua.SOURCE)
    assert conn.evalsha(sha, 1, PREFIX, "put", "1893456000", "w", "q", "a", "K", "{}", 0) \
        == b"a"
    conn.close()
    # the slot moves to another master, the job with it
    target = next(n for n in cluster.masters_now() if n is not master)
    cluster.migrate_slot(slot, target)
    assert cluster.master_of(slot) is target
    conn = _core(target.port)
    conn.script_load(lua.SOURCE)
    assert json.loads(conn.evalsha(sha, 1, PREFIX, "get", "1893456000", "a"))["queue"] == "q"
    conn.execute_command("WAIT", 1, 5000)
    conn.close()
    # its master dies: a replica takes over, with the job
    cluster.kill(target)
    promoted = cluster.wait_failover(target)
    assert promoted is not target and cluster.master_of(slot) is promoted
    conn = _core(promoted.port)
    conn.script_load(lua.SOURCE)
    assert json.loads(conn.evalsha(sha, 1, PREFIX, "get", "1893456000", "a"))["queue"] == "q"
    conn.close()
