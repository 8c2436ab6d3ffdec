"""Implementation checks of the Lua core: its deliberate deviations and extensions.

Every test calls the built script directly (EVALSHA, explicit `now`) on both server legs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from qless_py import lua
from tests.replies import bulk

T0 = 1_893_456_000.0  # 2030-01-01, a day boundary
DAY = 86400


class Core:
    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self.sha = conn.script_load(lua.SOURCE)

    def __call__(self, command: str, now: float | str, *args: Any) -> Any:
        """``now`` as Python writes a float, or a text sent as it is."""
        return self.conn.evalsha(self.sha, 0, command,
                                 now if isinstance(now, str) else repr(now), *args)

    def json(self, command: str, now: float, *args: Any) -> Any:
        return json.loads(self(command, now, *args))

    def error(self, command: str, now: float | str, *args: Any) -> str:
        with pytest.raises(redis.ResponseError) as info:
            self(command, now, *args)
        return str(info.value)

    def snapshot(self) -> dict[bytes, Any]:
        state: dict[bytes, Any] = {}
        for k in sorted(self.conn.keys("*")):
            state[bulk(k)] = (self.conn.type(k), self.conn.dump(k))
        return state

    def put(self, jid: str, now: float = T0, queue: str = "q", *opts: Any) -> None:
        assert self("put", now, "w", queue, jid, "K", "{}", 0, *opts) == jid.encode()

    def running(self, jid: str, now: float = T0, worker: str = "w", queue: str = "q") -> None:
        self.put(jid, now, queue)
        popped = self.json("pop", now, queue, worker, 1)
        assert popped[0]["jid"] == jid


@pytest.fixture
def core(redis_conn: redis.Redis) -> Core:
    return Core(redis_conn)


# -- history cap: the reference's algorithm, reproduced without reading the list ------------

def reference_history(entries: list[int], cap: int) -> list[int]:
    """The reference truncation (protocol 2.4) applied before every append."""
    out: list[int] = []
    for e in entries:
        if cap > 0 and out:
            first, rest = out[0], out[1:]
            start = 2 - cap
            rest = rest[start:] if start < 0 else rest[start:] if start > 0 else rest
            out = [first, *rest]
        elif cap > 0:
            pass
        out.append(e)
    return out


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 7, 0, -1])
def test_history_cap_matches_reference_shape(core: Core, cap: int) -> None:
    core("config.set", T0, "max-job-history", cap)
    core.put("a")
    for i in range(1, 12):
        core("log", T0 + i, "a", f"m{i}")
    whens = [h["when"] for h in core.json("get", T0 + 20, "a")["history"]]
    expected = reference_history([int(T0) + i for i in range(12)], cap)
    assert whens == expected


def test_history_cap_keeps_first_and_newest(core: Core) -> None:
    core("config.set", T0, "max-job-history", 5)
    core.put("a")
    for i in range(1, 30):
        core("log", T0 + i, "a", f"m{i}")
    history = core.json("get", T0, "a")["history"]
    assert [h["what"] for h in history] == ["put", "m26", "m27", "m28", "m29"]


# -- rendering ------------------------------------------------------------------------------

def test_log_data_keys_render_with_when_and_what_winning(core: Core) -> None:
    core.put("a")
    core("log", T0 + 1, "a", "note", json.dumps({"when": 5, "what": "x", "k": "a/b"}))
    core("log", T0 + 2, "a", "arr", json.dumps(["x", "y"]))
    core("log", T0 + 3, "a", "we/ird\"text", json.dumps({"n": 1.5, "z": []}))
    history = core.json("get", T0, "a")["history"]
    assert history[1] == {"when": int(T0) + 1, "what": "note", "k": "a/b"}
    assert history[2] == {"when": int(T0) + 2, "what": "arr", "1": "x", "2": "y"}
    assert history[3] == {"when": int(T0) + 3, "what": 'we/ird"text', "n": 1.5, "z": {}}
    raw = core("get", T0, "a").decode()
    assert '"k":"a\\/b"' in raw and '"what":"we\\/ird\\"text"' in raw


def test_log_null_data_is_stored_and_renders(core: Core) -> None:
    core.put("a")
    assert core("log", T0 + 1, "a", "nothing", "null") is None
    assert core.json("get", T0, "a")["history"][1] == {"when": int(T0) + 1, "what": "nothing"}


def test_job_object_numbers_and_empty_lists(core: Core) -> None:
    core.put("a", T0, "q", "priority", "3.7", "retries", "2")
    raw = core("get", T0, "a").decode()
    for fragment in ('"priority":3.7', '"retries":2', '"remaining":2', '"tags":{}',
                     '"dependents":{}', '"dependencies":{}', '"failure":{}',
                     '"spawned_from_jid":false', '"expires":0'):
        assert fragment in raw
    assert core("priority", T0, "a", "3.7") == 3


# -- validation before writes ---------------------------------------------------------------

@pytest.mark.parametrize("opts", [
    ("priority", "high"), ("retries", "x"), ("tags", "false"), ("depends", "false"),
    ("tags", '{"a": 1}'), ("priority", "nan"), ("retries", "inf"),
])
def test_bad_put_option_changes_nothing(core: Core, opts: tuple[str, str]) -> None:
    core.put("a", T0, "q", "tags", '["t1"]')
    before = core.snapshot()
    core.error("put", T0 + 1, "w", "q", "a", "K", "{}", 0, *opts)
    assert core.snapshot() == before


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", ""])
def test_non_finite_numbers_are_rejected(core: Core, value: str) -> None:
    before = core.snapshot()
    assert 'Put(): Arg "delay" not a number' in core.error(
        "put", T0, "w", "q", "a", "K", "{}", value)
    assert "Arg \"now\" missing or not a number: nil" in core.error("get", value, "a")
    assert core.snapshot() == before


def test_recur_update_validates_every_pair_first(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    before = core.snapshot()
    assert 'Recur(): Arg "retries" must be a number: x' in core.error(
        "recur.update", T0, "r", "priority", 5, "retries", "x")
    assert "No value provided for klass" in core.error("recur.update", T0, "r", "priority", 5,
                                                       "klass")
    assert core.snapshot() == before


def test_timeout_checks_every_jid_first(core: Core) -> None:
    core.running("a")
    core.put("b")
    before = core.snapshot()
    assert "Timeout(): Job b not running" in core.error("timeout", T0, "a", "b")
    assert "Timeout(): Job a not running" in core.error("timeout", T0, "a", "a")
    assert core.snapshot() == before


def test_unfail_count_zero_is_rejected_without_writes(core: Core) -> None:
    core.running("a")
    core("fail", T0, "a", "w", "g", "boom")
    before = core.snapshot()
    assert "out of range" in core.error("unfail", T0, "q", "g", 0)
    assert core.snapshot() == before


# -- corrupt data ---------------------------------------------------------------------------

def test_pop_skips_and_drops_a_work_set_jid_without_a_job(core: Core) -> None:
    core.put("a")
    core.conn.zadd("ql:q:q-work", {"ghost": 10})
    popped = core.json("pop", T0 + 1, "q", "w", 2)
    assert [j["jid"] for j in popped] == ["a"]
    assert core.conn.zscore("ql:q:q-work", "ghost") is None


def test_unfail_skips_a_vanished_job(core: Core) -> None:
    core.running("a")
    core("fail", T0, "a", "w", "g", "boom")
    core.conn.lpush("ql:f:g", "ghost")
    assert core("unfail", T0 + 1, "q", "g", 10) == 1
    assert core.conn.exists("ql:f:g") == 0
    assert core.json("get", T0, "a")["state"] == "waiting"


def test_cancel_failed_job_without_stats_field(core: Core) -> None:
    core.running("a")
    core("fail", T0, "a", "w", "g", "boom")
    core.conn.delete(f"ql:s:stats:{int(T0)}:q")
    assert core("cancel", T0, "a") == [b"a"]
    assert core.conn.exists("ql:j:a") == 0
    assert core.conn.exists(f"ql:s:stats:{int(T0)}:q") == 0


# -- bounded work ---------------------------------------------------------------------------

def test_completed_jobs_expire_in_batches_of_100(core: Core) -> None:
    pipe = core.conn.pipeline(transaction=False)
    for i in range(250):
        pipe.hset(f"ql:j:old{i}", mapping={"jid": f"old{i}", "state": "complete", "tags": "{}"})
        pipe.zadd("ql:completed", {f"old{i}": T0 - 10 * DAY + i})
    pipe.execute()
    core.running("a", T0)
    assert core("complete", T0 + 1, "a", "w", "q", "{}") == b"complete"
    assert core.conn.zcard("ql:completed") == 151
    assert core.conn.exists("ql:j:old0") == 0 and core.conn.exists("ql:j:old100") == 1
    core.running("b", T0 + 2)
    core("complete", T0 + 3, "b", "w", "q", "{}")
    core.running("c", T0 + 4)
    core("complete", T0 + 5, "c", "w", "q", "{}")
    assert core.conn.zrange("ql:completed", 0, -1) == [b"a", b"b", b"c"]


def test_count_limit_expires_oldest_in_bounded_batches(core: Core) -> None:
    core("config.set", T0, "jobs-history-count", 1)
    for jid in ("a", "b", "c"):
        core.running(jid, T0)
        core("complete", T0 + 1, jid, "w", "q", "{}")
    assert core.conn.zrange("ql:completed", 0, -1) == [b"c"]
    assert core.conn.exists("ql:j:a") == 0


def test_many_jids_are_not_limited_by_unpack(core: Core) -> None:
    jids = [f"j{i}" for i in range(9000)]
    assert core("cancel", T0, *jids) == [j.encode() for j in jids]
    assert core("multiget", T0, *jids) == b"{}"
    assert core("pause", T0, *jids) is None
    assert core.conn.scard("ql:paused_queues") == 9000


# -- statistics expiry ----------------------------------------------------------------------

def test_stats_hash_expires_relative_to_now(core: Core) -> None:
    core.running("a", T0 + 100)
    ttl = core.conn.ttl(f"ql:s:wait:{int(T0)}:q")
    assert 30 * DAY - 100 - 5 <= ttl <= 30 * DAY - 100
    core("config.set", T0, "stats-history", 2)
    core.running("b", T0 + DAY + 50)
    ttl = core.conn.ttl(f"ql:s:wait:{int(T0) + DAY}:q")
    assert 2 * DAY - 50 - 5 <= ttl <= 2 * DAY - 50


def test_stats_expiry_works_with_small_now_values(core: Core) -> None:
    # A client clock far from the server's must not make fresh statistics vanish.
    core.running("a", 1000.0)
    assert core.json("stats", 1000.0, "q", 1000.0)["wait"]["count"] == 1
