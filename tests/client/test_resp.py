"""qless_py.connect.resp, the workers' own RESP connection, against real servers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
import redis

from qless_py import Client
from qless_py.connect.resp import (
    NOTHING,
    SPIN_MISSES,
    SPIN_REST,
    Arg,
    Connection,
    ConnectionFailed,
    Endpoint,
    ReplyError,
    SetupFailed,
    Transport,
    bulk,
    pack,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize(("url", "expected"), [
    ("redis://localhost", Endpoint(host="localhost")),
    ("redis://10.0.0.2:6400/3", Endpoint(host="10.0.0.2", port=6400, db=3)),
    ("redis://:s%40cret@h:1/0", Endpoint(host="h", port=1, password="s@cret")),
    ("redis://alice:pw@h/2", Endpoint(host="h", db=2, username="alice", password="pw")),
    ("redis://h/1?db=4&socket_timeout=2.5",
     Endpoint(host="h", db=4, timeout=2.5, connect_timeout=2.5)),
    ("rediss://h:7000/0?ssl_cert_reqs=none",
     Endpoint(host="h", port=7000, tls=True, ssl_cert_reqs="none")),
    ("unix:///tmp/r.sock?db=5&password=x",
     Endpoint(host="", port=0, path="/tmp/r.sock", db=5, password="x")),
])
def test_urls_parse_as_redis_py_reads_them(url: str, expected: Endpoint) -> None:
    assert Endpoint.from_url(url) == expected
    # the same URL gives redis-py the same place to connect to
    kwargs = redis.Redis.from_url(url).connection_pool.connection_kwargs
    assert kwargs.get("db", 0) == expected.db
    assert kwargs.get("password") == expected.password
    assert kwargs.get("path", None) == expected.path


@pytest.mark.parametrize("url", ["http://h", "h:6379", "unix://"])
def test_bad_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        Endpoint.from_url(url)


def test_timeout_argument_is_the_default_for_both_timeouts() -> None:
    ep = Endpoint.from_url("redis://h", timeout=3.0)
    assert (ep.timeout, ep.connect_timeout) == (3.0, 3.0)


def test_pack_gives_the_bytes_of_bulk_for_every_argument_type() -> None:
    args: list[Arg] = ["EVALSHA", b"\x00\xff", 0, -5, 2**70, 0.1, 1e20, 1e-7, -0.0,
                       1700000000.123456, "\u00e9", ""]
    assert pack(args) == b"*%d\r\n" % len(args) + b"".join(bulk(a) for a in args)
    assert pack(tuple(args)) == pack(args)
    with pytest.raises(TypeError, match="str, bytes, int or float, not bool"):
        pack(["SET", "k", True])


@pytest.mark.parametrize("spin", [0.0, 0.05])
def test_calls_pipelines_and_error_replies(server_url: str, spin: float) -> None:
    conn = Connection(Endpoint.from_url(server_url), spin=spin)
    assert conn.call("SET", "k", "v") == b"OK"
    assert conn.call("GET", "k") == b"v"
    assert conn.call("INCRBYFLOAT", "n", 1.5) == b"1.5"
    with pytest.raises(ReplyError, match="WRONGTYPE"):
        conn.call("LPUSH", "k", "x")
    replies = conn.pipeline([["GET", "k"], ["HGET", "k", "f"], ["GET", "missing"]])
    assert replies[0] == b"v" and isinstance(replies[1], ReplyError) and replies[2] is None
    assert conn.call("GET", "k") == b"v"  # the stream stayed in step after the errors
    conn.close()


@pytest.mark.parametrize("spin", [0.0, 0.05])
def test_large_values_cross_the_socket_whole(server_url: str, spin: float) -> None:
    conn = Connection(Endpoint.from_url(server_url, timeout=10), spin=spin)
    blob = os.urandom(4 * 1024 * 1024)
    assert conn.call("SET", "big", blob) == b"OK"
    assert conn.call("GET", "big") == blob
    conn.close()


def test_read_with_a_timeout_returns_nothing_when_no_reply_comes(server_url: str) -> None:
    conn = Connection(Endpoint.from_url(server_url))
    conn.send(pack(["SUBSCRIBE", "ch"]))
    assert conn.read()[0] == b"subscribe"
    assert conn.read(timeout=0.05) is NOTHING
    redis.Redis.from_url(server_url).publish("ch", "hello")
    assert conn.read(timeout=5) == [b"message", b"ch", b"hello"]
    conn.close()


def test_a_frozen_server_times_out_and_a_restarted_one_is_reached_again(
        private_server: Any) -> None:
    server = private_server("valkey", appendonly=True)
    conn = Connection(Endpoint.from_url(server.url, timeout=0.3))
    assert conn.call("PING") == b"PONG"
    server.signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(ConnectionFailed, match="Timeout reading"):
            conn.call("PING")
        assert time.monotonic() - started < 3
        assert not conn.connected  # a reply may still come: the stream is not reused
    finally:
        server.signal(signal.SIGCONT)
    assert conn.call("PING") == b"PONG"  # connects again on use
    server.restart()
    assert conn.stale()  # the restart closed it; found before anything is sent
    assert conn.call("PING") == b"PONG"
    conn.close()


@pytest.mark.parametrize("spin", [0.0, 0.05])
def test_closed_by_the_server_is_a_connection_error(server_url: str, spin: float) -> None:
    conn = Connection(Endpoint.from_url(server_url), spin=spin)
    conn.call("CLIENT", "SETNAME", "to-kill")
    redis.Redis.from_url(server_url).client_kill_filter(_type=None, skipme=True)
    with pytest.raises(ConnectionFailed):
        conn.call("PING")
    assert conn.call("PING") == b"PONG"


def test_a_spinning_connection_catches_quick_replies_awake_and_sleeps_for_slow_ones(
        server_url: str) -> None:
    conn = Connection(Endpoint.from_url(server_url), spin=0.05)
    assert conn.call("PING") == b"PONG"  # connects (AUTH/SELECT replies spin too, if any)
    hits = conn.spin_hits
    assert conn.call("PING") == b"PONG"
    assert (conn.spin_hits, conn.spin_misses) == (hits + 1, 0)
    conn.spin_ns = int(0.005 * 1e9)
    # BLPOP answers after 0.2 s: the spin gives up and the blocking read gets the reply
    assert conn.call("BLPOP", "empty-list", "0.2") is None
    assert conn.spin_misses == 1
    assert conn.call("PING") == b"PONG"  # still in step
    transport = Transport(Endpoint.from_url(server_url), spin=0.05)
    assert transport.connection().spin_ns == 50_000_000
    assert transport.new_connection().spin_ns == 0  # subscribers never spin
    still = Connection(Endpoint.from_url(server_url))
    assert still.call("PING") == b"PONG"
    assert (still.spin_hits, still.spin_misses) == (0, 0)
    for c in (conn, still):
        c.close()
    transport.close()


def test_spinning_rests_after_a_run_of_misses_and_then_tries_again(server_url: str) -> None:
    # a server whose replies never come within the spin (far away, or slow commands)
    # must not cost a spin on every call
    conn = Connection(Endpoint.from_url(server_url), spin=0.005)
    for _ in range(SPIN_MISSES):
        assert conn.call("BLPOP", "empty-list", "0.05") is None
    assert conn.spin_misses == SPIN_MISSES
    for _ in range(SPIN_REST):
        assert conn.call("PING") == b"PONG"
    assert (conn.spin_hits, conn.spin_misses) == (0, SPIN_MISSES)  # slept at once
    assert conn.call("PING") == b"PONG"
    # spinning again: the reply was caught spinning, or (on a busy machine) the spin missed
    assert conn.spin_hits + conn.spin_misses == SPIN_MISSES + 1
    conn.close()


def test_reads_with_a_timeout_never_spin(server_url: str) -> None:
    conn = Connection(Endpoint.from_url(server_url), spin=0.05)
    conn.send(pack(["SUBSCRIBE", "ch"]))
    assert conn.read(timeout=5)[0] == b"subscribe"
    assert conn.read(timeout=0.01) is NOTHING
    assert (conn.spin_hits, conn.spin_misses) == (0, 0)
    conn.close()


def test_password_user_and_database_are_sent_on_connect(private_server: Any) -> None:
    server = private_server("valkey")
    admin = redis.Redis.from_url(server.url)
    admin.execute_command("ACL", "SETUSER", "alice", "on", ">pw", "~*", "&*", "+@all")
    admin.config_set("requirepass", "secret")
    admin = redis.Redis.from_url(server.url, password="secret")
    admin.select(3)
    admin.set("where", "three")
    path = server.url[len("unix://"):]
    conn = Connection(Endpoint(path=path, password="secret", db=3))
    assert conn.call("GET", "where") == b"three"
    conn = Connection(Endpoint(path=path, username="alice", password="pw", db=3))
    assert conn.call("ACL", "WHOAMI") == b"alice"
    bad = Connection(Endpoint(path=path, password="wrong"))
    with pytest.raises(SetupFailed, match="refused AUTH: WRONGPASS"):
        bad.call("PING")
    assert not bad.connected
    admin.config_set("requirepass", "")


def test_each_thread_has_its_own_connection_and_a_fork_gets_a_new_one(
        server_url: str) -> None:
    import threading

    transport = Transport(Endpoint.from_url(server_url))
    mine = transport.connection()
    assert transport.connection() is mine
    seen: list[Connection] = []
    thread = threading.Thread(target=lambda: seen.append(transport.connection()))
    thread.start()
    thread.join()
    assert seen[0] is not mine
    assert transport.call("PING") == b"PONG"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        ok = transport.connection() is not mine and transport.call("PING") == b"PONG"
        os.write(write, b"1" if ok else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    assert transport.call("PING") == b"PONG"  # the parent's connection survived the child
    transport.close()
    assert not mine.connected


def test_a_worker_never_imports_redis_py(server_url: str) -> None:
    # redis-py's import is most of a worker's start-up; the worker path must not need it,
    # nor the other imports it has no use for with JSON data (msgpack, base64, hashlib's
    # OpenSSL).
    code = (
        "import sys\n"
        "from qless_py import Client\n"
        "from qless_py.workers import Worker\n"
        "import qless_py.cli.worker\n"
        "class Job:\n"
        "    @staticmethod\n"
        "    def process(job):\n"
        "        pass\n"
        f"client = Client({server_url!r}, worker_name='w')\n"
        "worker = Worker(client, ['q'], burst=True, handle_signals=False)\n"
        "client.queues['q'].put('__main__.Job', {}, jid='j')\n"
        "worker.run()\n"
        "unused = ['redis', 'msgpack', 'base64', '_hashlib']\n"
        "print(client.jobs['j'].state, [m for m in unused if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True)
    assert out.stdout.strip() == "complete []"
    # and a plain client works as before, importing it on first use
    client = Client(server_url)
    client.queues["q"].put("x.Y", {}, jid="a")
    assert client.jobs["a"] is not None and "redis" in sys.modules


def test_a_failed_plain_connection_does_not_import_ssl() -> None:
    # A worker's plain connections never need the ssl module (nor base64, which it
    # imports): not even to tell whether a failed connection was a TLS refusal.
    code = (
        "import socket, sys\n"
        "from qless_py.connect.dial import closed_at_once, open_socket\n"
        "from qless_py.connect.endpoint import Endpoint\n"
        "from qless_py.connect.wire import ConnectionFailed\n"
        "probe = socket.socket(); probe.bind(('127.0.0.1', 0))\n"
        "port = probe.getsockname()[1]; probe.close()  # a port nothing listens on\n"
        "ep = Endpoint.from_url(f'redis://127.0.0.1:{port}/0')\n"
        "try:\n"
        "    open_socket(ep)\n"
        "except ConnectionFailed as exc:\n"
        "    print('refused', closed_at_once(ep, exc), 'ssl' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True)
    assert out.stdout.strip() == "refused None False", out.stderr
