"""Fixtures for worker tests: clients, in-process workers in threads, real worker commands."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from qless_py import Client
from qless_py.workers import Worker
from qless_py.workers.base import Stop
from tests import jobs
from tests.workers import async_jobs

ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, step: float = 0.01) -> Any:
    """Poll a local condition (not a lease or schedule: real processes are running)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(step)


@dataclass(frozen=True)
class Kind:
    """A kind of worker for tests that run with both: its command options and the
    module of job classes written for it (the same class names, the same records)."""

    name: str
    args: tuple[str, ...]
    jobs: ModuleType
    at_once: int  # jobs one process runs at a time with these options

    def __str__(self) -> str:
        return self.name


KINDS = [Kind("threads", (), jobs, 1),
         Kind("async", ("--async", "--concurrency", "4"), async_jobs, 4)]


@pytest.fixture(params=KINDS, ids=str)
def kind(request: pytest.FixtureRequest) -> Kind:
    """The threaded worker with ``tests.jobs``, or the asyncio worker with ``async def``
    twins (``tests.workers.async_jobs``)."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def client(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="producer")
    yield c
    c.close()


class BackgroundWorker:
    """An in-process Worker running in a thread, stopped at teardown."""

    def __init__(self, url: str, queues: list[str], name: str, **kwargs: Any) -> None:
        self.client = Client(url, worker_name=name)
        self.worker = Worker(self.client, queues, **kwargs)
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        self.code = self.worker.run()

    def start(self) -> BackgroundWorker:
        self.thread.start()
        wait_for(lambda: self.worker._listener is not None and self.worker._listener.subscribed)
        return self

    def stop(self, how: Stop = "now", timeout: float = 10.0) -> int | None:
        self.worker.stop(how)
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "worker did not stop"
        self.client.close()
        return self.code


Background = Callable[..., BackgroundWorker]  # the fixture: start(queues, name=..., **kwargs)


@pytest.fixture
def background(server_url: str) -> Iterator[Background]:
    started: list[BackgroundWorker] = []

    def start(queues: list[str], name: str = "bg", **kwargs: Any) -> BackgroundWorker:
        worker = BackgroundWorker(server_url, queues, name, **kwargs).start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        if worker.thread.is_alive():
            worker.stop()


class CliWorker:
    """``qless-py worker ...`` as a real subprocess, its log captured in a file."""

    def __init__(self, args: list[str], log_path: Path) -> None:
        self.log_path = log_path
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        env["PYTHONUNBUFFERED"] = "1"
        self.log_file = open(log_path, "wb")  # noqa: SIM115 - closed in wait()/kill()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "qless_py", "worker", *args],
            stdout=self.log_file, stderr=subprocess.STDOUT, env=env, cwd=str(ROOT))

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def wait(self, timeout: float = 15.0) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self.log_file.close()

    def kill(self) -> None:
        """Stop it: TERM first (so it cleans up its directories), SIGKILL if it hangs."""
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
        if self.proc.poll() is None:
            # kill the whole process group we created: supervisor and its children
            with_children = _children(self.proc.pid)
            self.proc.kill()
            for pid in with_children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.proc.wait(10)
        self.log_file.close()

    def children(self) -> list[int]:
        return _children(self.proc.pid)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


@pytest.fixture
def cli_worker(tmp_path: Path) -> Iterator[Callable[..., CliWorker]]:
    started: list[CliWorker] = []

    def start(*args: str) -> CliWorker:
        worker = CliWorker(list(args), tmp_path / f"worker-{len(started)}.log")
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.kill()
