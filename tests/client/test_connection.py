"""Client construction, URL forms, script loading and error mapping on real servers."""

from __future__ import annotations

import os
import signal
import socket
import threading
from typing import Any

import pytest
import redis

from qless_py import (
    Client,
    CoreError,
    JobGoneError,
    JobNotFoundError,
    LockLostError,
    QlessConnectionError,
    QlessError,
)
from qless_py.errors import error_from_reply
from tests.client.conftest import AnyClient, run
from tests.conftest import PrivateServerFactory


def test_worker_name_defaults_to_host_and_pid(server_url: str) -> None:
    client = Client(server_url)
    assert client.worker_name == f"{socket.gethostname()}-{os.getpid()}"
    client.worker_name = "renamed"
    job_jid = client.queues["q"].put("tests.client.jobs.Noop", {})
    job = client.queues["q"].pop()
    assert job is not None and job.jid == job_jid and job.worker_name == "renamed"
    client.close()


def test_url_falls_back_to_qless_url(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QLESS_URL", server_url)
    client = Client()
    assert client.url == server_url
    client.queues["q"].put("x.Y", {}, jid="a")
    assert client.jobs["a"] is not None
    client.close()


def test_url_defaults_to_localhost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QLESS_URL", raising=False)
    client = Client()  # connects lazily, so nothing needs to listen
    assert client.url == "redis://127.0.0.1:6379/0"


def test_tcp_url_and_unix_url_see_the_same_data(private_server: PrivateServerFactory) -> None:
    from qless_py.server import free_port

    server = private_server("valkey", port=free_port())
    tcp = Client(f"redis://127.0.0.1:{server.port}/0")
    tcp.queues["q"].put("x.Y", {"n": 1}, jid="a")
    unix = Client(server.url)
    assert server.url.startswith("unix://")
    job = unix.jobs["a"]
    assert job is not None and job.data == {"n": 1}
    unix.close()
    tcp.close()


def test_rediss_url_selects_tls() -> None:
    # connects lazily; tests/connections/test_tls.py talks to a TLS server
    client = Client("rediss://127.0.0.1:6390/0")
    assert client.settings.tls and client.settings.port == 6390
    assert client.endpoint().tls


@pytest.mark.asyncio
async def test_script_is_reloaded_after_script_flush(client: AnyClient,
                                                     redis_conn: redis.Redis) -> None:
    await run(client.queues["q"].put("x.Y", {}, jid="a"))
    redis_conn.script_flush()
    assert redis_conn.script_exists(client.core.sha) == [False]
    await run(client.queues["q"].put("x.Y", {}, jid="b"))
    assert redis_conn.script_exists(client.core.sha) == [True]
    assert {j.jid for j in await run(client.queues["q"].peek(10))} == {"a", "b"}


def test_script_is_reloaded_after_server_restart(private_server: PrivateServerFactory) -> None:
    server = private_server("valkey", appendonly=True)
    client = Client(server.url)
    client.queues["q"].put("x.Y", {}, jid="a")
    server.restart()
    client.queues["q"].put("x.Y", {}, jid="b")  # NOSCRIPT after restart: loaded again
    assert client.jobs["b"] is not None
    client.close()


@pytest.mark.asyncio
async def test_core_errors_are_typed_and_keep_the_server_message(client: AnyClient) -> None:
    queue = client.queues["q"]
    await run(queue.put("x.Y", {}, jid="a"))
    with pytest.raises(LockLostError, match="not currently running"):
        await run(client("complete", "a", "worker", "q", "{}"))
    with pytest.raises(JobNotFoundError, match="Job nope does not exist"):
        await run(client("priority", "nope", 1))
    with pytest.raises(CoreError, match="Unknown command nope"):
        await run(client("nope"))
    job = await run(queue.pop(worker="w1"))
    assert job is not None
    with pytest.raises(LockLostError, match="another worker: w1"):
        await run(client("heartbeat", "a", "w2"))
    assert issubclass(CoreError, QlessError) and issubclass(QlessConnectionError, QlessError)


@pytest.mark.asyncio
async def test_holder_commands_on_a_vanished_job_raise_lock_lost(client: AnyClient) -> None:
    await run(client.queues["q"].put("x.Y", {}, jid="a"))
    job = await run(client.queues["q"].pop())
    assert job is not None
    await run((await run(client.jobs["a"])).cancel())
    with pytest.raises(JobGoneError) as info:
        await run(job.heartbeat())
    assert isinstance(info.value, LockLostError) and isinstance(info.value, JobNotFoundError)
    assert job.lease_gone is not None and job.settling is None


def test_error_mapping_by_phrase() -> None:
    text = "ERR user_script:1: Fail(): Job abcdoes not exist script: 123"
    assert type(error_from_reply(text, "fail")) is JobGoneError
    assert type(error_from_reply(text, "get")) is JobNotFoundError
    assert type(error_from_reply("LOADING Redis is loading")) is QlessConnectionError
    assert type(error_from_reply("ERR something else")) is CoreError


def test_unreachable_server_raises_connection_error(private_server: PrivateServerFactory) -> None:
    server = private_server("valkey")
    client = Client(server.url)
    client.queues["q"].put("x.Y", {}, jid="a")
    server.stop()
    with pytest.raises(QlessConnectionError):
        client.queues["q"].put("x.Y", {}, jid="b")
    with pytest.raises(QlessConnectionError):
        client.jobs["a"]
    client.close()


def _evalsha_calls(conn: redis.Redis) -> int:
    stats = conn.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0))


def test_a_write_is_not_repeated_after_a_timeout(private_server: PrivateServerFactory) -> None:
    server = private_server("valkey")
    admin = redis.Redis.from_url(server.url)
    client = Client(server.url + "?socket_timeout=0.3")
    client.queues["q"].put("x.Y", {}, jid="a")  # loads the script
    admin.config_resetstat()
    server.signal(signal.SIGSTOP)
    try:
        with pytest.raises(QlessConnectionError, match="may or may not have run"):
            client.queues["q"].put("x.Y", {}, jid="b")
    finally:
        server.signal(signal.SIGCONT)
    # The server ran what had been sent once it woke up; the client did not send it again.
    assert client.jobs["b"] is not None
    assert _evalsha_calls(admin) == 2  # the put and the get just above
    admin.close()
    client.close()


def test_a_read_is_retried_once(private_server: PrivateServerFactory) -> None:
    server = private_server("valkey")
    client = Client(server.url + "?socket_timeout=1.0")
    client.queues["q"].put("x.Y", {}, jid="a")
    server.signal(signal.SIGSTOP)
    # The first attempt times out after 1 s; the server wakes at 1.3 s, during the retry.
    waker = threading.Timer(1.3, server.signal, (signal.SIGCONT,))
    waker.start()
    try:
        job = client.jobs["a"]
    finally:
        waker.join()
        server.signal(signal.SIGCONT)
    assert job is not None and job.jid == "a"
    client.close()


def test_unknown_url_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="redis://, rediss://, unix://"):
        Client("http://127.0.0.1:6379")


def test_a_busy_server_raises_connection_error(private_server: PrivateServerFactory) -> None:
    server = private_server("valkey")
    admin = redis.Redis.from_url(server.url)
    admin.config_set("busy-reply-threshold", 20)  # ms before others get BUSY replies
    client = Client(server.url)
    client.queues["q"].put("x.Y", {}, jid="a")
    blocker = redis.Redis.from_url(server.url)

    def spin() -> None:
        with pytest.raises(redis.ResponseError):  # ended by SCRIPT KILL below
            blocker.eval("local i = 0 while true do i = i + 1 end", 0)

    thread = threading.Thread(target=spin)
    thread.start()
    pause = threading.Event()
    error: QlessError | None = None
    try:
        for _ in range(200):
            try:
                client.jobs["a"]
            except QlessConnectionError as exc:
                error = exc
                break
            pause.wait(0.01)
    finally:
        killer = redis.Redis.from_url(server.url)
        for _ in range(200):
            try:
                killer.script_kill()
                break
            except redis.ResponseError:  # NOTBUSY: the script has not started yet
                pause.wait(0.01)
        thread.join(5)
        killer.close()
    assert error is not None and "BUSY" in str(error)
    assert client.jobs["a"] is not None  # fine again once the script is gone
    for conn in (admin, blocker):
        conn.close()
    client.close()


def test_client_is_a_context_manager(server_url: str) -> None:
    with Client(server_url) as client:
        client.events.start()
        client.queues["q"].put("x.Y", {}, jid="a")
    assert not client.events.listening()


def test_pop_and_complete_work_after_a_server_restart(private_server: PrivateServerFactory) -> None:
    # pop and complete run on a connection each thread keeps; a restart closes it under
    # the client, which must notice, reconnect and reload the script on its own.
    server = private_server("valkey", appendonly=True)
    client = Client(server.url, worker_name="w")
    queue = client.queues["q"]
    for jid in ("a", "b"):
        queue.put("x.Y", {}, jid=jid)
    first = queue.pop()
    assert first is not None and first.jid == "a"
    first.complete()
    server.restart()
    second = queue.pop()
    assert second is not None and second.jid == "b"
    assert second.complete() == "complete"
    assert client.jobs["b"] is not None and client.jobs["b"].state == "complete"
    client.close()


def test_a_complete_larger_than_the_socket_buffer_is_written_whole(server_url: str) -> None:
    # A worker's calls are written with one write() on a blocking socket whose timeout the
    # kernel enforces; a command bigger than the socket buffer may be written short, is
    # finished by sendall, and must reach the server byte for byte.
    client = Client(server_url, worker_name="w", socket_timeout=10)
    client.core.go_direct(client.endpoint())  # as a Worker does
    queue = client.queues["q"]
    queue.put("x.Y", {}, jid="big")
    job = queue.pop()
    assert job is not None
    blob = os.urandom(3 * 1024 * 1024).hex()  # 6 MB of JSON string, far over any buffer
    job.data = {"blob": blob}
    assert job.complete() == "complete"
    done = client.jobs["big"]
    assert done is not None and done.data == {"blob": blob}
    client.close()


def test_plain_clients_send_through_redis_py_and_workers_do_not(
        server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tools that wrap redis-py's send_packed_command (the shared benchmark harness counts
    # round trips that way) must see a plain client's calls; a Worker opts out for speed.
    from redis.connection import AbstractConnection

    from qless_py.workers import Worker

    sent: list[int] = []
    original = AbstractConnection.send_packed_command

    def counting(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        first = command[0] if isinstance(command, list) else command
        if b"EVALSHA" in bytes(first)[:32]:
            sent.append(1)
        original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counting)
    client = Client(server_url, worker_name="w")
    client.core.load()  # no NOSCRIPT retry in the count
    client.queues["q"].put("x.Y", {}, jid="a")
    job = client.queues["q"].pop()
    assert job is not None and job.complete() == "complete"
    assert len(sent) == 3
    Worker(client, ["q"])
    assert client.core.transport is not None
    client.queues["q"].put("x.Y", {}, jid="b")
    job = client.queues["q"].pop()
    assert job is not None and job.complete() == "complete"
    assert len(sent) == 3  # nothing more went through redis-py's send path
    client.close()
