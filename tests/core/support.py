"""Helpers for the conformance suite: the built core called directly with EVALSHA.

``core(command, now, *args)`` sends ``EVALSHA <sha> 0 command now args...`` and returns the raw
reply (bytes, int, None or list), so tests see the exact RESP types. ``core.rejects`` asserts an
error containing a phrase AND an unchanged keyspace. ``events`` records pub/sub traffic on
``ql:*`` with a real subscriber.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.replies import scored, text

# 2030-01-01 00:00:00 UTC: a day boundary, and late enough that stats keys (which expire
# ``stats-history`` days after their day bin, by server clock) are still alive during the test.
T0 = 1893456000.0
DAY = 86400

Arg = str | bytes | int | float


def load_source() -> bytes:
    """The built core, or the script named by QLESS_CORE_SCRIPT (to check another core)."""
    override = os.environ.get("QLESS_CORE_SCRIPT")
    if override:
        return Path(override).read_bytes()
    try:
        from qless_py import lua

        source = lua.SOURCE
        if isinstance(source, bytes) and source.strip():
            return source
    except ImportError:
        pass
    path = Path(__file__).resolve().parents[2] / "qless_py" / "_lua" / "qless.lua"
    return path.read_bytes()


def keyspace_digest(conn: redis.Redis) -> dict[bytes, tuple[bytes, Any]]:
    """Every key with its type, a type-aware full read and its expiry time, sorted."""
    keys = sorted(conn.scan_iter(count=1000))
    pipe = conn.pipeline(transaction=False)
    for key in keys:
        pipe.type(key)
    kinds = pipe.execute()
    readers = {
        b"string": lambda k: pipe.get(k),
        b"hash": lambda k: pipe.hgetall(k),
        b"list": lambda k: pipe.lrange(k, 0, -1),
        b"set": lambda k: pipe.smembers(k),
        b"zset": lambda k: pipe.zrange(k, 0, -1, withscores=True),
    }
    # PEXPIRETIME (Redis 7+) is stable over time; on 6.2 PTTL only says whether one is set.
    expiry_time = int(conn.info("server")["redis_version"].split(".")[0]) >= 7
    for key, kind in zip(keys, kinds, strict=True):
        readers.get(kind, lambda k: pipe.dump(k))(key)
        if expiry_time:
            pipe.execute_command("PEXPIRETIME", key)
        else:
            pipe.pttl(key)
    values = pipe.execute()
    out: dict[bytes, tuple[bytes, Any]] = {}
    for i, (key, kind) in enumerate(zip(keys, kinds, strict=True)):
        value, expiry = values[2 * i], values[2 * i + 1]
        if not expiry_time:
            expiry = expiry > 0
        if isinstance(value, dict):
            value = sorted(value.items())
        elif isinstance(value, set):
            value = sorted(value)
        out[key] = (kind, (value, expiry))
    return out


def sm_examples(server_kind: str) -> int:
    """Examples of a random state machine run: 40 on the two main server legs, 15 on the
    extra versions (their runs show the core works on that server; the depth of the search
    is the same core's either way). QLESS_SM_EXAMPLES sets every leg's."""
    given = os.environ.get("QLESS_SM_EXAMPLES")
    if given:
        return int(given)
    return 40 if server_kind in ("valkey", "redis") else 15


@functools.lru_cache(maxsize=16)
def _sha(source: bytes) -> str:
    return hashlib.sha1(source).hexdigest()


class Core:
    """The built script, loaded once per test, called with zero KEYS."""

    def __init__(self, conn: redis.Redis, source: bytes) -> None:
        self.conn = conn
        self.source = source
        self.sha = _sha(source)
        if conn.script_exists(self.sha) != [True]:  # the server keeps scripts across tests
            assert conn.script_load(source) == self.sha

    def __call__(self, command: str, now: Arg, *args: Arg) -> Any:
        return self.conn.evalsha(self.sha, 0, command, now, *args)

    def raw(self, numkeys: int, *argv: Arg) -> Any:
        """EVALSHA with arbitrary KEYS/ARGV, for dispatch tests."""
        return self.conn.evalsha(self.sha, numkeys, *argv)

    def json(self, command: str, now: Arg, *args: Arg) -> Any:
        reply = self(command, now, *args)
        assert isinstance(reply, bytes), f"{command} replied {reply!r}, expected a bulk string"
        return json.loads(reply)

    def job(self, jid: str, now: Arg = T0) -> dict[str, Any]:
        reply = self("get", now, jid)
        assert reply is not None, f"job {jid} does not exist"
        result: dict[str, Any] = json.loads(reply)
        return result

    def digest(self) -> dict[bytes, tuple[bytes, Any]]:
        return keyspace_digest(self.conn)

    def error(self, phrase: str | Sequence[str], command: str, now: Arg, *args: Arg) -> str:
        """Assert the call fails with a message containing ``phrase`` (or one of them)."""
        phrases = [phrase] if isinstance(phrase, str) else list(phrase)
        with pytest.raises(redis.ResponseError) as info:
            self(command, now, *args)
        text = str(info.value)
        assert any(p in text for p in phrases), f"expected one of {phrases!r} in {text!r}"
        return text

    def rejects(self, phrase: str | Sequence[str], command: str, now: Arg, *args: Arg) -> str:
        """Like ``error`` and also assert the keyspace is byte-identical afterwards."""
        before = self.digest()
        text = self.error(phrase, command, now, *args)
        after = self.digest()
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        assert not changed, f"{command} failed ({text}) but changed keys {changed!r}"
        return text

    # small conveniences used across the suite
    def put(
        self,
        jid: str,
        now: Arg = T0,
        queue: str = "q",
        *opts: Arg,
        data: str = "{}",
        delay: Arg = 0,
        klass: str = "K",
        worker: str = "",
    ) -> Any:
        return self("put", now, worker, queue, jid, klass, data, delay, *opts)

    def pop(
        self, queue: str = "q", worker: str = "w", count: int = 1, now: Arg = T0
    ) -> list[dict[str, Any]]:
        return _as_list(self.json("pop", now, queue, worker, count))

    def peek(self, queue: str = "q", count: int = 25, now: Arg = T0) -> list[dict[str, Any]]:
        return _as_list(self.json("peek", now, queue, count))

    def zset(self, key: str) -> list[tuple[str, float]]:
        return [(m.decode(), s) for m, s in scored(self.conn.zrange(key, 0, -1, withscores=True))]

    def members(self, key: str) -> set[str]:
        return {text(m) for m in self.conn.smembers(key)}

    def hget(self, key: str, field: str) -> str | None:
        value = self.conn.hget(key, field)
        return None if value is None else text(value)

    def history(self, jid: str) -> list[Any]:
        return [json.loads(x) for x in self.conn.lrange(f"ql:j:{jid}-history", 0, -1)]


def _as_list(value: Any) -> list[dict[str, Any]]:
    """cjson writes an empty list as ``{}``; anything else must be a JSON array."""
    if value == {}:
        return []
    assert isinstance(value, list), value
    return value


def as_list(value: Any) -> list[Any]:
    return _as_list(value)


class EventRecorder:
    """A real subscriber on ``ql:*``. ``record()`` yields the list it fills, in order."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self.pubsub = conn.pubsub()
        self.pubsub.psubscribe("ql:*")
        self._drain_until(self._mark())

    def _mark(self) -> str:
        token = uuid.uuid4().hex
        self.conn.publish("ql:~sentinel", token)
        return token

    def _drain_until(self, token: str) -> list[tuple[str, str]]:
        got: list[tuple[str, str]] = []
        for _ in range(100000):
            message = self.pubsub.get_message(timeout=5.0)
            if message is None:
                raise AssertionError("the sentinel message never arrived")
            if message["type"] != "pmessage":
                continue
            channel = message["channel"].decode()
            data = message["data"].decode("utf-8", "surrogateescape")
            if channel == "ql:~sentinel":
                if data == token:
                    return got
                continue
            got.append((channel, data))
        raise AssertionError("too many messages")  # pragma: no cover

    @contextmanager
    def record(self) -> Iterator[list[tuple[str, str]]]:
        self._drain_until(self._mark())
        messages: list[tuple[str, str]] = []
        yield messages
        messages.extend(self._drain_until(self._mark()))

    def close(self) -> None:
        self.pubsub.close()


def decoded(messages: list[tuple[str, str]]) -> list[tuple[str, Any]]:
    """Parse JSON payloads (objects); bare jids stay strings."""
    out: list[tuple[str, Any]] = []
    for channel, data in messages:
        if data.startswith("{"):
            out.append((channel, json.loads(data)))
        else:
            out.append((channel, data))
    return out


def populate(core: Core, now: float = T0) -> dict[str, str]:
    """A keyspace with a few jobs in every state, a template, tags, tracking, config, stats."""
    c = core
    c("config.set", now, "grace-period", 10)
    c.put("wait1", now, "q", "priority", 3, "tags", '["red"]', data='{"a":1}')
    c.put("wait2", now + 0.001, "q", "tags", '["red","blue"]')
    c.put("sched1", now, "q", delay=3600)
    c.put("dep1", now, "q", "depends", '["wait2"]')
    c.put("run1", now, "other", "retries", 2)
    c.put("run2", now, "other")
    c.put("stall1", now, "other")
    c.put("fail1", now, "other")
    c.put("done1", now, "other")
    popped = c.pop("other", "wA", 5, now=now + 1)
    assert len(popped) == 5, popped
    c("complete", now + 2, "done1", "wA", "other", "{}")
    c("fail", now + 2, "fail1", "wA", "boom", "it broke")
    c("timeout", now + 2, "stall1")
    c("recur", now, "q", "tmpl", "K", "{}", "interval", 60, 3600, "tags", '["green"]')
    c("track", now, "track", "wait1")
    c("pause", now, "paused-q")
    c("config.set", now, "other-heartbeat", 120)
    return {
        "waiting": "wait1",
        "scheduled": "sched1",
        "depends": "dep1",
        "running": "run1",
        "stalled": "stall1",
        "failed": "fail1",
        "complete": "done1",
    }


def running(
    core: Core, jid: str = "a", worker: str = "w", now: float = T0, *opts: Arg, queue: str = "q"
) -> None:
    """Put ``jid`` (with put options ``opts``) and pop it as ``worker``: a running job."""
    core.put(jid, now, queue, *opts)
    assert core.pop(queue, worker, 1, now=now)[0]["jid"] == jid
