"""The project's wake-up extension: ``qlpy:wake:<queue>`` carries the queue name, once per
call, whenever a command makes work poppable right now in that queue (and only when someone
listens). Other clients never see it: nothing extra is published on ``ql:*``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from tests.core.support import T0, Core


class WakeListener:
    def __init__(self, conn: redis.Redis, queues: list[str]) -> None:
        self.conn = conn
        self.channels = [f"qlpy:wake:{q}" for q in queues]
        self.pubsub = conn.pubsub()
        self.pubsub.subscribe(*self.channels)
        self.drain()

    def drain(self) -> list[tuple[str, str]]:
        token = uuid.uuid4().hex
        self.conn.publish(self.channels[0], token)
        got: list[tuple[str, str]] = []
        while True:
            message = self.pubsub.get_message(timeout=5.0)
            assert message is not None, "sentinel lost"
            if message["type"] != "message":
                continue
            data = message["data"].decode()
            if data == token:
                return got
            got.append((message["channel"].decode(), data))


@pytest.fixture
def wake(redis_conn: redis.Redis) -> Iterator[WakeListener]:
    listener = WakeListener(redis_conn, ["q", "q2"])
    yield listener
    listener.pubsub.close()


def test_put_waiting_wakes(core: Core, wake: WakeListener) -> None:
    core.put("a", T0, "q")
    assert wake.drain() == [("qlpy:wake:q", "q")]


def test_put_delayed_or_depending_does_not_wake(core: Core, wake: WakeListener) -> None:
    core.put("a", T0, "q", delay=10)
    core.put("b", T0, "q", "depends", '["a"]')
    assert wake.drain() == []


def test_one_wake_per_queue_per_call(core: Core, wake: WakeListener) -> None:
    core.put("a", T0, "q")
    core.put("d1", T0, "q", "depends", '["a"]')
    core.put("d2", T0, "q", "depends", '["a"]')
    core.pop(now=T0)
    wake.drain()
    core("complete", T0 + 1, "a", "w", "q", "{}")
    assert wake.drain() == [("qlpy:wake:q", "q")]


def test_complete_next_wakes_target_queue(core: Core, wake: WakeListener) -> None:
    core.put("a", T0, "q")
    core.pop(now=T0)
    wake.drain()
    core("complete", T0 + 1, "a", "w", "q", "{}", "next", "q2")
    assert wake.drain() == [("qlpy:wake:q2", "q2")]


def test_retry_timeout_unfail_depends_off_wake(core: Core, wake: WakeListener) -> None:
    core.put("a", T0, "q")
    core.put("b", T0, "q")
    core.pop("q", "w", 2, now=T0)
    wake.drain()
    core("retry", T0, "a", "q", "w")
    assert wake.drain() == [("qlpy:wake:q", "q")]
    core("timeout", T0, "b")
    assert wake.drain() == [("qlpy:wake:q", "q")]
    core.pop("q", "w", 2, now=T0)
    core("retry", T0, "a", "q", "w", 30)
    assert wake.drain() == []
    core("fail", T0, "b", "w", "g", "m")
    wake.drain()
    core("unfail", T0, "q2", "g")
    assert wake.drain() == [("qlpy:wake:q2", "q2")]
    core.put("c", T0, "q", "depends", '["b"]')
    wake.drain()
    core("depends", T0, "c", "off", "all")
    assert wake.drain() == [("qlpy:wake:q", "q")]


def test_one_call_wakes_each_of_several_queues_once(core: Core, wake: WakeListener) -> None:
    # The first queue woken in a call is kept by name, a second one turns it into a set.
    core("pause", T0, "q", "q2")
    core("unpause", T0, "q", "q2")
    assert sorted(wake.drain()) == [("qlpy:wake:q", "q"), ("qlpy:wake:q2", "q2")]
    core("unpause", T0, "q2", "q", "q2", "q")
    assert sorted(wake.drain()) == [("qlpy:wake:q", "q"), ("qlpy:wake:q2", "q2")]
    core("pause", T0, "q2")
    core("unpause", T0, "q2", "q2")
    assert wake.drain() == [("qlpy:wake:q2", "q2")]
    # complete into q2 that also releases a dependent waiting in q
    core.put("a", T0, "q")
    core.put("d", T0, "q", "depends", '["a"]')
    core.pop(now=T0)
    wake.drain()
    core("complete", T0 + 1, "a", "w", "q", "{}", "next", "q2")
    assert wake.drain() == [("qlpy:wake:q2", "q2")]


def test_unpause_and_recur_wake(core: Core, wake: WakeListener) -> None:
    core("pause", T0, "q")
    assert wake.drain() == []
    core("unpause", T0, "q")
    assert wake.drain() == [("qlpy:wake:q", "q")]
    core("recur", T0, "q2", "r", "K", "{}", "interval", 60, 0)
    assert wake.drain() == [("qlpy:wake:q2", "q2")]
    core("recur", T0, "q2", "r2", "K", "{}", "interval", 60, 100)
    assert wake.drain() == []


def test_concurrency_changes_wake(core: Core, wake: WakeListener) -> None:
    core("config.set", T0, "q-max-concurrency", 1)
    assert wake.drain() == [("qlpy:wake:q", "q")]
    core.put("a", T0, "q")
    core.put("b", T0 + 1, "q")
    core.pop(now=T0 + 1)
    wake.drain()
    core("complete", T0 + 1, "a", "w", "q", "{}")
    assert wake.drain() == [("qlpy:wake:q", "q")]


def test_running_job_leaving_limited_queue_wakes(core: Core, wake: WakeListener) -> None:
    core("config.set", T0, "q-max-concurrency", 5)
    for jid in ("a", "b", "c"):
        core.put(jid, T0, "q", delay=100)  # nothing poppable now: no wake from the puts
    core("pop", T0 + 100, "q", "w", 3)
    wake.drain()
    core("fail", T0 + 101, "a", "w", "g", "m")
    assert wake.drain() == [("qlpy:wake:q", "q")]
    core("cancel", T0 + 101, "b")
    assert wake.drain() == [("qlpy:wake:q", "q")]
    core("config.unset", T0, "q-max-concurrency")
    assert wake.drain() == [("qlpy:wake:q", "q")]
    core("fail", T0 + 102, "c", "w", "g", "m")
    assert wake.drain() == []  # no limit any more: a finished job frees nothing


def test_recur_update_making_template_due_wakes(core: Core, wake: WakeListener) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 100, 100)
    assert wake.drain() == []
    core("recur.update", T0 + 50, "r", "interval", 40)  # next spawn moves to T0+40: due
    assert wake.drain() == [("qlpy:wake:q", "q")]
