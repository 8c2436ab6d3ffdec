"""The calls that make a thread wait, timed when a loop's thread makes them during a step.

tests/loopcheck.py blames a slow step of an event loop on the code when, in that step, the
loop's thread waited in one of the calls below: a sleep, a blocking socket, a selector or
``select`` with a timeout, an event, condition, semaphore, barrier or queue of
``threading``/``queue``, a thread's join, a ``concurrent.futures`` result, a read from a
blocking file descriptor, a child process. :func:`watching` replaces them with wrappers
that time such a call when the thread is inside a step (:data:`STEP`) and only pass it on
otherwise; the loop's own wait for I/O comes between two steps and never counts. A wait for
the GIL or for a CPU is no call, so the machine's scheduling is never counted.

Not seen: ``acquire`` of a plain ``threading.Lock``/``RLock`` and ``queue.SimpleQueue.get``
(C types, whose methods cannot be replaced; ``with lock:`` calls no Python function), and a
function bound before the patch (``from time import sleep`` at import time). The waits
built on those locks (the list above) are seen.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import os
import queue
import reprlib
import resource
import select
import selectors
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import pytest


def _now() -> float:
    # not time.monotonic or time.perf_counter: the client suite's freezegun fakes those
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_THREAD)
    return usage.ru_utime + usage.ru_stime


class Step(threading.local):
    """What this thread did in the step of a loop it runs now, or ran last: seconds on the
    wall clock, of CPU, and in watched calls (which ones, how often, how long)."""

    def __init__(self) -> None:
        self.running = False
        self.inside = False  # in a watched call: what it calls is part of it
        self.wall = self.cpu = self.blocked = 0.0
        self.calls: collections.Counter[str] = collections.Counter()
        self.seconds: dict[str, float] = {}

    def start(self) -> None:
        self.running, self.blocked = True, 0.0
        self.calls.clear()
        self.seconds.clear()
        self.wall, self.cpu = _now(), _cpu()

    def stop(self) -> None:
        self.wall, self.cpu = _now() - self.wall, _cpu() - self.cpu
        self.running = False

    def note(self, call: str, seconds: float) -> None:
        self.blocked += seconds
        self.calls[call] += 1
        self.seconds[call] = self.seconds.get(call, 0.0) + seconds

    def waits(self, shown: int = 3) -> str:
        """The calls that waited, longest first: ``time.sleep(0.2) for 0.200 s``."""
        longest = sorted(self.seconds.items(), key=lambda item: -item[1])
        text = ", ".join(
            f"{call}{f' x{self.calls[call]}' if self.calls[call] > 1 else ''} for {seconds:.3f} s"
            for call, seconds in longest[:shown])
        more = sum(self.calls[call] for call, _ in longest[shown:])
        return f"{text} and {more} more call(s)" if more else text


STEP = Step()

_shown = reprlib.Repr()
_shown.maxstring = _shown.maxother = 40


def _watched(real: Callable[..., Any], label: str, method: bool,
             blocks: Callable[..., bool]) -> Callable[..., Any]:
    @functools.wraps(real)
    def watched(*args: Any, **kwargs: Any) -> Any:
        step = STEP
        if not step.running or step.inside or not blocks(*args, **kwargs):
            return real(*args, **kwargs)
        step.inside = True
        start = _now()
        try:
            return real(*args, **kwargs)
        finally:
            seconds = _now() - start
            step.inside = False
            shown = [_shown.repr(a) for a in args[method:]]
            shown += [f"{k}={_shown.repr(v)}" for k, v in kwargs.items()]
            step.note(f"{label}({', '.join(shown)})", seconds)

    return watched


def _not_counted(real: Callable[..., Any]) -> Callable[..., Any]:
    """Waits inside ``real`` are not the step's doing."""

    @functools.wraps(real)
    def passed(*args: Any, **kwargs: Any) -> Any:
        step = STEP
        if not step.running or step.inside:
            return real(*args, **kwargs)
        step.inside = True
        try:
            return real(*args, **kwargs)
        finally:
            step.inside = False

    return passed


def _waits(timeout: float | None) -> bool:
    """A wait with this timeout may block (None: until done; 0 or less: only a look)."""
    return timeout is None or timeout > 0


def _blocking_socket(sock: socket.socket, *_: Any, **__: Any) -> bool:
    return sock.gettimeout() != 0.0  # asyncio's sockets are non-blocking: 0.0


def _blocking_fd(fd: int, *_: Any) -> bool:
    try:
        return os.get_blocking(fd)
    except OSError:
        return False  # the read itself raises


def _always(*_: Any, **__: Any) -> bool:
    return True


_SOCKET_CALLS = ("recv", "recv_into", "recvfrom", "recvfrom_into", "recvmsg", "send",
                 "sendall", "sendto", "sendmsg", "connect", "accept")
_SSL_CALLS = ("recv", "recv_into", "read", "send", "sendall", "write", "do_handshake",
              "connect", "accept")
_SELECTORS = tuple(getattr(selectors, name) for name in (
    "SelectSelector", "PollSelector", "EpollSelector", "DevpollSelector", "KqueueSelector")
    if hasattr(selectors, name))

# (owner, attribute, the call blocks when given these arguments)
WATCHED: tuple[tuple[Any, str, Callable[..., bool]], ...] = (
    (time, "sleep", _always),
    (socket, "getaddrinfo", _always),
    *((socket.socket, name, _blocking_socket) for name in _SOCKET_CALLS),
    *((ssl.SSLSocket, name, _blocking_socket) for name in _SSL_CALLS),
    (select, "select", lambda r, w, x, timeout=None: _waits(timeout)),
    *((cls, "select", lambda self, timeout=None: _waits(timeout)) for cls in _SELECTORS),
    (threading.Event, "wait", lambda self, timeout=None: _waits(timeout)),
    (threading.Condition, "wait", lambda self, timeout=None: _waits(timeout)),
    (threading.Condition, "wait_for",
     lambda self, predicate, timeout=None: _waits(timeout)),
    (threading.Semaphore, "acquire",
     lambda self, blocking=True, timeout=None: blocking and _waits(timeout)),
    (threading.Barrier, "wait", _always),
    (threading.Thread, "join", lambda self, timeout=None: _waits(timeout)),
    (queue.Queue, "get", lambda self, block=True, timeout=None: block and _waits(timeout)),
    (queue.Queue, "put",
     lambda self, item, block=True, timeout=None: block and _waits(timeout)),
    (futures.Future, "result", lambda self, timeout=None: not self.done() and _waits(timeout)),
    (futures.Future, "exception",
     lambda self, timeout=None: not self.done() and _waits(timeout)),
    (os, "read", _blocking_fd),
    (os, "waitpid", lambda pid, options: not options & os.WNOHANG),
    (subprocess.Popen, "wait", _always),
    (subprocess.Popen, "communicate", _always),
)

NOT_COUNTED: tuple[tuple[Any, str], ...] = (
    # Starting a thread waits until the new thread runs its first lines: as long as the
    # scheduler and the GIL take, and no longer. Every executor's first submits from a
    # loop (asyncio's default one too) make this wait.
    (threading.Thread, "start"),
)


@contextlib.contextmanager
def watching() -> Iterator[None]:
    """The calls of :data:`WATCHED`, timed during steps (see the module's docstring)."""
    with pytest.MonkeyPatch.context() as patch:
        for owner, name, blocks in WATCHED:
            method = isinstance(owner, type)
            label = f"{owner.__name__}.{name}"
            patch.setattr(owner, name, _watched(getattr(owner, name), label, method, blocks))
        for owner, name in NOT_COUNTED:
            patch.setattr(owner, name, _not_counted(getattr(owner, name)))
        yield
