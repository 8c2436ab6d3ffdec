"""A bounded pool of daemon threads for the asyncio worker: plain-function handlers, and
the worker's own blocking chores (reads through ``qless_py.connect.resp``, the listener's stop).

``concurrent.futures.ThreadPoolExecutor`` joins its threads when the interpreter exits,
so one handler that never returns would keep a stopped worker alive for ever; the
threaded worker's runner threads are daemons for the same reason, and so are these.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_STOP = object()


class DaemonPool(Executor):
    """``size`` daemon threads named ``<name>-<index>``, started on first use."""

    def __init__(self, size: int, name: str) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one thread")
        self.size, self.name = size, name
        self._work: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            self._work.put((future, fn, args, kwargs))
            if self._idle <= 0 and len(self._threads) < self.size:
                thread = threading.Thread(target=self._serve, daemon=True,
                                          name=f"{self.name}-{len(self._threads)}")
                self._threads.append(thread)
                thread.start()
            else:
                self._idle -= 1  # an idle thread takes it (below 0: work waits)
        return future

    def _serve(self) -> None:
        while True:
            item = self._work.get()
            if item is _STOP:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            with self._lock:
                self._idle += 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Let the threads end once they are done; ``wait`` is ignored (daemons: a stuck
        handler must not hold the process)."""
        with self._lock:
            self._closed = True
            for _ in self._threads:
                self._work.put(_STOP)
