"""The embedded server: start, status, use, stop, restart with its data (AOF)."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from qless_py.embedded import EmbeddedServer
from qless_py.server import free_port
from tests.cli.conftest import Run
from tests.conftest import need_server


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str | None]]:
    """A private QLESS_PY_HOME and port; whatever server a test leaves is stopped."""
    env: dict[str, str | None] = {"QLESS_PY_HOME": str(tmp_path), "QLESS_URL": None,
                                  "QLESS_PY_PORT": str(free_port())}
    yield env
    old = dict(os.environ)
    os.environ["QLESS_PY_HOME"] = str(tmp_path)
    try:
        EmbeddedServer().stop()
    finally:
        os.environ.clear()
        os.environ.update(old)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[-1].split()[0] != "Z"


def test_start_status_use_stop_and_keep_data(home: dict[str, str | None]) -> None:
    run = Run(None, CliRunner(env=home))
    assert "stopped" in run("server", "status", code=1).stdout
    started = run("server", "start").stdout
    assert started.startswith(f"started at redis://127.0.0.1:{home['QLESS_PY_PORT']}/0")
    status = run.json("server", "status")
    assert status["running"] is True
    assert status["url"] == f"redis://127.0.0.1:{home['QLESS_PY_PORT']}/0"
    assert status["directory"] == str(Path(str(home["QLESS_PY_HOME"])) / "server")
    pid = status["pid"]
    assert os.getsid(pid) != os.getsid(0), "the server runs in its own session"
    assert "already running" in run("server", "start").stdout
    # commands find the embedded server without --url
    jid = run("put", "q", "app.Job", '{"keep": true}').stdout.strip()
    assert run.json("job", jid)["data"] == {"keep": True}
    assert run("server", "stop").stdout.strip() == "stopped"
    assert not _alive(pid)
    assert run("server", "stop").stdout.strip() == "not running"
    assert "start the embedded server" in run.error("queues")
    run("server", "start")
    assert run.json("job", jid)["data"] == {"keep": True}, "AOF brought the job back"
    assert run.json("server", "stop") == {"stopped": True,
                                          "directory": status["directory"]}


def test_dir_option_and_port_conflict(home: dict[str, str | None], tmp_path: Path) -> None:
    run = Run(None, CliRunner(env=home))
    data = tmp_path / "elsewhere"
    port = free_port()
    result = run("server", "start", "--dir", str(data), "--port", str(port), "--json")
    assert json.loads(result.stdout)["url"] == f"redis://127.0.0.1:{port}/0"
    try:
        assert (data / "appendonlydir").is_dir()
        other = tmp_path / "other"
        message = run.error("server", "start", "--dir", str(other), "--port", str(port))
        assert f"port {port} is already in use" in message
        assert run.json("server", "status", "--dir", str(data))["running"] is True
    finally:
        run("server", "stop", "--dir", str(data))


def test_redis_flag_runs_redis_server(home: dict[str, str | None]) -> None:
    need_server("redis")
    run = Run(None, CliRunner(env=home))
    status = json.loads(run("server", "start", "--redis", "--json").stdout)
    assert status["kind"] == "redis"
    info = Path(f"/proc/{status['pid']}/cmdline").read_bytes()
    assert b"redis-server" in info
    assert "holds redis data" not in run("server", "status").stdout
    run("server", "stop")
    assert "holds redis data" in run.error("server", "start", "--valkey")


def test_a_busy_port_gives_the_servers_reason(home: dict[str, str | None]) -> None:
    run = Run(None, CliRunner(env=home))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        message = run.error("server", "start", "--port", str(port))
    assert message == (f"Error: valkey server did not come up on port {port}: "
                       f"Failed listening on port {port} (tcp), aborting.")
    assert "stopped" in run("server", "status", code=1).stdout


def test_a_local_cluster_starts_stops_and_comes_back(home: dict[str, str | None]) -> None:
    run = Run(None, CliRunner(env=home))
    assert "--replicas needs --cluster" in run.error("server", "start", "--replicas", "1")
    assert "do not go together" in run.error("server", "start", "--cluster", "3", "--port",
                                             "7000")
    status = run.json("server", "start", "--cluster", "3", "--replicas", "1")
    assert status["running"] is True
    assert status["url"].startswith("redis+cluster://127.0.0.1:")
    seeds = status["url"].split("://", 1)[1].split(",")
    assert len(seeds) == 6
    state = json.loads((Path(status["directory"]) / "server.json").read_text())
    pids, ports = state["cluster"]["pids"], state["cluster"]["ports"]
    assert all(port + 10000 < 65536 for port in ports)
    import redis

    node = redis.Redis(host="127.0.0.1", port=ports[0])
    info = node.execute_command("CLUSTER", "INFO").decode()
    node.close()
    assert "cluster_state:ok" in info and "cluster_known_nodes:6" in info
    assert "already running" in run("server", "start", "--cluster", "3", "--replicas", "1").stdout
    assert run("server", "stop").stdout.strip() == "stopped"
    assert not any(_alive(pid) for pid in pids)
    again = run.json("server", "start", "--cluster", "3", "--replicas", "1")
    assert again["url"] == status["url"], "the same nodes come back on the same ports"
    assert run("server", "stop").stdout.strip() == "stopped"
    assert "holds a cluster of 3" in run.error("server", "start", "--cluster", "2")
