"""One job in the asyncio worker: an ``async def`` handler awaited in the loop, settled
by the rules the threaded worker settles by (``jobrun.verdict``).

Plain-function handlers do not come here: the worker runs them in its thread pool
through ``qless_py.workers.jobrun.run_job`` itself, with a job of the sync client.
``Handlers`` finds a job's handler, and says which of the two it is. A job whose handler
cannot be found comes here, and fails as ``jobrun`` fails it (the same groups).

While the handler runs, its task may be cancelled by the worker (the job's lock was
lost, or TERM/INT): the handler gets ``CancelledError``, and the run is neither completed
nor failed. Once the handler has returned, the run is no longer cancellable, so that a
complete on its way is never cut off (its outcome would be unknown).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import traceback
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from qless_py.calls.base import Call
from qless_py.calls.job import JobBase
from qless_py.calls.worker import RawJob
from qless_py.errors import OutOfMemoryError
from qless_py.handlers import Handler as Function
from qless_py.handlers import HandlerError, find_handler
from qless_py.workers.jobrun import COMPLETE, FAIL, Outcome, report_failed, verdict
from qless_py.workers.logs import info_line
from qless_py.workers.memory import settle_when_memory_frees_async

log = logging.getLogger("qless_py.worker")

T = TypeVar("T")

# A job's handler: an async def awaited in the loop, a plain function run in the pool, or
# why there is none (the job fails with its group).
Handler = Function | HandlerError


class Core(Protocol):
    """What a run sends through: the worker's async core (``LeanCore``)."""

    async def call(self, command: str, *args: Any) -> Any: ...


class Handlers:
    """Each job class's handler, found once per class and queue; the class is imported
    through ``chore`` (the worker's chores thread: an import reads files)."""

    def __init__(self, chore: Callable[[Callable[[str, str], Function], str, str],
                                       Awaitable[Function]]) -> None:
        self._chore = chore
        self._found: dict[tuple[str, str], tuple[Handler, bool]] = {}

    async def find(self, raw: RawJob) -> tuple[Handler, bool]:
        """The job's handler (or why there is none) and whether it runs in the pool."""
        key = (str(raw["klass"]), str(raw.get("queue") or ""))
        found = self._found.get(key)
        if found is None:
            try:
                handler = await self._chore(find_handler, *key)
            except HandlerError as exc:
                return exc, False  # fails in the loop; the next job of the class tries again
            # a plain wrapper of an async def (functools.wraps) returns its coroutine:
            # awaited too, never run in a thread where nothing would await it
            awaited = inspect.iscoroutinefunction(handler) or \
                inspect.iscoroutinefunction(inspect.unwrap(handler))
            found = (handler, not awaited)
            self._found[key] = found
        return found

# The connection errors of the core calls the running handler made (per task: each job's
# task runs in a context of its own).
_handler_calls: ContextVar[list[str] | None] = ContextVar("qless_handler_calls", default=None)


def note_connection_error(exc: Exception) -> None:
    """A core call of the async client failed on its connection (the worker's hook): if a
    handler runs in the calling task, its job's settle takes note."""
    errors = _handler_calls.get()
    if errors is not None:
        errors.append(str(exc))


@dataclass(eq=False)
class Run:
    """One run of a job in the loop: its task, and whether cancelling it now reaches
    the handler (only while the handler runs)."""

    job: JobBase
    threaded: bool  # a plain-function handler in the thread pool: never cancelled
    task: asyncio.Task[None] | None = None
    cancellable: bool = False

    def cancel(self) -> bool:
        """Cancel the handler if it is running; True if it was told."""
        if self.cancellable and self.task is not None:
            self.cancellable = False
            self.task.cancel()
            return True
        return False


async def send_held(core: Core, job: JobBase, call: Call[T], ends: bool) -> T:
    """Send a command as the job's holder through the async ``core`` (for a job of either
    client: the worker heartbeats and settles thread-pool jobs from the loop too), noting
    what the reply, or its absence, says about the lease (``JobBase.holding``)."""
    command, args, parse = call
    with job.holding(command, ends):
        reply = await core.call(command, *args)
    return parse(reply)


async def run_async_job(run: Run, handler: Handler,
                        core: Core) -> Outcome:
    """Run ``run.job`` with ``handler`` in this task; what became of it."""
    job = run.job
    queue, started = job.queue_name, time.monotonic()
    info_line(log, "start %s queue=%s klass=%s", job.jid, queue, job.klass_name)
    outcome = await _run(run, handler, core)
    info_line(log, "end %s queue=%s klass=%s %s in %.3fs", job.jid, queue, job.klass_name,
              outcome, time.monotonic() - started)
    return outcome


async def _run(run: Run, handler: Handler, core: Core) -> Outcome:
    job = run.job
    queue = job.queue_name
    if isinstance(handler, HandlerError):
        log.error("job %s: %s", job.jid, handler)
        return await _settle(job, handler, f"{queue}-{handler.group_suffix}", str(handler),
                             [], core)
    raised: BaseException | None = None
    text = ""
    errors: list[str] = []
    token = _handler_calls.set(errors)
    run.cancellable = True
    try:
        await cast(Awaitable[object], handler(job))
    except asyncio.CancelledError as exc:
        task = asyncio.current_task()
        if job.stop_event.is_set():  # the worker's cancel: lock lost, or TERM/INT
            if task is not None and task.cancelling():
                task.uncancel()
            raised, text = exc, "CancelledError (the worker cancelled the handler)"
        elif task is not None and task.cancelling():
            raise  # not the worker's: the loop itself is going away
        else:  # the handler's own (it awaited something cancelled)
            raised, text = exc, traceback.format_exc()
    except BaseException as exc:  # a handler's SystemExit must not end the worker
        raised, text = exc, traceback.format_exc()
    finally:
        run.cancellable = False
        _handler_calls.reset(token)
    if isinstance(raised, asyncio.CancelledError) and job.stop_event.is_set() \
            and not job.finished and job.settling is None:
        log.info("job %s: its handler was cancelled; not settling it", job.jid)
        return "lost"
    return await _settle(job, raised, f"{queue}-{type(raised).__name__}", text, errors, core)


async def _settle(job: JobBase, raised: BaseException | None, group: str, text: str,
                  errors: list[str], core: Core) -> Outcome:
    decided = verdict(job, raised, group, text, errors)
    if decided == COMPLETE:
        verb, call, done = "complete", job._complete_call(None, None, None), "complete"
    elif decided == FAIL:
        verb, call, done = "fail", job._fail_call(group, text), "failed"
    else:
        return decided  # type: ignore[return-value]
    try:
        try:
            await send_held(core, job, call, ends=True)
        except OutOfMemoryError:  # nothing was written: send it again once memory frees
            await settle_when_memory_frees_async(lambda: send_held(core, job, call, True),
                                                 f"{verb} of {job.jid}")
    except Exception as exc:
        return report_failed(job, verb, exc)
    return done  # type: ignore[return-value]
