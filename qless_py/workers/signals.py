"""Signals as bytes on a pipe: the handlers only record, the main loop acts.

Python runs a signal handler in the main thread between bytecodes, possibly while that
thread holds a lock; taking any lock in the handler could deadlock. So the handler does
nothing at all: ``signal.set_wakeup_fd`` makes the interpreter write the signal number to
a pipe at C level, and the control loop reads the pipe with ``select``. Other threads
wake the same loop by writing ``NUDGE`` to it.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from collections.abc import Iterable
from types import FrameType

NUDGE = 0  # not a signal number: "something changed, look again"

HANDLED = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1,
           signal.SIGUSR2, signal.SIGCONT)


def _record(signum: int, frame: FrameType | None) -> None:
    """The signal number is already on the wake-up pipe; nothing else to do here."""


class SignalPipe:
    """Owns the wake-up pipe of one process and the handlers that feed it."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._previous_fd: int | None = None
        self._previous: dict[int, object] = {}

    def install(self, signals: Iterable[int] = HANDLED) -> None:
        """Route ``signals`` to the pipe (main thread only)."""
        self._previous_fd = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        for signum in signals:
            self._previous[signum] = signal.signal(signum, _record)

    def restore(self) -> None:
        """Put the previous handlers back (main thread only)."""
        for signum, handler in self._previous.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(signum, handler)  # type: ignore[arg-type]
        self._previous.clear()
        if self._previous_fd is not None:
            signal.set_wakeup_fd(self._previous_fd)
            self._previous_fd = None

    def nudge(self) -> None:
        """Wake the loop from another thread."""
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._write, bytes([NUDGE]))

    def wait(self, timeout: float | None) -> list[int]:
        """Block until something arrives (or ``timeout``); the signal numbers read, in order."""
        try:
            ready, _, _ = select.select([self._read], [], [], timeout)
        except InterruptedError:  # pragma: no cover - PEP 475 retries select itself
            ready = [self._read]
        if not ready:
            return []
        try:
            data = os.read(self._read, 512)
        except BlockingIOError:
            return []
        return list(data)

    def close(self) -> None:
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)
