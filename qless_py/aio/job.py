"""Job for the async client: the attributes and pure methods of :class:`qless_py.Job`, and
every command as a coroutine (``await job.complete(next="parse")``). What each command
sends is in :mod:`qless_py.calls.job`, shared with the sync client."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from qless_py.calls.base import Call
from qless_py.calls.job import JobBase, json_list
from qless_py.errors import QlessError

if TYPE_CHECKING:
    from qless_py.aio.client import AsyncClient
    from qless_py.aio.queue import Queue

T = TypeVar("T")


class Job(JobBase):
    """One job as the core reported it; the commands its holder (or anyone) may send are
    coroutines. ``priority`` is read-only here: ``await job.set_priority(n)``."""

    client: AsyncClient


    @classmethod
    def from_json(cls, client: AsyncClient, text: str, worker: str | None = None) -> list[Job]:
        """Jobs from a core reply holding a JSON array (``{}`` when empty)."""
        return [cls(client, raw, worker) for raw in json_list(text)]

    @property
    def queue(self) -> Queue:
        """The queue this job is in (by name)."""
        return self.client.queues[self.queue_name]

    async def set_priority(self, value: float) -> None:
        """Change the job's priority in the core."""
        await self.client.core.send(self._priority_call(value))

    async def _hold(self, call: Call[T], ends: bool = True) -> T:
        """Send a command this object sends as the job's holder, noting what the reply (or
        its absence) says about the lease (see ``JobBase._refused``)."""
        command, args, parse = call
        self._holding(command, ends)
        try:
            reply = await self.client.core.call(command, *args)
        except QlessError as exc:
            self._refused(command, exc, ends)
            raise
        return parse(reply)

    # -- the holder's commands -------------------------------------------------------------
    async def complete(self, next: str | None = None, delay: float | None = None,
                       depends: Iterable[str] | None = None, *,
                       namespace: str | bool | None = False) -> str:
        """Complete the job, or advance it to queue ``next`` (of another namespace with
        ``namespace``, as :meth:`qless_py.Job.complete`); returns the new state."""
        return await self._hold(self._complete_call(next, delay, depends, namespace))

    async def fail(self, group: str, message: str) -> str:
        """Fail the job into failure ``group``; returns the jid."""
        return await self._hold(self._fail_call(group, message))

    async def retry(self, delay: float = 0, group: str | None = None,
                    message: str | None = None) -> int:
        """Give the job back to its queue, using one retry; returns retries left (-1: failed)."""
        return await self._hold(self._retry_call(delay, group, message))

    async def heartbeat(self) -> float:
        """Renew the lock; returns the new expiry. Raises LockLostError if it is gone."""
        return await self._hold(self._heartbeat_call(), ends=False)

    # -- anyone's commands -----------------------------------------------------------------
    async def cancel(self) -> list[str]:
        """Delete the job (its dependents must be cancelled with it)."""
        return await self._hold(self._cancel_call())

    async def move(self, queue: str, delay: float = 0,
                   depends: Iterable[str] | None = None) -> str:
        """Put the job into another queue (taking it from any worker holding it)."""
        return await self._hold(self._move_call(queue, delay, depends))

    async def timeout(self) -> None:
        """Expire the lock now: the job goes to the front of its queue as stalled."""
        await self._hold(self._timeout_call())

    async def tag(self, *tags: str) -> list[str]:
        """Add tags; returns the job's tags."""
        return await self.client.core.send(self._tag_call("add", tags))

    async def untag(self, *tags: str) -> list[str]:
        """Remove tags; returns the job's tags."""
        return await self.client.core.send(self._tag_call("remove", tags))

    async def track(self) -> bool:
        """Track the job (its events are published); True if it was not tracked before."""
        return await self.client.core.send(self._track_call("track"))

    async def untrack(self) -> bool:
        """Stop tracking the job; True if it was tracked."""
        return await self.client.core.send(self._track_call("untrack"))

    async def depend(self, *jids: str) -> bool:
        """Add dependencies (the job must already be in the depends state)."""
        return await self.client.core.send(self._depends_call("on", jids))

    async def undepend(self, *jids: str, all: bool = False) -> bool:
        """Remove dependencies (or all of them); the job waits once none are left."""
        return await self.client.core.send(self._undepend_call(jids, all))

    async def log(self, message: str, data: dict[str, Any] | None = None) -> None:
        """Append an entry to the job's history."""
        await self.client.core.send(self._log_call(message, data))
