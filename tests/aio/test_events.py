"""The async client's events: ``async for``, sync and async callbacks, the sync client's
event names, and a listener that survives a server restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from qless_py.aio import AsyncClient, Event
from tests.conftest import PrivateServerFactory

pytestmark = pytest.mark.asyncio

NOOP = "tests.client.jobs.Noop"


async def test_async_for_yields_every_event_until_stop(aclient: AsyncClient) -> None:
    queue = aclient.queues["q"]
    await queue.put(NOOP, {}, jid="a")
    await aclient.track("a")
    seen: list[Event] = []

    async def listen() -> None:
        async for event in aclient.events:
            seen.append(event)

    listener = asyncio.create_task(listen())
    await aclient.events.start()  # subscribed when it returns: nothing below is missed
    job = await queue.pop()
    assert job is not None
    await job.complete()
    await aclient.config.set("x", 1)
    await aclient.events.stop()  # delivers what was published before, then ends the loop
    await listener
    names = [e.name for e in seen]
    assert names == ["popped", "completed", "log.completed", "log.config_set"]
    assert seen[0] == Event("popped", "a")
    assert seen[-1].data == {"event": "config_set", "option": "x", "value": "1"}


async def test_iterating_starts_the_listener(aclient: AsyncClient) -> None:
    got: list[Event] = []

    async def first_put() -> None:
        async for event in aclient.events:
            if event.name == "log.put":
                got.append(event)
                return

    task = asyncio.create_task(first_put())
    while not aclient.events.subscribed.is_set():
        await asyncio.sleep(0.005)
    await aclient.queues["q"].put(NOOP, {}, jid="a")
    await asyncio.wait_for(task, 5)
    assert got == [Event("log.put", {"jid": "a", "event": "put", "queue": "q"})]
    assert aclient.events.listening()


async def test_callbacks_sync_and_async_with_the_sync_clients_names(
        aclient: AsyncClient, server_url: str) -> None:
    puts: list[Any] = []
    everything: list[str] = []
    mine: list[Any] = []
    popped: list[str] = []

    async def on_put(event: Any) -> None:
        await asyncio.sleep(0)  # a coroutine callback is awaited
        puts.append(event)

    aclient.events.on("log.put", on_put)
    aclient.events.on("log", lambda event: everything.append(event["event"]))
    aclient.events.on("worker", mine.append)
    aclient.events.on("popped", popped.append)
    with pytest.raises(NotImplementedError):
        aclient.events.on("foo", print)
    async with AsyncClient(server_url, worker_name="other") as other, aclient.events:
        await aclient.queues["q"].put(NOOP, {}, jid="a")
        await aclient.queues["q"].pop()
        await other.queues["elsewhere"].put(NOOP, {}, jid="a")  # takes it from 'worker'
        await aclient.track("a")
    assert puts == [{"jid": "a", "event": "put", "queue": "q"},
                    {"jid": "a", "event": "put", "queue": "elsewhere"}]
    assert everything == ["put", "put", "lock_lost"]
    assert mine == [{"jid": "a", "event": "lock_lost", "worker": "worker"}]
    assert popped == []  # job events are published for tracked jobs only
    assert not aclient.events.listening()


async def test_a_failing_callback_does_not_stop_the_listener(aclient: AsyncClient) -> None:
    def broken(_: Any) -> None:
        raise RuntimeError("callback bug")

    later: list[Any] = []
    aclient.events.on("log.put", broken)
    aclient.events.on("log.config_set", later.append)
    async with aclient.events:
        await aclient.queues["q"].put(NOOP, {}, jid="a")
        await aclient.config.set("x", 1)
    assert len(later) == 1
    assert [str(e) for e in aclient.events.errors] == ["callback bug"]


async def test_a_callback_may_stop_the_listener(aclient: AsyncClient) -> None:
    done = asyncio.Event()

    async def stop_here(_: Any) -> None:
        await aclient.events.stop()
        done.set()

    aclient.events.on("log.put", stop_here)
    await aclient.events.start()
    await aclient.queues["q"].put(NOOP, {}, jid="a")
    await asyncio.wait_for(done.wait(), 5)
    assert not aclient.events.listening()


async def test_resubscribes_after_a_server_restart(private_server: PrivateServerFactory) -> None:
    server = await asyncio.to_thread(private_server, "valkey", appendonly=True)
    async with AsyncClient(server.url, worker_name="worker") as client:
        await client.queues["q"].put(NOOP, {}, jid="a")
        tracked: asyncio.Queue[str] = asyncio.Queue()
        client.events.on("track", tracked.put_nowait)
        await client.events.start()
        await asyncio.to_thread(server.restart)
        # the listener notices the drop and subscribes again; publishes after that arrive
        while not (client.events.reconnects >= 1 and client.events.subscribed.is_set()):
            await asyncio.sleep(0.01)
        await client.track("a")
        assert await asyncio.wait_for(tracked.get(), 5) == "a"
    assert not client.events.listening()
