"""Clients on real clusters of 3 masters and 3 replicas (Valkey and Redis): a namespace's
calls go to the master of its slot, wait while that slot is being moved, and follow the
move and a failover; the cluster URL's forms and refusals."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
import redis

from qless_py import Client, ConnectionSetupError, QlessConnectionError
from qless_py.aio import AsyncClient
from qless_py.connect.cluster import crc16, key_slot
from qless_py.connect.endpoint import Endpoint
from qless_py.keys import namespace_prefix
from qless_py.local_cluster import LocalCluster, Node
from qless_py.server import free_port
from tests.conftest import flushed_cluster_url
from tests.connections.conftest import error_lines, run_cli, wait_for

SLOT = key_slot(namespace_prefix("billing"))


def _calls(node: Node, command: str, counted: str = "calls") -> int:
    """How many times ``node`` ran ``command`` (INFO commandstats); ``rejected_calls``:
    how many times it refused it (a redirection, say)."""
    stats = node.call("INFO", "commandstats").get(f"cmdstat_{command}", {})
    return int(stats.get(counted, 0))


def test_crc16_and_key_slots_agree_with_the_server(_clusters: Any) -> None:
    assert crc16(b"123456789") == 0x31C3  # the CRC-16/XMODEM check value
    node = _clusters["valkey"].nodes[0]
    for key in ["ql:{billing}:", "ql:{billing}:j:x", "ql:config", "{}x", "a{}{b}", "{a}{b}",
                "ql:{é}:", "x{y", "x}y{z}"]:
        assert key_slot(key) == int(node.call("CLUSTER", "KEYSLOT", key)), key


@pytest.mark.parametrize(("url", "phrase"), [
    ("redis+cluster://127.0.0.1:7000", "a cluster URL needs a namespace"),
    ("redis+cluster://127.0.0.1:7000/3?namespace=a", "has only database 0"),
    ("redis+cluster://127.0.0.1:7000/?namespace=a&db=2", "has only database 0"),
    ("redis+cluster://127.0.0.1:7000,:7001/?namespace=a", "bad cluster address"),
    ("redis+cluster://127.0.0.1:7000/?namespace=a{b", "invalid namespace"),
])
def test_bad_cluster_urls_are_refused_in_one_line(url: str, phrase: str) -> None:
    for make in (Client, AsyncClient):
        with pytest.raises(ValueError, match=phrase) as info:
            make(url)
        assert "\n" not in str(info.value)


def test_cluster_urls_name_their_seeds_settings_and_namespace() -> None:
    ep = Endpoint.from_url("rediss+cluster://u:p%40ss@10.0.0.1:7000,10.0.0.2,[::1]:7002/"
                           "?namespace=billing&ssl_cert_reqs=none&socket_timeout=3")
    assert ep.cluster == (("10.0.0.1", 7000), ("10.0.0.2", 6379), ("::1", 7002))
    assert (ep.tls, ep.username, ep.password, ep.namespace, ep.timeout) == \
        (True, "u", "p@ss", "billing", 3.0)
    assert ep.ssl_cert_reqs == "none"
    assert "p@ss" not in str(ep) and "billing" in str(ep)
    assert Endpoint.from_url("redis+cluster://h:1", namespace="n").namespace == "n"


def test_a_namespace_lives_on_the_master_of_its_slot(_clusters: Any) -> None:
    made: LocalCluster = _clusters["valkey"]
    url = flushed_cluster_url(made, "billing")
    client = Client(url)
    try:
        jid = client.queues["q"].put("a.Job", {})
        master = made.master_of(SLOT)
        assert redis.Redis(host="127.0.0.1", port=master.port).exists(
            f"ql:{{billing}}:j:{jid}")
        assert [node.call("DBSIZE") for node in made.masters_now() if node is not master] \
            == [0, 0]
    finally:
        client.close()


def test_no_seed_answering_is_a_connection_error() -> None:
    client = Client(f"redis+cluster://127.0.0.1:{free_port()}/?namespace=billing"
                    "&socket_connect_timeout=1")
    try:
        with pytest.raises(QlessConnectionError, match="no master serves namespace 'billing'"):
            client.queues["q"].put("a.Job", {})
    finally:
        client.close()


def test_a_server_that_is_not_a_cluster_is_refused(private_server: Any) -> None:
    server = private_server("valkey", port=free_port())
    client = Client(f"redis+cluster://127.0.0.1:{server.port}/?namespace=billing")
    try:
        with pytest.raises(ConnectionSetupError, match="refused CLUSTER SLOTS") as info:
            client.queues["q"].put("a.Job", {})
        assert "\n" not in str(info.value)
        assert redis.Redis(host="127.0.0.1", port=server.port).dbsize() == 0
    finally:
        client.close()


# Valkey here; Redis clusters' moves and failovers are in test_events_go_by_sharded_pub_sub
# and tests/workers/test_cluster_workers.py
@pytest.mark.parametrize("kind", ["valkey"])
def test_clients_wait_out_a_move_and_follow_it_and_a_failover(
        private_cluster: Callable[..., LocalCluster], kind: str) -> None:
    made = private_cluster(kind)
    url = made.url(query="namespace=billing&wait_replicas=1&wait_timeout=5")
    client = Client(url)
    try:
        queue = client.queues["q"]
        first = queue.put("a.Job", {"n": 1})
        source = made.master_of(SLOT)
        target = next(node for node in made.masters_now() if node is not source)

        # A move begins: the namespace's keys are still on the source. A call waits; it
        # runs neither on the source (that would write beside keys that are leaving) nor
        # on the target (which does not have them yet).
        target.call("CLUSTER", "SETSLOT", SLOT, "IMPORTING", source.node_id)
        source.call("CLUSTER", "SETSLOT", SLOT, "MIGRATING", target.node_id)
        evals = _calls(source, "evalsha") + _calls(target, "evalsha")
        probes = _calls(source, "exists", "rejected_calls")
        done = threading.Event()
        result: dict[str, Any] = {}

        def put_during_the_move() -> None:
            try:
                result["jid"] = queue.put("a.Job", {"n": 2})
            except BaseException as exc:  # pragma: no cover - reported below
                result["error"] = exc
            done.set()

        thread = threading.Thread(target=put_during_the_move)
        thread.start()
        # it is waiting: probing the source, which answers ASK
        wait_for(lambda: _calls(source, "exists", "rejected_calls") >= probes + 3)
        assert not done.is_set()
        assert _calls(source, "evalsha") + _calls(target, "evalsha") == evals
        names = source.call("CLUSTER", "GETKEYSINSLOT", SLOT, 1000)
        source.call("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *names)
        for node in made.masters_now():
            node.call("CLUSTER", "SETSLOT", SLOT, "NODE", target.node_id)
        assert done.wait(30)
        thread.join()
        assert "error" not in result, result.get("error")
        # it ran once, on the target, after the move
        assert _calls(source, "evalsha") + _calls(target, "evalsha") >= evals + 1
        held = redis.Redis(host="127.0.0.1", port=target.port)
        assert held.exists(f"ql:{{billing}}:j:{first}", f"ql:{{billing}}:j:{result['jid']}") \
            == 2
        assert queue.length() == 2

        # the async client finds the new master too
        async def read_async() -> list[str]:
            other = AsyncClient(url)
            try:
                got = await other.jobs.get(first, result["jid"])
                await other.queues["q"].put("a.Job", {"n": 3}, jid="async")
                return sorted(job.jid for job in got)
            finally:
                await other.close()

        assert asyncio.run(read_async()) == sorted([first, result["jid"]])

        # the new master dies: a replica takes over, with every write (wait_replicas=1)
        made.kill(target)
        promoted = made.wait_failover(target)
        assert promoted is not target
        wait_for(lambda: _reads(client) is not None, timeout=30)
        assert _reads(client) == 3
        # the promoted master has no replica left: a write that asks for one says so
        with pytest.raises(QlessConnectionError, match="0 of 1 replica"):
            queue.put("a.Job", {})
        plain = Client(made.url(query="namespace=billing"), worker_name="w")
        try:
            popped = plain.queues["q"].pop()
            assert popped is not None and popped.complete() == "complete"
        finally:
            plain.close()
        assert asyncio.run(_async_length(url)) == 3
    finally:
        client.close()


def _reads(client: Client) -> int | None:
    try:
        return int(client.queues["q"].length())
    except QlessConnectionError:
        return None  # the failover is still going on


async def _async_length(url: str) -> int:
    other = AsyncClient(url)
    try:
        return int(await other.queues["q"].length())
    finally:
        await other.close()


def test_commands_work_on_a_namespace_of_a_cluster(_clusters: Any) -> None:
    made: LocalCluster = _clusters["valkey"]
    flushed_cluster_url(made, "billing")
    url = made.url()
    put = run_cli("put", "--url", url, "--namespace", "billing", "q", "a.Job",
                  "--jid", "from-cli")
    assert put.returncode == 0, put.stderr
    shown = run_cli("job", "--url", url, "--namespace", "billing", "from-cli", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["queue"] == "q"
    listed = run_cli("queues", "--url", f"{url}/?namespace=billing", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [q["name"] for q in json.loads(listed.stdout)] == ["q"]
    checked = run_cli("check", "--url", url, "--namespace", "billing")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # the namespace's keys live on the master of its slot only
    master = made.master_of(SLOT)
    assert redis.Redis(host="127.0.0.1", port=master.port).exists("ql:{billing}:j:from-cli")
    # no namespace: one line, nothing written
    refused = run_cli("put", "--url", url, "q", "a.Job")
    assert refused.returncode != 0
    assert error_lines(refused.stderr) == [
        "Error: a cluster URL needs a namespace (?namespace=NAME, or --namespace): the "
        "default namespace's keys have no hash tag, so a cluster would spread them over "
        "its masters"], refused.stderr


def test_events_on_a_redis_6_2_cluster_go_by_plain_pub_sub(
        private_cluster: Callable[..., LocalCluster]) -> None:
    # Redis 6.2 has no sharded pub/sub: the core publishes with PUBLISH, which the cluster
    # relays to every node, and the clients subscribe with SUBSCRIBE on the namespace's
    # master (docs/cluster.md)
    made = private_cluster("redis6", replicas=0)
    url = made.url(query="namespace=billing")
    client = Client(url, worker_name="w")
    heard: list[str] = []
    done = threading.Event()

    def callback(event: object) -> None:
        heard.append(str(event))
        done.set()

    client.events.on("log", callback)
    client.events.start()
    try:
        jid = client.queues["q"].put("a.Job", {})
        assert done.wait(10)
        assert any(jid in text for text in heard)
        master = made.master_of(SLOT)
        assert _calls(master, "publish") >= 1 and _calls(master, "spublish") == 0

        async def heard_async() -> bool:
            other = AsyncClient(url)
            seen = asyncio.Event()
            other.events.on("log", lambda event: seen.set())
            await other.events.start()
            try:
                await other.queues["q"].put("a.Job", {})
                await asyncio.wait_for(seen.wait(), 10)
                return True
            finally:
                await other.events.stop()
                await other.close()

        assert asyncio.run(heard_async())
    finally:
        client.events.stop()
        client.close()


@pytest.mark.parametrize("kind", ["valkey", "redis"])
def test_events_go_by_sharded_pub_sub_and_follow_a_move(
        private_cluster: Callable[..., LocalCluster], kind: str) -> None:
    made = private_cluster(kind, replicas=0)
    url = made.url(query="namespace=billing")
    client = Client(url, worker_name="w")
    heard: list[str] = []
    got = threading.Condition()

    def callback(event: object) -> None:
        with got:
            heard.append(str(event))
            got.notify_all()

    def hears(jid: str) -> bool:
        with got:
            return got.wait_for(lambda: any(jid in text for text in heard), 10)

    client.events.on("log", callback)
    client.events.start()
    try:
        source = made.master_of(SLOT)
        assert hears(client.queues["q"].put("a.Job", {}))
        assert _calls(source, "spublish") >= 1 and _calls(source, "publish") == 0
        assert asyncio.run(_heard_async(url, "before"))  # a new async listener too
        # the slot moves: the source ends the subscription; the listeners subscribe again
        # on the new master and hear what is published there
        target = next(node for node in made.masters_now() if node is not source)
        # counted before the move: the listener may subscribe again before it returns
        reconnects = client.events.reconnects
        made.migrate_slot(SLOT, target)
        wait_for(lambda: client.events.reconnects > reconnects
                 and client.events.subscribed.is_set())
        assert hears(client.queues["q"].put("a.Job", {}))
        assert _calls(target, "spublish") >= 1
        assert asyncio.run(_heard_async(url, "after"))
    finally:
        client.events.stop()
        client.close()


async def _heard_async(url: str, jid: str) -> bool:
    other = AsyncClient(url)
    seen = asyncio.Event()

    def callback(event: object) -> None:
        if jid in str(event):
            seen.set()

    other.events.on("log", callback)
    await other.events.start()
    try:
        await other.queues["q"].put("a.Job", {}, jid=jid)
        await asyncio.wait_for(seen.wait(), 10)
        return True
    finally:
        await other.events.stop()
        await other.close()


def test_async_events_follow_a_move(private_cluster: Callable[..., LocalCluster]) -> None:
    made = private_cluster("valkey", replicas=0)
    url = made.url(query="namespace=billing")

    async def scenario() -> None:
        client = AsyncClient(url)
        heard: list[str] = []
        news = asyncio.Event()

        def callback(event: object) -> None:
            heard.append(str(event))
            news.set()

        async def hears(jid: str) -> None:
            while not any(jid in text for text in heard):
                news.clear()
                await asyncio.wait_for(news.wait(), 10)

        client.events.on("log", callback)
        await client.events.start()
        try:
            await hears(await client.queues["q"].put("a.Job", {}))
            source = made.master_of(SLOT)
            target = next(node for node in made.masters_now() if node is not source)
            reconnects = client.events.reconnects
            await asyncio.to_thread(made.migrate_slot, SLOT, target)
            while client.events.reconnects == reconnects or not client.events.subscribed.is_set():
                await asyncio.sleep(0.02)
            await hears(await client.queues["q"].put("a.Job", {}))
        finally:
            await client.events.stop()
            await client.close()

    asyncio.run(scenario())
