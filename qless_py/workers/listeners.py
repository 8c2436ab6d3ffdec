"""A worker's listeners: one per master its namespaces live on (``Listener``), started
together and stopped together, and with several namespaces the marks of their streams
(``MarkSet``: each listener decides on its own what is news)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from qless_py.client.siblings import without_namespace
from qless_py.workers.listener import Listener, Watched
from qless_py.workers.parts import Part
from qless_py.workers.waker import MarkSet


@dataclass(frozen=True)
class Notices:
    """What the listener calls, on its own thread (see ``Listener``)."""

    on_work: Callable[[], None]
    is_news: Callable[[int], bool]
    on_reconnect: Callable[[], None]
    on_schedule: Callable[[], None]
    busy: Callable[[], bool] | None = None  # see Listener; None: always track new work


class Listeners:
    """The listeners of one worker (name ``worker``, ``queues`` in each namespace).
    ``marks`` is None with one namespace: the mode's own ``PopMarks`` decide then."""

    def __init__(self, queues: Sequence[str], worker: str, *, several: bool) -> None:
        self._queues, self._worker = list(queues), worker
        self.marks: MarkSet | None = MarkSet() if several else None
        self.first: Listener | None = None  # the only one for one master
        self._all: list[Listener] = []
        self._lock = threading.Lock()
        self._notices: Notices | None = None
        self._stopped = False

    def start(self, notices: Notices, parts: Sequence[Part[Any]]) -> None:
        """One listener for the namespaces on one server (the same URL); on a cluster it
        hands those of other masters on to listeners of their own (``Listener``)."""
        self._notices = notices
        groups: dict[str, list[Watched]] = {}
        for part in parts:
            groups.setdefault(without_namespace(part.client.url), []).append(part.watch)
        for watched in groups.values():
            self._add(watched)

    def _add(self, watched: list[Watched]) -> None:
        notices = self._notices
        assert notices is not None
        is_news = notices.is_news
        made: list[Listener] = []

        def mark() -> int:
            # A pop may end between add() and the listener's making: no stream yet, so
            # its mark is unknown (-1), as a listener's is before it connects.
            return made[0].mark() if made else -1

        if self.marks is not None:
            is_news = self.marks.add(mark).is_news
        listener = Listener(watched, self._queues, self._worker, on_work=notices.on_work,
                            is_news=is_news, on_reconnect=notices.on_reconnect,
                            on_schedule=notices.on_schedule, on_split=self._add,
                            busy=notices.busy)
        made.append(listener)
        with self._lock:
            if self._stopped:  # a split during the shutdown: nothing to hear any more
                return
            self._all.append(listener)
            if self.first is None:
                self.first = listener
        # Not waited for: runners pop at once, and the subscription makes them pop again
        # (see Listener.start). Connection trouble is logged by the listener itself.
        listener.start(timeout=0)

    def want_tracking(self) -> bool:
        """Before an idle runner's last look: whether every listener tracks the keys of
        new work. Those that do not start to (``Listener.want_tracking``); their
        subscriptions again then wake every runner, which pops once more."""
        with self._lock:
            listeners = list(self._all)
        ready = True
        for listener in listeners:  # every one of them, not only up to the first
            ready = listener.want_tracking() and ready
        return ready

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            listeners = list(self._all)
        for listener in listeners:
            listener.stop()
