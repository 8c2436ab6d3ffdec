"""The demo pipeline: its job logic, a run through the command, and scripts/demo."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

from qless_py import Client
from qless_py.cli import cli
from qless_py.connect.cluster import key_slot
from qless_py.demo.driver import TOP_LEVEL, DemoError, package_of, run_demo, stdlib_files
from qless_py.demo.jobs import count_names
from qless_py.keys import namespace_prefix
from qless_py.server import free_port
from tests.cli.conftest import console_script
from tests.conftest import flushed_cluster_url

ROOT = Path(__file__).resolve().parents[2]


def test_count_names_counts_names_attributes_arguments_and_definitions() -> None:
    counts = count_names("def f(x):\n    return x.y + x\nclass C: pass\n")
    assert counts == {"f": 1, "x": 3, "y": 1, "C": 1}


def test_stdlib_sample_is_spread_over_packages() -> None:
    every = stdlib_files()
    sample = stdlib_files(20)
    assert len(sample) == 20 and set(sample) <= set(every)
    assert len({package_of(p) for p in sample}) > 3
    assert package_of(every[0]) == TOP_LEVEL or len(every[0].parts) > 1
    assert all(p.suffix == ".py" and "test" not in p.parts for p in every)


def test_demo_command_runs_the_pipeline(server_url: str) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(cli, ["--url", server_url, "demo", "--limit", "8", "--top", "5",
                                 "--json", "--timeout", "90"])
    assert result.exit_code == 0, result.stderr + result.stdout
    out = result.stdout
    payload = json.loads(out[out.index('{\n  "elapsed"'):])
    report = payload["report"]
    assert report["files"] == 8 and len(report["top"]) == 5
    assert report["top"][0][1] >= report["top"][-1][1] > 0
    assert payload["stats"]["parse"]["wait"]["count"] == 8
    assert payload["stats"]["parse"]["run"]["count"] == 8
    assert payload["stats"]["report"]["run"]["count"] == 1
    assert "most common names in 8 files" in out and "stage merge" in out
    client = Client(server_url)
    try:
        names = [q["name"] for q in client.queues.counts]
        assert not [n for n in names if n.startswith(f"demo-{payload['run']}")]
        assert client.jobs.failed() == {}
    finally:
        client.close()


def test_scripts_demo_starts_the_embedded_server_and_runs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QLESS_URL"}
    env.update(QLESS_VENV=sys.prefix, QLESS_PY_HOME=str(tmp_path),
               QLESS_PY_PORT=str(free_port()), COLUMNS="120")
    try:
        done = subprocess.run([str(ROOT / "scripts" / "demo"), "--limit", "20"], env=env,
                              capture_output=True, text=True, timeout=150, check=False)
        assert done.returncode == 0, done.stderr + done.stdout
        assert "installing" not in done.stdout, "QLESS_VENV with qless_py installs nothing"
        assert "started the embedded server" in done.stdout
        assert "most common names in 20 files" in done.stdout
        for stage in ("parse", "merge", "report"):
            assert f"stage {stage}" in done.stdout
        assert "wait: count 20" in done.stdout and "run: count 20" in done.stdout
        status = subprocess.run([console_script(), "server", "status", "--json"], env=env,
                                capture_output=True, text=True, timeout=30, check=False)
        assert json.loads(status.stdout)["running"] is True
    finally:
        subprocess.run([console_script(), "server", "stop"], env=env, capture_output=True,
                       timeout=60, check=False)


def test_a_failing_stage_stops_the_demo_and_cleans_up(server_url: str, tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("x = 1\n")
    files = [good, tmp_path / "missing.py"]
    client = Client(server_url)
    out = io.StringIO()
    try:
        with pytest.raises(DemoError, match=r"a job failed: .*missing\.py"):
            run_demo(client, server_url, Console(file=out, width=200), files=files,
                     timeout=60)
        assert "unfinished jobs were canceled" in out.getvalue()
        assert client.queues.counts == []
        assert client.jobs.failed() == {}
        assert client.jobs.complete() != [], "the finished job stays complete"
    finally:
        client.close()


def test_the_demo_on_a_cluster_spreads_its_namespaces_over_the_masters(
        _clusters: Any) -> None:
    made = _clusters["valkey"]
    url = flushed_cluster_url(made, "x").split("/?")[0]
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(cli, ["demo", "--cluster", "--url", url, "--limit", "12",
                                 "--namespaces", "3", "--processes", "1", "--top", "5",
                                 "--json", "--timeout", "120"])
    assert result.exit_code == 0, result.stderr + result.stdout
    out = result.stdout
    payload = json.loads(out[out.index('{\n  "elapsed"'):])
    assert payload["report"]["files"] == 12 and len(payload["report"]["top"]) == 5
    spread = payload["namespaces"]
    assert len(spread) == 3 and sum(part["files"] for part in spread.values()) == 12
    masters = {made.master_of(key_slot(namespace_prefix(name))).port for name in spread}
    assert len(masters) == 3
    for name in spread:
        client = Client(url, namespace=name)
        try:
            assert client.queues.counts == [] and client.jobs.failed() == {}
        finally:
            client.close()


def test_scripts_demo_cluster_starts_a_local_cluster_and_runs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QLESS_URL"}
    env.update(QLESS_VENV=sys.prefix, QLESS_PY_HOME=str(tmp_path), COLUMNS="120")
    try:
        done = subprocess.run([str(ROOT / "scripts" / "demo"), "--cluster", "--limit", "9",
                               "--processes", "1"], env=env, capture_output=True, text=True,
                              timeout=180, check=False)
        assert done.returncode == 0, done.stderr + done.stdout
        assert "started a local cluster at redis+cluster://" in done.stdout
        assert done.stdout.count("namespace demo-") == 3
        assert "most common names in 9 files" in done.stdout
    finally:
        subprocess.run([console_script(), "server", "stop"], env=env, capture_output=True,
                       timeout=60, check=False)
