"""Running one job: find its handler, call it in a clean directory, settle the outcome.

The handler is the static method named after the job's queue on the job's class, else
``process``. A handler that raises fails the job with group ``<queue>-<ExceptionName>`` and
the traceback as message; one that returns without finishing the job completes it. A job
whose lock was lost (its ``stop_event`` is set) is never completed or failed from here.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import shutil
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


def _fail(job: Any, group: str, message: str) -> str:
    if job.stop_event.is_set():
        log.warning("job %s raised after its lock was lost; not failing it: %s",
                    job.jid, message.strip().splitlines()[-1] if message.strip() else "")
        return "lost"
    return _report(job, "fail", lambda: job.fail(group, message), "failed")


def _report(job: Any, verb: str, call: Callable[[], object], done: str) -> str:
    """Send the job's outcome (``call``) to the core; ``done`` if it took, else why not."""
    try:
        call()
    except QlessConnectionError as exc:
        log.error("could not %s %s (%s); its lock will expire and it runs again",
                  verb, job.jid, exc)
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
        return _fail(job, f"{queue}-{exc.group_suffix}", str(exc))
    if workdir is not None:
        job.workdir = workdir.path
        workdir.enter()
    try:
        handler(job)
    except BaseException as exc:  # a handler's SystemExit must not end the worker thread
        text = traceback.format_exc()
        if not isinstance(exc, QlessError):
            log.error("job %s raised %s\n%s", job.jid, type(exc).__name__, text)
        else:
            log.error("job %s: %s", job.jid, exc)
        return _fail(job, f"{queue}-{type(exc).__name__}", text)
    finally:
        if workdir is not None:
            workdir.clean()
    return _settle(job)


def _settle(job: Any) -> str:
    if job.finished:
        return str(getattr(job, "state", "finished"))
    if job.stop_event.is_set():
        return "stopped"
    return _report(job, "complete", job.complete, "complete")
