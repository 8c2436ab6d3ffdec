"""The forking supervisor: N child processes, each running an in-process ``Worker``.

The supervisor forks the children, reaps them with ``waitpid``, respawns any that die (at
once after a kill or a recycle, with a growing delay when a child keeps failing on its
own), and passes signals on. Each child builds its own Client after the fork, reports its
worker name and server on a pipe, and leaves through ``os._exit``. The supervisor talks to
Redis only when it finds a child killed by a signal: it settles that child's jobs and
deregisters its name before it starts a replacement (see ``dead_child``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import qless_py.workers.dead_child as dead_child
from qless_py.workers.base import WorkerBase as Worker
from qless_py.workers.base import dump_stacks
from qless_py.workers.logs import flush_logs
from qless_py.workers.signals import HANDLED, NUDGE, SignalPipe

if TYPE_CHECKING:
    from qless_py import Client
    from qless_py.connect.resp import Transport

log = logging.getLogger("qless_py.worker")


class ChildWorker(Protocol):
    """What the supervisor needs of a child's worker (``Worker`` or ``AsyncWorker``)."""

    name: str
    client: Client
    transport: Transport
    isolated: bool
    handle_signals: bool | None

    @property
    def parts(self) -> Sequence[Any]:
        """Each namespace's ``Part`` (its client and transport)."""

    def run(self) -> int: ...


# A child must build its Client and worker after the fork; this makes one for a slot.
ChildFactory = Callable[[int], ChildWorker]

FAST_FAILURE = 2.0  # a child that fails on its own sooner than this is restarted with a delay


@dataclass
class Slot:
    index: int
    pid: int = 0
    started: float = 0.0
    failures: int = 0
    restart_at: float = 0.0
    done: bool = False  # finished for good (burst drained, or stopped)
    report: int = -1  # read end of the pipe on which the child says who it is
    killed: bool = False  # SIGKILLed by the supervisor (it would not stop after TERM)
    settling: dead_child.Settlement | None = None  # its killed child's jobs, not settled yet


class ForkingWorker:
    """Supervise ``processes`` children made by ``factory(slot_index)``."""

    def __init__(self, factory: ChildFactory, processes: int, *, burst: bool = False,
                 kill_after: float = 10.0) -> None:
        if processes < 1:
            raise ValueError("processes must be at least 1")
        self.factory, self.processes, self.burst = factory, processes, burst
        self.kill_after = kill_after
        self.slots = [Slot(i) for i in range(processes)]
        self.pipe = SignalPipe()
        self.stopping: str | None = None
        self._stop_deadline = float("inf")

    # -- parent --------------------------------------------------------------------------
    def run(self) -> int:
        self.pipe.install((*HANDLED, signal.SIGCHLD))
        log.info("supervisor %d: starting %d worker process(es)", os.getpid(), self.processes)
        try:
            for slot in self.slots:
                self._spawn(slot)
            while any(s.pid or s.settling for s in self.slots) or not self._all_done():
                for signum in self.pipe.wait(self._timeout()):
                    self._on_signal(signum)
                self._reap()
                self._settle_due()
                self._respawn_due()
                self._escalate()
                flush_logs()
        finally:
            self.pipe.restore()
            self.pipe.close()
        log.info("supervisor %d: all worker processes ended", os.getpid())
        return 0

    def _all_done(self) -> bool:
        return self.stopping is not None or all(s.done for s in self.slots)

    def _timeout(self) -> float | None:
        times = [s.restart_at for s in self.slots if not s.pid and not s.done
                 and not s.settling and self.stopping is None]
        times += [s.settling.next_at for s in self.slots if s.settling]
        if self.stopping is not None and self._stop_deadline < float("inf"):
            times.append(self._stop_deadline)
        if not times:
            return 1.0 if self.stopping else None
        return max(0.0, min(times) - time.monotonic())

    def _on_signal(self, signum: int) -> None:
        if signum in (NUDGE, signal.SIGCHLD):
            return
        name = signal.Signals(signum).name
        if signum in (signal.SIGTERM, signal.SIGINT):
            if self.stopping == "now":
                log.warning("supervisor: second %s, killing the worker processes", name)
                self._signal_children(signal.SIGKILL)
                return
            log.info("supervisor: %s, stopping the worker processes", name)
            self.stopping = "now"
            self._stop_deadline = time.monotonic() + self.kill_after
            for slot in self.slots:  # settlements still waiting for the server end by then
                if slot.settling is not None:
                    slot.settling.deadline = min(slot.settling.deadline, self._stop_deadline)
            self._signal_children(signal.SIGTERM)
        elif signum == signal.SIGQUIT:
            log.info("supervisor: SIGQUIT, workers finish their jobs and exit")
            self.stopping = self.stopping or "drain"
            self._signal_children(signal.SIGQUIT)
        elif signum == signal.SIGUSR1:
            log.warning("supervisor %d stacks:\n%s", os.getpid(), dump_stacks())
            self._signal_children(signal.SIGUSR1)
        elif signum in (signal.SIGUSR2, signal.SIGCONT):
            self._signal_children(signum)

    def _signal_children(self, signum: int) -> None:
        for slot in self.slots:
            if slot.pid:
                slot.killed = slot.killed or signum == signal.SIGKILL
                with contextlib.suppress(ProcessLookupError):
                    os.kill(slot.pid, signum)

    def _escalate(self) -> None:
        if self.stopping == "now" and time.monotonic() >= self._stop_deadline:
            if any(s.pid for s in self.slots):
                log.warning("supervisor: worker processes still running after %.0fs, "
                            "killing them", self.kill_after)
                self._signal_children(signal.SIGKILL)
            self._stop_deadline = float("inf")

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            slot = next((s for s in self.slots if s.pid == pid), None)
            if slot is None:
                continue
            self._exited(slot, status)

    def _exited(self, slot: Slot, status: int) -> None:
        pid, slot.pid = slot.pid, 0
        lived = time.monotonic() - slot.started
        info = self._read_report(slot)
        if os.WIFSIGNALED(status):
            how, code = f"killed by {signal.Signals(os.WTERMSIG(status)).name}", None
        else:
            code = os.WEXITSTATUS(status)
            how = f"exited with status {code}"
        log.info("supervisor: worker process %d (slot %d) %s after %.1fs",
                 pid, slot.index, how, lived)
        if code is None and info is not None:
            # before a replacement starts: with --name it takes the same worker name
            slot.settling = dead_child.Settlement(info, pid, how, spend_retry=not slot.killed)
            if self.stopping == "now":  # a supervisor told to stop waits no longer for it
                slot.settling.deadline = min(slot.settling.deadline,
                                             time.monotonic() + self.kill_after)
            self._settle(slot)
        slot.killed = False
        if self.stopping is not None:
            slot.done = True
            return
        if code == Worker.EXIT_DONE and self.burst:
            slot.done = True
            return
        delay = 0.0
        if code not in (None, Worker.EXIT_DONE, Worker.EXIT_RECYCLE, Worker.EXIT_STUCK):
            slot.failures = slot.failures + 1 if lived < FAST_FAILURE else 1
            delay = min(30.0, 0.5 * 2 ** (slot.failures - 1)) if lived < FAST_FAILURE else 0
        else:
            slot.failures = 0
        slot.restart_at = time.monotonic() + delay
        if delay:
            log.warning("supervisor: restarting slot %d in %.1fs", slot.index, delay)

    def _settle(self, slot: Slot) -> None:
        """Attempt to settle the jobs of the slot's killed child (see ``dead_child``); the
        slot restarts only once they are settled or given up."""
        settlement = slot.settling
        assert settlement is not None
        try:
            done = settlement.attempt()
        except Exception:  # a bug here must not end the supervisor
            log.exception("supervisor: settling the jobs of process %d failed",
                          settlement.pid)
            done = True
        if done:
            slot.settling = None

    def _settle_due(self) -> None:
        now = time.monotonic()
        for slot in self.slots:
            if slot.settling is not None and slot.settling.next_at <= now:
                self._settle(slot)

    def _respawn_due(self) -> None:
        if self.stopping is not None:
            return
        now = time.monotonic()
        for slot in self.slots:
            if not slot.pid and not slot.done and not slot.settling and slot.restart_at <= now:
                self._spawn(slot)

    def _spawn(self, slot: Slot) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        for handler in logging.getLogger().handlers:
            handler.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            self._child(slot, write)  # never returns
        os.close(write)
        os.set_blocking(read, False)
        slot.pid, slot.started, slot.report = pid, time.monotonic(), read

    @staticmethod
    def _read_report(slot: Slot) -> dict[str, Any] | None:
        """What the child said about itself (nothing if it died before it could)."""
        fd, slot.report = slot.report, -1
        if fd < 0:
            return None
        try:
            data = os.read(fd, 65536)
        except OSError:  # nothing written (BlockingIOError: a grandchild keeps it open)
            data = b""
        finally:
            os.close(fd)
        try:
            info = json.loads(data) if data else None
        except ValueError:
            return None
        return info if isinstance(info, dict) else None

    # -- child ---------------------------------------------------------------------------
    def _child(self, slot: Slot, report: int) -> None:
        code = 1
        try:
            signal.set_wakeup_fd(-1)
            for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGCHLD,
                           signal.SIGCONT):
                signal.signal(signum, signal.SIG_DFL)
            for signum in (signal.SIGUSR1, signal.SIGUSR2):  # until the worker installs its own
                signal.signal(signum, signal.SIG_IGN)
            self.pipe.close()
            for other in self.slots:  # other children's report pipes are theirs
                if other.report >= 0:
                    with contextlib.suppress(OSError):
                        os.close(other.report)
            random.seed()
            worker = self.factory(slot.index)
            with contextlib.suppress(OSError):
                os.write(report, dead_child.report(worker))
            os.close(report)
            worker.isolated = True
            worker.handle_signals = True
            code = worker.run()
        except BaseException:
            log.exception("worker process for slot %d failed", slot.index)
            code = 1
        finally:
            try:
                for handler in logging.getLogger().handlers:
                    handler.flush()
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
