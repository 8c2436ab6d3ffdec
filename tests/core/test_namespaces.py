"""Namespaces in the core: one key, the prefix ``ql:{<name>}:``, names every key and channel.

The default namespace (no key, as every qless client calls the script) is the qless
protocol as it was. A namespaced call writes the same data under the namespace's prefix:
the tests run the same calls both ways and compare the keyspaces with the prefix swapped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from qless_py import lua
from tests.core.support import T0, Arg, Core, keyspace_digest, populate

PREFIX = b"ql:{billing}:"


class Namespaced(Core):
    """The same script, called with the namespace's prefix as its one key."""

    def __init__(self, conn: redis.Redis, source: bytes, prefix: bytes = PREFIX) -> None:
        super().__init__(conn, source)
        self.prefix = prefix

    def __call__(self, command: str, now: Arg, *args: Arg) -> Any:
        return self.conn.evalsha(self.sha, 1, self.prefix, command, now, *args)


def _swapped(value: Any, old: bytes, new: bytes) -> Any:
    """``value`` (a digest entry: bytes, lists, sets, dicts, tuples) with ``old`` -> ``new``
    in every byte string."""
    if isinstance(value, bytes):
        return value.replace(old, new)
    if isinstance(value, int) and value > 10**12:  # an expiry time (ms): runs differ
        return "expires"
    if isinstance(value, dict):
        return {_swapped(k, old, new): _swapped(v, old, new) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_swapped(v, old, new) for v in value)
    if isinstance(value, (set, frozenset)):
        return type(value)(_swapped(v, old, new) for v in value)
    return value


def _lifecycle(core: Core) -> None:
    """populate() and then the rest of what a pipeline does: throttles, ordering keys,
    dependencies released, a move, a retry, a cancel, fine statistics."""
    populate(core)
    core("throttle.set", T0, "api", 2, 0)
    core.put("t1", T0, "q", "throttles", '["api"]')
    core.put("k1", T0, "q", "key", "customer-7")
    core.put("k2", T0 + 0.001, "q", "key", "customer-7")
    core.put("mv", T0, "q", "throttles", '["api"]')
    prefix = getattr(core, "prefix", b"ql:").decode()
    core.put("mv", T0 + 1, "other", "throttles", json.dumps(["api", f"{prefix}q:q"]))
    jobs = core.pop("q", "wB", 10, now=T0 + 5)
    for job in jobs:
        core("complete", T0 + 6, job["jid"], "wB", "q", "{}")
    core("cancel", T0 + 8, "sched1")
    core("qlpy.stats", T0 + 9, "q", T0)


def test_a_namespace_holds_the_same_data_under_its_prefix(redis_conn: redis.Redis,
                                                         core: Core) -> None:
    _lifecycle(core)
    default = keyspace_digest(redis_conn)
    assert default and all(k.startswith(b"ql:") for k in default)
    redis_conn.flushdb()
    _lifecycle(Namespaced(redis_conn, core.source))
    spaced = keyspace_digest(redis_conn)
    assert all(k.startswith(PREFIX) for k in spaced), sorted(spaced)
    assert _swapped(spaced, PREFIX, b"ql:") == _swapped(default, b"", b"")


def test_namespaces_and_the_default_do_not_see_each_other(redis_conn: redis.Redis,
                                                          core: Core) -> None:
    billing = Namespaced(redis_conn, core.source)
    other = Namespaced(redis_conn, core.source, b"ql:{shipping}:")
    core.put("d", T0, "q")
    billing.put("b", T0, "q")
    other.put("s", T0, "q")
    assert [j["jid"] for j in billing.pop("q", "w", 5, now=T0 + 1)] == ["b"]
    assert [j["jid"] for j in core.pop("q", "w", 5, now=T0 + 1)] == ["d"]
    assert [j["jid"] for j in other.pop("q", "w", 5, now=T0 + 1)] == ["s"]
    assert billing("get", T0, "d") is None and core("get", T0, "b") is None
    assert json.loads(billing("queues", T0))[0]["running"] == 1
    billing("config.set", T0, "heartbeat", 7)
    assert core("config.get", T0, "heartbeat") == 60
    assert billing("config.get", T0, "heartbeat") == b"7"


@pytest.mark.parametrize("prefix", [b"ql:billing:", b"ql:{}:", b"billing", b"ql:{a{b}:",
                                    b"ql:{a}b}:", b"ql:{" + b"a" * 65 + b"}:", b""])
def test_a_malformed_namespace_is_refused_before_anything_is_written(
        redis_conn: redis.Redis, core: Core, prefix: bytes) -> None:
    core.put("d", T0, "q")
    before = keyspace_digest(redis_conn)
    with pytest.raises(redis.ResponseError, match="No Keys should be provided"):
        core.raw(1, prefix, "put", T0, "w", "q", "x", "K", "{}", 0)
    assert keyspace_digest(redis_conn) == before


def test_more_than_one_key_is_refused(redis_conn: redis.Redis, core: Core) -> None:
    with pytest.raises(redis.ResponseError, match="No Keys should be provided"):
        core.raw(2, PREFIX, PREFIX, "put", T0, "w", "q", "x", "K", "{}", 0)
    assert keyspace_digest(redis_conn) == {}


def test_the_longest_namespace_is_taken(redis_conn: redis.Redis, core: Core) -> None:
    longest = Namespaced(redis_conn, core.source, b"ql:{" + b"n" * 64 + b"}:")
    longest.put("x", T0, "q")
    assert longest.job("x")["queue"] == "q"


def test_a_namespace_publishes_on_its_own_channels(redis_conn: redis.Redis,
                                                   core: Core) -> None:
    """Sharded pub/sub where the server has it (Redis 7, Valkey), plain before that."""
    sharded = int(redis_conn.info("server")["redis_version"].split(".")[0]) >= 7
    billing = Namespaced(redis_conn, core.source)
    pubsub = redis_conn.pubsub()
    channels = [PREFIX + b"log", PREFIX + b"w:wA"]
    if sharded:
        pubsub.ssubscribe(*channels)
    else:
        pubsub.subscribe(*channels)
    for _ in channels:  # the confirmations
        assert pubsub.get_message(timeout=5) is not None
    plain = redis_conn.pubsub()
    plain.psubscribe("ql:*")
    assert plain.get_message(timeout=5) is not None
    billing.put("a", T0, "q")
    billing.pop("q", "wA", 1, now=T0 + 1)
    billing("cancel", T0 + 2, "a")
    got: list[tuple[bytes, str]] = []
    while len(got) < 3:
        message = (pubsub.get_sharded_message(timeout=5) if sharded
                   else pubsub.get_message(timeout=5))
        assert message is not None, got
        if message["type"] in ("message", "smessage"):
            got.append((message["channel"], json.loads(message["data"])["event"]))
    assert sorted(got) == sorted([(PREFIX + b"log", "put"), (PREFIX + b"w:wA", "canceled"),
                                  (PREFIX + b"log", "canceled")])
    if sharded:  # sharded messages never reach a pattern subscriber
        assert plain.get_message(timeout=0.2) is None
    pubsub.close()
    plain.close()


# A namespace's own script (qless_py.lua.namespace_script): what a client calls for a
# namespace. It is the namespaced body with every key a literal, so it must leave exactly
# what the shipped script leaves for the same calls, and refuse every other key.

def test_a_namespace_script_writes_what_the_shipped_script_writes(
        redis_conn: redis.Redis, core: Core) -> None:
    _lifecycle(Namespaced(redis_conn, core.source))
    shipped = keyspace_digest(redis_conn)
    redis_conn.flushdb()
    _lifecycle(Namespaced(redis_conn, lua.namespace_script("billing")[0]))
    # (expiry times in ms differ between runs: _swapped makes them one value)
    assert _swapped(keyspace_digest(redis_conn), b"", b"") == _swapped(shipped, b"", b"")


@pytest.mark.parametrize("name", ["it's", "back\\slash", "line\nend", "ünï", "a" * 64, "]]--"])
def test_a_namespace_script_spells_any_name(redis_conn: redis.Redis, name: str) -> None:
    prefix = f"ql:{{{name}}}:".encode()
    own = Namespaced(redis_conn, lua.namespace_script(name)[0], prefix)
    own.put("x", T0, "q")
    assert own.job("x")["queue"] == "q"
    assert redis_conn.exists(prefix + b"j:x") == 1
    assert [k for k in redis_conn.scan_iter() if not k.startswith(prefix)] == []


@pytest.mark.parametrize("keys", [(), (b"ql:{shipping}:",), (b"ql:{billing}:",) * 2,
                                  (b"ql:{billing}",)])
def test_a_namespace_script_refuses_any_other_key(redis_conn: redis.Redis,
                                                  keys: tuple[bytes, ...]) -> None:
    own = Core(redis_conn, lua.namespace_script("billing")[0])
    with pytest.raises(redis.ResponseError, match="No Keys should be provided"):
        own.raw(len(keys), *keys, "put", T0, "w", "q", "x", "K", "{}", 0)
    assert keyspace_digest(redis_conn) == {}


def test_a_namespace_script_error_names_the_source_line_the_shipped_one_does(
        redis_conn: redis.Redis, core: Core) -> None:
    """Its body stands on the shipped script's lines: `user_script:<n>` means one line of
    lua/ whichever script ran (an error reply does not always name the script)."""
    from qless_py.errors import CoreError

    sources = []
    for script in (core.source, lua.namespace_script("billing")[0]):
        with pytest.raises(redis.ResponseError) as raised:
            Namespaced(redis_conn, script)("put", T0, "w", "q", "x", "K", "{}", "soon")
        sources.append(CoreError(str(raised.value)).source)
    assert sources[0] is not None and sources[0].startswith("lua/job/put.lua:")
    assert sources[1] == sources[0]
