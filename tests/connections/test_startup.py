"""A worker's first connection: refused for good means one line and a non-zero exit; a
server that is down only delays it. And every worker connection carries the worker's name."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from qless_py import Client, ConnectionSetupError
from qless_py.server import ServerProcess, free_port
from qless_py.workers import Worker
from tests.connections.conftest import ROOT, Servers, admin, cli_env, error_lines, run_cli, wait_for
from tests.lookups import get_job


def _tcp(server: ServerProcess, auth: str = "") -> str:
    return f"redis://{auth}127.0.0.1:{server.port}/0"


@pytest.fixture
def guarded(servers: Servers) -> ServerProcess:
    """A server with a password and an ACL user that may not run scripts."""
    server = servers.redis(port=free_port())
    conn = admin(server)
    conn.execute_command("ACL", "SETUSER", "reader", "on", ">reader-pw", "~*", "&*", "+@all",
                         "-evalsha", "-eval")
    conn.config_set("requirepass", "secret")
    return server


@pytest.mark.parametrize(("auth", "reason"), [
    (":wrong@", "WRONGPASS"),
    ("", "NOAUTH"),
    ("reader:reader-pw@", "NOPERM"),
])
def test_a_refused_login_stops_the_worker_command_with_one_line(
        guarded: ServerProcess, auth: str, reason: str) -> None:
    done = run_cli("worker", "--url", _tcp(guarded, auth), "-q", "q", "--processes", "2")
    assert done.returncode == 1
    [line] = error_lines(done.stderr)
    assert line.startswith("Error: cannot start the workers:") and reason in line
    assert "secret" not in done.stderr and "reader-pw" not in done.stderr


def test_the_library_worker_refuses_to_run_too(guarded: ServerProcess) -> None:
    client = Client(_tcp(guarded, ":wrong@"), worker_name="w")
    worker = Worker(client, ["q"], burst=True, handle_signals=False)
    with pytest.raises(ConnectionSetupError, match="WRONGPASS"):
        worker.run()
    client.close()
    allowed = Client(_tcp(guarded, ":secret@"), worker_name="w")
    allowed.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    assert Worker(allowed, ["q"], burst=True, handle_signals=False).run() == 0
    assert get_job(allowed, "j").state == "complete"
    allowed.close()


def test_a_url_the_worker_cannot_honour_is_a_usage_error() -> None:
    done = run_cli("worker", "--url", "redis://127.0.0.1:1/0?retry_on_timeout=yes", "-q", "q")
    assert done.returncode == 2
    assert "unknown URL option 'retry_on_timeout'" in done.stderr


def test_a_server_that_is_down_at_start_is_waited_for(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "worker.log"
    with open(log, "wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "qless_py", "worker", "--url", f"redis://127.0.0.1:{port}/0",
             "-q", "q", "--processes", "1", "--interval", "0.5"],
            cwd=ROOT, env=cli_env(), stdout=out, stderr=subprocess.STDOUT)
    server = ServerProcess(tmp_path / "server", kind="redis", port=port, unixsocket=False)
    try:
        wait_for(lambda: "cannot be reached yet" in log.read_text())
        assert worker.poll() is None  # still trying
        server.start()
        client = Client(f"redis://127.0.0.1:{port}/0")
        client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
        wait_for(lambda: get_job(client, "j").state == "complete")
        client.close()
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)
        server.stop()


def test_client_list_shows_which_worker_is_which(servers: Servers, tmp_path: Path) -> None:
    server = servers.redis(port=free_port())
    url = _tcp(server)
    with open(tmp_path / "worker.log", "wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "qless_py", "worker", "--url", url + "?client_name=billing",
             "-q", "q", "--processes", "2", "--threads", "2", "--name", "wn"],
            cwd=ROOT, env=cli_env(), stdout=out, stderr=subprocess.STDOUT)
    try:
        client = Client(url, client_name="producer-app")
        for i in range(4):
            client.queues["q"].put("tests.jobs.Sleeper", {"seconds": 0.3}, jid=f"j{i}")

        def names() -> Counter[str]:
            return Counter(str(c.get("name")) for c in admin(server).client_list())

        # each process: two runner threads, the listener and the heartbeat thread
        wait_for(lambda: names()["billing:wn-1"] >= 3 and names()["billing:wn-2"] >= 3)
        assert names()["producer-app"] >= 1  # a plain client named by client_name=
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        client.close()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)


def test_a_credential_provider_is_asked_by_the_worker_too(guarded: ServerProcess) -> None:
    import redis
    from redis.credentials import UsernamePasswordCredentialProvider

    asked: list[int] = []

    class Counting(UsernamePasswordCredentialProvider):
        def get_credentials(self) -> tuple[str] | tuple[str, str]:
            asked.append(1)
            return super().get_credentials()  # type: ignore[no-any-return]

    conn = redis.Redis(host="127.0.0.1", port=guarded.port,
                       credential_provider=Counting(password="secret"))
    client = Client(redis_client=conn, worker_name="w")
    client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    plain = len(asked)
    assert Worker(client, ["q"], burst=True, handle_signals=False).run() == 0
    assert len(asked) > plain  # the worker's own connections asked it
    client.core.transport = None
    assert get_job(client, "j").state == "complete"
    client.close()
