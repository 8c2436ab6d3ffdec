"""Job and RecurringJob: typed views of the core's job objects that act through a Client.

A job object is a snapshot of the reply it was built from; the methods send one core
command each and update the snapshot where the reply says how.
"""

from __future__ import annotations

import importlib
import json
import os  # noqa: F401  (kept importable for tests that patch ``qless_py.job.os``)
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from qless_py import clock, codecs
from qless_py.errors import JobNotFoundError, LockLostError, QlessConnectionError, QlessError

if TYPE_CHECKING:
    from qless_py.client import Client
    from qless_py.queue import Queue

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a job failed: the group, the message, when (Unix seconds) and by which worker."""

    group: str
    message: str
    when: float
    worker: str

    @classmethod
    def from_core(cls, raw: Any) -> Failure | None:
        """``None`` for the core's empty object ``{}``."""
        if not raw or not isinstance(raw, dict):
            return None
        return cls(
            group=str(raw.get("group", "")),
            message=str(raw.get("message", "")),
            when=float(raw.get("when") or 0),
            worker=str(raw.get("worker") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        """The failure as the core's JSON object (``when`` integral when it is)."""
        return {"group": self.group, "message": self.message, "when": plain_number(self.when),
                "worker": self.worker}

    def __getitem__(self, key: str) -> Any:
        """``failure['group']`` as in qless-py."""
        if key in ("group", "message", "when", "worker"):
            return getattr(self, key)
        raise KeyError(key)


def as_list(value: Any) -> list[Any]:
    """The core writes empty lists as ``{}``; callers always get a list."""
    if isinstance(value, list):
        return value
    return []


def plain_number(value: float) -> int | float:
    """A number as the core prints it: integral values without a decimal point."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def class_name(klass: type | str) -> str:
    """Dotted ``module.Class`` for a class, or the string unchanged."""
    if isinstance(klass, str):
        if not klass:
            raise ValueError("klass must be a class or a non-empty 'module.Class' string")
        return klass
    return f"{klass.__module__}.{klass.__qualname__}"


def import_class(name: str) -> Any:
    """Import ``package.module.Class``; ImportError/AttributeError propagate."""
    module_name, _, attr = name.rpartition(".")
    if not module_name:
        raise ImportError(f"{name!r} is not a dotted 'module.Class' name")
    target: Any = importlib.import_module(module_name)
    return getattr(target, attr)


class BaseJob:
    """What jobs and recurring templates share."""

    def __init__(self, client: Client, raw: dict[str, Any]) -> None:
        self.client = client
        self.jid: str = raw["jid"]
        self.klass_name: str = raw["klass"]
        self.queue_name: str = raw.get("queue") or ""
        self._priority: float = raw.get("priority", 0)
        self.tags: list[str] = as_list(raw.get("tags"))
        self.data, self.codec = codecs.decode(raw.get("data") or "{}")

    @property
    def queue(self) -> Queue:
        """The queue this job is in (by name)."""
        return self.client.queues[self.queue_name]

    @property
    def klass(self) -> Any:
        """The job's class, imported now (ImportError / AttributeError propagate)."""
        return import_class(self.klass_name)

    @staticmethod
    def _import(name: str) -> Any:
        """qless-py's name for :func:`import_class`."""
        return import_class(name)

    @staticmethod
    def reload(name: str) -> None:
        """qless-py API; classes are imported afresh by the worker, so nothing to do."""

    def encoded_data(self) -> str:
        """The data as stored, in the format it was read in (encoded now: a handler may
        have changed it in place)."""
        data = self.data
        if type(data) is dict and not data and self.codec == "json":
            return "{}"  # the most common payload, as the encoder would write it
        return codecs.encode(data, self.codec)

    def __getitem__(self, key: str) -> Any:
        return self.data.get(key) if isinstance(self.data, dict) else None

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(self.data, dict):
            raise TypeError("job data is not a JSON object")
        self.data[key] = value

    def __repr__(self) -> str:
        return f"<{self.klass_name} {self.jid}>"


class Job(BaseJob):
    """One job as the core reported it, with the commands its holder (or anyone) may send."""

    def __init__(self, client: Client, raw: dict[str, Any], worker: str | None = None) -> None:
        super().__init__(client, raw)
        self.state: str = raw.get("state", "")
        self.worker_name: str = raw.get("worker") or ""
        self.expires_at: float = float(raw.get("expires") or 0)
        self.original_retries: int = int(raw.get("retries", 0))
        self.retries_left: int = int(raw.get("remaining", 0))
        self.tracked: bool = bool(raw.get("tracked", False))
        self.history: list[dict[str, Any]] = as_list(raw.get("history"))
        self.failure: Failure | None = Failure.from_core(raw.get("failure"))
        self.dependents: list[str] = as_list(raw.get("dependents"))
        self.dependencies: list[str] = as_list(raw.get("dependencies"))
        spawned = raw.get("spawned_from_jid")
        self.spawned_from_jid: str | None = spawned if isinstance(spawned, str) else None
        self.finished = False
        # The command sent by this object that ends its lease (complete, fail, retry, move,
        # cancel, timeout) while its outcome is not known: in flight, or its connection
        # dropped so that it may or may not have run.
        self.settling: str | None = None
        # Why the core refused one of this object's commands as not the job's holder (its
        # lease was gone: taken, moved, timed out, cancelled).
        self.lease_gone: str | None = None
        self.workdir: str | None = None
        self._as_worker = worker
        self._stop_event: threading.Event | None = None

    @classmethod
    def from_json(cls, client: Client, text: str, worker: str | None = None) -> list[Job]:
        """Jobs from a core reply holding a JSON array (``{}`` when empty)."""
        return [cls(client, raw, worker) for raw in as_list(json.loads(text))]

    def to_dict(self) -> dict[str, Any]:
        """This snapshot in the shape of the core's job object, made friendly: real lists,
        ``data`` decoded, ``failure`` and ``spawned_from_jid`` None when there is none."""
        return {
            "jid": self.jid, "klass": self.klass_name, "state": self.state,
            "queue": self.queue_name, "worker": self.worker_name, "tracked": self.tracked,
            "priority": plain_number(self.priority), "expires": plain_number(self.expires_at),
            "retries": self.original_retries, "remaining": self.retries_left,
            "data": self.data, "tags": list(self.tags), "history": list(self.history),
            "failure": None if self.failure is None else self.failure.to_dict(),
            "spawned_from_jid": self.spawned_from_jid,
            "dependents": list(self.dependents), "dependencies": list(self.dependencies),
        }

    # -- derived attributes ----------------------------------------------------------------
    @property
    def priority(self) -> float:
        return self._priority

    @priority.setter
    def priority(self, value: float) -> None:
        """Writes through to the core (``priority`` command)."""
        self.client.core.call("priority", self.jid, value)
        self._priority = value

    @property
    def ttl(self) -> float:
        """Seconds left on the lock (negative once expired)."""
        return self.expires_at - clock.now()

    @property
    def stop_event(self) -> threading.Event:
        """Set by the worker when the job must stop (lock lost, shutdown)."""
        if self._stop_event is None:
            self._stop_event = threading.Event()
        return self._stop_event

    @property
    def stopping(self) -> bool:
        return self._stop_event is not None and self._stop_event.is_set()

    @property
    def acting_worker(self) -> str:
        """The worker name this object acts as: the popping worker, else the client's."""
        return self._as_worker or self.client.worker_name

    @property
    def lease_open(self) -> bool:
        """True while this object may still hold its lease: nothing it sent has ended the
        lease, may have ended it, or was refused because the lease was gone."""
        return not self.finished and self.settling is None and self.lease_gone is None

    def _done(self, state: str) -> None:
        self.finished = True
        self.settling = None
        self.state = state

    def _as_holder(self, command: str, *args: Any, ends: bool = True) -> Any:
        """Send a command this object sends as the job's holder, noting what the reply (or
        its absence) says about the lease: ``settling`` while a lease-ending command is in
        flight or lost with its connection, ``lease_gone`` when the core says the lease is
        not this object's any more."""
        if ends:
            self.settling = command
        try:
            return self.client.core.call(command, *args)
        except QlessConnectionError:
            raise  # outcome unknown: ``settling`` stays set
        except (LockLostError, JobNotFoundError) as exc:
            if ends:
                self.settling = None
            self.lease_gone = f"{command}: {exc}"
            raise
        except QlessError:
            if ends:
                self.settling = None  # refused for another reason: the lease is as it was
            raise

    # -- the holder's commands -------------------------------------------------------------
    def complete(self, next: str | None = None, delay: float | None = None,
                 depends: Iterable[str] | None = None) -> str:
        """Complete the job, or advance it to queue ``next``; returns the new state.

        ``delay`` and ``depends`` need ``next``. Raises LockLostError if this worker no
        longer holds the job.
        """
        if next is None and (delay is not None or depends is not None):
            raise ValueError("delay and depends need next=<queue>")
        args: list[Any] = [self.jid, self.acting_worker, self.queue_name, self.encoded_data()]
        if next is not None:
            args += ["next", next]
            if delay is not None:
                args += ["delay", delay]
            if depends is not None:
                args += ["depends", json.dumps(list(depends))]
        state = self._as_holder("complete", *args)
        state = state if isinstance(state, str) else ("complete" if next is None else "waiting")
        self._done(state)
        if next is not None:
            self.queue_name = next
        return state

    def fail(self, group: str, message: str) -> str:
        """Fail the job into failure ``group``; returns the jid."""
        if not group:
            raise ValueError("a failure group is required")
        self._as_holder("fail", self.jid, self.acting_worker, group, message)
        self._done("failed")
        return self.jid

    def retry(self, delay: float = 0, group: str | None = None,
              message: str | None = None) -> int:
        """Give the job back to its queue, using one retry; returns retries left (-1: failed)."""
        args: list[Any] = [self.jid, self.queue_name, self.acting_worker, delay]
        if group is not None and message is not None:
            args += [group, message]
        elif group is not None:
            args += [group]
        left = int(self._as_holder("retry", *args))
        self.retries_left = left
        self._done("failed" if left < 0 else ("scheduled" if delay > 0 else "waiting"))
        return left

    def heartbeat(self) -> float:
        """Renew the lock; returns the new expiry. Raises LockLostError if it is gone."""
        expires = self._as_holder("heartbeat", self.jid, self.acting_worker, ends=False)
        self.expires_at = float(expires)
        return self.expires_at

    # -- anyone's commands -----------------------------------------------------------------
    def cancel(self) -> list[str]:
        """Delete the job (its dependents must be cancelled with it)."""
        reply = self._as_holder("cancel", self.jid)
        self._done("canceled")
        return as_list(reply)

    def move(self, queue: str, delay: float = 0, depends: Iterable[str] | None = None) -> str:
        """Put the job into another queue (taking it from any worker holding it)."""
        args: list[Any] = [self.acting_worker, queue, self.jid, self.klass_name,
                           self.encoded_data(), delay]
        if depends is not None:
            args += ["depends", json.dumps(list(depends))]
        jid = self._as_holder("put", *args)
        self._done("scheduled" if delay > 0 else "waiting")
        self.queue_name = queue
        return str(jid) if isinstance(jid, str) else self.jid

    def timeout(self) -> None:
        """Expire the lock now: the job goes to the front of its queue as stalled."""
        self._as_holder("timeout", self.jid)
        self._done("stalled")

    def tag(self, *tags: str) -> list[str]:
        """Add tags; returns the job's tags."""
        self.tags = as_list(json.loads(self.client.core.call("tag", "add", self.jid, *tags)))
        return self.tags

    def untag(self, *tags: str) -> list[str]:
        """Remove tags; returns the job's tags."""
        reply = self.client.core.call("tag", "remove", self.jid, *tags)
        self.tags = as_list(json.loads(reply))
        return self.tags

    def track(self) -> bool:
        """Track the job (its events are published); True if it was not tracked before."""
        reply = self.client.core.call("track", "track", self.jid)
        self.tracked = True
        return str(reply) == "1"

    def untrack(self) -> bool:
        """Stop tracking the job; True if it was tracked."""
        reply = self.client.core.call("track", "untrack", self.jid)
        self.tracked = False
        return str(reply) == "1"

    def depend(self, *jids: str) -> bool:
        """Add dependencies (the job must already be in the depends state)."""
        self.client.core.call("depends", self.jid, "on", *jids)
        return True

    def undepend(self, *jids: str, all: bool = False) -> bool:
        """Remove dependencies (or all of them); the job waits once none are left."""
        if all:
            self.client.core.call("depends", self.jid, "off", "all")
        else:
            self.client.core.call("depends", self.jid, "off", *jids)
        return True

    def log(self, message: str, data: dict[str, Any] | None = None) -> None:
        """Append an entry to the job's history."""
        if data is None:
            self.client.core.call("log", self.jid, message)
        else:
            self.client.core.call("log", self.jid, message, codecs.encode(data))

    def process(self) -> None:
        """Run the job in this process: ``klass.<queue name>(job)`` or ``klass.process(job)``.

        A missing class, a missing method or an exception fails the job into the group
        ``<queue>-<ExceptionName>`` (``<queue>-method-missing`` for a missing method).
        Handlers complete (or fail/retry) the job themselves.
        """
        try:
            klass = self.klass
        except Exception as exc:
            # One group for every import failure (ModuleNotFoundError included).
            kind = "ImportError" if isinstance(exc, ImportError) else type(exc).__name__
            self.fail(f"{self.queue_name}-{kind}", f"Failed to import {self.klass_name}: {exc}")
            return
        method = getattr(klass, self.queue_name, None) or getattr(klass, "process", None)
        if method is None:
            self.fail(f"{self.queue_name}-method-missing",
                      f'{self.klass_name} is missing a method "{self.queue_name}" or "process"')
            return
        try:
            method(self)
        except QlessError:
            raise
        except Exception as exc:
            self.fail(f"{self.queue_name}-{type(exc).__name__}", traceback.format_exc())


def retry(*exceptions: type[BaseException]) -> Callable[[F], F]:
    """Decorate a job handler: listed exceptions retry the job instead of failing it."""
    import functools

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def handler(job: Job, *args: Any, **kwargs: Any) -> Any:
            try:
                return func(job, *args, **kwargs)
            except exceptions:
                job.retry()
                return None

        return handler  # type: ignore[return-value]

    return wrap
