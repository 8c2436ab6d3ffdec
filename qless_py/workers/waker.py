"""How a worker's idle runner threads are woken, and which notices of work are news.

``generation`` moves when there may be work to pop (or the worker's state changed);
``schedules`` moves when a due time may have changed (only the due times are re-read).
A runner notes the generation before it pops and sleeps only while it has not moved.

A notice of work from the listener is news to this process only if it arrived after the
reply to the process's latest pop. Right after each pop's reply a runner takes the
listener's mark: how many bytes of notices had arrived by then, read or not. A notice at or
before that mark had arrived, so the write it reports was made before the runner reads
the queues again (it pops again after the jobs it took, or, having found nothing, reads
whether a job waits before it sleeps): it wakes nobody. That is what keeps a pop's own
removal from the work set (a write too) from sending the idle processes of the queue to
pop once more: on a local socket the server's notice of it arrives before the reply, so
it lies under the mark. Elsewhere it may come later and cost an empty pop; no job is
missed either way. A notice that arrives while a pop is on its way waits (briefly) for
its reply.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

# Seconds a notice waits at most for a pop on its way: the first reply that comes settles
# it (its mark covers every notice already received), so this bounds only a stuck server.
WAIT_FOR_POPS = 1.0
# Seconds without an idle runner (or an idle popper) after which a process counts as busy:
# its listener then stops tracking the keys of new work (``Listener``).
BUSY_AFTER = 2.0


class Idling:
    """Whether a worker process has an idle runner (or its asyncio popper is idle) now or
    had one lately. Its listener tracks the keys of new work only when it has: tracking
    makes every write on the server dearer, and a process whose runners are all busy pops
    again as each job ends, without notices. Idle runners ``enter`` before they sleep and
    ``leave`` when they wake; the listener asks ``busy`` from its thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = 0
        self._left_at = time.monotonic()  # a process that starts counts as idle a while

    def enter(self) -> None:
        with self._lock:
            self._idle += 1

    def leave(self) -> None:
        with self._lock:
            self._idle -= 1
            self._left_at = time.monotonic()

    def busy(self) -> bool:
        """No runner is idle, and none was for ``BUSY_AFTER`` seconds."""
        with self._lock:
            return self._idle == 0 and time.monotonic() - self._left_at > BUSY_AFTER


class PopMarks:
    """The marks of this process's pops, and whether a notice of work is news (shared by
    the threaded and the asyncio worker: the listener thread asks, the poppers tell)."""

    def __init__(self) -> None:
        self._pops = threading.Condition()  # its own: its notify must not wake runners
        self._popping = 0
        self._mark = -1  # the highest mark of a pop's reply

    def pop_started(self) -> None:
        with self._pops:
            self._popping += 1

    def pop_ended(self, mark: int) -> None:
        """A pop's reply came; ``mark`` is the listener's mark read after it (-1: unknown,
        or the pop failed)."""
        with self._pops:
            self._popping -= 1
            self._mark = max(self._mark, mark)
            self._pops.notify_all()

    def is_news(self, position: int) -> bool:
        """Whether a notice of work at ``position`` in the listener's stream is news to
        this process (see the module's docstring)."""
        deadline = time.monotonic() + WAIT_FOR_POPS
        with self._pops:
            while self._popping and position > self._mark:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._pops.wait(left)
            return position > self._mark


class MarkSet:
    """The marks of this process's pops when its notices come on several listeners'
    connections (a worker serving namespaces on several masters): positions on different
    connections cannot be compared, so each listener decides what is news on its own
    stream (``add``: its ``PopMarks``), and each pop's reply marks every stream. The mode
    hands its pops this instead of its ``PopMarks``; a pop's ``mark`` then only says
    whether its reply came (>= 0), and each stream is read here as it ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._streams: list[tuple[PopMarks, Callable[[], int]]] = []
        self._popping = 0

    def add(self, read: Callable[[], int]) -> PopMarks:
        """A new listener's stream, whose mark ``read`` takes: its ``is_news`` decides."""
        marks = PopMarks()
        with self._lock:
            for _ in range(self._popping):  # pops on their way end on it too
                marks.pop_started()
            self._streams.append((marks, read))
        return marks

    def pop_started(self) -> None:
        with self._lock:
            self._popping += 1
            streams = list(self._streams)
        for marks, _ in streams:
            marks.pop_started()

    def pop_ended(self, mark: int) -> None:
        with self._lock:
            self._popping -= 1
            streams = list(self._streams)
        for marks, read in streams:
            marks.pop_ended(read() if mark >= 0 else -1)


class Waker(PopMarks):
    """Generation counters (waiters sleep until one moves past the value they saw) and
    the marks of this process's pops."""

    def __init__(self) -> None:
        super().__init__()
        self._cond = threading.Condition()
        self.generation = 0
        self.schedules = 0
        self._asleep = 0  # runners waiting here
        self._slept_at = (0, 0)  # generation and schedules when the latest one began to

    def notify(self) -> None:
        """Wake every runner (state changes: stop, resume, reconnection)."""
        with self._cond:
            self.generation += 1
            self._cond.notify_all()

    def notify_one(self) -> None:
        """Wake one idle runner: new work noticed, or the baton passed on by a runner that
        found work (so one notice costs a process at most one empty pop however many of
        its threads sleep)."""
        with self._cond:
            self.generation += 1
            self._cond.notify()

    def notify_schedule(self) -> None:
        """Make idle runners read their due times again (a schedule changed)."""
        with self._cond:
            self.schedules += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float | None, schedules: int | None = None) -> None:
        with self._cond:
            if self.generation == seen and (schedules is None or self.schedules == schedules):
                self._asleep += 1
                self._slept_at = (self.generation, self.schedules)
                try:
                    self._cond.wait(timeout)
                finally:
                    self._asleep -= 1

    def quiet(self, runners: int) -> bool:
        """Whether all ``runners`` wait here and nothing moved since the last one began
        to: an idle worker (a hook for tests and tools; it reads no server)."""
        with self._cond:
            return (self._asleep == runners
                    and self._slept_at == (self.generation, self.schedules))
