"""Running one job: find its handler, call it in a clean directory, settle the outcome.

The handler is the static method named after the job's queue on the job's class, else
``process``. A handler that raises fails the job with group ``<queue>-<ExceptionName>`` and
the traceback as message; one that returns without finishing the job completes it. A job
whose lock was lost (its ``stop_event`` is set) is never completed or failed from here.

A connection error never fails a job: when a core call the handler made failed on its
connection (the worker's client reports each one here, on the handler's thread) and the
handler raised, or when a command that ends the lease may or may not have run, the run is
*unsettled*: the worker asks the core later whether the job is still leased to it.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import shutil
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from qless_py import CoreError, QlessConnectionError, QlessError
from qless_py.workers.logs import info_line

log = logging.getLogger("qless_py.worker")

Handler = Callable[[Any], Any]

_classes: dict[str, Any] = {}


class HandlerError(Exception):
    """The job's handler could not be found; ``group_suffix`` names the failure group."""

    def __init__(self, group_suffix: str, message: str) -> None:
        super().__init__(message)
        self.group_suffix = group_suffix


def import_class(dotted: str) -> Any:
    """The class named ``module.Class`` (cached per process)."""
    found = _classes.get(dotted)
    if found is None:
        module_name, _, attr = dotted.rpartition(".")
        if not module_name:
            raise ImportError(f"job class {dotted!r} is not a dotted 'module.Class' name")
        found = getattr(importlib.import_module(module_name), attr)
        _classes[dotted] = found
    return found


def find_handler(job: Any) -> Handler:
    """The queue-named static method of the job's class, else its ``process``."""
    try:
        klass = import_class(job.klass_name)
    except Exception as exc:
        # the client's Job.process convention: one group for every import failure
        kind = "ImportError" if isinstance(exc, ImportError) else type(exc).__name__
        raise HandlerError(kind, f"could not import {job.klass_name}:\n"
                                 f"{traceback.format_exc()}") from exc
    handler = getattr(klass, job.queue_name, None)
    if not callable(handler):
        handler = getattr(klass, "process", None)
    if not callable(handler):
        raise HandlerError("method-missing",
                           f"{job.klass_name} has neither a {job.queue_name!r} nor a "
                           "'process' method")
    return handler  # type: ignore[no-any-return]


def _signature(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What changes when an entry is added to or removed from a directory."""
    return (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_nlink, st.st_size)


class Workdir:
    """A private, emptied-after-use directory for the jobs of one runner thread.

    After a job, one ``stat`` usually proves the directory still empty: adding or removing
    an entry changes its mtime/ctime, so an unchanged stat since it was last seen empty
    means nothing happened in it. Timestamps may be coarse (a clock tick), so the stat is
    trusted only when the directory's mtime was already 50 ms old when it was seen empty;
    otherwise (and whenever anything differs) the directory is listed.
    """

    SETTLED = 0.05  # seconds: older than any filesystem timestamp granularity

    def __init__(self, path: str, chdir: bool) -> None:
        self.path, self.chdir = path, chdir
        os.makedirs(path, exist_ok=True)
        self.seen: tuple[int, int, int, int, int] | None = None
        self._fd = -1  # the directory, open: fstat skips the path lookup stat would do
        self._reopen()
        self._remember(self._stat())

    def enter(self) -> None:
        if self.chdir:
            try:
                os.chdir(self.path)
            except FileNotFoundError:  # a job removed it
                os.makedirs(self.path, exist_ok=True)
                os.chdir(self.path)

    def clean(self) -> None:
        """Empty the directory; one ``stat`` when the job left nothing behind."""
        st = self._stat()
        if st is not None and self.seen == _signature(st):
            return
        try:
            with os.scandir(self.path) as entries:
                dirty = next(entries, None) is not None
        except FileNotFoundError:
            dirty = True
        if dirty:
            shutil.rmtree(self.path, ignore_errors=True)
            os.makedirs(self.path, exist_ok=True)
        if dirty or st is None or st.st_nlink == 0:
            # the directory at the path is another one now (made here, or by the job)
            self._reopen()
            st = self._stat()
        self._remember(st)

    def _reopen(self) -> None:
        self._close()
        with contextlib.suppress(OSError):  # no fd: the next clean lists the directory
            self._fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    def _stat(self) -> os.stat_result | None:
        """The open directory's stat. One a job removed has ``st_nlink`` 0, so it never
        matches the signature of the directory last seen empty."""
        if self._fd < 0:
            return None
        try:
            return os.stat(self._fd)
        except OSError:
            return None

    def _remember(self, st: os.stat_result | None) -> None:
        """Note the empty directory's stat, if it is old enough to be trusted later."""
        if st is not None and time.time() - st.st_mtime_ns / 1e9 > self.SETTLED:
            self.seen = _signature(st)
        else:
            self.seen = None

    def _close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def remove(self) -> None:
        self._close()
        shutil.rmtree(self.path, ignore_errors=True)


def note_connection_error(exc: Exception) -> None:
    """A core call on this thread failed on its connection (the worker's client's hook):
    if a handler is running on this thread, its job's settle takes note."""
    errors: list[str] | None = getattr(_handler_calls, "errors", None)
    if errors is not None:
        errors.append(str(exc))


# The connection errors of the core calls a handler made, per runner thread, while it runs.
_handler_calls = threading.local()


def _connection_error_in(exc: BaseException) -> str | None:
    """A QlessConnectionError the exception carries, raised, wrapped or being handled (the
    handler's own clients: only the worker's client reports to note_connection_error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, QlessConnectionError):
            return str(current)
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _report(job: Any, verb: str, call: Callable[[], object], done: str) -> str:
    """Send the job's outcome (``call``) to the core; ``done`` if it took, else why not."""
    try:
        call()
    except QlessConnectionError as exc:
        log.error("could not %s %s (%s); the worker looks at the core again once it can "
                  "(the job is run again if it is still leased here)", verb, job.jid, exc)
        return "unsettled"
    except CoreError as exc:
        log.warning("could not %s %s: %s", verb, job.jid, exc)
        return "lost"
    except Exception:
        log.exception("could not %s %s", verb, job.jid)
        return "unsettled"
    return done


def run_job(job: Any, workdir: Workdir | None) -> str:
    """Run ``job``; return what became of it (complete, failed, lost, stopped, unsettled...)."""
    queue, started = job.queue_name, time.monotonic()
    info_line(log, "start %s queue=%s klass=%s", job.jid, queue, job.klass_name)
    outcome = _run(job, workdir)
    info_line(log, "end %s queue=%s klass=%s %s in %.3fs", job.jid, queue, job.klass_name,
              outcome, time.monotonic() - started)
    return outcome


def _run(job: Any, workdir: Workdir | None) -> str:
    queue = job.queue_name
    try:
        handler = find_handler(job)
    except HandlerError as exc:
        log.error("job %s: %s", job.jid, exc)
        return _settle(job, exc, f"{queue}-{exc.group_suffix}", str(exc), [])
    if workdir is not None:
        job.workdir = workdir.path
        workdir.enter()
    raised: BaseException | None = None
    text = ""
    errors: list[str] = []
    _handler_calls.errors = errors
    try:
        handler(job)
    except BaseException as exc:  # a handler's SystemExit must not end the worker thread
        raised, text = exc, traceback.format_exc()
    finally:
        _handler_calls.errors = None
        if workdir is not None:
            workdir.clean()
    return _settle(job, raised, f"{queue}-{type(raised).__name__}", text, errors)


def _settle(job: Any, raised: BaseException | None, group: str, text: str,
            errors: list[str]) -> str:
    """Settle the job after its handler returned (``raised`` None) or raised.

    Whatever the handler did to the job comes first: a job it finished stays as it is, one
    whose lease-ending command may or may not have run, or whose handler raised after a
    core call failed on the connection, is left unsettled (adoption looks at the core
    and runs it again if it is still leased here), and one whose lease is gone is not
    touched. Only then does a raise fail the job and a return complete it.
    """
    jid = job.jid
    if job.finished:
        if raised is not None:
            log.error("job %s raised %s after its handler had made it %s; it stays %s\n%s",
                      jid, type(raised).__name__, job.state, job.state, text)
        return str(getattr(job, "state", "finished"))
    if job.settling is not None:
        log.warning("job %s: its %s may or may not have run (the connection dropped); "
                    "left to the worker's adoption, which completes nothing twice", jid,
                    job.settling)
        return "unsettled"
    if job.lease_gone is not None:
        log.warning("job %s is no longer leased to this worker (%s); not settling it",
                    jid, job.lease_gone)
        return "lost"
    if job.stop_event.is_set():
        if raised is None:
            return "stopped"
        log.warning("job %s raised after its lock was lost; not failing it: %s",
                    jid, text.strip().splitlines()[-1] if text.strip() else "")
        return "lost"
    if raised is None:
        return _report(job, "complete", job.complete, "complete")
    trouble = errors[0] if errors else _connection_error_in(raised)
    if trouble is not None:
        log.warning("job %s raised %s after a core call failed on the connection (%s); "
                    "not failing it: it runs again if it is still leased here",
                    jid, type(raised).__name__, trouble)
        return "unsettled"
    if isinstance(raised, HandlerError):
        pass  # logged where it was found
    elif isinstance(raised, QlessError):
        log.error("job %s: %s", jid, raised)
    else:
        log.error("job %s raised %s\n%s", jid, type(raised).__name__, text)
    return _report(job, "fail", lambda: job.fail(group, text), "failed")
