"""Events: a real subscriber on the core's channels, started and stopped deterministically."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from freezegun import freeze_time

from qless_py import Client
from tests.conftest import PrivateServerFactory
from tests.lookups import get_job, pop_job

NOOP = "tests.client.jobs.Noop"


@pytest.fixture
def client(sync_client: Client) -> Client:
    """The sync client's event thread (tests/aio/test_events.py has the async client's)."""
    return sync_client


@pytest.fixture
def other(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="other")
    yield c
    c.close()


class Recorder:
    def __init__(self) -> None:
        self.items: list[Any] = []
        self.seen = threading.Event()

    def __call__(self, value: Any) -> None:
        self.items.append(value)
        self.seen.set()


def test_tracked_job_events(client: Client) -> None:
    client.queues["q"].put(NOOP, {}, jid="jid")
    get_job(client, "jid").track()
    names = ["popped", "completed", "put", "failed", "canceled", "track", "untrack"]
    recorders = {name: Recorder() for name in names}
    for name, recorder in recorders.items():
        client.events.on(name, recorder)
    with client.events.thread():
        pop_job(client.queues["q"]).complete()
        client.queues["q"].put(NOOP, {}, jid="jid")
        pop_job(client.queues["q"]).fail("g", "m")
        client.untrack("jid")
        client.track("jid")
        get_job(client, "jid").cancel()
    expected = {name: ["jid"] for name in names}
    expected["popped"] = ["jid", "jid"]
    assert {name: r.items for name, r in recorders.items()} == expected


def test_an_expired_job_is_told_to_its_subscribers_and_on_the_log(client: Client) -> None:
    expired, logged = Recorder(), Recorder()
    client.events.on("expired", expired)
    client.events.on("log.expired", logged)
    with client.events.thread(), freeze_time("2026-01-01 00:00:00") as clock:
        client.queues["q"].put(NOOP, {}, jid="jid", ttl=10)
        client.track("jid")
        client.queues["q"].put(NOOP, {}, jid="other", ttl=10)
        clock.tick(11)
        assert client.queues["q"].pop() is None
    assert expired.items == ["jid"]  # tracked jobs only
    assert sorted(logged.items, key=lambda e: e["jid"]) == [
        {"jid": "jid", "event": "expired", "queue": "q"},
        {"jid": "other", "event": "expired", "queue": "q"}]


def test_untracked_jobs_publish_no_job_events(client: Client) -> None:
    popped = Recorder()
    client.events.on("popped", popped)
    client.queues["q"].put(NOOP, {}, jid="jid")
    with client.events.thread():
        client.queues["q"].pop()
    assert popped.items == []


def test_off_removes_a_callback(client: Client) -> None:
    popped, completed = Recorder(), Recorder()
    client.queues["q"].put(NOOP, {}, jid="jid")
    client.track("jid")
    client.events.on("popped", popped)
    client.events.on("completed", completed)
    assert client.events.off("popped") is popped
    with client.events.thread():
        pop_job(client.queues["q"]).complete()
    assert popped.items == [] and completed.items == ["jid"]


def test_unknown_event_is_refused(client: Client) -> None:
    with pytest.raises(NotImplementedError):
        client.events.on("foo", print)


def test_log_channel_and_worker_channel(client: Client, other: Client) -> None:
    every, puts, mine = Recorder(), Recorder(), Recorder()
    client.events.on("log", every)
    client.events.on("log.put", puts)
    client.events.on("worker", mine)
    with client.events.thread():
        client.queues["q"].put(NOOP, {}, jid="a")
        client.queues["q"].pop()
        other.queues["elsewhere"].put(NOOP, {}, jid="a")  # takes it from 'worker'
        client.config["x"] = 1
    assert puts.items == [{"jid": "a", "event": "put", "queue": "q"},
                          {"jid": "a", "event": "put", "queue": "elsewhere"}]
    assert [e["event"] for e in every.items] == ["put", "put", "lock_lost", "config_set"]
    assert mine.items == [{"jid": "a", "event": "lock_lost", "worker": "worker"}]


def test_a_failing_callback_does_not_stop_the_listener(client: Client) -> None:
    def broken(_: Any) -> None:
        raise RuntimeError("callback bug")

    later = Recorder()
    client.events.on("log.put", broken)
    client.events.on("log.config_set", later)
    with client.events.thread():
        client.queues["q"].put(NOOP, {}, jid="a")
        client.config["x"] = 1
    assert len(later.items) == 1
    assert [str(e) for e in client.events.errors] == ["callback bug"]


def test_resubscribes_after_a_server_restart(private_server: PrivateServerFactory) -> None:
    server = private_server("valkey", appendonly=True)
    client = Client(server.url, worker_name="worker")
    client.queues["q"].put(NOOP, {}, jid="a")
    tracked = Recorder()
    client.events.on("track", tracked)
    client.events.start()
    try:
        server.restart()
        # The listener notices the drop and subscribes again; publishes after that arrive.
        deadline = threading.Event()
        for _ in range(100):
            if client.events.reconnects >= 1 and client.events.subscribed.is_set():
                break
            deadline.wait(0.05)
        assert client.events.reconnects >= 1 and client.events.subscribed.is_set()
        client.track("a")
        assert tracked.seen.wait(5)
        assert tracked.items == ["a"]
    finally:
        client.close()
    assert not client.events.listening()


def test_a_callback_may_stop_the_listener(client: Client) -> None:
    done = threading.Event()

    def stop_here(_: Any) -> None:
        client.events.stop()
        done.set()

    client.events.on("log.put", stop_here)
    client.events.start()
    client.queues["q"].put(NOOP, {}, jid="a")
    assert done.wait(5)
    assert client.events._thread is None
