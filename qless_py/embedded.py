"""The embedded server: one private Valkey (or redis-server) per machine, with AOF on disk.

``qless-py server start`` launches it detached (the server daemonizes itself into its own
session), so it outlives the command; every command and worker on the machine then finds
it through the state file in its data directory. ``stop`` asks it to SHUTDOWN, which
flushes the append-only file, and falls back to SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from qless_py.server import ServerError, binary_for

DEFAULT_PORT = 6380
STATE_FILE = "server.json"
PID_FILE = "server.pid"
LOG_FILE = "server.log"


def home() -> Path:
    """``$QLESS_PY_HOME``, else ``$XDG_DATA_HOME/qless-py``, else ``~/.local/share/qless-py``."""
    explicit = os.environ.get("QLESS_PY_HOME")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "qless-py"


def default_port() -> int:
    """``$QLESS_PY_PORT``, else 6380 (one above Redis's 6379, so both can coexist)."""
    value = os.environ.get("QLESS_PY_PORT")
    if not value:
        return DEFAULT_PORT
    try:
        port = int(value)
    except ValueError as exc:
        raise ServerError(f"QLESS_PY_PORT is not a port number: {value!r}") from exc
    if not 0 < port < 65536:
        raise ServerError(f"QLESS_PY_PORT is out of range: {port}")
    return port


@dataclass(frozen=True)
class ServerStatus:
    """What ``status`` reports: where the server listens and whether it answers."""

    running: bool
    url: str
    port: int
    pid: int | None
    kind: str
    directory: str

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A daemon whose parent does not reap it lingers as a zombie: that is dead too.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _ping(url: str, timeout: float = 1.0) -> bool:
    import redis

    conn = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        return bool(conn.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        conn.close()


def _once(timeout: float) -> dict[str, Any]:
    """redis-py options for a connection that sends SHUTDOWN: no retries (the server closing
    the connection is SHUTDOWN's success, and redis-py would retry it with backoff, some
    4 s a server, against a server that is gone)."""
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return {"socket_timeout": timeout, "retry": Retry(NoBackoff(), 0)}


def _shutdown(conn: Any, pid: int) -> None:
    """SHUTDOWN (it flushes the AOF); SIGTERM, which does too, if the server refuses it."""
    import redis

    try:
        conn.shutdown()
    except redis.RedisError:
        os.kill(pid, signal.SIGTERM)
    finally:
        conn.close()


def _ints(value: object) -> list[int]:
    """A list of numbers from the state file (empty when it holds something else)."""
    return [int(str(v)) for v in value] if isinstance(value, list) else []


class EmbeddedServer:
    """The machine's private server, identified by its data directory."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory).expanduser() if directory else home() / "server"

    @classmethod
    def default(cls) -> EmbeddedServer:
        return cls()

    @property
    def state_path(self) -> Path:
        return self.directory / STATE_FILE

    @property
    def pid_path(self) -> Path:
        return self.directory / PID_FILE

    @property
    def log_path(self) -> Path:
        return self.directory / LOG_FILE

    def _state(self) -> dict[str, object]:
        try:
            raw = json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            return {}
        return raw if isinstance(raw, dict) else {}

    def _pid(self) -> int | None:
        try:
            return int(self.pid_path.read_text().strip())
        except (OSError, ValueError):
            return None

    def status(self) -> ServerStatus:
        """Running means: the recorded pid is alive and the URL answers PING (for a cluster:
        every node's pid is alive and the first node answers)."""
        state = self._state()
        cluster = state.get("cluster")
        if isinstance(cluster, dict):
            return self._cluster_status(state, cluster)
        port = int(str(state.get("port", default_port())))
        kind = str(state.get("kind", "valkey"))
        url = f"redis://127.0.0.1:{port}/0"
        pid = self._pid()
        running = bool(state) and pid is not None and _pid_alive(pid) and _ping(url)
        return ServerStatus(running, url, port, pid if running else None, kind,
                            str(self.directory))

    def argv(self, kind: str, port: int) -> list[str]:
        return [
            binary_for(kind),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(self.directory),
            "--save", "",
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--daemonize", "yes",
            "--pidfile", str(self.pid_path),
            "--logfile", str(self.log_path),
        ]

    def start(self, kind: str | None = None, port: int | None = None,
              timeout: float = 15.0) -> ServerStatus:
        """Start the server unless it runs already; raise ``ServerError`` if it cannot.

        ``kind`` None means the kind that wrote the data directory, else Valkey. The AOF
        of one kind is not always readable by the other, so mixing them is refused.
        """
        current = self.status()
        if current.running:
            return current
        recorded = self._state().get("kind")
        has_data = (self.directory / "appendonlydir").exists()
        if kind is None:
            kind = str(recorded or "valkey")
        elif has_data and recorded and recorded != kind:
            raise ServerError(f"{self.directory} holds {recorded} data; start it as {recorded} "
                              "or use another --dir")
        if port is None:
            port = int(str(self._state().get("port", default_port())))
        if not 0 < port < 65536:
            raise ServerError(f"port out of range: {port}")
        argv = self.argv(kind, port)  # raises ServerError when the binary is missing
        self.directory.mkdir(parents=True, exist_ok=True)
        self.pid_path.unlink(missing_ok=True)
        url = f"redis://127.0.0.1:{port}/0"
        if _ping(url, timeout=0.5):
            raise ServerError(f"port {port} is already in use by another server; "
                              "choose another with --port")
        log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        result = subprocess.run(argv, cwd=self.directory, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                timeout=timeout, check=False)
        if result.returncode != 0:
            detail = result.stderr.decode(errors="replace").strip().splitlines()
            raise ServerError(f"{kind} server did not start: "
                              f"{detail[-1] if detail else self._log_since(log_start)}")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid = self._pid()
            if pid is not None and _pid_alive(pid) and _ping(url, timeout=0.5):
                # Recorded only once it answers, so a failed start changes nothing.
                self.state_path.write_text(json.dumps({"port": port, "kind": kind, "url": url}))
                return self.status()
            if pid is not None and not _pid_alive(pid):
                break
            time.sleep(0.05)
        raise ServerError(f"{kind} server did not come up on port {port}: "
                          f"{self._log_since(log_start)}")

    # -- a local cluster (``start --cluster M --replicas R``) ------------------------------
    @property
    def cluster_directory(self) -> Path:
        return self.directory / "cluster"

    def _cluster_status(self, state: dict[str, object],
                        cluster: dict[str, object]) -> ServerStatus:
        ports, pids = _ints(cluster.get("ports")), _ints(cluster.get("pids"))
        kind = str(state.get("kind", "valkey"))
        url = str(state.get("url", ""))
        running = bool(ports) and len(pids) == len(ports) and all(map(_pid_alive, pids)) \
            and _ping(f"redis://127.0.0.1:{ports[0]}/0")
        return ServerStatus(running, url, ports[0] if ports else 0,
                            pids[0] if running else None, kind, str(self.directory))

    def start_cluster(self, kind: str | None, masters: int, replicas: int,
                      timeout: float = 60.0) -> ServerStatus:
        """Start a local cluster of ``masters`` masters with ``replicas`` replicas each
        (``qless_py.local_cluster``), or start again the one this directory holds; its nodes
        keep running after this command exits."""
        from qless_py.local_cluster import LocalCluster

        current = self.status()
        if current.running:
            return current
        state = self._state()
        recorded = state.get("cluster")
        kind = kind or str(state.get("kind", "valkey"))
        if state and not isinstance(recorded, dict) and (self.directory / "appendonlydir").exists():
            raise ServerError(f"{self.directory} holds a single server's data; stop it and "
                              "use another --dir for a cluster")
        cluster = LocalCluster(self.cluster_directory, masters=masters, replicas=replicas,
                               kind=kind, detached=True)
        if isinstance(recorded, dict) and recorded.get("ports"):
            if (int(str(recorded.get("masters"))), int(str(recorded.get("replicas")))) != \
                    (masters, replicas):
                raise ServerError(f"{self.directory} holds a cluster of {recorded.get('masters')} "
                                  f"master(s) with {recorded.get('replicas')} replica(s) each; "
                                  "start it as such or use another --dir")
            cluster.resume(_ints(recorded["ports"]), timeout)
        else:
            cluster.start(timeout)
        pids = [node.server.pid or 0 for node in cluster.nodes]
        self.directory.mkdir(parents=True, exist_ok=True)
        self.state_path.write_text(json.dumps({
            "kind": kind, "url": cluster.url(),
            "cluster": {"masters": masters, "replicas": replicas,
                        "ports": [node.port for node in cluster.nodes], "pids": pids}}))
        return self.status()

    def _stop_cluster(self, cluster: dict[str, object], timeout: float) -> bool:
        import redis

        ports, pids = _ints(cluster.get("ports")), _ints(cluster.get("pids"))
        if not any(map(_pid_alive, pids)):
            return False
        # Replicas first (the nodes after the masters): a master waits at SHUTDOWN for a
        # lagging replica to catch up (up to shutdown-timeout), and a replica whose master
        # went first may start a failover.
        for port, pid in reversed(list(zip(ports, pids, strict=False))):
            if not _pid_alive(pid):
                continue
            _shutdown(redis.Redis(host="127.0.0.1", port=port, **_once(timeout)), pid)
        deadline = time.monotonic() + timeout
        while any(map(_pid_alive, pids)):
            if time.monotonic() > deadline:
                raise ServerError(f"cluster nodes {pids} did not stop within {timeout:.0f}s")
            time.sleep(0.05)
        return True

    def _log_since(self, offset: int) -> str:
        try:
            with self.log_path.open("rb") as handle:
                handle.seek(offset)
                lines = handle.read().decode(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        for line in reversed(lines):
            if " # " in line or "error" in line.lower():
                # "<pid>:M <date> # <message>": the message is what a person needs
                return line.split(" # ", 1)[-1].strip()
        return lines[-1].strip() if lines else "no log"

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop the server cleanly (SHUTDOWN flushes the AOF). False if it was not running."""
        import redis

        cluster = self._state().get("cluster")
        if isinstance(cluster, dict):
            return self._stop_cluster(cluster, timeout)
        current = self.status()
        pid = self._pid()
        if not current.running or pid is None:
            return False
        _shutdown(redis.Redis.from_url(current.url, **_once(timeout)), pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _pid_alive(pid):
                return True
            time.sleep(0.05)
        raise ServerError(f"server (pid {pid}) did not stop within {timeout:.0f}s")
