"""The worker's notice thread: new work, changed schedules, and news of its own jobs.

The core sends workers no message of its own: a server with qless_py workers carries
exactly the pub/sub traffic qless-core would. The listener learns of new work from the
server's key-change notices instead (client-side-caching invalidations in broadcast mode,
Redis/Valkey 6+): its connection asks for ``CLIENT TRACKING ON REDIRECT <its own id>
BCAST PREFIX ...`` on the keys whose writes can make a job poppable (each queue's work
set, ``ql:paused_queues``, ``ql:config``, each queue's own throttle, and the lock set of a
queue with a concurrency cap) and on those whose writes move a due time (the scheduled
and recurring sets). The server then sends the names of written keys to this connection
alone, as messages on ``__redis__:invalidate``; they never pass through PUBLISH, so
pattern subscribers do not see them. It also subscribes to ``ql:w:<worker>``
(``lock_lost`` and ``canceled`` notices for jobs this worker holds).

One listener hears every namespace of the worker that its node serves (``Watched``, one
per namespace): the keys of all of them are tracked, and each one's worker channel is
subscribed, on its one connection. It connects to the master of the first; on a cluster,
a namespace that node does not serve (on another master from the start, or moved away
since) is handed to a new listener (``on_split``), so a worker has one notice connection
per master it serves namespaces on.

A busy process does not track the keys of new work: the server compares every key any
command writes with every prefix any connection tracks, so tracking makes each write
dearer, and a process whose runners are all busy pops again as each job ends without
being told. When the process has had no idle runner for a while (``Idling.busy``), its
listener subscribes again tracking only the outboxes; a runner about to sleep asks for
the keys of new work first (``want_tracking``), and the subscription again wakes every
runner, which pops once more before it reads the queues and sleeps. So no write that
makes work is missed: it came before that pop, or after the subscription.

A notice of work wakes one idle runner at once, unless it is no news to the process
(``Waker.is_news``: a pop's own removal from a work set is a write too, and the runner
whose pop's reply came after the write reads the queues again anyway). A write to a capped
queue's lock set alone (a pop, a heartbeat, a job leaving) wakes a runner only if a slot
is free and a job waits: one pipelined read of plain commands (``lookout``). A job
therefore costs each idle process of its queue at most one empty pop.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol, TypeVar

import qless_py.workers.reads as reads
from qless_py import keys
from qless_py.calls.base import Call
from qless_py.calls.events import sharded
from qless_py.calls.worker import owner_call
from qless_py.connect.resp import (
    NOTHING,
    Arg,
    Connection,
    ConnectionFailed,
    ReplyError,
    ServerUnavailable,
    Transport,
    UnexpectedReply,
    pack,
    values,
)
from qless_py.keys import Keys
from qless_py.workers.lookout import look
from qless_py.workers.outage import Outage

log = logging.getLogger("qless_py.worker")

T = TypeVar("T")

INVALIDATE = "__redis__:invalidate"
IDLE_PING = 30.0  # seconds of silence after which the subscription connection is checked
# On a cluster, seconds of silence after which the listener checks that its node still
# serves the namespace's slot (a move leaves the old node up; on Redis 7 and Valkey the
# node also ends the sharded subscription when the slot leaves, which is seen at once).
SLOT_CHECK = 5.0

# Seconds between a listener's looks at whether its process is busy (``Idling.busy``).
BUSY_CHECK = 1.0

# What a write to a tracked key means.
WORK, SLOTS, SCHEDULE, PAUSED, CONFIG = "work", "slots", "schedule", "paused", "config"
OUTBOX = "outbox"  # a namespace's messages for others were written: its relay runs


def tracked_keys(names: Keys, queues: Sequence[str], caps: Collection[str] = (), *,
                 work: bool = True) -> dict[str, tuple[str, str]]:
    """The keys a listener tracks in one namespace (``names``), each with what a write to
    it means and its queue ('' for the namespace's own): the outbox, and unless ``work``
    is False (a busy process) the paused set, config, and each queue's work, scheduled and
    recurring sets, its own throttle, and the lock set of a queue in ``caps``."""
    meaning = {names.outbox: (OUTBOX, "")}
    if not work:
        return meaning
    meaning[names.paused] = (PAUSED, "")
    meaning[names.config] = (CONFIG, "")
    for name in queues:
        meaning[names.queue(name, keys.WORK)] = (WORK, name)
        meaning[names.queue(name, keys.SCHEDULED)] = (SCHEDULE, name)
        meaning[names.queue(name, keys.RECUR)] = (SCHEDULE, name)
        # the queue's own throttle: a new maximum may change its cap (as config does)
        meaning[names.throttle(names.queue_tid(name))] = (CONFIG, name)
        if name in caps:
            meaning[names.queue(name, keys.LOCKS)] = (SLOTS, name)
    return meaning


def _disjoint(prefixes: Collection[str]) -> list[str]:
    """Drop prefixes covered by a shorter one (the server refuses overlapping prefixes)."""
    kept: list[str] = []
    for prefix in sorted(set(prefixes), key=len):
        if not any(prefix.startswith(shorter) for shorter in kept):
            kept.append(prefix)
    return kept


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class _Resubscribe(Exception):
    """The set of keys to track changed (a queue got or lost its cap): connect again."""


class _Moved(Exception):
    """The namespace's slot moved to another node (a cluster's slot migration): connect
    again, to the node that serves it now."""


def _nothing() -> None:
    pass


class Watched:
    """One namespace a listener hears: its key names, the transport of its plain reads
    (to its master), where the notices on its worker channel go (``on_notice(jid,
    event)``), and its queues with a concurrency cap (``caps``, kept by the listener:
    queue -> the smaller of its max-concurrency and its own throttle's maximum that are
    above 0)."""

    def __init__(self, names: Keys, transport: Transport,
                 on_notice: Callable[[str, str], None]) -> None:
        self.names, self.transport, self.on_notice = names, transport, on_notice
        self.caps: dict[str, float] = {}
        # a write to the namespace's outbox (messages for other namespaces): its relay
        self.on_outbox: Callable[[], None] = _nothing


class Listener:
    """Runs one notice connection in a daemon thread, for the namespaces ``watched``.

    ``on_work()`` runs when a queue may have a job to pop, ``on_schedule()`` when a due
    time may have moved, a namespace's ``on_notice(jid, event)`` for every
    ``lock_lost``/``canceled`` notice on its worker channel, and ``on_reconnect()`` after
    every (re)subscription (notices may have been missed meanwhile). ``is_news(position)``
    says whether a notice of work at that position of the stream (``position()``) is news
    to the process; ``mark()`` is what a runner compares positions with. ``on_split(away)``
    takes the namespaces the node does not serve (see the module's docstring). ``busy()``
    says whether the process is busy: the listener then stops tracking the keys of new
    work until ``want_tracking`` (None: it always tracks them).
    """

    def __init__(self, watched: Sequence[Watched], queues: Sequence[str], worker: str, *,
                 on_work: Callable[[], None],
                 is_news: Callable[[int], bool],
                 on_reconnect: Callable[[], None],
                 on_schedule: Callable[[], None],
                 on_split: Callable[[list[Watched]], None] | None = None,
                 busy: Callable[[], bool] | None = None) -> None:
        self._watched = list(watched)
        self._transport = self._watched[0].transport  # the first namespace's: its master
        self._queues = list(dict.fromkeys(queues))
        self._worker = worker
        self._channels = {w.names.worker_channel(worker): w for w in self._watched}
        self._on_work, self._on_schedule = on_work, on_schedule
        self._is_news = is_news
        self._on_reconnect, self._on_split = on_reconnect, on_split
        self.tracking = False
        self._busy = busy
        # Whether the subscription tracks the keys of new work (else only the outboxes);
        # changed under the lock, by the busy check and by want_tracking.
        self._switch_lock = threading.Lock()
        self._work_tracked = True  # what the listener means to track
        self._tracks_work = False  # what its live subscription does (True: nothing to wait for)
        # the connection want_tracking ended to subscribe again (its failure is no outage)
        self._switched: Connection | None = None
        self._quiet = False  # the next subscription changes what is tracked: no INFO line
        self.switches = 0  # times it stopped or started tracking the keys of new work
        # tracked key -> (kind, queue, the namespace it belongs to)
        self._meaning: dict[bytes, tuple[str, str, Watched | None]] = {}
        self._conn: Connection | None = None
        self._base = 0  # bytes received on the connections before the current one
        self._count_lock = threading.Lock()  # see mark()
        self._marked = -1  # the highest mark handed out
        self._stop = threading.Event()
        self._subscribed = threading.Event()
        self._outage = Outage("listener")
        self._thread = threading.Thread(target=self._run, name="qless-listener", daemon=True)

    @property
    def subscribed(self) -> bool:
        return self._subscribed.is_set()

    @property
    def work_tracked(self) -> bool:
        """Whether the live subscription tracks the keys of new work (or needs not: the
        server refuses tracking)."""
        return self._tracks_work

    def want_tracking(self) -> bool:
        """An idle runner is about to read the queues and sleep: True if the keys of new
        work are tracked (or the server refuses tracking: nothing to wait for). Else the
        listener subscribes again tracking them, and False: the new subscription wakes
        every runner (``on_reconnect``), which pops once more before it sleeps."""
        if self._busy is None:
            return True
        with self._switch_lock:
            if self._tracks_work:
                return True
            if self._work_tracked:
                return False  # a subscription that tracks them is on its way
            self._work_tracked = self._quiet = True
            self.switches += 1
            conn = self._switched = self._conn
        if conn is not None:
            conn.interrupt()  # its read fails at once; _run subscribes again, quietly
        return False

    def start(self, timeout: float = 5.0) -> bool:
        """Start the thread and wait up to ``timeout`` s for the subscription (0: no wait).

        Every (re)subscription calls ``on_reconnect``, so callers that do not wait lose no
        work: whatever was written before it is found by the pop that follows."""
        self._thread.start()
        return self._subscribed.wait(timeout)

    def stop(self, timeout: float = 2.0) -> None:
        """End the thread; shutting its socket down interrupts its wait at once."""
        self._stop.set()
        conn = self._conn
        if conn is not None:
            conn.interrupt()
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- the thread ----------------------------------------------------------------------
    def _run(self) -> None:
        delay = 0.1
        first = True
        while not self._stop.is_set():
            conn = self._transport.new_connection()
            conn.count_lock = self._count_lock
            with self._count_lock:
                # Positions go on past every mark handed out: bytes a mark counted that the
                # old connection never delivered must not make new notices look old.
                if self._conn is not None:
                    self._base = max(self._base + self._conn.received, self._marked + 1)
                self._conn = conn
            with self._switch_lock:
                self._tracks_work, work = False, self._work_tracked
            try:
                if len(self._watched) > 1 and self._transport.endpoint.cluster:
                    self._keep_served(conn)
                self._read_caps()
                tracked = self._track(conn, work)
                self._subscribe(conn, [INVALIDATE] if tracked else [])
                with self._switch_lock:
                    if work != self._work_tracked:  # changed meanwhile: once more
                        raise _Resubscribe
                    self._tracks_work = work or not tracked
                if self._quiet:
                    log.debug("listener: %s", "tracking the keys of new work again"
                              if self._work_tracked else
                              "the process is busy: not tracking the keys of new work")
                elif not first:
                    log.info("listener: subscribed again")
                self._quiet = False
                self._outage.ok()
                # Runners may have found nothing and gone to sleep before the subscription
                # (the worker does not wait for it): notices sent meanwhile were missed,
                # so every runner pops once more.
                self._on_reconnect()
                self._subscribed.set()
                first, delay = False, 0.1
                self._pump(conn)
            except _Resubscribe:
                continue
            except _Moved as moved:
                self._subscribed.clear()
                for watched in self._watched:  # its reads move too
                    watched.transport.connection().close()
                log.info("listener: %s; subscribing on its new master", moved)
                continue
            except (ConnectionFailed, OSError, UnexpectedReply) as exc:
                # the server restarting (refused, then LOADING), failing over (READONLY),
                # busy or out of memory; or a reply we cannot read (UnexpectedReply names
                # it): the same wait and the same log lines
                if self._switched is conn and not self._stop.is_set():
                    continue  # want_tracking ended the connection: subscribe again at once
                self._subscribed.clear()
                if self._stop.is_set():
                    break
                self._outage.failed(
                    exc, "retrying the subscription with backoff (0.1s doubling to 5s)")
                self._stop.wait(delay)
                delay = min(delay * 2, 5.0)
            except Exception:  # a bug here must not silently end the notices
                self._subscribed.clear()
                log.exception("listener: unexpected error; restarting in %.1fs", delay)
                self._stop.wait(delay)
                delay = min(delay * 2, 5.0)
            finally:
                conn.close()

    def _keep_served(self, conn: Connection) -> None:
        """On a cluster: hand the namespaces that ``conn``'s node does not serve (``EXISTS``
        of a namespace's prefix, a key that never exists, answers MOVED or ASK) to a
        listener of their own (``on_split``); the first namespace's is this node."""
        others = self._watched[1:]
        # (read here, not through exchange: a MOVED reply must not close this connection)
        conn.send(b"".join(pack(["EXISTS", w.names.prefix]) for w in others))
        replies = [conn.read() for _ in others]
        away = [w for w, reply in zip(others, replies, strict=True)
                if isinstance(reply, ReplyError) and reply.redirected]
        if not away or self._on_split is None:
            return
        self._watched = [w for w in self._watched if w not in away]
        self._channels = {w.names.worker_channel(self._worker): w for w in self._watched}
        log.info("listener: namespace(s) %s served by another master; hearing them on a "
                 "connection of their own", ", ".join(str(w.names.namespace) for w in away))
        self._on_split(away)

    def _read_caps(self) -> None:
        """Each namespace's queues with a concurrency cap (their lock sets are tracked
        too), kept in its ``Watched``."""
        for watched in self._watched:
            watched.caps = reads.send(watched.transport,
                                      reads.caps(self._queues, watched.names))

    def _track(self, conn: Connection, work: bool = True) -> bool:
        """Ask the server to tell this connection about writes to the keys that matter.

        Without it (a server before 6.0, an ACL, a proxy) the worker finds new work and
        new schedules only at its safety interval, and says so. ``work`` False (a busy
        process) tracks the outboxes only.
        """
        meaning: dict[bytes, tuple[str, str, Watched | None]] = {}
        for watched in self._watched:
            for key, (kind, queue) in tracked_keys(watched.names, self._queues, watched.caps,
                                                   work=work).items():
                meaning[key.encode()] = (kind, queue, watched)
        self._meaning = meaning
        client_id = _value(conn, "CLIENT", "ID")
        args: list[Arg] = ["CLIENT", "TRACKING", "ON", "REDIRECT", client_id, "BCAST"]
        for prefix in _disjoint([name.decode() for name in meaning]):
            args += ["PREFIX", prefix]
        try:
            conn.call(*args)
        except ReplyError as exc:
            if exc.unavailable:
                raise ServerUnavailable(f"CLIENT TRACKING: {exc}") from None
            log.warning("listener: the server refuses key tracking (%s); new work is found "
                        "at the safety interval only", exc)
            self.tracking = False
            return False
        self.tracking = True
        return True

    def _subscribe(self, conn: Connection, extra: list[str]) -> None:
        # A namespace's core publishes with SPUBLISH where the server has it (Redis 7.0,
        # Valkey 7.2): its notices are then subscribed with SSUBSCRIBE, one command per
        # namespace (a command's channels must share a slot).
        info = None
        plain: list[str] = []
        shard: list[str] = []
        for channel, watched in self._channels.items():
            if watched.names.namespace is not None and info is None:
                info = _server_info(conn)
            (shard if info is not None and sharded(watched.names, info) else plain).append(
                channel)
        plain += extra
        conn.send(b"".join(pack(["SSUBSCRIBE", channel]) for channel in shard)
                  + (pack(["SUBSCRIBE", *plain]) if plain else b""))
        pending = {*shard, *plain}
        deadline = time.monotonic() + 10.0
        while pending and not self._stop.is_set():
            if time.monotonic() > deadline:
                raise ConnectionFailed("no subscribe confirmation")
            message = conn.read(timeout=0.5)
            if message is NOTHING:
                continue
            if _kind(message) in ("subscribe", "ssubscribe"):
                pending.discard(_text(message[1]))
            else:
                self._dispatch(message)

    def _pump(self, conn: Connection) -> None:
        cluster = bool(self._transport.endpoint.cluster)
        silence = SLOT_CHECK if cluster else IDLE_PING
        heard = check = time.monotonic()
        while not self._stop.is_set():
            timeout = silence
            if self._busy is not None and self._work_tracked:
                timeout = min(silence, BUSY_CHECK)
            message = conn.read(timeout=timeout)
            now = time.monotonic()
            if message is not NOTHING:
                heard = now
                self._dispatch(message)
            elif now - heard >= silence:
                # a silence: make sure the connection is still alive, and on a cluster
                # that its node still serves the namespace
                heard = now
                conn.send(pack(["PING"]))
                if cluster:
                    self._check_slot()
            if self._busy is not None and self._work_tracked and now - check >= BUSY_CHECK:
                check = now
                self._stop_tracking_if_busy()

    def _stop_tracking_if_busy(self) -> None:
        """A busy process's listener subscribes again without the keys of new work."""
        busy = self._busy
        assert busy is not None
        with self._switch_lock:
            if not (self._work_tracked and self.tracking and busy()):
                return
            # from now on a runner about to sleep asks for them again (want_tracking)
            self._work_tracked = self._tracks_work = False
            self._quiet = True
            self.switches += 1
        raise _Resubscribe

    def _check_slot(self) -> None:
        """Raise _Moved when a namespace's node no longer serves its slot (``EXISTS`` of
        the namespace's prefix, a key that never exists, answers MOVED or ASK)."""
        for watched in self._watched:
            try:
                watched.transport.call("EXISTS", watched.names.prefix)
            except ReplyError as exc:
                if exc.redirected:
                    raise _Moved(f"the namespace's slot moved ({exc})") from None
                raise

    # -- messages ------------------------------------------------------------------------
    def _dispatch(self, message: Any) -> None:
        if isinstance(message, ReplyError):
            if message.unavailable:
                raise ServerUnavailable(f"subscription: {message}")
            raise ConnectionFailed(f"subscription refused: {message}")
        kind = _kind(message)
        if kind == "sunsubscribe" and not self._stop.is_set():
            # unasked: the node gave the namespace's slot away
            raise _Moved(f"the node ended the subscription to {_text(message[1])}")
        if kind not in ("message", "smessage"):
            return  # subscribe confirmations, pongs
        channel = _text(message[1])
        if channel == INVALIDATE:
            self._written(message[2])
        elif (watched := self._channels.get(channel)) is not None:
            try:
                notice = json.loads(_text(message[2]))
                jid, event = str(notice["jid"]), str(notice["event"])
            except (ValueError, KeyError, TypeError):
                log.warning("listener: unreadable notice %r", message[2])
                return
            watched.on_notice(jid, event)

    def _written(self, names: list[bytes] | None) -> None:
        """Tracked keys were written (``None``: the whole database was flushed)."""
        if names is None:
            meanings: list[tuple[str, str, Watched | None]] = [(CONFIG, "", None)]
        else:
            meanings = [self._meaning[name] for name in names if name in self._meaning]
        kinds = {kind for kind, _, _ in meanings}
        if OUTBOX in kinds:
            for kind, _, watched in meanings:
                if kind == OUTBOX and watched is not None:
                    watched.on_outbox()
        if CONFIG in kinds:
            capped = [set(watched.caps) for watched in self._watched]
            self._read_caps()
            if capped != [set(watched.caps) for watched in self._watched]:
                raise _Resubscribe  # the reconnection wakes every runner
        if kinds & {SCHEDULE, CONFIG}:
            self._on_schedule()  # a config change may move lock expiries too
        if kinds & {PAUSED, CONFIG}:
            self._on_work()
        elif WORK in kinds:
            if self._is_news(self.position()):
                self._on_work()
        elif SLOTS in kinds and self._slot_freed(meanings):
            self._on_work()

    def _slot_freed(self, meanings: list[tuple[str, str, Watched | None]]) -> bool:
        """Whether a capped queue whose lock set was written may have a job to pop now."""
        for watched in self._watched:
            capped = [queue for kind, queue, w in meanings if kind == SLOTS and w is watched]
            if capped and look(watched.transport, capped, watched.caps, due=False,
                               names=watched.names).poppable:
                return True
        return False

    @property
    def caps(self) -> dict[str, float]:
        """The first namespace's queues with a concurrency cap, and the cap."""
        return self._watched[0].caps

    def position(self) -> int:
        """How many bytes the notice connections have delivered so far."""
        conn = self._conn
        return self._base + (conn.received if conn is not None else 0)

    def mark(self) -> int:
        """How far the server's notices to this listener reached at this moment, read or
        not (on a local socket, everything the server sent before the reply the caller
        just received). Taken from another thread: the lock keeps a read of the
        listener's and the count of its bytes together."""
        with self._count_lock:
            conn = self._conn
            if conn is None:
                return -1
            mark = self._base + conn.received + conn.waiting_bytes()
            self._marked = max(self._marked, mark)
            return mark


class Sends(Protocol):
    """A sync core (``client.core``): sends one Call on the calling thread's connection."""

    def send(self, call: Call[T]) -> T: ...


def loses_lease(core: Sends, worker: str, held: bool, jid: str, event: str) -> bool:
    """Whether a notice on the worker channel means this process lost ``jid``'s lease
    (``held``: the process holds it). Called on the listener's thread (it may read the
    job through the core, on that thread's connection).

    ``canceled`` always does. A ``lock_lost`` notice can be stale: this worker reclaimed
    the job itself in the same pop that sent it (same name after a restart, or its own
    lock ran out), or the grace period still leaves it ours. Heartbeats tell if that
    changes."""
    if event == "canceled":
        return True
    if event != "lock_lost" or not held:
        return False
    try:
        owner = core.send(owner_call(jid))
    except Exception:  # cannot tell: assume the notice is right
        return True
    if owner == ("running", worker):
        log.info("job %s: lock_lost notice, but the job is still ours", jid)
        return False
    return True


def _value(conn: Connection, *args: Arg) -> Any:
    """``conn.call(*args)``; an error reply is raised as ``values`` raises it (a passing
    condition, or an UnexpectedReply naming the command)."""
    try:
        return conn.call(*args)
    except ReplyError as exc:
        values([args], [exc])
        raise  # values raised already


def _server_info(conn: Connection) -> dict[str, str]:
    """INFO's server section, as the fields ``calls.events.sharded`` reads."""
    info = _value(conn, "INFO", "server")
    text = info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)
    fields = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {name: value.strip() for name, value in fields}


def _kind(message: Any) -> str:
    """The type of a pub/sub push (``message``, ``subscribe``, ``pong``...), or ''."""
    if isinstance(message, list) and message and isinstance(message[0], bytes):
        return message[0].decode("ascii", "replace")
    return ""
