"""The async client connects where and how the sync one does: TLS (verification, client
certificates, hostname checks), Sentinel (the master found without blocking the loop, and
followed across a failover), client names, credential providers, WAIT, and the same
refusals. Servers come from tests/connections' helpers (its ``servers`` and ``certs``
fixtures are imported by tests/aio/conftest.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import redis
import redis.asyncio
from redis.credentials import CredentialProvider

from qless_py import ConnectionSetupError, QlessConnectionError, UnsupportedSettingError
from qless_py.aio import AsyncClient
from qless_py.server import ServerProcess, free_port
from tests.connections.conftest import (
    SERVICE,
    Certs,
    SentinelProcess,
    Servers,
    admin,
    tls_args,
    wait_for,
)

pytestmark = pytest.mark.asyncio

NOOP = "tests.jobs.Noop"


def _tls_url(port: int, **options: str) -> str:
    query = "&".join(f"{k}={quote(v)}" for k, v in options.items())
    return f"rediss://127.0.0.1:{port}/0" + (f"?{query}" if query else "")


@pytest.fixture
def tls(servers: Servers, certs: Certs) -> tuple[ServerProcess, int]:
    port = free_port()
    return servers.redis(*tls_args(certs, port)), port


@pytest.fixture
def mutual(servers: Servers, certs: Certs) -> tuple[ServerProcess, int]:
    port = free_port()
    return servers.redis(*tls_args(certs, port, auth_clients=True)), port


async def _round_trip(client: AsyncClient, jid: str) -> None:
    await client.queues["q"].put(NOOP, {"n": 1}, jid=jid)
    job = await client.jobs[jid]
    assert job is not None and job.data == {"n": 1}


async def test_tls_with_the_right_ca_and_refused_with_a_wrong_one(
        tls: tuple[ServerProcess, int], certs: Certs) -> None:
    server, port = tls
    async with AsyncClient(_tls_url(port, ssl_ca_certs=str(certs.ca))) as client:
        await _round_trip(client, "over-tls")
    async with AsyncClient(_tls_url(port), ssl_ca_certs=str(certs.ca)) as client:  # keyword
        await _round_trip(client, "keyword")
    async with AsyncClient(_tls_url(port, ssl_ca_certs=str(certs.other_ca))) as wrong:
        with pytest.raises(ConnectionSetupError, match="certificate verify failed"):
            await wrong.queues["q"].put(NOOP, {}, jid="never")
    assert admin(server).exists("ql:j:never") == 0


async def test_the_hostname_is_checked(tls: tuple[ServerProcess, int], certs: Certs) -> None:
    _, port = tls
    url = _tls_url(port, ssl_ca_certs=str(certs.ca)).replace("127.0.0.1", "localhost")
    async with AsyncClient(url) as client:
        with pytest.raises(ConnectionSetupError, match="mismatch"):
            await client.jobs["x"]
    async with AsyncClient(url + "&ssl_check_hostname=false") as unchecked:
        assert await unchecked.jobs["x"] is None


async def test_client_certificates(mutual: tuple[ServerProcess, int], certs: Certs) -> None:
    _, port = mutual
    async with AsyncClient(_tls_url(port), ssl_ca_certs=str(certs.ca),
                           ssl_certfile=str(certs.client_cert),
                           ssl_keyfile=str(certs.client_key)) as with_cert:
        await _round_trip(with_cert, "with-cert")
    async with AsyncClient(_tls_url(port, ssl_ca_certs=str(certs.ca))) as without:
        with pytest.raises(ConnectionSetupError):
            await without.jobs["with-cert"]


# -- Sentinel ----------------------------------------------------------------------------
class Setup:
    def __init__(self, master: ServerProcess, replica: ServerProcess,
                 sentinel: SentinelProcess) -> None:
        self.master, self.replica, self.sentinel = master, replica, sentinel
        self.url = f"redis+sentinel://127.0.0.1:{sentinel.port}/{SERVICE}"


def _replicating(replica: ServerProcess) -> bool:
    return admin(replica).info("replication").get("master_link_status") == "up"


@pytest.fixture
def setup(servers: Servers) -> Iterator[Setup]:
    master = servers.redis(port=free_port())
    replica = servers.redis("--replicaof", "127.0.0.1", str(master.port), port=free_port())
    wait_for(lambda: _replicating(replica))
    yield Setup(master, replica, servers.sentinel(master.port))


async def test_sentinel_finds_the_master_and_follows_a_failover(setup: Setup) -> None:
    async with AsyncClient(setup.url, worker_name="w") as client:
        await client.queues["q"].put(NOOP, {}, jid="before")
        assert admin(setup.master).exists("ql:j:before")  # written on the master
        await asyncio.to_thread(wait_for, lambda: setup.sentinel.usable_replicas() == 1)
        setup.sentinel.client().execute_command("SENTINEL", "FAILOVER", SERVICE)
        await asyncio.to_thread(
            wait_for, lambda: setup.sentinel.master_port_now() == setup.replica.port)
        # what the sentinel does to the old master when it next looks at it
        admin(setup.master).replicaof("127.0.0.1", setup.replica.port)
        # the old connection is closed or answers READONLY: either way the put goes to the
        # new master, found through the sentinel
        await client.queues["q"].put(NOOP, {}, jid="after")
        assert admin(setup.replica).exists("ql:j:after")


async def test_sentinel_refusals(setup: Setup) -> None:
    unknown = f"redis+sentinel://127.0.0.1:{setup.sentinel.port}/nosuch"
    async with AsyncClient(unknown) as client:
        with pytest.raises(ConnectionSetupError, match="does not know service 'nosuch'"):
            await client.jobs["x"]
    nobody = f"redis+sentinel://127.0.0.1:{free_port()}/{SERVICE}"
    async with AsyncClient(nobody) as client:
        with pytest.raises(QlessConnectionError) as info:
            await client.jobs["x"]
        assert not isinstance(info.value, ConnectionSetupError)  # may mend


async def test_events_through_sentinel(setup: Setup) -> None:
    async with AsyncClient(setup.url) as client:
        await client.events.start()  # pub/sub through the sentinel's master too
        assert client.events.listening()


async def test_writes_wait_for_replicas(setup: Setup) -> None:
    async with AsyncClient(f"{setup.url}?wait_replicas=1&wait_timeout=5") as client:
        assert client.core.confirm == (1, 5000)
        await client.queues["q"].put(NOOP, {}, jid="confirmed")
        assert admin(setup.replica).exists("ql:j:confirmed")  # on the replica already
        assert await client.jobs["confirmed"] is not None  # reads are not waited for
    async with AsyncClient(f"{setup.url}?wait_replicas=3&wait_timeout=0.2") as client:
        with pytest.raises(QlessConnectionError, match="1 of 3 replica"):
            await client.queues["q"].put(NOOP, {}, jid="unconfirmed")


# -- settings ----------------------------------------------------------------------------
class Provider(CredentialProvider):
    def __init__(self) -> None:
        self.asked = 0

    def get_credentials(self) -> tuple[str, str]:
        self.asked += 1
        return ("default", "pw")

    async def get_credentials_async(self) -> tuple[str, str]:
        return self.get_credentials()


async def test_client_names_and_credential_providers(private_server: Any) -> None:
    server = await asyncio.to_thread(private_server, "valkey")
    redis.Redis.from_url(server.url).config_set("requirepass", "pw")
    url = f"{server.url}?password=pw&client_name=billing"
    async with AsyncClient(url, worker_name="w1") as client:
        await client.queues["q"].put(NOOP, {}, jid="a")
        names = [c["name"] for c in redis.Redis.from_url(url).client_list()]
        assert "billing" in names
        assert client.endpoint().client_name == "billing:w1"
    provider = Provider()
    given = redis.asyncio.Redis(unix_socket_path=server.socket_path.as_posix(),
                                credential_provider=provider)
    client = AsyncClient(redis_client=given)
    assert await client.jobs["a"] is not None and provider.asked >= 1
    assert client.settings.credential_provider is provider
    await client.close()
    await given.aclose()


async def test_the_same_refusals_as_the_sync_client(server_url: str) -> None:
    with pytest.raises(UnsupportedSettingError, match="unknown URL option 'retry_on_timeout'"):
        AsyncClient("redis://h?retry_on_timeout=1")
    with pytest.raises(ValueError, match="ssl_ca_certs needs TLS"):
        AsyncClient("redis://h", ssl_ca_certs="/ca.pem")
    with pytest.raises(ValueError, match="given both in the URL and as a keyword"):
        AsyncClient("redis://h?client_name=a", client_name="b")

    class Custom(redis.asyncio.Connection):
        pass

    given = redis.asyncio.Redis(connection_pool=redis.asyncio.ConnectionPool(
        connection_class=Custom))
    with pytest.raises(UnsupportedSettingError, match="connection_class=Custom"):
        AsyncClient(redis_client=given).settings  # noqa: B018
    await given.aclose()
