"""A small RESP2 connection for a worker's own traffic: core calls, pub/sub, a few reads.

Workers do not go through redis-py, for two measured reasons (docs/performance.md):

- Start-up. Importing redis-py takes about 0.1 s (it imports its asyncio, cluster and
  telemetry layers up front), most of a worker's time from spawn to its first job. This
  module needs only ``socket`` and ``hiredis`` (a dependency of ``redis[hiredis]``).
- Per call. A socket with a timeout polls before every send and every receive; here the
  socket stays blocking and the kernel enforces the timeout (``SO_RCVTIMEO``), so a call
  is one ``write`` and one ``recv``.
- Waiting for a reply. A connection may first spin for a reply (``spin`` seconds of
  non-blocking reads, yielding the CPU between them) before it blocks: a thread that
  sleeps in ``recv`` is woken by the kernel when the reply lands, and on a virtual machine
  that wake-up can cost more than the command itself (docs/performance.md, "Seventh
  session"). Only replies to commands spin; reads with a timeout (pub/sub) never do.

Plain clients keep redis-py (``client.redis``); see ``qless_py.client.core`` for who uses what.
Both are built from one :class:`~qless_py.connect.endpoint.Endpoint`, and both open their
sockets with ``qless_py.connect.dial`` (TLS) and find a Sentinel-managed master with
``qless_py.connect.sentinel``, or a cluster's with ``qless_py.connect.cluster`` (asked over
this module's connections: :func:`locate`).
A new connection sends AUTH, SELECT and CLIENT SETNAME as the endpoint says; a refusal
there is :class:`SetupFailed`. Replies are hiredis's: ``bytes``, ``int``, lists, ``None``;
an error reply is returned or raised as :class:`ReplyError`; a READONLY, MOVED or ASK reply
closes the connection, so the next command finds the current master. The errors and the encoder are
``qless_py.connect.wire``'s, named here too because this connection raises them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import socket
import sys
import termios
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

import hiredis

from qless_py.connect import cluster
from qless_py.connect.dial import closed_at_once, open_socket, tls_refusal
from qless_py.connect.endpoint import Endpoint
from qless_py.connect.locate import locate as locate_by
from qless_py.connect.wire import (
    Arg,
    ConnectionFailed,
    ReplyError,
    RespError,
    ServerUnavailable,
    SetupFailed,
    UnexpectedReply,
    bulk,
    encode_arg,
    values,
)
from qless_py.connect.wire import pack as _pack_slowly

__all__ = ["NOTHING", "Arg", "Connection", "ConnectionFailed", "Endpoint", "ReplyError",
           "RespError", "ServerUnavailable", "SetupFailed", "Transport", "UnexpectedReply",
           "bulk", "cluster_slots", "encode_arg", "locate", "pack", "values"]


# Counts forks, so that a child notices the per-thread connections it inherited without a
# getpid() system call per command.
_forks = 0


def _count_fork() -> None:
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_count_fork)


def pack(args: Sequence[Arg]) -> bytes:
    """One command in RESP (hiredis's packer: the same bytes as ``wire.pack`` for every
    accepted type, in a third of the time; wire's message for a refused one)."""
    try:
        return bytes(_pack_command(args if type(args) is tuple else tuple(args)))
    except TypeError:
        return _pack_slowly(args)


_pack_command: Any = hiredis.pack_command  # its stub types the argument as a 1-tuple


class Connection:
    """One server connection; connects on first use and again after it was closed.

    Not thread-safe: a thread uses its own (see :class:`Transport`).
    """

    def __init__(self, endpoint: Endpoint, spin: float = 0.0) -> None:
        self.endpoint = endpoint
        self._sock: socket.socket | None = None
        self._fd = -1
        self._poll: Any = None  # POLLIN on the socket: the stale check, once per command
        self._reader: Any = None
        self._made_in = _forks
        self.spin_ns = int(spin * 1e9)  # how long a reply is waited for before blocking
        self.spin_hits = self.spin_misses = 0  # replies caught spinning / slept for
        self._miss_streak = 0  # spins in a row that caught nothing
        self._rest = 0  # reads left that sleep at once after too many missed spins
        self.received = 0  # bytes read from the server, over every socket of this object
        # Set by a reader whose `received` another thread reads (see waiting_bytes): a read
        # and the count of its bytes then happen under it.
        self.count_lock: threading.Lock | None = None

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def connect(self) -> None:
        """Connect (to the current master of a Sentinel service or of a cluster namespace's
        slot, if the endpoint says so),
        authenticate, select the database and name the connection.

        Raises :class:`SetupFailed` when the server refuses us for good (credentials,
        ACL, TLS), :class:`ConnectionFailed` when it cannot be reached now.
        """
        ep = self.endpoint
        target = locate(ep)
        sock = open_socket(target)
        self._sock, self._fd = sock, (-1 if ep.tls else sock.fileno())
        self._poll = select.poll()
        self._poll.register(sock, select.POLLIN)
        self._made_in = _forks
        self._reader = hiredis.Reader(replyError=ReplyError)
        hello = opening_commands(ep)
        if not hello:
            return
        try:
            replies = self.pipeline([argv for _, argv in hello])
        except ConnectionFailed as exc:
            raise opening_failure(target, exc) from exc
        refused = opening_refusal(target, hello, replies)
        if refused is not None:
            self.close()
            raise refused

    def close(self, shutdown: bool = True) -> None:
        """Close the socket. ``shutdown`` (as redis-py does) ends the connection for the
        server at once; it is skipped in a forked child, where the socket is shared with
        the parent that made it."""
        sock, self._sock, self._fd, self._poll = self._sock, None, -1, None
        if sock is not None:
            if shutdown and self._made_in == _forks:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def __del__(self) -> None:
        self.close(shutdown=False)

    def waiting_bytes(self) -> int:
        """Bytes the server sent that this connection has not read yet (0 if unknown).

        ``received + waiting_bytes()`` read under ``count_lock`` is how far the server's
        stream to this connection had come: on a local socket, everything the server wrote
        here before it wrote the reply another connection of this process just read.
        Over TLS the kernel holds ciphertext, longer than what it decrypts to: 0 then,
        which only ever counts a notice as newer than it is."""
        sock = self._sock
        if sock is None or self._fd < 0:
            return 0
        size = bytearray(4)
        try:
            fcntl.ioctl(sock.fileno(), termios.FIONREAD, size)
        except (OSError, ValueError):
            return 0
        return int.from_bytes(size, sys.byteorder)

    def interrupt(self) -> None:
        """End the connection from another thread: a thread waiting in ``read`` wakes and
        fails as if the server had closed it. (The plain socket's shutdown: a TLS socket's
        own would unwrap it under the reading thread.)"""
        sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def stale(self) -> bool:
        """True (and closed) when the server closed the connection or sent something
        unasked: a reply can then not be trusted to belong to the next command."""
        poll = self._poll
        if poll is not None and poll.poll(0):  # readable, hung up or in error
            self.close()
            return True
        return False

    def send(self, data: bytes) -> None:
        if self._sock is None:
            self.connect()
        sock = self._sock
        assert sock is not None
        try:
            sent = os.write(self._fd, data) if self._fd >= 0 else 0
            if sent < len(data):
                sock.sendall(data[sent:])
        except OSError as exc:
            self.close()
            reason = "Timeout writing to socket" if isinstance(
                exc, (BlockingIOError, TimeoutError)) else f"Error writing to socket: {exc}"
            raise ConnectionFailed(f"{reason} ({self.endpoint})") from exc

    def read(self, timeout: float | None = -1.0) -> Any:
        """The next reply. ``timeout`` >= 0: wait at most that long and return the
        ``NOTHING`` marker if no reply came; the default waits as the endpoint says."""
        reader = self._reader
        sock = self._sock
        if sock is None or reader is None:
            raise ConnectionFailed(f"not connected ({self.endpoint})")
        while True:
            reply = reader.gets()
            if reply is not False:
                return reply
            if timeout is not None and timeout >= 0 and not _pending(sock) and \
                    not select.select([sock], [], [], timeout)[0]:
                return NOTHING
            lock = self.count_lock
            if lock is not None:
                lock.acquire()
            try:
                data = None
                if self.spin_ns and timeout == -1.0 and self._fd >= 0:
                    if self._rest:
                        self._rest -= 1
                    else:
                        data = self._spin(sock)
                if data is None:
                    data = sock.recv(65536)
                self.received += len(data)
            except OSError as exc:
                self.close()
                reason = "Timeout reading from socket" if isinstance(
                    exc, (BlockingIOError, TimeoutError)) else f"Error reading from socket: {exc}"
                raise ConnectionFailed(f"{reason} ({self.endpoint})") from exc
            finally:
                if lock is not None:
                    lock.release()
            if not data:
                self.close()
                raise ConnectionFailed(f"Connection closed by server ({self.endpoint})")
            reader.feed(data)

    def _spin(self, sock: socket.socket) -> bytes | None:
        """What arrives within ``spin_ns`` (b"" if the server closed), else None.

        Non-blocking reads with ``sched_yield`` between them: a process that is runnable
        on this CPU (the server, on a small machine) runs first, and this thread stays
        awake for a reply that is microseconds away instead of sleeping and being woken.
        Spinning only pays when replies come that fast: after ``SPIN_MISSES`` spins in a
        row that caught nothing (a distant server, slow commands), the next ``SPIN_REST``
        reads sleep at once, and then spinning is tried again.
        """
        deadline = _clock_ns() + self.spin_ns
        while True:
            try:
                data = sock.recv(65536, _NOWAIT)
            except BlockingIOError:
                if _clock_ns() > deadline:
                    self.spin_misses += 1
                    self._miss_streak += 1
                    if self._miss_streak >= SPIN_MISSES:
                        self._miss_streak, self._rest = 0, SPIN_REST
                    return None
                _yield()
                continue
            self.spin_hits += 1
            self._miss_streak = 0
            return data

    def call(self, *args: Arg) -> Any:
        """Send one command and return its reply; an error reply is raised.

        A READONLY, MOVED or ASK reply also closes the connection, so that the next command
        connects again and finds the current master (through Sentinel or the cluster's
        seeds, or a name that moved)."""
        self.send(pack(args))
        reply = self.read()
        if isinstance(reply, ReplyError):
            if reply.redirected:
                self.close()
            raise reply
        return reply

    def pipeline(self, commands: Sequence[Sequence[Arg]]) -> list[Any]:
        """Send the commands in one write; their replies in order (errors as objects)."""
        return self.exchange(b"".join([pack(args) for args in commands]), len(commands))

    def exchange(self, payload: bytes, count: int) -> list[Any]:
        """Send ``count`` commands already packed into ``payload``; their ``count`` replies.

        A READONLY, MOVED or ASK reply among them closes the connection afterwards (see
        :meth:`call`)."""
        self.send(payload)
        replies = [self.read() for _ in range(count)]
        for reply in replies:
            if type(reply) is ReplyError and reply.redirected:
                self.close()
                break
        return replies


def opening_commands(ep: Endpoint) -> list[tuple[str, list[Arg]]]:
    """What a new connection sends first, labelled for messages (without secrets):
    AUTH (credentials from the endpoint or its credential provider), SELECT, CLIENT
    SETNAME."""
    commands: list[tuple[str, list[Arg]]] = []
    username, password = ep.username, ep.password
    if ep.credential_provider is not None:
        given = ep.credential_provider.get_credentials()
        username, password = (None, given[0]) if len(given) == 1 else given
    if password is not None:
        commands.append(("AUTH", ["AUTH", username, password] if username
                         else ["AUTH", password]))
    if ep.db:
        commands.append((f"SELECT {ep.db}", ["SELECT", ep.db]))
    if ep.client_name:
        commands.append(("CLIENT SETNAME", ["CLIENT", "SETNAME", ep.client_name]))
    if ep.tls and not commands:
        # a server that refuses our TLS client says so only on the first read: ask now,
        # so the refusal is seen as one (SetupFailed) rather than as a broken call
        commands.append(("PING", ["PING"]))
    return commands


def opening_failure(target: Endpoint, exc: ConnectionFailed) -> ConnectionFailed | SetupFailed:
    """What to raise when sending the opening commands failed on the connection: a refusal
    that retrying cannot mend (``SetupFailed``), else the failure itself."""
    # TLS 1.3 reports a refused client certificate only on the first read
    if tls_refusal(exc.__cause__ or exc):
        return SetupFailed(f"TLS with {target}: {exc.__cause__}")
    return closed_at_once(target, exc) or exc


def opening_refusal(target: Endpoint, hello: list[tuple[str, list[Arg]]],
                    replies: list[Any]) -> ConnectionFailed | SetupFailed | None:
    """The error for the first opening command the server refused, or None: a server
    still starting up (LOADING, ...) is a passing ``ConnectionFailed``, anything else a
    ``SetupFailed`` naming the command."""
    for (label, _), reply in zip(hello, replies, strict=True):
        if isinstance(reply, ReplyError):
            if reply.unavailable:
                return ConnectionFailed(f"{target}: {reply}")
            return SetupFailed(f"{target} refused {label}: {reply}")
    return None


def locate(ep: Endpoint) -> Endpoint:
    """The direct endpoint to connect to for ``ep``: itself, the current master of its
    Sentinel service, or the master of its namespace's slot in a cluster, asked over
    blocking connections."""
    return locate_by(ep, _ask)


def _ask(question: Any) -> Any:
    """Answer a question of ``qless_py.connect.locate``'s searches."""
    if isinstance(question, cluster.Pause):
        time.sleep(question.seconds)
        return None
    conn = Connection(question.endpoint)
    try:
        (reply,) = conn.pipeline([question.command()])
    finally:
        conn.close()
    return question.read(reply)


def cluster_slots(ep: Endpoint) -> list[tuple[int, int, tuple[str, int]]]:
    """``(first slot, last slot, master address)`` of every slot range of ``ep``'s cluster,
    as the first seed that answers ``CLUSTER SLOTS`` lists them; ConnectionFailed when
    none does."""
    problems = []
    for host, port in ep.cluster:
        conn = Connection(cluster.node_endpoint(ep, host, port))
        try:
            reply = conn.call("CLUSTER", "SLOTS")
        except RespError as exc:
            problems.append(f"{host}:{port}: {exc}")
            continue
        finally:
            conn.close()
        return cluster.ranges(reply, host)
    raise ConnectionFailed(f"no seed of the cluster answers CLUSTER SLOTS: "
                           f"{'; '.join(problems) or 'no seeds given'}")


class _Nothing:
    def __repr__(self) -> str:
        return "NOTHING"


NOTHING: Any = _Nothing()
"""What :meth:`Connection.read` returns when its timeout passed without a reply."""

SPIN_MISSES, SPIN_REST = 8, 256  # see Connection._spin
_clock_ns = time.monotonic_ns
_yield = getattr(os, "sched_yield", lambda: None)
_NOWAIT = socket.MSG_DONTWAIT


def _pending(sock: socket.socket) -> bool:
    """TLS may hold decrypted bytes that select() cannot see."""
    pending = getattr(sock, "pending", None)
    return bool(pending and pending())


class Transport:
    """Connections to one endpoint: one per thread (and per forked process).

    ``spin`` (seconds) is how long the per-thread connections wait for a reply awake
    before they block (see :meth:`Connection._spin`); subscribers never spin.
    """

    def __init__(self, endpoint: Endpoint, spin: float = 0.0) -> None:
        self.endpoint = endpoint
        self.spin = spin
        self._local = threading.local()
        self._all: weakref.WeakSet[Connection] = weakref.WeakSet()
        self._lock = threading.Lock()

    def connection(self) -> Connection:
        """This thread's connection; a fresh one after a fork."""
        local = self._local
        conn: Connection | None = getattr(local, "conn", None)
        if conn is None or local.forks != _forks:
            conn = self.new_connection(self.spin)
            local.conn, local.forks = conn, _forks
        return conn

    def new_connection(self, spin: float = 0.0) -> Connection:
        """A connection of its own (for a subscriber, say: it never spins unless told to);
        closed by :meth:`close` too."""
        conn = Connection(self.endpoint, spin)
        with self._lock:
            self._all.add(conn)
        return conn

    def ready(self) -> Connection:
        """This thread's connection, checked first: a connection the server closed (a
        restart, say) is found before anything is sent, so no call is left in doubt."""
        conn = self.connection()
        conn.stale()
        return conn

    def call(self, *args: Arg) -> Any:
        """One command on this thread's connection; an error reply is raised."""
        return self.ready().call(*args)

    def pipeline(self, commands: Sequence[Sequence[Arg]]) -> list[Any]:
        return self.ready().pipeline(commands)

    def close(self) -> None:
        with self._lock:
            conns = list(self._all)
        for conn in conns:
            conn.close()
