"""The core's cheaper number texts equal the texts Lua and Redis would have made.

To spare number formatting (several microseconds per job), the core writes some numbers
from text it already has: floor(now) cut from the `time` text, whole day bins and histogram
counts with %d, single-digit fields as themselves, `now` handed to Redis as its `time` text,
and pop's own history entry rendered directly. Each test compares against an oracle run on
the same server: Lua's own concatenation (%.14g), or the value Redis stores for the number.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.replies import bulk, text

from .support import Core

# Lua's text for floor(t), a day bin's stats key and a histogram field, made the plain way.
ORACLE = """
local t = tonumber(ARGV[1])
local v = t - tonumber(ARGV[2])
local day = t - (t % 86400)
local f = math.floor(v)
local bin
if f < 60 then bin = 's' .. f
elseif f < 3600 then bin = 'm' .. math.floor(f / 60)
elseif f < 86400 then bin = 'h' .. math.floor(f / 3600)
else bin = 'd' .. math.floor(f / 86400) end
return { '' .. math.floor(t), 'ql:s:wait:' .. day .. ':q', bin }
"""

# Timestamps around the edges of each shortcut: zero and its sign, below one, whole and
# fractional seconds, a day boundary, and the 1e14 limit where %.14g turns to exponents.
EDGES = ["-0", "0", "1e-30", "0.25", "0.999999", "1", "1.5", "59.75", "86399.999", "86400",
         "-0.5", "-1", "-86400.5", "1893456000", "1893456000.000001", "1700000000.123456",
         "99999999999999", "99999999999999.5", "100000000000000", "123456789012345.5",
         "1e15"]
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def oracle(conn: redis.Redis, now: str, put_time: bytes) -> list[str]:
    """floor(now), the stats key and the histogram field, from `now` and the stored time."""
    return [x.decode() for x in conn.eval(ORACLE, 0, now, put_time)]


def stats_keys(conn: redis.Redis) -> set[str]:
    return {text(k) for k in conn.keys("ql:s:wait:*")}


def put_and_pop(core: Core, put_at: str, now: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Put job j at `put_at` and pop it at `now`: the popped jobs, and the oracle's floor(now),
    stats key and histogram field for that wait (from the time text put stored)."""
    core.put("j", put_at)
    put_time = bulk(core.conn.hget("ql:j:j", "time"))
    popped = core.pop(now=now)
    assert [job["jid"] for job in popped] == ["j"]
    return popped, oracle(core.conn, now, put_time)


def check_lifecycle(core: Core, now: str, wait: float) -> None:
    """Put a job `wait` seconds before `now`, pop it at `now`: history, stats, scores."""
    conn = core.conn
    conn.flushdb()
    popped, (whole, key, bin_) = put_and_pop(core, repr(float(now) - wait), now)
    # floor(now) as Lua writes it, in the stored entry and in both renderings.
    stored = text(conn.lrange("ql:j:j-history", 0, -1)[-1])
    assert stored == f'[{whole},"popped",{{"worker":"w"}}]'
    assert popped[0]["history"] == core.job("j", now)["history"]
    # The wait sample lands in the day bin and histogram field Lua's text names.
    assert stats_keys(conn) == {key}
    assert conn.hget(key, bin_) == b"1"
    # `now` reached Redis as exactly the same double.
    assert conn.zscore("ql:workers", "w") == float(now)
    core("complete", now, "j", "w", "q", "{}")
    assert conn.zscore("ql:completed", "j") == float(now)


@pytest.mark.parametrize("now", EDGES)
def test_edge_timestamps_get_the_texts_lua_would_write(core: Core, now: str) -> None:
    check_lifecycle(core, now, 0.0)


@pytest.mark.parametrize("wait", [0.0, 0.5, 1.0, 59.999, 60.0, 119.5, 3599.0, 3600.0,
                                  86399.5, 86400.0, 200000.0])
def test_each_histogram_field_is_named_as_lua_would_name_it(core: Core, wait: float) -> None:
    check_lifecycle(core, "1893456000.5", wait)


def test_a_negative_wait_keeps_its_own_field(core: Core) -> None:
    # A job put "after" the pop's now (a client clock behind another) waits a negative time.
    _, (_, key, bin_) = put_and_pop(core, "1893456010.25", "1893456000")
    assert bin_ == "s-11"
    assert core.conn.hget(key, bin_) == b"1"


def test_a_wait_of_negative_zero_keeps_lua_text(core: Core) -> None:
    # Put at +0 and popped at -0: the wait is -0, which Lua writes "-0" (and %d would not).
    _, (whole, key, bin_) = put_and_pop(core, "0", "-0")
    assert (whole, bin_) == ("-0", "s-0")
    assert core.conn.hget(key, bin_) == b"1"


@SETTINGS
@given(now=st.floats(min_value=-2e15, max_value=2e15, allow_nan=False),
       wait=st.floats(min_value=0, max_value=1e7, allow_nan=False))
def test_any_timestamp_gets_the_texts_lua_would_write(
        core: Core, now: float, wait: float) -> None:
    check_lifecycle(core, repr(now), wait)


@pytest.mark.parametrize("stored,expected", [
    ("0", 0), ("5", 5), ("9", 9), ("10", 10), ("-1", -1), ("07", 7), (" 3", 3), ("2.50", 2.5),
    ("1e2", 100), ("-0", 0), ("x", None)])
def test_stored_numbers_render_as_cjson_writes_them(
        core: Core, stored: str, expected: float | None) -> None:
    core.put("j")
    core.conn.hset("ql:j:j", mapping={"priority": stored, "retries": stored,
                                      "remaining": stored})
    text = core("get", "1893456000", "j").decode()
    job = json.loads(text)
    if expected is None:
        assert "priority" not in job and "retries" not in job and "remaining" not in job
        return
    assert job["priority"] == expected and job["retries"] == expected
    assert job["remaining"] == math.floor(expected)
    # The text itself is cjson's: a single digit stays as it is, anything else is re-encoded.
    rendered = core.conn.eval("return cjson.encode(tonumber(ARGV[1]))", 0, stored).decode()
    assert f'"priority":{rendered}' in text


@pytest.mark.parametrize("worker", ['w', 'x"when', 'a{b}c', 'back\\slash', 'snow☃',
                                    'tab\tand/slash', '"what":"x'])
def test_pop_renders_its_own_entry_as_get_renders_the_stored_one(
        core: Core, worker: str) -> None:
    core.put("a")
    core.put("b")
    core("config.set", "1893456000", "max-job-history", 3)
    for _ in range(2):
        # put, popped, retried, popped: past the cap of 3 the list is trimmed on append.
        for job in core.pop(worker=worker, count=2, now="1893456001"):
            core("retry", "1893456002", job["jid"], "q", worker, 0)
    for count in (2, 1):
        if count == 1:
            core("retry", "1893456003", "a", "q", worker, 0)
        texts = core("pop", "1893456003.75", "q", worker, count).decode()
        popped = json.loads(texts)
        assert sorted(job["jid"] for job in popped) == (["a", "b"] if count == 2 else ["a"])
        for job in popped:
            assert len(job["history"]) == 3
            assert job["history"][-1]["worker"] == worker
            got = core("get", "1893456003.75", job["jid"]).decode()
            assert json.loads(got)["history"] == job["history"]
            history = got[got.index('"history":'):got.index(',"dependents"')]
            assert history in texts
    assert core.pop(worker=worker, now="1893456004") == []


@pytest.mark.parametrize("queue", ["q", 'q"x', "a{b}c", '"what":"y', "snow☃", "sl/ash"])
@pytest.mark.parametrize("time", [None, "1893456000.5", "5", "bogus"])
def test_pop_renders_the_put_entry_as_get_renders_it(
        core: Core, queue: str, time: str | None) -> None:
    # Pop predicts the put's stored entry from the job's time and queue and renders a match
    # without parsing it; a stored entry that differs from the prediction (a time field
    # changed by hand) is parsed as before. Either way the result is what get renders.
    core.put("j", "1893456000.25", queue)
    if time is not None:
        core.conn.hset("ql:j:j", "time", time)
    text = core("pop", "1893456009", queue, "w", 1).decode()
    popped = json.loads(text)
    got = core("get", "1893456009", "j").decode()
    assert popped[0]["history"] == json.loads(got)["history"]
    assert popped[0]["history"][0] == {"when": 1893456000, "what": "put", "q": queue}
    assert got[got.index('"history":'):got.index(',"dependents"')] in text
