"""At the memory limit (maxmemory with noeviction) every core command does all of its
writes or none: the server refuses a script's first write that needs memory and lets every
later one through, so a command whose first write is refused has written nothing. Each
command runs once without a limit and once over it, on the same database; the keyspace
after the second run is the one before it or the one after the first. Also: a refused put
publishes nothing, ``put`` raises OutOfMemoryError, and memory freed lets it through."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis

from qless_py import Client, OutOfMemoryError, QlessConnectionError
from tests.check.support import Db
from tests.core.support import keyspace_digest

T = 1893456000.0  # a fixed now, so that both runs build the same database

COMMANDS: list[tuple[str, tuple[Any, ...]]] = [
    ("put", ("w0", "q", "new", "K", "{}", 0)),
    ("put", ("w0", "q", "a2", "K", "{}", 0, "tags", '["t3"]')),
    ("put", ("w0", "tq", "t3", "K", "{}", 0, "throttles", '["T"]', "key", "K2", "ttl", 9)),
    ("requeue", ("w0", "q", "s1", "K", "{}", 0)),
    ("pop", ("q", "w2", 5)),
    ("pop", ("tq", "w2", 5)),
    ("pop", ("kq", "w2", 5)),
    ("complete", ("r1", "w1", "r", "{}")),
    ("complete", ("r1", "w1", "r", "{}", "next", "q2")),
    ("complete", ("t1", "w1", "tq", "{}")),
    ("fail", ("r1", "w1", "g2", "boom")),
    ("retry", ("r1", "r", "w1", 0)),
    ("heartbeat", ("r1", "w1")),
    ("timeout", ("r1",)),
    ("cancel", ("a2",)),
    ("cancel", ("k1",)),
    ("depends", ("d1", "off", "all")),
    ("depends", ("d1", "on", "a2")),
    ("priority", ("a1", 5)),
    ("log", ("a1", "hello")),
    ("track", ("track", "a2")),
    ("tag", ("add", "a1", "t9")),
    ("tag", ("remove", "a1", "t1")),
    ("recur", ("rq", "rt2", "K", "{}", "interval", 60, 0)),
    ("recur.update", ("rt", "interval", 60)),
    ("recur.tag", ("rt", "x")),
    ("unrecur", ("rt",)),
    ("config.set", ("heartbeat", 30)),
    ("config.unset", ("heartbeat",)),
    ("pause", ("q",)),
    ("unfail", ("q", "g", 10)),
    ("throttle.set", ("T", 5)),
    ("throttle.delete", ("T",)),
    ("throttle.release", ("T", "t1")),
    ("queue.throttle.set", ("q", 3)),
    ("worker.deregister", ("w1",)),
    ("queue.forget", ("cq",)),
    ("qlpy.giveback", ("r1", "w1")),
    ("qlpy.put_many", ("w0", "q", "m1", "K", "{}", 0, 0, "m2", "K", "{}", 0, 0)),
    ("qlpy.check", ("0", 1000)),
    ("qlpy.repair", ("ql:j:r1", "lock-mismatch", "ql:q:r-locks")),
    ("peek", ("q", 5)),
    ("queues", ()),
    ("jobs", ("scheduled", "q")),
]


def _keyspace(conn: redis.Redis) -> dict[bytes, Any]:
    """Every key's type and value (TTLs left out: statistics expire by the server's clock)."""
    return {k: (kind, value) for k, (kind, (value, _)) in keyspace_digest(conn).items()}


@contextmanager
def _over_the_limit(conn: redis.Redis) -> Iterator[None]:
    conn.config_set("maxmemory-policy", "noeviction")
    conn.config_set("maxmemory", 1)
    try:
        yield
    finally:
        conn.config_set("maxmemory", 0)


def _fresh(db: Db, damaged: bool) -> dict[bytes, Any]:
    db.conn.flushall()
    db.build()
    if damaged:
        db.conn.zadd("ql:q:r-locks", {"r1": 5})
        db.conn.hset("ql:j:a1", "tags", '["t1"]')
    return _keyspace(db.conn)


@pytest.mark.parametrize(("command", "args"), COMMANDS,
                         ids=[f"{c}-{i}" for i, (c, _) in enumerate(COMMANDS)])
def test_every_command_writes_all_or_nothing_at_the_limit(db: Db, command: str,
                                                          args: tuple[Any, ...]) -> None:
    db.now = T
    damaged = command == "qlpy.repair"
    before = _fresh(db, damaged)
    db(command, *args, now=T + 50)
    whole = _keyspace(db.conn)
    assert _fresh(db, damaged) == before
    with _over_the_limit(db.conn):
        try:
            db(command, *args, now=T + 50)
        except redis.ResponseError as exc:
            assert "command not allowed when used memory" in str(exc)
            assert _keyspace(db.conn) == before
            return
    assert _keyspace(db.conn) == whole


def test_a_refused_put_publishes_nothing(db: Db) -> None:
    db.now = T
    db.build()
    pubsub = db.conn.pubsub()
    pubsub.psubscribe("ql:*")
    assert pubsub.get_message(timeout=5) is not None  # the subscription itself
    with _over_the_limit(db.conn), pytest.raises(redis.ResponseError):
        db("put", "w0", "q", "new", "K", "{}", 0, now=T + 1)
    db("log", "a1", "after")  # a command that publishes nothing either: then a marker
    db.conn.publish("ql:marker", "m")
    message = pubsub.get_message(timeout=5)
    assert message is not None and message["channel"] == b"ql:marker"
    pubsub.close()


def test_put_raises_out_of_memory_and_succeeds_once_memory_is_freed(
        client: Client, redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    queue.put("tests.jobs.Noop", {}, jid="first")
    with _over_the_limit(redis_conn):
        with pytest.raises(OutOfMemoryError) as info:
            queue.put("tests.jobs.Noop", {}, jid="second")
        assert isinstance(info.value, QlessConnectionError)
        assert "out of memory" in str(info.value)
        assert client.jobs["second"] is None  # a read still works, and nothing was written
    assert queue.put("tests.jobs.Noop", {}, jid="second") == "second"
    assert json.loads(client("get", "second"))["state"] == "waiting"
