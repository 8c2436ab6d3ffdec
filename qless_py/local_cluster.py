"""A real Redis or Valkey cluster on this machine: M masters with R replicas each.

``qless-py server start --cluster M --replicas R`` and the cluster test fixtures use it.
Every node is a ``ServerProcess`` (its own directory, AOF on, bound to 127.0.0.1) started
with ``cluster-enabled yes`` and a short node timeout, so a killed master's replica takes
over within a few seconds. The nodes are joined the way an operator would by hand:
``CLUSTER MEET`` from the first node to every other, ``CLUSTER ADDSLOTSRANGE`` (``ADDSLOTS``
before Redis 7.0) giving each master an equal range of the 16,384 slots, ``CLUSTER
REPLICATE`` on each replica, then a wait until every node reports ``cluster_state:ok`` and
agrees on the slots.

A node's cluster bus listens on its port + 10,000, so ports are taken below 55,536.
"""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from qless_py.server import ServerError, ServerProcess

SLOTS = 16384
BUS_OFFSET = 10000
PORTS = (20000, 45000)  # where node ports are drawn from (the bus port adds BUS_OFFSET)


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_node_ports(count: int, rng: random.Random | None = None) -> list[int]:
    """``count`` ports whose bus ports (port + 10,000) are free too, all below 55,536."""
    rng = rng or random.Random()
    found: list[int] = []
    for _ in range(count * 200):
        port = rng.randrange(*PORTS)
        if port in found or port + BUS_OFFSET in found:
            continue
        if _port_free(port) and _port_free(port + BUS_OFFSET):
            found.append(port)
            if len(found) == count:
                return found
    raise ServerError(f"could not find {count} free ports for cluster nodes")


def slot_ranges(masters: int) -> list[tuple[int, int]]:
    """The 16,384 slots split into ``masters`` contiguous, nearly equal ranges."""
    bounds = [SLOTS * i // masters for i in range(masters + 1)]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(masters)]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass
class Node:
    """One node of the cluster: its process, port and (once joined) its cluster id."""

    server: ServerProcess
    port: int
    node_id: str = ""

    def call(self, *args: Any, timeout: float = 2.0) -> Any:
        """One command on a fresh connection (a node may have been restarted)."""
        import redis

        conn = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=timeout,
                           socket_connect_timeout=timeout)
        try:
            return conn.execute_command(*args)  # type: ignore[no-untyped-call]
        finally:
            conn.close()

    def info(self, section: str) -> dict[str, str]:
        """``INFO <section>`` (or ``CLUSTER INFO`` for "cluster") as a dict of text."""
        raw = self.call("CLUSTER", "INFO") if section == "cluster" else self.call("INFO",
                                                                                    section)
        if isinstance(raw, dict):
            return {k: _text(v) for k, v in raw.items()}
        out = {}
        for line in _text(raw).splitlines():
            name, sep, value = line.partition(":")
            if sep:
                out[name.strip()] = value.strip()
        return out

    @property
    def alive(self) -> bool:
        return self.server.alive


@dataclass
class LocalCluster:
    """``masters`` masters with ``replicas`` replicas each, under ``directory``."""

    directory: Path
    masters: int = 3
    replicas: int = 1
    kind: str = "valkey"
    node_timeout_ms: int = 1000
    appendonly: bool = True
    detached: bool = False  # nodes daemonize and outlive this process (the server command)
    _served: dict[int, list[int]] = field(default_factory=dict, repr=False)  # see kill()
    nodes: list[Node] = field(default_factory=list)

    # -- life ------------------------------------------------------------------------
    def start(self, timeout: float = 30.0) -> Self:
        """Start every node, join them, and wait until the cluster is ok."""
        if self.masters < 1 or self.replicas < 0:
            raise ServerError("a cluster needs at least one master and no negative replicas")
        count = self.masters * (1 + self.replicas)
        for port in free_node_ports(count):
            self.nodes.append(Node(self._process(port), port))
        try:
            for node in self.nodes:
                node.server.start()
                node.node_id = _text(node.call("CLUSTER", "MYID"))
            self._join(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def resume(self, ports: list[int], timeout: float = 30.0) -> Self:
        """Start again the nodes of a cluster this directory held (on ``ports``): each node's
        ``nodes.conf`` knows the others, so they form the same cluster again."""
        for port in ports:
            self.nodes.append(Node(self._process(port), port))
        try:
            for node in self.nodes:
                node.server.start()
                node.node_id = _text(node.call("CLUSTER", "MYID"))
            self.wait_ok(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _process(self, port: int) -> ServerProcess:
        return ServerProcess(
            self.directory / f"node-{port}", kind=self.kind, port=port,
            appendonly=self.appendonly, unixsocket=False, daemonize=self.detached,
            extra_args=("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", str(self.node_timeout_ms),
                        "--cluster-require-full-coverage", "no",
                        "--cluster-allow-reads-when-down", "no"))

    def _meet_port(self, node: Node) -> int:
        """The port CLUSTER MEET names for ``node``: its bus listens 10,000 above it (a
        cluster whose bus runs TLS, ``tls-cluster yes``, counts from the TLS port)."""
        return node.port

    def _join(self, timeout: float) -> None:
        first = self.nodes[0]
        for node in self.nodes[1:]:
            first.call("CLUSTER", "MEET", "127.0.0.1", self._meet_port(node))
        self._wait(lambda: all(len(self._known(n)) == len(self.nodes) for n in self.nodes),
                   timeout, "the nodes did not all meet")
        masters = self.nodes[:self.masters]
        for node, (low, high) in zip(masters, slot_ranges(self.masters), strict=True):
            if node.info("server").get("redis_version", "7").split(".")[0] in ("5", "6"):
                node.call("CLUSTER", "ADDSLOTS", *range(low, high + 1))  # before 7.0
            else:
                node.call("CLUSTER", "ADDSLOTSRANGE", low, high)
        for index, node in enumerate(self.nodes[self.masters:]):
            master = masters[index % self.masters]
            # a replica can only follow a master whose id its own view already holds
            def knows(m: Node = master, n: Node = node) -> bool:
                return m.node_id in self._known(n)
            self._wait(knows, timeout, "a replica does not know its master")
            node.call("CLUSTER", "REPLICATE", master.node_id)
        self.wait_ok(timeout)

    def _known(self, node: Node) -> set[str]:
        try:
            text = _text(node.call("CLUSTER", "NODES"))
        except Exception:  # a node still starting: it knows nobody yet
            return set()
        return {line.split()[0] for line in text.splitlines() if line.strip()}

    @staticmethod
    def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise ServerError(f"local cluster: {what} within {timeout}s")
            time.sleep(0.05)

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Wait until every live node says ``cluster_state:ok``, every slot is served, and
        every live replica's link to its master is up."""
        def ok() -> bool:
            for node in self.live():
                try:
                    info = node.info("cluster")
                    if info.get("cluster_state") != "ok" or \
                            info.get("cluster_slots_ok") != str(SLOTS):
                        return False
                    role = node.info("replication")
                    if role.get("role") == "slave" and role.get("master_link_status") != "up":
                        return False
                except Exception:
                    return False
            return True
        self._wait(ok, timeout, "the cluster is not ok")

    def stop(self) -> None:
        for node in self.nodes:
            node.server.stop()

    def live(self) -> list[Node]:
        return [node for node in self.nodes if node.alive]

    # -- what clients and tests need ------------------------------------------------
    def url(self, scheme: str = "redis+cluster", query: str = "") -> str:
        """The cluster's URL: every node as a seed."""
        seeds = ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)
        return f"{scheme}://{seeds}" + (f"/?{query}" if query else "")

    def slot_map(self) -> list[tuple[int, int, int]]:
        """``(first slot, last slot, master's port)`` of every range, as the first live node
        that answers ``CLUSTER SLOTS`` sees them (empty when none answers)."""
        for node in self.live():
            try:
                return [(int(low), int(high), int(master[1]))
                        for low, high, master, *_ in node.call("CLUSTER", "SLOTS")]
            except Exception:  # a node still starting or cut off: ask the next
                continue
        return []

    def _server_of(self, slot: int) -> int | None:
        return next((port for low, high, port in self.slot_map() if low <= slot <= high),
                    None)

    def master_of(self, slot: int) -> Node:
        """The live node that serves ``slot`` now (asked of any live node)."""
        port = self._server_of(slot)
        if port is None:
            raise ServerError(f"no live node serves slot {slot}")
        return next(n for n in self.nodes if n.port == port)

    def masters_now(self) -> list[Node]:
        return [n for n in self.live() if n.info("replication").get("role") == "master"]

    def replicas_of(self, master: Node) -> list[Node]:
        out = []
        for node in self.live():
            role = node.info("replication")
            if role.get("role") == "slave" and role.get("master_port") == str(master.port):
                out.append(node)
        return out

    def kill(self, node: Node) -> None:
        """kill -9 a node (its AOF keeps what it had written); the slots it served are
        remembered for ``wait_failover``."""
        self._served[node.port] = [low for low, _, port in self.slot_map() if port == node.port]
        node.server.kill()

    def wait_failover(self, dead: Node, timeout: float = 30.0) -> Node:
        """Wait until another node serves the slots ``dead`` served when it was killed, and
        the cluster is ok; return the new master."""
        served = self._served.get(dead.port)
        if not served:
            raise ServerError(f"node {dead.port} served no slot when it was killed")
        slot = served[0]
        self._wait(lambda: self._server_of(slot) not in (None, dead.port), timeout,
                   "no replica took over")
        self.wait_ok(timeout)
        return self.master_of(slot)

    def migrate_slot(self, slot: int, target: Node, batch: int = 100) -> None:
        """Move ``slot`` and its keys to the master ``target``, as ``redis-cli --cluster
        reshard`` would: IMPORTING/MIGRATING, MIGRATE in batches, then SETSLOT NODE on
        every master. Clients see MOVED and ASK meanwhile."""
        source = self.master_of(slot)
        if source is target:
            return
        target.call("CLUSTER", "SETSLOT", slot, "IMPORTING", source.node_id)
        source.call("CLUSTER", "SETSLOT", slot, "MIGRATING", target.node_id)
        while True:
            names = source.call("CLUSTER", "GETKEYSINSLOT", slot, batch)
            if not names:
                break
            source.call("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *names)
        for node in self.masters_now():
            node.call("CLUSTER", "SETSLOT", slot, "NODE", target.node_id)
        self.wait_ok()
