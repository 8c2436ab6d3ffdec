"""Servers for the connection tests: TLS servers with certificates made here, and small
Sentinel setups (a master, a replica, one sentinel), all on 127.0.0.1 with free ports.

They use Debian's ``redis-server`` (it speaks TLS and runs as a sentinel); scripts/test
installs it, and a missing binary fails these tests rather than skipping them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis

from qless_py.server import ServerProcess, binary_for, free_port

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "mymaster"


def wait_for(predicate: Callable[[], Any], timeout: float = 20.0, step: float = 0.02) -> Any:
    """Poll a condition that real processes will make true (never a wall-clock window)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(step)


def run_cli(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """``qless-py ARGS`` in a subprocess, from the repository root (job classes import)."""
    return subprocess.run([sys.executable, "-m", "qless_py", *args], cwd=ROOT, env=cli_env(),
                          capture_output=True, text=True, timeout=timeout)


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("QLESS_URL", None)
    return env


def error_lines(stderr: str) -> list[str]:
    """The lines a command printed on stderr that are not log records."""
    return [line for line in stderr.splitlines() if line.startswith("Error")]


# -- certificates ------------------------------------------------------------------------
@dataclass(frozen=True)
class Certs:
    """A CA, a server certificate for 127.0.0.1 signed by it, a client certificate signed
    by it, and a second CA that signed nothing the server uses."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path


def _openssl(cwd: Path, *args: str) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("the TLS tests need the openssl command (Debian: openssl)")
    subprocess.run([openssl, *args], cwd=cwd, check=True, capture_output=True)


def _key(cwd: Path, name: str) -> None:
    _openssl(cwd, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-out", f"{name}.key")


def _ca(cwd: Path, name: str) -> Path:
    _key(cwd, name)
    _openssl(cwd, "req", "-x509", "-new", "-key", f"{name}.key", "-out", f"{name}.crt",
             "-days", "2", "-subj", f"/CN={name}",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             "-addext", "subjectKeyIdentifier=hash")
    return cwd / f"{name}.crt"


def _leaf(cwd: Path, name: str, ca: str, extensions: list[str]) -> tuple[Path, Path]:
    _key(cwd, name)
    _openssl(cwd, "req", "-new", "-key", f"{name}.key", "-out", f"{name}.csr",
             "-subj", f"/CN={name}")
    (cwd / f"{name}.ext").write_text("\n".join([
        "basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature",
        "subjectKeyIdentifier=hash", "authorityKeyIdentifier=keyid", *extensions]) + "\n")
    _openssl(cwd, "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey",
             f"{ca}.key", "-CAcreateserial", "-out", f"{name}.crt", "-days", "2",
             "-extfile", f"{name}.ext")
    return cwd / f"{name}.crt", cwd / f"{name}.key"


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    home = tmp_path_factory.mktemp("certs")
    ca = _ca(home, "ca")
    # the server's certificate names 127.0.0.1 only: "localhost" fails the hostname check
    server = _leaf(home, "server", "ca",
                   ["subjectAltName=IP:127.0.0.1", "extendedKeyUsage=serverAuth,clientAuth"])
    client = _leaf(home, "client", "ca", ["extendedKeyUsage=clientAuth"])
    return Certs(ca=ca, server_cert=server[0], server_key=server[1], client_cert=client[0],
                 client_key=client[1], other_ca=_ca(home, "other-ca"))


def tls_args(certs: Certs, port: int, *, auth_clients: bool = False) -> tuple[str, ...]:
    return ("--tls-port", str(port), "--tls-cert-file", str(certs.server_cert),
            "--tls-key-file", str(certs.server_key), "--tls-ca-cert-file", str(certs.ca),
            "--tls-auth-clients", "yes" if auth_clients else "no")


# -- servers -----------------------------------------------------------------------------
class Servers:
    """Starts servers for one test and stops them all at the end."""

    def __init__(self) -> None:
        self.started: list[ServerProcess | SentinelProcess] = []
        self.roots: list[Path] = []

    def _root(self) -> Path:
        root = Path(tempfile.mkdtemp(prefix="qlc-", dir="/tmp"))  # short: socket paths
        self.roots.append(root)
        return root

    def redis(self, *extra: str, port: int = 0, appendonly: bool = False) -> ServerProcess:
        """A redis-server with a unix socket (for the test's own admin connection)."""
        # replicas sync at once, not after the default 5 s wait for more replicas
        server = ServerProcess(self._root(), kind="redis", port=port, appendonly=appendonly,
                               extra_args=("--repl-diskless-sync-delay", "0", *extra))
        self.started.append(server)
        return server.start()

    def sentinel(self, master_port: int, *conf: str, password: str | None = None,
                 service: str = SERVICE, certs: Certs | None = None) -> SentinelProcess:
        """A sentinel watching the master on ``master_port``; with ``certs`` it speaks
        TLS only, to its clients and to the master."""
        sentinel = SentinelProcess(self._root(), free_port(), master_port, service,
                                   list(conf), password, certs)
        self.started.append(sentinel)
        return sentinel.start()

    def close(self) -> None:
        for server in reversed(self.started):
            server.stop()
        for root in self.roots:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def servers() -> Iterator[Servers]:
    made = Servers()
    yield made
    made.close()


def admin(server: ServerProcess, password: str | None = None) -> redis.Redis:
    """A redis-py connection over the server's unix socket."""
    return redis.Redis(unix_socket_path=str(server.socket_path), password=password,
                       socket_timeout=10)


@dataclass
class SentinelProcess:
    """``redis-server <conf> --sentinel`` watching one master with quorum 1; failover
    starts half a second after the master stops answering."""

    directory: Path
    port: int
    master_port: int
    service: str = SERVICE
    conf: list[str] = field(default_factory=list)
    password: str | None = None
    certs: Certs | None = None
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> SentinelProcess:
        if self.certs is None:
            listen = [f"port {self.port}"]
        else:
            listen = ["port 0", f"tls-port {self.port}", "tls-replication yes",
                      "tls-auth-clients no", f"tls-cert-file {self.certs.server_cert}",
                      f"tls-key-file {self.certs.server_key}",
                      f"tls-ca-cert-file {self.certs.ca}"]
        lines = [
            *listen, "bind 127.0.0.1", f"dir {self.directory}",
            f"logfile {self.directory / 'sentinel.log'}",
            f"sentinel monitor {self.service} 127.0.0.1 {self.master_port} 1",
            f"sentinel down-after-milliseconds {self.service} 500",
            f"sentinel failover-timeout {self.service} 3000",
            *self.conf,
        ]
        if self.password:
            lines.append(f"requirepass {self.password}")
        path = self.directory / "sentinel.conf"
        path.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen([binary_for("redis"), str(path), "--sentinel"],
                                     cwd=self.directory, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        wait_for(self._ready, timeout=10)
        return self

    def client(self) -> redis.Redis:
        tls = {} if self.certs is None else {"ssl": True, "ssl_ca_certs": str(self.certs.ca)}
        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password,
                           socket_timeout=5, **tls)  # type: ignore[arg-type]

    def _ready(self) -> bool:
        try:
            return bool(self.client().execute_command(
                "SENTINEL", "get-master-addr-by-name", self.service))
        except redis.ConnectionError:
            return False

    def usable_replicas(self) -> int:
        """Replicas this sentinel could promote now (known, connected, recently seen)."""
        replicas = self.client().sentinel_slaves(self.service)  # parsed by redis-py
        return sum(1 for r in replicas if r.get("flags") == "slave"
                   and r.get("master-link-status") == "ok")

    def master_port_now(self) -> int:
        reply = self.client().execute_command("SENTINEL", "get-master-addr-by-name",
                                              self.service)
        return int(reply[1])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None
