"""Worker logging that stays off the throughput path.

Two lines per job (start, end) with a flush each would cost two write system calls per
job. The handler here writes into a block buffer instead and flushes it when a warning or
error is logged, when a line is older than ``max_delay`` seconds, and whenever a runner goes
idle (``flush_logs``), so lines are late by at most a fraction of a second while jobs flow
and not at all when the worker waits.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import IO, Any

FORMAT = "%(asctime)s %(process)d %(levelname)s %(message)s"

# This process's id for the fast path's lines (getpid is a system call; two lines per job).
_pid = os.getpid()


def _forked() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_forked)


class _Formatter(logging.Formatter):
    """The standard format, with the date part formatted once per second."""

    _second = -1
    _text = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return self.stamp(record.created, record.msecs)

    def stamp(self, created: float, msecs: float) -> str:
        second = int(created)
        if second != self._second:
            self._second = second
            self._text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second))
        return f"{self._text},{int(msecs):03d}"


class BufferedHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that flushes on warnings, on age, and on request."""

    def __init__(self, stream: IO[str], max_delay: float = 0.25) -> None:
        super().__init__(stream)
        self.max_delay = max_delay
        self._oldest: float | None = None

    def flush(self) -> None:
        self._oldest = None
        super().flush()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.stream.write(self.format(record) + self.terminator)
        except Exception:  # pragma: no cover - as logging.StreamHandler does
            self.handleError(record)
            return
        self._written(record.created, record.levelno)

    def _written(self, now: float, levelno: int) -> None:
        if self._oldest is None:
            self._oldest = now
        if levelno >= logging.WARNING or now - self._oldest >= self.max_delay:
            self.flush()

    def write_info(self, message: str) -> bool:
        """Write one INFO line as ``emit`` would, without a LogRecord; False if this
        handler's setup is not the plain one (the caller then logs the usual way)."""
        formatter = self.formatter
        if type(formatter) is not _Formatter or formatter._fmt != FORMAT or self.filters:
            return False
        now = time.time()
        msecs = int((now - int(now)) * 1000)
        line = f"{formatter.stamp(now, msecs)} {_pid} INFO {message}\n"
        with self.lock:  # type: ignore[union-attr]  # created in Handler.__init__
            self.stream.write(line)
            self._written(now, logging.INFO)
        return True


def info_line(logger: logging.Logger, fmt: str, *args: Any) -> None:
    """``logger.info(fmt, *args)``, cheaper when the worker's own handler is the only one.

    Per job the worker logs two lines; a LogRecord (with its caller lookup) costs several
    microseconds each. When nothing could see the difference (no handlers or filters on
    the logger and its parents, one BufferedHandler with the worker's format on the root,
    INFO enabled), the line is formatted and written directly, as the handler would.
    """
    if not logger.isEnabledFor(logging.INFO):
        return
    root = logging.root
    handlers: list[Any] = root.handlers
    plain = (len(handlers) == 1 and type(handlers[0]) is BufferedHandler
             and handlers[0].level <= logging.INFO and not root.filters)
    node: Any = logger
    while plain and node is not root:
        plain = not node.handlers and not node.filters and node.propagate
        node = node.parent
    if plain and handlers[0].write_info(fmt % args):
        return
    logger.info(fmt, *args)


def setup_logging(level: int) -> None:
    """Log to stderr through a buffered handler (used by ``qless-py worker``)."""
    stream = open(sys.stderr.fileno(), "w", buffering=1 << 16,  # noqa: SIM115 - lives on
                  encoding="utf-8", errors="replace", closefd=False)
    handler = BufferedHandler(stream)
    handler.setFormatter(_Formatter(FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.logThreads = False
    logging.logMultiprocessing = False


def flush_logs() -> None:
    """Write out buffered log lines (a runner calls this before it sleeps)."""
    for handler in logging.getLogger().handlers:
        handler.flush()
