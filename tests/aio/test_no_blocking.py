"""Nothing in qless_py.aio blocks the event loop: no blocking socket, no time.sleep, no sync
lock, no sync client. Checked twice: by reading the source, and by running a workload with
those calls made to fail when the loop's thread makes them from qless_py or redis-py."""

from __future__ import annotations

import ast
import asyncio
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from qless_py.aio import AsyncClient, RecurringJob

AIO = Path(__file__).resolve().parents[2] / "qless_py" / "aio"
NOOP = "tests.client.jobs.Noop"

# Modules whose import would mean a blocking path: sleeps, threads, the sync client, its
# transports and its objects; and the blocking names of modules the two clients share.
FORBIDDEN_MODULES = {"time", "threading", "redis.client", "redis.connection", "redis.sentinel",
                     "qless_py.client", "qless_py.client.client", "qless_py.client.core",
                     "qless_py.connect.redis_clients", "qless_py.client.events",
                     "qless_py.client.job", "qless_py.client.queue",
                     "qless_py.client.recurring", "qless_py.client.config",
                     "qless_py.client.throttles", "qless_py.job", "qless_py.config"}
FORBIDDEN_NAMES = {("qless_py.connect.resp", "Connection"), ("qless_py.connect.resp", "Transport"),
                   ("qless_py.connect.dial", "open_socket"), ("qless_py.connect.resp", "locate"),
                   ("redis", "Redis"), ("redis", "StrictRedis")}


def _imports(tree: ast.AST) -> Iterator[tuple[str, str | None]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                yield node.module, alias.name


def test_the_source_imports_nothing_that_blocks() -> None:
    problems = []
    for path in sorted(AIO.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for module, name in _imports(tree):
            if module in FORBIDDEN_MODULES:
                problems.append(f"{path.name}: import {module}")
            elif (module, name) in FORBIDDEN_NAMES:
                problems.append(f"{path.name}: from {module} import {name}")
        for node in ast.walk(tree):
            # socket is imported for its option constants (and gethostname, which asks the
            # kernel, not the network)
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "socket" and not node.attr.isupper()
                    and node.attr != "gethostname"):
                problems.append(f"{path.name}:{node.lineno}: socket.{node.attr}")
    assert problems == []
    assert {p.name for p in AIO.glob("*.py")} >= {"client.py", "core.py", "events.py"}


@pytest.fixture
def tripwires(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Blocking calls made on the loop's thread from qless_py or redis-py are recorded (the
    test's own harness may block: it is not qless_py)."""
    tripped: list[str] = []
    loop_thread = threading.get_ident()

    def from_library() -> bool:
        frame: FrameType | None = sys._getframe(3)  # the caller of the patched function
        while frame is not None:
            name = frame.f_globals.get("__name__", "")
            if name.startswith(("qless_py", "redis")):
                return True
            if name.startswith("tests."):
                return False
            frame = frame.f_back
        return False

    def trip(what: str) -> None:
        if threading.get_ident() == loop_thread and from_library():
            tripped.append(what)

    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        trip(f"time.sleep({seconds})")
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    for method in ("recv", "recv_into", "send", "sendall", "connect", "accept"):
        real = getattr(socket.socket, method)

        def wrapped(self: socket.socket, *args: Any, _real: Any = real,
                    _name: str = method) -> Any:
            if self.gettimeout() != 0.0:  # a blocking socket (asyncio's never are)
                trip(f"socket.{_name} on a blocking socket")
            return _real(self, *args)

        monkeypatch.setattr(socket.socket, method, wrapped)
    real_wait = threading.Event.wait

    def wait(self: threading.Event, timeout: float | None = None) -> bool:
        trip("threading.Event.wait")
        return real_wait(self, timeout)

    monkeypatch.setattr(threading.Event, "wait", wait)
    return tripped


@pytest.mark.asyncio
async def test_a_workload_makes_no_blocking_call(server_url: str, tripwires: list[str]) -> None:
    async with AsyncClient(server_url, worker_name="w") as client:
        client.events.on("log", lambda _: None)
        async with client.events:
            queue = client.queues["q"]
            await queue.put_many([(NOOP, {"i": i}) for i in range(20)])
            await client.config.set("heartbeat", 30)
            jobs = await queue.pop(10)
            for job in jobs:
                await job.heartbeat()
                await job.complete()
            await asyncio.gather(*(queue.put(NOOP, {}) for _ in range(20)))
            await client.queues["q"].recur(NOOP, {}, 60, jid="r")
            template = await client.jobs["r"]
            assert isinstance(template, RecurringJob) and await template.next is not None
            assert await queue.stats() is not None and await client.tags() == []
    assert tripwires == []


def test_the_tripwires_catch_a_blocking_call(server_url: str, tripwires: list[str]) -> None:
    # the detector itself: a sleep made from qless_py code, and the sync client, are caught.
    # A sync test: these calls block on purpose, and no loop runs here for them to block
    # (tests/loopcheck.py would judge the step that made them); the tripwires go by thread,
    # and this is the thread the async tests' loops run on.
    from qless_py import Client
    from qless_py.calls import base

    _sleep_in_library(base)
    sync = Client(server_url)
    assert sync.queues["q"].length() == 0
    sync.close()
    assert tripwires[0] == "time.sleep(0)"
    assert tripwires[1].startswith("socket.") and "blocking socket" in tripwires[1]


def _sleep_in_library(module: Any) -> None:
    # a function whose globals are qless_py's, as if the library called time.sleep
    code = compile("def f():\n    import time\n    time.sleep(0)\n", module.__file__, "exec")
    namespace: dict[str, Any] = {"__name__": module.__name__}
    exec(code, namespace)
    namespace["f"]()

