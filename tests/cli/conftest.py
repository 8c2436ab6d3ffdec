"""Fixtures of the command-line tests: the real ``qless-py`` group on the test servers."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from qless_py import Client
from qless_py.cli import cli


def console_script() -> str:
    """The installed ``qless-py`` of the interpreter running the tests (PATH may differ)."""
    beside = Path(sys.executable).parent / "qless-py"
    if beside.exists():
        return str(beside)
    found = shutil.which("qless-py")
    assert found is not None, "the project is not installed (pip install -e .)"
    return found


@dataclass
class Run:
    """Invoke ``qless-py --url <server> ARGS`` in-process and check the exit status."""

    url: str | None
    runner: CliRunner

    def __call__(self, *args: str, code: int = 0, url: bool = True,
                 env: dict[str, str | None] | None = None) -> Result:
        argv = ["--url", self.url, *args] if url and self.url else list(args)
        result = self.runner.invoke(cli, argv, env=env, catch_exceptions=True)
        assert result.exit_code == code, (
            f"exit {result.exit_code} != {code} for {argv}\nstdout: {result.stdout}\n"
            f"stderr: {result.stderr}\nexception: {result.exception!r}")
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "--json").stdout)

    def error(self, *args: str, code: int = 1) -> str:
        """The single stderr line of a failing command (and nothing on stdout)."""
        result = self(*args, code=code)
        lines = result.stderr.strip().splitlines()
        if code == 1:
            assert len(lines) == 1, result.stderr
            assert "Traceback" not in result.stderr
        return result.stderr.strip()


@pytest.fixture
def run(server_url: str) -> Run:
    return Run(server_url, CliRunner(env={"COLUMNS": "200"}))


@pytest.fixture
def client(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="w1")
    yield c
    c.close()


@pytest.fixture
def snapshot(redis_conn: Any) -> Callable[[], dict[bytes, Any]]:
    """Every key with its type and content: proves a refused command wrote nothing."""

    def take() -> dict[bytes, Any]:
        out: dict[bytes, Any] = {}
        for key in sorted(redis_conn.keys("*")):
            kind = redis_conn.type(key)
            if kind == b"hash":
                out[key] = redis_conn.hgetall(key)
            elif kind == b"zset":
                out[key] = redis_conn.zrange(key, 0, -1, withscores=True)
            elif kind == b"set":
                out[key] = sorted(redis_conn.smembers(key))
            elif kind == b"list":
                out[key] = redis_conn.lrange(key, 0, -1)
            else:
                out[key] = redis_conn.get(key)
        return out

    return take
