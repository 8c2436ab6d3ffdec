"""Running one job: find its handler, call it in a clean directory, settle the outcome.

The handler is found as ``Job.process`` finds it (``qless_py.handlers``: the same class
import, the same failure groups when there is none). A handler that raises fails the job
with group ``<queue>-<ExceptionName>`` and the traceback as message; one that returns
without finishing the job completes it. A job whose lock was lost (its ``stop_event`` is
set) is never completed or failed from here.

A connection error never fails a job: when a core call the handler made failed on its
connection (the worker's client reports each one here, on the handler's thread) and the
handler raised, or when a command that ends the lease may or may not have run, the run is
*unsettled*: the worker asks the core later whether the job is still leased to it.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable
from typing import Literal, cast

from qless_py import CoreError, QlessConnectionError, QlessError
from qless_py.calls.job import JobBase
from qless_py.client.job import Job
from qless_py.errors import OutOfMemoryError
from qless_py.handlers import HandlerError, find_handler
from qless_py.workers.logs import info_line
from qless_py.workers.memory import settle_when_memory_frees
from qless_py.workers.workdir import Workdir

log = logging.getLogger("qless_py.worker")

# What became of a run: the state a handler left its job in (it finished the job itself),
# the worker's completion or failure of it, or why the worker left it alone.
Outcome = Literal["complete", "failed", "waiting", "scheduled", "depends", "canceled",
                  "stalled", "finished", "lost", "stopped", "unsettled", "crashed"]
_FINISHED: dict[str, Outcome] = {state: state for state in (
    "complete", "failed", "waiting", "scheduled", "depends", "canceled", "stalled")}



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


def _report(job: Job, verb: str, call: Callable[[], object], done: Outcome) -> Outcome:
    """Send the job's outcome (``call``) to the core; ``done`` if it took, else why not."""
    try:
        try:
            call()
        except OutOfMemoryError:  # nothing was written: send it again once memory frees
            settle_when_memory_frees(call, f"{verb} of {job.jid}")
    except Exception as exc:
        return report_failed(job, verb, exc)
    return done


def report_failed(job: JobBase, verb: str, exc: Exception) -> Outcome:
    """What became of a run whose complete or fail (``verb``) raised ``exc``."""
    if isinstance(exc, QlessConnectionError):
        log.warning("could not %s %s (%s); the worker looks at the core again once it can "
                    "(the job is run again if it is still leased here)", verb, job.jid, exc)
        return "unsettled"
    if isinstance(exc, CoreError):
        log.warning("could not %s %s: %s", verb, job.jid, exc)
        return "lost"
    log.error("could not %s %s", verb, job.jid, exc_info=exc)
    return "unsettled"


def run_job(job: Job, workdir: Workdir | None) -> Outcome:
    """Run ``job``; return what became of it (complete, failed, lost, stopped, unsettled...)."""
    queue, started = job.queue_name, time.monotonic()
    info_line(log, "start %s queue=%s klass=%s", job.jid, queue, job.klass_name)
    outcome = _run(job, workdir)
    info_line(log, "end %s queue=%s klass=%s %s in %.3fs", job.jid, queue, job.klass_name,
              outcome, time.monotonic() - started)
    return outcome


def _run(job: Job, workdir: Workdir | None) -> Outcome:
    queue = job.queue_name
    try:
        handler = find_handler(job.klass_name, queue)
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


def _settle(job: Job, raised: BaseException | None, group: str, text: str,
            errors: list[str]) -> Outcome:
    """Settle the job after its handler returned (``raised`` None) or raised."""
    decided = verdict(job, raised, group, text, errors)
    if decided == COMPLETE:
        return _report(job, "complete", job.complete, "complete")
    if decided == FAIL:
        return _report(job, "fail", lambda: job.fail(group, text), "failed")
    return cast(Outcome, decided)


# What verdict() asks the worker to send: complete the job, or fail it into its group.
Send = Literal["send complete", "send fail"]
COMPLETE: Send = "send complete"
FAIL: Send = "send fail"


def verdict(job: JobBase, raised: BaseException | None, group: str, text: str,
            errors: list[str]) -> Outcome | Send:
    """What to do with the job after its handler returned (``raised`` None) or raised:
    an Outcome when nothing is to be sent, else ``COMPLETE`` or ``FAIL`` (into ``group``
    with ``text``). Shared by the threaded and the asyncio worker.

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
        return _FINISHED.get(job.state, "finished")
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
        return COMPLETE
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
    return FAIL
