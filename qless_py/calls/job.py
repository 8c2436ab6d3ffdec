"""Jobs without the sending: the attributes a core job object carries, the pure methods, and
for every command a job sends, the :class:`~qless_py.calls.Call` (arguments checked and
built, reply read into the snapshot). ``qless_py.client.job.Job`` and ``qless_py.aio.job.Job``
send them.

A job object is a snapshot of the reply it was built from; each command updates the
snapshot where its reply says how.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from qless_py import clock, codecs, handlers, keys
from qless_py.calls.base import Call
from qless_py.errors import JobNotFoundError, LockLostError, QlessConnectionError, QlessError
from qless_py.keys import namespace_prefix


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


def json_list(reply: Any) -> list[Any]:
    """A reply holding a JSON array (``{}`` when empty) as a list."""
    return as_list(json.loads(reply))


def tracked_flag(reply: Any) -> bool:
    """The ``track``/``untrack`` reply: True if it changed something."""
    return str(reply) == "1"


def flow_fields(throttles: list[str], key: str | None,
                start_within: float | None) -> dict[str, Any]:
    """The extensions' fields of a job or template object, where the core's object has
    them: ``throttles`` when it names a throttle besides its queue's own, ``key`` and
    ``ttl`` when set."""
    out: dict[str, Any] = {}
    if len(throttles) > 1:
        out["throttles"] = list(throttles)
    if key is not None:
        out["key"] = key
    if start_within is not None:
        out["ttl"] = plain_number(start_within)
    return out


class BaseJob:
    """What jobs and recurring templates share. ``client`` is the sync or the async client
    that made the object; the object sends through it."""

    client: Any

    def __init__(self, client: Any, raw: dict[str, Any]) -> None:
        self.client = client
        self.jid: str = raw["jid"]
        self.klass_name: str = raw["klass"]
        self.queue_name: str = raw.get("queue") or ""
        self._priority: float = raw.get("priority", 0)
        tags = raw.get("tags")
        self.tags: list[str] = tags if type(tags) is list else []  # as_list, written out
        self.data, self.codec = codecs.decode(raw.get("data") or "{}")

    @property
    def priority(self) -> float:
        return self._priority

    @property
    def klass(self) -> Any:
        """The job's class, imported now (ImportError / AttributeError propagate)."""
        return handlers.import_class(self.klass_name)

    @staticmethod
    def _import(name: str) -> Any:
        """qless-py's name for :func:`qless_py.handlers.import_class`."""
        return handlers.import_class(name)

    @staticmethod
    def reload(name: str) -> None:
        """qless-py API: the next job of class ``name`` imports it afresh."""
        handlers.forget(name)

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


class JobBase(BaseJob):
    """One job as the core reported it, and the commands its holder (or anyone) may send."""

    def __init__(self, client: Any, raw: dict[str, Any], worker: str | None = None) -> None:
        super().__init__(client, raw)
        get = raw.get
        self.state: str = get("state", "")
        self.worker_name: str = get("worker") or ""
        self.expires_at: float = float(get("expires") or 0)
        self.original_retries: int = int(get("retries", 0))
        self.retries_left: int = int(get("remaining", 0))
        self.tracked: bool = bool(get("tracked", False))
        # the core writes empty lists (and no failure) as {}: as_list, written out, since
        # every popped job is built here
        history, failure = get("history"), get("failure")
        self.history: list[dict[str, Any]] = history if type(history) is list else []
        self.failure: Failure | None = Failure.from_core(failure) if failure else None
        dependents, dependencies = get("dependents"), get("dependencies")
        self.dependents: list[str] = dependents if type(dependents) is list else []
        self.dependencies: list[str] = dependencies if type(dependencies) is list else []
        spawned = raw.get("spawned_from_jid")
        self.spawned_from_jid: str | None = spawned if isinstance(spawned, str) else None
        # The extensions (docs/throttles.md): the throttle list as the dialect has it (the
        # queue's own tid last), the ordering key, and the seconds it may wait to start.
        listed, queue = get("throttles"), get("queue")
        self.throttles: list[str] = (
            listed if type(listed) is list
            else [getattr(client, "keys", keys.DEFAULT).queue_tid(queue)] if queue else [])
        self.key: str | None = get("key")
        self.start_within: float | None = get("ttl")
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
            **self._flow_fields(),
        }

    def _flow_fields(self) -> dict[str, Any]:
        return flow_fields(self.throttles, self.key, self.start_within)

    # -- derived attributes ----------------------------------------------------------------
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

    # -- what the reply to a holder's command says about the lease ---------------------------
    def _holding(self, command: str, ends: bool) -> None:
        """Before a command this object sends as the job's holder: a lease-ending command
        in flight makes the job ``settling`` until its reply comes."""
        if ends:
            self.settling = command

    @contextlib.contextmanager
    def holding(self, command: str, ends: bool) -> Iterator[None]:
        """Around a command sent as the job's holder (``_holding`` before, ``_refused`` if
        it raises): the one definition the worker's sends go through."""
        self._holding(command, ends)
        try:
            yield
        except QlessError as exc:
            self._refused(command, exc, ends)
            raise

    def _refused(self, command: str, exc: QlessError, ends: bool) -> None:
        """After a holder's command failed: a lost connection leaves ``settling`` set (the
        outcome is unknown); the core saying the lease is not this object's any more sets
        ``lease_gone``; any other refusal leaves the lease as it was."""
        if isinstance(exc, QlessConnectionError):
            return
        if ends:
            self.settling = None
        if isinstance(exc, (LockLostError, JobNotFoundError)):
            self.lease_gone = f"{command}: {exc}"

    # -- the holder's commands -------------------------------------------------------------
    def _complete_call(self, next: str | None, delay: float | None,
                       depends: Iterable[str] | None,
                       namespace: str | bool | None = False) -> Call[str]:
        if next is None and (delay is not None or depends is not None
                             or namespace is not False):
            raise ValueError("delay, depends and namespace need next=<queue>")
        args: list[Any] = [self.jid, self._as_worker or self.client.worker_name,
                           self.queue_name, self.encoded_data()]
        if next is not None:
            args += ["next", next]
            if delay is not None:
                args += ["delay", delay]
            if depends is not None:
                args += ["depends", json.dumps(list(depends))]
            if namespace is not False:
                # the next stage in another namespace (None: the default one), through the
                # outbox (docs/protocol.md, "Across namespaces")
                args += ["namespace", namespace_prefix(namespace)]  # type: ignore[arg-type]

        def completed(reply: Any) -> str:
            # a reply that is no reply (a benchmark binds calls to a pipeline): the usual one
            state = reply if isinstance(reply, str) else (
                "complete" if next is None else "waiting")
            self._done(state)
            if next is not None and namespace is False:
                self.queue_name = next
            return state

        return ("complete", args, completed)

    def _fail_call(self, group: str, message: str) -> Call[str]:
        if not group:
            raise ValueError("a failure group is required")

        def failed(_: Any) -> str:
            self._done("failed")
            return self.jid

        return ("fail", (self.jid, self.acting_worker, group, message), failed)

    def _retry_call(self, delay: float, group: str | None, message: str | None) -> Call[int]:
        args: list[Any] = [self.jid, self.queue_name, self.acting_worker, delay]
        if group is not None and message is not None:
            args += [group, message]
        elif group is not None:
            args += [group]

        def retried(reply: Any) -> int:
            left = int(reply)
            self.retries_left = left
            self._done("failed" if left < 0 else ("scheduled" if delay > 0 else "waiting"))
            return left

        return ("retry", args, retried)

    def _heartbeat_call(self) -> Call[float]:
        def renewed(reply: Any) -> float:
            self.expires_at = float(reply)
            return self.expires_at

        return "heartbeat", (self.jid, self._as_worker or self.client.worker_name), renewed

    # -- anyone's commands -----------------------------------------------------------------
    def _cancel_call(self) -> Call[list[str]]:
        def canceled(reply: Any) -> list[str]:
            self._done("canceled")
            return as_list(reply)

        return ("cancel", (self.jid,), canceled)

    def _move_call(self, queue: str, delay: float,
                   depends: Iterable[str] | None) -> Call[str]:
        args: list[Any] = [self.acting_worker, queue, self.jid, self.klass_name,
                           self.encoded_data(), delay]
        if depends is not None:
            args += ["depends", json.dumps(list(depends))]
        # A put sets the throttles afresh: the job keeps its named ones, and the core adds
        # its new queue's tid. Its old queue's tid is not sent (the core would drop its
        # actual old queue's, which differs when this object is out of date).
        named = [t for t in self.throttles if t != self.client.keys.queue_tid(self.queue_name)]
        if named:
            args += ["throttles", json.dumps(named)]

        def moved(reply: Any) -> str:
            self._done("scheduled" if delay > 0 else "waiting")
            self.queue_name = queue
            tid = self.client.keys.queue_tid(queue)  # the list the core stored, as the dialect
            self.throttles = [*(t for t in dict.fromkeys(named) if t != tid), tid]
            return str(reply) if isinstance(reply, str) else self.jid

        return ("put", args, moved)

    def _timeout_call(self) -> Call[None]:
        def timed_out(_: Any) -> None:
            self._done("stalled")

        return ("timeout", (self.jid,), timed_out)

    def _priority_call(self, value: float) -> Call[None]:
        def set_priority(_: Any) -> None:
            self._priority = value

        return ("priority", (self.jid, value), set_priority)

    def _tag_call(self, command: str, tags: tuple[str, ...]) -> Call[list[str]]:
        def tagged(reply: Any) -> list[str]:
            self.tags = json_list(reply)
            return self.tags

        return ("tag", (command, self.jid, *tags), tagged)

    def _track_call(self, command: str) -> Call[bool]:
        def tracked(reply: Any) -> bool:
            self.tracked = command == "track"
            return tracked_flag(reply)

        return ("track", (command, self.jid), tracked)

    def _depends_call(self, command: str, jids: tuple[str, ...]) -> Call[bool]:
        return ("depends", (self.jid, command, *jids), lambda _: True)

    def _undepend_call(self, jids: tuple[str, ...], all: bool) -> Call[bool]:
        return self._depends_call("off", ("all",) if all else jids)

    def _log_call(self, message: str, data: dict[str, Any] | None) -> Call[None]:
        args = (self.jid, message) if data is None else (self.jid, message, codecs.encode(data))
        return ("log", args, lambda _: None)
