"""Job: a job as the core reported it, acting through a sync :class:`~qless_py.Client`.

What each command sends and how its reply updates the snapshot is in
:mod:`qless_py.calls.job`, shared with the async client; this module sends.
"""

from __future__ import annotations

import os  # noqa: F401  (kept importable for tests that patch ``qless_py.job.os``)
import traceback
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from qless_py import handlers
from qless_py.calls.base import Call
from qless_py.calls.job import (
    BaseJob,
    Failure,
    JobBase,
    as_list,
    class_name,
    json_list,
    plain_number,
)
from qless_py.errors import QlessError
from qless_py.handlers import import_class

if TYPE_CHECKING:
    from qless_py.client.client import Client
    from qless_py.client.queue import Queue

__all__ = ["BaseJob", "Failure", "Job", "as_list", "class_name", "import_class",
           "plain_number", "retry"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class Job(JobBase):
    """One job as the core reported it, with the commands its holder (or anyone) may send."""

    client: Client


    @classmethod
    def from_json(cls, client: Client, text: str, worker: str | None = None) -> list[Job]:
        """Jobs from a core reply holding a JSON array (``{}`` when empty)."""
        return [cls(client, raw, worker) for raw in json_list(text)]

    @property
    def queue(self) -> Queue:
        """The queue this job is in (by name)."""
        return self.client.queues[self.queue_name]

    @property
    def priority(self) -> float:
        return self._priority

    @priority.setter
    def priority(self, value: float) -> None:
        """Writes through to the core (``priority`` command)."""
        self.set_priority(value)

    def set_priority(self, value: float) -> None:
        """Change the job's priority in the core."""
        self.client.core.send(self._priority_call(value))

    def _hold(self, call: Call[T], ends: bool = True) -> T:
        """Send a command this object sends as the job's holder, noting what the reply (or
        its absence) says about the lease (see ``JobBase._refused``)."""
        command, args, parse = call
        self._holding(command, ends)
        try:
            reply = self.client.core.call(command, *args)
        except QlessError as exc:
            self._refused(command, exc, ends)
            raise
        return parse(reply)

    # -- the holder's commands -------------------------------------------------------------
    def complete(self, next: str | None = None, delay: float | None = None,
                 depends: Iterable[str] | None = None, *,
                 namespace: str | bool | None = False) -> str:
        """Complete the job, or advance it to queue ``next``; returns the new state.

        ``delay`` and ``depends`` need ``next``. With ``namespace`` (None: the default
        namespace) the next stage is queue ``next`` of that namespace: the job completes
        here, and its next stage is put there, once, by a relay (docs/cluster.md, "Across
        namespaces"). Raises LockLostError if this worker no longer holds the job.
        """
        return self._hold(self._complete_call(next, delay, depends, namespace))

    def fail(self, group: str, message: str) -> str:
        """Fail the job into failure ``group``; returns the jid."""
        return self._hold(self._fail_call(group, message))

    def retry(self, delay: float = 0, group: str | None = None,
              message: str | None = None) -> int:
        """Give the job back to its queue, using one retry; returns retries left (-1: failed)."""
        return self._hold(self._retry_call(delay, group, message))

    def heartbeat(self) -> float:
        """Renew the lock; returns the new expiry. Raises LockLostError if it is gone."""
        return self._hold(self._heartbeat_call(), ends=False)

    # -- anyone's commands -----------------------------------------------------------------
    def cancel(self) -> list[str]:
        """Delete the job (its dependents must be cancelled with it)."""
        return self._hold(self._cancel_call())

    def move(self, queue: str, delay: float = 0, depends: Iterable[str] | None = None) -> str:
        """Put the job into another queue (taking it from any worker holding it)."""
        return self._hold(self._move_call(queue, delay, depends))

    def timeout(self) -> None:
        """Expire the lock now: the job goes to the front of its queue as stalled."""
        self._hold(self._timeout_call())

    def tag(self, *tags: str) -> list[str]:
        """Add tags; returns the job's tags."""
        return self.client.core.send(self._tag_call("add", tags))

    def untag(self, *tags: str) -> list[str]:
        """Remove tags; returns the job's tags."""
        return self.client.core.send(self._tag_call("remove", tags))

    def track(self) -> bool:
        """Track the job (its events are published); True if it was not tracked before."""
        return self.client.core.send(self._track_call("track"))

    def untrack(self) -> bool:
        """Stop tracking the job; True if it was tracked."""
        return self.client.core.send(self._track_call("untrack"))

    def depend(self, *jids: str) -> bool:
        """Add dependencies (the job must already be in the depends state)."""
        return self.client.core.send(self._depends_call("on", jids))

    def undepend(self, *jids: str, all: bool = False) -> bool:
        """Remove dependencies (or all of them); the job waits once none are left."""
        return self.client.core.send(self._undepend_call(jids, all))

    def log(self, message: str, data: dict[str, Any] | None = None) -> None:
        """Append an entry to the job's history."""
        self.client.core.send(self._log_call(message, data))

    def process(self) -> None:
        """Run the job in this process: ``klass.<queue name>(job)`` or ``klass.process(job)``.

        A handler that cannot be found fails the job as the worker would
        (``qless_py.handlers``); one that raises fails it into ``<queue>-<ExceptionName>``.
        Handlers complete (or fail/retry) the job themselves.
        """
        try:
            method = handlers.find_handler(self.klass_name, self.queue_name)
        except handlers.HandlerError as exc:
            self.fail(f"{self.queue_name}-{exc.group_suffix}", str(exc))
            return
        try:
            method(self)
        except QlessError:
            raise
        except Exception as exc:
            self.fail(f"{self.queue_name}-{type(exc).__name__}", traceback.format_exc())


def retry(*exceptions: type[BaseException]) -> Callable[[F], F]:
    """Decorate a job handler: listed exceptions retry the job instead of failing it.

    Works on plain handlers and on ``async def`` ones (the asyncio worker's), whose job's
    ``retry`` is then awaited."""
    import functools
    import inspect

    def wrap(func: F) -> F:
        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def awaited(job: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    return await func(job, *args, **kwargs)
                except exceptions:
                    await job.retry()
                    return None

            return awaited  # type: ignore[return-value]

        @functools.wraps(func)
        def handler(job: Job, *args: Any, **kwargs: Any) -> Any:
            try:
                return func(job, *args, **kwargs)
            except exceptions:
                job.retry()
                return None

        return handler  # type: ignore[return-value]

    return wrap
