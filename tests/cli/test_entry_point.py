"""The console script itself: URL resolution, exit statuses, one-line errors, --debug."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from qless_py.cli import cli
from qless_py.server import free_port
from tests.cli.conftest import Run, console_script


def _console(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    return subprocess.run([console_script(), *args], capture_output=True, text=True, env=full,
                          timeout=60, check=False)


def test_console_script_exit_statuses(server_url: str) -> None:
    ok = _console("--url", server_url, "put", "q", "app.Job", '{"a": 1}')
    assert ok.returncode == 0, ok.stderr
    jid = ok.stdout.strip()
    shown = _console("job", jid, "--json", env={"QLESS_URL": server_url})
    assert shown.returncode == 0 and json.loads(shown.stdout)["data"] == {"a": 1}
    missing = _console("--url", server_url, "job", "nope")
    assert (missing.returncode, missing.stderr.strip(), missing.stdout) == (
        1, "Error: no such job: nope", "")
    usage = _console("--url", server_url, "put", "q")
    assert usage.returncode == 2 and "Missing argument" in usage.stderr


def test_no_server_says_how_to_start_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["queues"], env={
        "QLESS_URL": None, "QLESS_PY_HOME": str(tmp_path), "QLESS_PY_PORT": str(free_port())})
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "Error: no server to talk to: pass --url or set QLESS_URL, or start the embedded "
        "server with 'qless-py server start'")


def test_unreachable_server_is_one_line() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    result = Run(url, CliRunner())("queues", code=1)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: cannot reach the server")


def test_debug_shows_the_traceback() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    done = subprocess.run([sys.executable, "-m", "qless_py", "--debug", "--url", url, "queues"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "Traceback" in done.stderr


@pytest.mark.parametrize("args", [["jobs", "--help"], ["server", "--help"], ["--help"]])
def test_help_works_without_a_server(args: list[str]) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0 and "Usage" in result.stdout


def test_command_level_url_overrides_the_environment(run: Run) -> None:
    assert run.url is not None
    result = run("queues", "--json", "--url", run.url, url=False,
                 env={"QLESS_URL": "redis://127.0.0.1:1/0"})
    assert json.loads(result.stdout) == []


def test_top_level_help_lists_every_command_and_worker_help_stays_lean() -> None:
    # Families load lazily: --help must still list them all, and the worker command
    # (started for every deploy and every recycled child) must not pull in rich or the
    # other families.
    from qless_py.cli import FAMILIES

    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from qless_py.cli import cli\n"
        "out = CliRunner().invoke(cli, ['worker', '--help'])\n"
        "assert out.exit_code == 0, out.output\n"
        "loaded = sorted(m for m in sys.modules if m == 'rich' or m.startswith('qless_py.cli.'))\n"
        "print(','.join(loaded))\n"
    )
    lean = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=60)
    assert lean.stdout.strip().split(",") == ["qless_py.cli.common", "qless_py.cli.worker"]
    listing = subprocess.run([sys.executable, "-m", "qless_py", "--help"], capture_output=True,
                             text=True, check=True, timeout=60).stdout
    for name in FAMILIES:
        assert f"  {name} " in listing or f"  {name}\n" in listing, name
