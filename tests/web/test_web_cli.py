"""``qless-py web``: the real command in a subprocess (what it serves, what it logs), its
refusal to expose actions, its credentials, and a worker that never loads any of it."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
import redis
from click.testing import CliRunner

from qless_py import Client
from qless_py.cli.web import exposure_allowed, is_loopback
from qless_py.server import free_port
from tests.cli.conftest import Run, console_script
from tests.conftest import PrivateServerFactory

SECRET = "Srv-Pa55word"
WEB_PASSWORD = "Web-Pa55word"


class Served:
    """A running ``qless-py web`` and everything it printed (read as it comes, so a full
    pipe never blocks the server)."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen([console_script(), *argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, **(env or {})})
        assert self.proc.stdout is not None
        self.lines: list[str] = []
        for line in self.proc.stdout:  # the command says where it listens before serving
            self.lines.append(line)
            if line.startswith("qless-py web:"):
                self.base = line.split(" on ", 1)[1].split(" ")[0].rstrip("/")
                break
        else:
            raise AssertionError("qless-py web did not start:\n" + "".join(self.lines))
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def stop(self) -> str:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.reader.join(timeout=30)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return "".join(self.lines)


@pytest.fixture
def run() -> Run:
    """The command in-process, with no server behind it (these commands stop before one)."""
    return Run("redis://127.0.0.1:1/0", CliRunner(env={"COLUMNS": "200"}))


@pytest.fixture
def secured(private_server: PrivateServerFactory) -> Iterator[str]:
    """A server that asks for a password; yields its URL with the password in it."""
    server = private_server("valkey", port=free_port())
    conn = redis.Redis.from_url(server.url)
    conn.config_set("requirepass", SECRET)
    conn.close()
    yield f"redis://:{SECRET}@127.0.0.1:{server.port}/0"


def test_serves_pages_api_and_metrics_and_never_shows_a_password(
        secured: str, tmp_path: Path) -> None:
    client = Client(secured)
    client.queues["q"].put("a.Job", {"n": 1}, jid="a")
    auth_file = tmp_path / "auth"
    auth_file.write_text(f"ops:{WEB_PASSWORD}\n")
    served = Served(["--url", secured, "web", "--port", "0", "--auth-file", str(auth_file)])
    try:
        assert served.base.startswith("http://127.0.0.1:")
        auth = {"authorization": "Basic " + base64.b64encode(
            f"ops:{WEB_PASSWORD}".encode()).decode()}
        with httpx.Client(base_url=served.base, headers=auth) as http:
            seen = []
            for path in ("/", "/queues/q", "/jobs/a", "/api/jobs/a", "/api/overview",
                         "/metrics", "/config", "/jobs/none", "/api/jobs/none"):
                answer = http.get(path, headers={"accept": "text/html"})
                seen.append(answer.text)
                assert answer.status_code == (404 if "none" in path else 200), path
            token = http.get("/api/csrf").json()["token"]
            done = http.post("/api/jobs/a/track", data={"csrf": token},
                             headers={"sec-fetch-site": "same-origin"})
            assert done.status_code == 200
            assert http.get("/", headers={"authorization": ""}).status_code == 401
        assert client.jobs["a"].tracked  # type: ignore[union-attr]
    finally:
        log = served.stop()
        client.close()
    assert "redis://:***@127.0.0.1" in log and '"GET /jobs/a HTTP/1.1" 200' in log
    for text in [*seen, log]:
        assert SECRET not in text and WEB_PASSWORD not in text
    assert "redis://:***@127.0.0.1" in seen[0]


def test_metrics_only_and_a_prefix(secured: str) -> None:
    served = Served(["--url", secured, "web", "--port", "0", "--metrics-only",
                     "--url-prefix", "/ops/"])
    try:
        assert served.base.endswith("/ops")
        with httpx.Client() as http:
            assert "qless_workers 0" in http.get(served.base + "/metrics").text
            assert http.get(served.base + "/").status_code == 404
    finally:
        log = served.stop()
    assert "(metrics only)" in log and SECRET not in log


@pytest.mark.parametrize("args", [
    ["--host", "0.0.0.0"],
    ["--host", "192.0.2.1"],
    ["--host", "::"],
    ["--host", "example.org"],
])
def test_refuses_to_expose_actions_without_auth(run: Run, args: list[str]) -> None:
    error = run.error("web", *args, "--port", str(free_port()))
    assert "refusing to serve actions" in error and "--read-only" in error


def test_exposure_rules() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"):
        assert is_loopback(host) and exposure_allowed(host, False, False, False)
    for host in ("0.0.0.0", "::", "10.0.0.1", "myhost"):
        assert not is_loopback(host)
        assert not exposure_allowed(host, False, False, False)
        assert exposure_allowed(host, True, False, False)  # credentials
        assert exposure_allowed(host, False, True, False)  # read-only (or metrics only)
        assert exposure_allowed(host, False, False, True)  # --allow-unauthenticated


def test_credentials_come_from_a_file_or_the_environment_only(run: Run, tmp_path: Path) -> None:
    missing = run.error("web", "--auth-file", str(tmp_path / "none"))
    assert "cannot read --auth-file" in missing
    bad = tmp_path / "bad"
    bad.write_text("no colon here\n")
    assert "user:password" in run.error("web", "--auth-file", str(bad))
    from_env = run("web", code=1, env={"QLESS_WEB_AUTH": ":nouser"}).stderr
    assert "$QLESS_WEB_AUTH" in from_env and ":nouser" not in from_env
    assert "--password" not in run("web", "--help").stdout
    error = run.error("web", "--password", "x", code=2)
    assert "No such option" in error


def test_a_worker_never_imports_the_web_stack() -> None:
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from qless_py.cli import cli\n"
        "import qless_py.workers.forking, qless_py.workers.threaded.runner\n"
        "out = CliRunner().invoke(cli, ['worker', '--help'])\n"
        "assert out.exit_code == 0, out.output\n"
        "heavy = ('starlette', 'jinja2', 'uvicorn', 'qless_py.web', 'anyio')\n"
        "print([m for m in sys.modules if m.split('.')[0] in heavy or m.startswith(heavy)])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_serves_several_namespaces_and_labels_their_metrics(
        private_server: PrivateServerFactory) -> None:
    server = private_server("valkey", port=free_port())
    url = f"redis://127.0.0.1:{server.port}/0"
    for namespace, jid in ((None, "d1"), ("billing", "b1"), ("shipping", "s1")):
        with Client(url, namespace=namespace) as client:
            client.queues["q"].put("a.Job", {}, jid=jid)
    # the URL's namespace first (served at /), then each --namespace; '' is the default one
    served = Served(["--url", f"{url}?namespace=billing", "web", "--port", "0",
                     "--namespace", "", "--namespace", "billing"])
    try:
        with httpx.Client(base_url=served.base) as http:
            assert [row["jid"] for row in http.get("/api/queues/q").json()["jobs"]] == ["b1"]
            default = http.get("/api/queues/q?namespace=").json()["jobs"]
            assert [row["jid"] for row in default] == ["d1"]
            assert http.get("/api/overview?namespace=shipping").status_code == 404
            metrics = http.get("/metrics").text
            assert 'qless_queue_jobs{namespace="",queue="q",state="waiting"} 1' in metrics
            assert 'qless_queue_jobs{namespace="billing",queue="q",state="waiting"} 1' in metrics
            assert "shipping" not in metrics
    finally:
        log = served.stop()
    assert f"{url} on http://127.0.0.1:" in log  # the URL without its namespace
    assert "(read-write; namespaces billing, (default))" in log

    found = Served(["--url", url, "web", "--port", "0", "--all-namespaces", "--read-only"])
    try:
        with httpx.Client(base_url=found.base) as http:
            rows = http.get("/api/namespaces").json()["namespaces"]
            assert [row["namespace"] for row in rows] == [None, "billing", "shipping"]
            assert 'namespace="shipping"' in http.get("/metrics").text
    finally:
        log = found.stop()
    assert ("(read-only; all namespaces: (default), billing, shipping, found by a scan of "
            "the whole keyspace in 1 round trip)") in log


def test_a_namespace_from_the_group_or_the_environment(run: Run) -> None:
    from qless_py.cli.web import served_namespaces

    assert served_namespaces("redis://h/0", (), None) == []
    assert served_namespaces("redis://h/0", (), "env") == ["env"]
    assert served_namespaces("redis://h/0", ("a", ""), "env") == ["a", None]
    assert served_namespaces("redis://h/0?namespace=u", ("a", "u"), None) == ["u", "a"]
    for bad in ("{x}", "x" * 65):
        error = run.error("web", "--namespace", "ok", "--namespace", bad)
        assert "invalid namespace" in error and "1 to 64 characters" in error
    from_env = run("web", code=1, env={"QLESS_NAMESPACE": "a{b}"}).stderr.strip()
    assert from_env.startswith("Error: invalid namespace 'a{b}'") and "\n" not in from_env


def test_serves_a_sharded_namespace_as_one(private_server: PrivateServerFactory) -> None:
    from qless_py import ShardedClient

    server = private_server("valkey", port=free_port())
    url = f"redis://127.0.0.1:{server.port}/0"
    with ShardedClient(url, namespace="billing", shards=4) as client:
        for _ in range(4):
            client.queues["q"].put("a.Job", {})
    served = Served(["--url", url, "--namespace", "billing", "--shards", "4", "web",
                     "--port", "0"])
    try:
        with httpx.Client(base_url=served.base) as http:
            assert len(http.get("/api/queues/q").json()["jobs"]) == 4
            assert 'qless_queue_jobs{namespace="billing",queue="q",state="waiting"} 4' \
                in http.get("/metrics").text
    finally:
        served.stop()
    wrong = subprocess.run([console_script(), "--url", url, "--namespace", "billing",
                            "--shards", "3", "web", "--port", "0"],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 1
    assert wrong.stderr.strip() == "Error: namespace 'billing' has 4 shards (recorded in " \
                                   "ql:{billing}:shards), not 3"
    every = subprocess.run([console_script(), "--url", url, "--shards", "3", "web",
                            "--all-namespaces", "--port", "0"],
                           capture_output=True, text=True, timeout=60)
    assert every.returncode == 1 and "--all-namespaces finds plain namespaces" in every.stderr
