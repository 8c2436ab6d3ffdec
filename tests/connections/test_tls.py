"""TLS against a real TLS server: the client (redis-py) and the worker (qless_py.connect.resp)
verify the server the same way, use client certificates, and fail loudly on a wrong CA."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

import pytest
import redis

from qless_py import Client, ConnectionSetupError
from qless_py.server import ServerProcess, free_port
from qless_py.workers import Worker
from tests.connections.conftest import Certs, Servers, admin, error_lines, run_cli, tls_args
from tests.lookups import get_job


@dataclass
class TlsServer:
    server: ServerProcess
    port: int

    def url(self, host: str = "127.0.0.1", **options: str) -> str:
        query = "&".join(f"{k}={quote(v)}" for k, v in options.items())
        return f"rediss://{host}:{self.port}/0" + (f"?{query}" if query else "")


@pytest.fixture
def tls(servers: Servers, certs: Certs) -> Iterator[TlsServer]:
    port = free_port()
    yield TlsServer(servers.redis(*tls_args(certs, port)), port)


@pytest.fixture
def mutual(servers: Servers, certs: Certs) -> Iterator[TlsServer]:
    """A TLS server that requires a client certificate signed by its CA."""
    port = free_port()
    yield TlsServer(servers.redis(*tls_args(certs, port, auth_clients=True)), port)


def _round_trip(client: Client, jid: str) -> None:
    client.queues["q"].put("tests.jobs.Noop", {"n": 1}, jid=jid)
    job = client.jobs[jid]
    assert job is not None and job.data == {"n": 1}


def _direct(client: Client) -> Client:
    """The same client switched to the worker's path (qless_py.connect.resp), as Worker does."""
    client.core.go_direct(client.endpoint())
    return client


def test_client_and_worker_paths_talk_tls_with_the_right_ca(tls: TlsServer,
                                                            certs: Certs) -> None:
    plain = Client(tls.url(ssl_ca_certs=str(certs.ca)))
    _round_trip(plain, "by-client")
    direct = _direct(Client(tls.url(), ssl_ca_certs=str(certs.ca)))  # the keyword form
    _round_trip(direct, "by-worker-path")
    assert direct.core.transport is not None
    assert direct.core.transport.connection().connected
    assert direct.core.transport.endpoint.tls
    # the worker path's connection is the TLS one the server lists under its name
    names = [c.get("name") for c in admin(tls.server).client_list()]
    assert f"qless-py:{direct.worker_name}" in names
    plain.close()
    direct.close()


def test_the_worker_command_runs_jobs_over_tls(tls: TlsServer, certs: Certs) -> None:
    url = tls.url(ssl_ca_certs=str(certs.ca))
    client = Client(url)
    client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    done = run_cli("worker", "--url", url, "-q", "q", "--processes", "1", "--burst")
    assert done.returncode == 0, done.stderr
    job = client.jobs["j"]
    assert job is not None and job.state == "complete"
    client.close()


@pytest.mark.parametrize("path", ["client", "worker"])
def test_a_wrong_ca_fails_loudly_on_both_paths(tls: TlsServer, certs: Certs,
                                                path: str) -> None:
    client = Client(tls.url(ssl_ca_certs=str(certs.other_ca)))
    if path == "worker":
        _direct(client)
    with pytest.raises(ConnectionSetupError, match="certificate verify failed"):
        client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    assert admin(tls.server).exists("ql:j:j") == 0
    client.close()


def test_the_worker_command_refuses_to_start_with_a_wrong_ca(tls: TlsServer,
                                                             certs: Certs) -> None:
    done = run_cli("worker", "--url", tls.url(ssl_ca_certs=str(certs.other_ca)), "-q", "q",
                   "--processes", "2")
    assert done.returncode == 1
    [line] = error_lines(done.stderr)
    assert line.startswith("Error: cannot start the workers:")
    assert "certificate verify failed" in line


def test_the_hostname_is_checked_as_redis_py_checks_it(tls: TlsServer, certs: Certs) -> None:
    # the certificate names 127.0.0.1, not localhost
    for direct in (False, True):
        client = Client(tls.url("localhost", ssl_ca_certs=str(certs.ca)))
        if direct:
            _direct(client)
        with pytest.raises(ConnectionSetupError, match="mismatch"):
            client.jobs["x"]
        client.close()
        unchecked = Client(tls.url("localhost", ssl_ca_certs=str(certs.ca),
                                   ssl_check_hostname="false"))
        if direct:
            _direct(unchecked)
        assert unchecked.jobs["x"] is None
        unchecked.close()
    # redis-py's own SSLConnection agrees on both counts
    with pytest.raises(redis.ConnectionError, match="mismatch"):
        redis.Redis(host="localhost", port=tls.port, ssl=True,
                    ssl_ca_certs=str(certs.ca)).ping()


def test_verification_is_off_only_when_asked(tls: TlsServer, certs: Certs) -> None:
    client = _direct(Client(tls.url(ssl_cert_reqs="none")))
    assert client.jobs["x"] is None
    client.close()


@pytest.mark.parametrize("path", ["client", "worker"])
def test_client_certificates(mutual: TlsServer, certs: Certs, path: str) -> None:
    with_cert = Client(mutual.url(), ssl_ca_certs=str(certs.ca),
                       ssl_certfile=str(certs.client_cert), ssl_keyfile=str(certs.client_key))
    without = Client(mutual.url(ssl_ca_certs=str(certs.ca)))
    if path == "worker":
        _direct(with_cert)
        _direct(without)
    _round_trip(with_cert, "with-cert")
    with pytest.raises(ConnectionSetupError):
        without.jobs["with-cert"]
    with_cert.close()
    without.close()


def test_the_worker_command_uses_client_certificates(mutual: TlsServer, certs: Certs) -> None:
    url = mutual.url(ssl_ca_certs=str(certs.ca), ssl_certfile=str(certs.client_cert),
                     ssl_keyfile=str(certs.client_key))
    client = Client(url)
    client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    done = run_cli("worker", "--url", url, "-q", "q", "--processes", "1", "--burst")
    assert done.returncode == 0, done.stderr
    assert get_job(client, "j").state == "complete"
    refused = run_cli("worker", "--url", mutual.url(ssl_ca_certs=str(certs.ca)), "-q", "q",
                      "--processes", "1")
    assert refused.returncode == 1
    [line] = error_lines(refused.stderr)
    assert line.startswith("Error: cannot start the workers:")
    # the server's alert ("certificate required") if it arrived before our first write,
    # else our reading of the closed connection ("client certificate")
    assert "certificate required" in line or "client certificate" in line
    client.close()


def test_a_worker_reproduces_a_redis_client_built_by_hand(mutual: TlsServer,
                                                          certs: Certs) -> None:
    conn = redis.Redis(host="127.0.0.1", port=mutual.port, ssl=True,
                       ssl_ca_certs=str(certs.ca), ssl_certfile=str(certs.client_cert),
                       ssl_keyfile=str(certs.client_key), client_name="billing")
    client = Client(redis_client=conn, worker_name="w1")
    client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    worker = Worker(client, ["q"], burst=True, handle_signals=False)
    assert worker.run() == 0
    assert client.core.transport is not None  # the worker's own connections did the work
    assert client.core.transport.endpoint.ssl_certfile == str(certs.client_cert)
    assert client.core.transport.endpoint.client_name == "billing:w1"
    client.core.transport = None
    assert get_job(client, "j").state == "complete"
    client.close()


def test_sentinel_over_tls(servers: Servers, certs: Certs) -> None:
    # rediss+sentinel://: TLS to the sentinels and to the master they name
    port = free_port()
    master = servers.redis(*tls_args(certs, port))
    sentinel = servers.sentinel(port, certs=certs)
    url = (f"rediss+sentinel://127.0.0.1:{sentinel.port}/{sentinel.service}"
           f"?ssl_ca_certs={quote(str(certs.ca))}")
    for direct in (False, True):
        client = Client(url)
        if direct:
            _direct(client)
        _round_trip(client, f"over-tls-{direct}")
        client.close()
    assert admin(master).exists("ql:j:over-tls-True")
    wrong = Client(url.replace(quote(str(certs.ca)), quote(str(certs.other_ca))))
    with pytest.raises(ConnectionSetupError, match="certificate verify failed"):
        wrong.jobs["x"]
