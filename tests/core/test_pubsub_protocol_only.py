"""Clients that subscribe to everything see only what qless-core publishes (section 6).

A pattern subscriber on ``*`` and one on ``ql:*`` follow a whole lifecycle of calls (put,
pop, complete with next, fail, unfail, retry, timeout, dependencies released, cancel, a
recurring job spawned, pause and unpause, config): both receive exactly the protocol's
messages, in order, and nothing else. Meanwhile a connection tracks every ``ql:`` key the
way qless_py workers do (client-side-caching invalidations in broadcast mode, redirected
to itself): it is told of every write, and no pattern subscriber sees any of that.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from qless_py.connect.endpoint import Endpoint
from qless_py.connect.resp import NOTHING, Connection, pack
from tests.core.support import T0, Core

SENTINEL = "qlpy-test-sentinel"


class Recorder:
    """A ``PSUBSCRIBE <pattern>`` client; ``take()`` returns what arrived since last time."""

    def __init__(self, conn: redis.Redis, pattern: str) -> None:
        self.conn = conn
        self.pubsub = conn.pubsub()
        self.pubsub.psubscribe(pattern)
        self.take()

    def take(self) -> list[tuple[str, Any]]:
        token = uuid.uuid4().hex
        self.conn.publish(f"ql:{SENTINEL}", token)  # matches both patterns
        got: list[tuple[str, Any]] = []
        while True:
            message = self.pubsub.get_message(timeout=5.0)
            assert message is not None, "the sentinel message never arrived"
            if message["type"] != "pmessage":
                continue
            channel = message["channel"].decode()
            data = message["data"].decode()
            if channel == f"ql:{SENTINEL}":
                if data == token:
                    return got
                continue
            got.append((channel, json.loads(data) if data.startswith("{") else data))


@pytest.fixture
def everything(redis_conn: redis.Redis) -> Iterator[Recorder]:
    recorder = Recorder(redis_conn, "*")
    yield recorder
    recorder.pubsub.close()


@pytest.fixture
def qless_only(redis_conn: redis.Redis) -> Iterator[Recorder]:
    recorder = Recorder(redis_conn, "ql:*")
    yield recorder
    recorder.pubsub.close()


@pytest.fixture
def tracker(redis_conn: redis.Redis) -> Iterator[Connection]:
    """A connection told of every write to a ``ql:`` key, as a worker's listener is."""
    kwargs = redis_conn.connection_pool.connection_kwargs
    path = kwargs.get("path")
    endpoint = (Endpoint(path=path) if path else
                Endpoint(host=kwargs.get("host", "127.0.0.1"), port=kwargs.get("port", 6379)))
    conn = Connection(endpoint)
    own_id = conn.call("CLIENT", "ID")
    conn.call("CLIENT", "TRACKING", "ON", "REDIRECT", own_id, "BCAST", "PREFIX", "ql:")
    conn.send(pack(["SUBSCRIBE", "__redis__:invalidate"]))
    assert conn.read(timeout=5.0)[0] == b"subscribe"
    yield conn
    conn.close()


def invalidated(conn: Connection) -> set[str]:
    keys: set[str] = set()
    while (message := conn.read(timeout=0.5)) is not NOTHING:
        assert message[1] == b"__redis__:invalidate"
        keys.update(name.decode() for name in message[2] or [])
    return keys


def log(event: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return ("ql:log", {"event": event, **fields})


def lifecycle(core: Core) -> list[tuple[str, Any]]:
    """Run the calls; return the messages section 6 says they publish, in order."""
    expected: list[tuple[str, Any]] = []
    core.put("a", T0, "q")
    expected.append(log("put", jid="a", queue="q"))
    core("track", T0, "track", "a")
    expected.append(("ql:track", "a"))
    core.pop("q", "w1", 1, now=T0 + 1)
    expected.append(("ql:popped", "a"))
    core("complete", T0 + 2, "a", "w1", "q", "{}", "next", "q2")
    expected += [("ql:completed", "a"), log("advanced", jid="a", queue="q", to="q2")]
    core.pop("q2", "w1", 1, now=T0 + 3)
    expected.append(("ql:popped", "a"))
    core("fail", T0 + 4, "a", "w1", "grp", "broken", "{}")
    expected += [log("failed", jid="a", worker="w1", group="grp", message="broken"),
                 ("ql:failed", "a")]
    assert core("unfail", T0 + 5, "q2", "grp") == 1  # publishes nothing
    core.pop("q2", "w1", 1, now=T0 + 6)
    expected.append(("ql:popped", "a"))
    core("retry", T0 + 7, "a", "q2", "w1", 0)  # retries left: publishes nothing
    core.pop("q2", "w1", 1, now=T0 + 8)
    expected.append(("ql:popped", "a"))
    core("timeout", T0 + 9, "a")
    lost = {"jid": "a", "event": "lock_lost", "worker": "w1"}
    expected += [("ql:w:w1", lost), ("ql:log", lost)]
    core.put("c", T0 + 10, "q")
    core.put("b", T0 + 10, "q", "depends", '["c"]')
    expected += [log("put", jid="c", queue="q"), log("put", jid="b", queue="q")]
    core.pop("q", "w2", 1, now=T0 + 11)
    core("complete", T0 + 12, "c", "w2", "q", "{}")  # releases b into the work set
    expected.append(log("completed", jid="c", queue="q"))
    core("cancel", T0 + 13, "b")
    expected.append(log("canceled", jid="b", worker="", queue="q"))
    core("recur", T0 + 14, "q", "r", "K", "{}", "interval", 60, 0)
    spawned = core.pop("q", "w2", 1, now=T0 + 15)
    assert spawned and spawned[0]["jid"] == "r-1"  # spawning publishes nothing
    core("pause", T0 + 16, "q")
    core("unpause", T0 + 16, "q")
    core("config.set", T0 + 17, "q-max-concurrency", 1)
    core("config.unset", T0 + 18, "q-max-concurrency")
    expected += [("ql:log", {"event": "config_set", "option": "q-max-concurrency",
                             "value": "1"}),
                 ("ql:log", {"event": "config_unset", "option": "q-max-concurrency"})]
    core("track", T0 + 19, "untrack", "a")
    expected.append(("ql:untrack", "a"))
    return expected


def test_pattern_subscribers_see_exactly_the_protocols_messages(
        core: Core, everything: Recorder, qless_only: Recorder, tracker: Connection) -> None:
    expected = lifecycle(core)
    assert everything.take() == expected
    assert qless_only.take() == expected
    # the tracking connection was told of the writes, on a channel no pattern matched
    assert {"ql:q:q-work", "ql:q:q2-work", "ql:paused_queues", "ql:config"} <= invalidated(
        tracker)
