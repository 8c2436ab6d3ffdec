"""Protocol sections 1-2, 3.36 and 3.37: invocation contract, reply conversion, JSON
rules, argument conventions, the data model, and the error phrase catalogue.

Every test asserts the protocol's behaviour on a real server, for rules no other test covered.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from tests.core.support import DAY, T0, Arg, Core, as_list
from tests.replies import text

CJSON_NIL = "bad argument #1 to 'decode' (string expected, got nil)"


def resp(core: Core, command: str, now: Arg, *args: Arg) -> Any:
    return core(command, now, *args)


# --- 1.2 reply conversion -------------------------------------------------------------------


def test_reply_type_of_every_command(core: Core) -> None:
    """The RESP type of each command's reply (1.2 table), on one consistent keyspace."""
    c = core
    bulk, integer, nil, array = bytes, int, type(None), list
    expect: list[tuple[tuple[object, ...], type, object]] = [
        (("put", T0, "", "q", "a", "K", "{}", 0), bulk, b"a"),
        (("put", T0, "", "q", "b", "K", "{}", 0), bulk, b"b"),
        (("put", T0, "", "q", "d", "K", "{}", 0, "depends", '["a"]'), bulk, b"d"),
        (("requeue", T0, "", "q", "b", "K", "{}", 0), bulk, b"b"),
        (("get", T0, "a"), bulk, None),
        (("get", T0, "zz"), nil, None),
        (("multiget", T0, "a", "b"), bulk, None),
        (("peek", T0, "q", 1), bulk, None),
        (("pop", T0, "q", "w", 2), bulk, None),
        (("heartbeat", T0 + 0.9, "a", "w"), integer, int(T0) + 60),
        (("priority", T0, "a", "-2.7"), integer, -2),
        (("priority", T0, "a", "3.7"), integer, 3),
        (("log", T0, "a", "note"), nil, None),
        (("track", T0, "track", "a"), bulk, b"1"),
        (("track", T0, "track", "a"), bulk, b"0"),
        (("track", T0), bulk, None),
        (("track", T0, "untrack", "a"), bulk, b"1"),
        (("track", T0, "untrack", "a"), bulk, b"0"),
        (("tag", T0, "add", "a", "t"), bulk, b'["t"]'),
        (("tag", T0, "get", "t"), bulk, None),
        (("tag", T0, "top"), bulk, b"{}"),
        (("retry", T0, "a", "q", "w"), integer, 4),
        (("fail", T0, "b", "w", "g", "m"), bulk, b"b"),
        (("failed", T0), bulk, None),
        (("failed", T0, "g"), bulk, None),
        (("unfail", T0, "q", "g"), integer, 1),
        (("depends", T0, "d", "off", "all"), integer, 1),
        (("jobs", T0, "complete"), array, []),
        (("jobs", T0, "depends", "q"), array, []),
        (("length", T0, "q"), integer, 3),
        (("queues", T0), bulk, None),
        (("queues", T0, "q"), bulk, None),
        (("workers", T0), bulk, None),
        (("workers", T0, "w"), bulk, None),
        (("stats", T0, "q", T0), bulk, None),
        (("timeout", T0), nil, None),
        (("pause", T0, "q"), nil, None),
        (("unpause", T0, "q"), nil, None),
        (("config.set", T0, "k", "v"), nil, None),
        (("config.get", T0, "k"), bulk, b"v"),
        (("config.get", T0, "heartbeat"), integer, 60),
        (("config.get", T0, "application"), bulk, b"qless"),
        (("config.get", T0, "nope"), nil, None),
        (("config.get", T0), bulk, None),
        (("config.unset", T0, "k"), nil, None),
        (("recur", T0, "q", "r", "K", "{}", "interval", 60, 0), bulk, b"r"),
        (("recur.get", T0, "r"), bulk, None),
        (("recur.get", T0, "zz"), nil, None),
        (("recur.update", T0, "r", "priority", 2), integer, 1),
        (("recur.tag", T0, "r", "x"), bulk, b'["x"]'),
        (("recur.untag", T0, "r", "x"), bulk, b"{}"),
        (("unrecur", T0, "r"), integer, 1),
        (("unrecur", T0, "never-existed"), integer, 1),
        (("cancel", T0, "zz", "a"), array, [b"zz", b"a"]),
        (("cancel", T0), array, []),
        (("worker.deregister", T0, "w"), nil, None),
        (("queue.forget", T0, "q"), nil, None),
    ]
    for call, kind, value in expect:
        reply = c(*call)  # type: ignore[arg-type]
        assert isinstance(reply, kind), (call, reply)
        if value is not None:
            assert reply == value, (call, reply)


def test_complete_replies_are_bulk_state_names(core: Core) -> None:
    for i, jid in enumerate(("a", "b", "c", "d")):
        core.put(jid, T0 + i)
    core.put("x", T0, "other")
    core.pop("q", "w", 4, now=T0 + 5)
    assert core("complete", T0, "a", "w", "q", "{}") == b"complete"
    assert core("complete", T0, "b", "w", "q", "{}", "next", "n") == b"waiting"
    assert core("complete", T0, "c", "w", "q", "{}", "next", "n", "delay", 5) == b"scheduled"
    assert core("complete", T0, "d", "w", "q", "{}", "next", "n", "depends", '["x"]') == b"depends"


# --- 1.3 JSON rules -------------------------------------------------------------------------


def test_nil_json_argument_raises_cjson_nil_message(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    core.rejects(CJSON_NIL, "put", T0, "w", "q", "j", "K")
    core.rejects(CJSON_NIL, "requeue", T0, "w", "q", "a", "K")
    core.rejects(CJSON_NIL, "complete", T0, "a", "w", "q")


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("put", ("w", "q", "j", "K", "{", 0)),
        ("complete", ("a", "w", "q", "{")),
        ("recur", ("q", "r", "K", "{", "interval", 60, 0)),
        ("log", ("a", "m", "{")),
        ("recur.update", ("r", "data", "{")),
    ],
)
def test_invalid_json_raises_cjson_own_error(
    core: Core, command: str, args: tuple[Arg, ...]
) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    core.rejects("Expected object key string but found T_END at character 2", command, T0, *args)


def test_json_null_is_accepted_where_json_is_checked(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    assert core("complete", T0, "a", "w", "q", "null") == b"complete"
    assert core.job("a")["data"] == "null"
    assert core("recur", T0, "q", "r", "K", "null", "interval", 60, 100) == b"r"
    assert core.json("recur.get", T0, "r")["data"] == "null"
    assert core("recur.update", T0, "r", "data", "null") == 1
    core.put("b", T0)
    core.pop(now=T0)
    core("heartbeat", T0, "b", "w", "null")
    assert core.hget("ql:j:b", "data") == "null"
    core("fail", T0, "b", "w", "g", "m", "null")
    assert core.hget("ql:j:b", "data") == "null"


def test_fail_and_heartbeat_reencode_data(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    core("heartbeat", T0, "a", "w", '{"l": [], "n": 3.14159265358979, "s": "a/b"}')
    stored = core.hget("ql:j:a", "data") or ""
    assert " " not in stored and '"l":{}' in stored and '"s":"a\\/b"' in stored
    assert '"n":3.1415926535898' in stored


def test_string_escapes_in_replies(core: Core) -> None:
    core.put('ctl\x01"\\/', T0, "q")
    raw = core("get", T0, 'ctl\x01"\\/')
    assert b'"jid":"ctl\\u0001\\"\\\\\\/"' in raw


def test_empty_lists_are_curly_braces_everywhere(core: Core) -> None:
    assert core("queues", T0) == b"{}"
    assert core("workers", T0) == b"{}"
    assert core("failed", T0) == b"{}"
    assert core("tag", T0, "top") == b"{}"
    assert core("peek", T0, "q", 5) == b"{}"
    assert core("pop", T0, "q", "w", 5) == b"{}"
    assert core("multiget", T0, "zz") == b"{}"
    assert json.loads(core("workers", T0, "nobody")) == {"jobs": {}, "stalled": {}}
    assert json.loads(core("failed", T0, "nogroup")) == {"total": 0, "jobs": {}}
    assert json.loads(core("tag", T0, "get", "notag")) == {"total": 0, "jobs": {}}
    assert json.loads(core("track", T0)) == {"jobs": {}, "expired": {}}
    core.put("a", T0)
    assert core("tag", T0, "add", "a") == b"{}"
    assert core("tag", T0, "remove", "a", "x") == b"{}"
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    assert core("recur.tag", T0, "r") == b"{}"
    assert b'"tags":{}' in core("recur.get", T0, "r")
    assert core.hget("ql:r:r", "tags") == "{}"


# --- 1.5 argument conventions ---------------------------------------------------------------


def test_numbers_use_lua_tonumber_everywhere(core: Core) -> None:
    core.put("a", T0, "q", "priority", " 5 ", "retries", "1e1", delay="0x10")
    assert core.zset("ql:q:q-scheduled") == [("a", T0 + 16)]
    assert float(core.hget("ql:j:a", "priority") or "nan") == 5
    assert float(core.hget("ql:j:a", "retries") or "nan") == 10
    assert core("priority", T0, "a", "0x10") == 16
    core("recur", T0, "q", "r", "K", "{}", "interval", "0x3c", " 1e2 ")
    assert core.json("recur.get", T0, "r")["interval"] == 60
    assert core.zset("ql:q:q-recur") == [("r", T0 + 100)]
    core.put("b", T0)
    core.pop(now=T0)
    assert core("retry", T0, "b", "q", "w", "0x8") == 4
    assert ("b", T0 + 8) in core.zset("ql:q:q-scheduled")


def test_empty_strings_pass_presence_checks(core: Core) -> None:
    core.put("a", T0)
    popped = core.pop("q", "", 1, now=T0)
    assert [j["jid"] for j in popped] == ["a"] and popped[0]["worker"] == ""
    assert core.zset("ql:workers") == [("", T0)]
    # heartbeat refuses an empty job worker even when the caller's worker is also empty
    core.rejects("Heartbeat(): Job a given out to another worker: ", "heartbeat", T0, "a", "")
    assert core("complete", T0, "a", "", "q", "{}") == b"complete"
    assert core("config.set", T0, "", "") is None
    assert core("config.get", T0, "") == b""
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    core.rejects('Recur(): Unrecognized option ""', "recur.update", T0, "r", "", "x")
    core.rejects('Jobs(): Unknown type ""', "jobs", T0, "", "q")


def test_unknown_option_names_are_ignored(core: Core) -> None:
    core.put("a", T0, "q", "colour", "red")
    assert core.job("a")["state"] == "waiting"
    core.pop(now=T0)
    assert core("complete", T0, "a", "w", "q", "{}", "colour", "red") == b"complete"
    assert core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "colour", "red") == b"r"
    core.rejects('Recur(): Unrecognized option "colour"', "recur.update", T0, "r", "colour", "x")


def test_dangling_option_names(core: Core) -> None:
    core.put("a", T0)
    core.rejects("Odd number of additional args", "requeue", T0, "", "q", "a", "K", "{}", 0, "x")
    core.rejects(
        "Odd number of additional args", "recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "x"
    )
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    core.rejects("No value provided for backlog", "recur.update", T0, "r", "priority", 3, "backlog")
    core.pop(now=T0)
    # complete: a dangling name after a full pair is ignored
    assert core("complete", T0, "a", "w", "q", "{}", "next", "n", "delay") == b"waiting"


def test_repeated_option_last_value_wins(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    assert core("complete", T0, "a", "w", "q", "{}", "next", "n1", "next", "n2") == b"waiting"
    assert core.job("a")["queue"] == "n2"
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "priority", 1, "priority", 7)
    assert core.json("recur.get", T0, "r")["priority"] == 7
    core("recur.update", T0, "r", "retries", 1, "retries", 4)
    assert core.json("recur.get", T0, "r")["retries"] == 4


def test_pagination_families_differ_for_count_zero(core: Core) -> None:
    c = core
    for i in range(3):
        c.put(f"c{i}", T0 + i)
        c.put(f"s{i}", T0 + i, "q", delay=1000)
        c.put(f"d{i}", T0 + i, "q", "depends", '["s0"]')
        c.put(f"r{i}", T0 + i, "rq")
        c("recur", T0, "q", f"t{i}", "K", "{}", "interval", 60, 500 + i)
    c.pop("q", "w", 3, now=T0 + 10)
    for i in range(3):
        c("complete", T0 + 20 + i, f"c{i}", "w", "q", "{}")
    c.pop("rq", "w", 3, now=T0 + 30)
    c("fail", T0 + 31, "r0", "w", "g", "m")
    c("fail", T0 + 32, "r1", "w", "g", "m")
    c("tag", T0, "add", "s0", "t")
    c("tag", T0, "add", "s1", "t")
    c("tag", T0, "add", "s2", "t")
    # index ranges: 0 0 means everything
    assert c("jobs", T0 + 40, "complete", 0, 0) == [b"c2", b"c1", b"c0"]
    assert c("jobs", T0 + 40, "scheduled", "q", 0, 0) == [b"s0", b"s1", b"s2"]
    assert c("jobs", T0 + 40, "depends", "q", 0, 0) == [b"d0", b"d1", b"d2"]
    assert c.json("failed", T0, "g", 0, 0)["jobs"] == ["r1", "r0"]
    assert c.json("tag", T0, "get", "t", 0, 0)["jobs"] == ["s0", "s1", "s2"]
    # LIMIT windows: count 0 is nothing, negative count is everything from offset
    assert c("jobs", T0 + 40, "running", "rq", 0, 0) == []
    assert c("jobs", T0 + 40, "running", "rq", 0, -1) == [b"r2"]
    assert c("jobs", T0 + 100, "stalled", "rq", 0, 0) == []
    assert c("jobs", T0 + 100, "stalled", "rq", 0, -1) == [b"r2"]
    assert c("jobs", T0 + 40, "recurring", "q", 0, 0) == []
    assert c("jobs", T0 + 40, "recurring", "q", 1, -1) == [b"t1", b"t2"]
    assert c("tag", T0, "top", 0, 0) == b"{}"
    assert json.loads(c("tag", T0, "top", 0, -1)) == ["t"]


def test_default_page_size_is_25(core: Core) -> None:
    for i in range(30):
        core.put(f"j{i:02}", T0 + i, "q", "tags", '["t"]', delay=1000)
    assert len(core("jobs", T0, "scheduled", "q")) == 25
    assert len(core.json("tag", T0, "get", "t")["jobs"]) == 25
    assert core.json("tag", T0, "get", "t")["total"] == 30


# --- 2.2 key catalogue: scores --------------------------------------------------------------


def test_catalogue_scores(core: Core) -> None:
    c = core
    c.put("a", T0 + 5, "q")
    c.put("b", T0 + 9, "q")  # the queue keeps its first-seen score
    c("recur", T0 + 11, "q", "r", "K", "{}", "interval", 60, 100)
    assert c.zset("ql:queues") == [("q", T0 + 5)]
    c.pop("q", "w", 2, now=T0 + 20)
    assert c.zset("ql:workers") == [("w", T0 + 20)]
    c("heartbeat", T0 + 30, "a", "w")
    assert c.zset("ql:workers") == [("w", T0 + 30)]
    assert dict(c.zset("ql:w:w:jobs")) == {"a": T0 + 90, "b": T0 + 80}
    assert dict(c.zset("ql:q:q-locks")) == {"a": T0 + 90, "b": T0 + 80}
    # tracking: re-tracking refreshes the score and replies "0"
    assert c("track", T0 + 31, "track", "a") == b"1"
    assert c("track", T0 + 32, "track", "a") == b"0"
    assert c.zset("ql:tracked") == [("a", T0 + 32)]
    # tags: score = time of (last) tagging
    c("tag", T0 + 33, "add", "a", "x")
    c("tag", T0 + 34, "add", "a", "x")
    assert c.zset("ql:t:x") == [("a", T0 + 34)]
    assert c.zset("ql:tags") == [("x", 2.0)]
    # completed: completion time
    c("complete", T0 + 40, "a", "w", "q", "{}")
    assert c.zset("ql:completed") == [("a", T0 + 40)]
    # failure group: newest at the head
    c.put("f1", T0, "q")
    c.put("f2", T0, "q")
    c.pop("q", "w", 2, now=T0 + 50)
    c("fail", T0 + 51, "f1", "w", "g", "m")
    c("fail", T0 + 52, "f2", "w", "g", "m")
    assert c.conn.lrange("ql:f:g", 0, -1) == [b"f2", b"f1"]
    assert c.members("ql:failures") == {"g"}
    # depends set: the time the job entered the state
    c.put("d", T0 + 60, "q", "depends", '["b"]')
    assert c.zset("ql:q:q-depends") == [("d", T0 + 60)]


def test_no_key_gets_a_ttl_outside_statistics(populated: Core) -> None:
    c = populated
    c("tag", T0, "add", "wait1", "t2")
    for key in c.conn.scan_iter(count=1000):
        if key.startswith((b"ql:s:", b"ql:fine:")):  # statistics and their fine twins
            continue
        assert c.conn.ttl(key) == -1, key


# --- 2.3 job hash fields --------------------------------------------------------------------


def test_job_hash_fields_through_the_life_cycle(core: Core) -> None:
    c = core
    c.put("a", T0, "q")
    c.pop(now=T0 + 1)
    c("fail", T0 + 2.5, "a", "w", "g", "m")
    h = {text(k): text(v) for k, v in c.conn.hgetall("ql:j:a").items()}
    assert h["state"] == "failed" and h["worker"] == "" and h["expires"] == ""
    assert h["queue"] == "q"
    assert json.loads(h["failure"]) == {
        "group": "g",
        "message": "m",
        "when": int(T0) + 2,
        "worker": "w",
    }
    job = c.job("a")
    assert job["expires"] == 0 and job["worker"] == ""
    c.put("a", T0 + 3, "q")
    c.pop(now=T0 + 4)
    c("complete", T0 + 5.25, "a", "w", "q", "{}")
    h = {text(k): text(v) for k, v in c.conn.hgetall("ql:j:a").items()}
    assert h["state"] == "complete" and h["queue"] == "" and h["worker"] == ""
    assert float(h["expires"]) == 0 and h["failure"] == "{}"
    _whole, frac = h["time"].split(".")
    assert len(frac) == 20 and float(h["time"]) == T0 + 5.25
    assert c.job("a")["queue"] == ""


def test_pop_writes_time_with_20_decimals(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0 + 1.5)
    assert core.hget("ql:j:a", "time") == "%.20f" % (T0 + 1.5)


def test_grace_flag_and_scheduled_field(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    core.pop(now=T0 + 61)  # lock expired: courtesy step sets the grace flag
    assert core.hget("ql:j:a", "grace") == "1"
    core.put("b", T0)
    core.put("c", T0, "q", "depends", '["b"]', delay=30)
    assert core.job("c")["state"] == "depends"
    assert float(core.hget("ql:j:c", "scheduled") or "nan") == T0 + 30


# --- 2.4 history ----------------------------------------------------------------------------


def test_history_entry_with_trailing_elements_renders_one_object(core: Core) -> None:
    """2.4: each element renders as one object built from element 3 plus when/what."""
    core.put("a", T0)
    core.conn.delete("ql:j:a-history")
    core.conn.rpush("ql:j:a-history", '[1,"x",{"a":1},{"b":2}]')
    assert core.job("a")["history"] == [{"when": 1, "what": "x", "a": 1}]


def test_legacy_history_is_migrated_after_existing_entries_and_before_append(core: Core) -> None:
    core.put("a", T0)
    legacy = [{"q": "old", "put": 10.5, "popped": 20.5, "worker": "w0", "failed": 30.5}]
    core.conn.hset("ql:j:a", "history", json.dumps(legacy))
    core("log", T0 + 5, "a", "note", '{"k":1}')
    assert core.history("a") == [
        [int(T0), "put", {"q": "q"}],
        [10, "put", {"q": "old"}],
        [20, "popped", {"worker": "w0"}],
        [30, "failed"],
        [int(T0) + 5, "note", {"k": 1}],
    ]
    assert core.conn.hexists("ql:j:a", "history") is False


def test_history_entries_written_by_each_command(core: Core) -> None:
    c = core
    c.put("a", T0 + 0.7, "q", "retries", 0)
    c.pop(now=T0 + 1.7)
    c("retry", T0 + 2.7, "a", "q", "w")  # exhausts: failed with {"group"}
    c("unfail", T0 + 3.7, "q2", "failed-retries-q")
    c.pop("q2", "w2", 1, now=T0 + 4.7)
    c("timeout", T0 + 5.7, "a")
    c.pop("q2", "w3", 1, now=T0 + 6.7)
    c("complete", T0 + 7.7, "a", "w3", "q2", "{}", "next", "q3")
    t = int(T0)
    assert c.history("a") == [
        [t, "put", {"q": "q"}],
        [t + 1, "popped", {"worker": "w"}],
        [t + 2, "failed", {"group": "failed-retries-q"}],
        [t + 3, "put", {"q": "q2"}],
        [t + 4, "popped", {"worker": "w2"}],
        [t + 5, "timed-out"],
        [t + 6, "popped", {"worker": "w3"}],
        [t + 7, "done"],
        [t + 7, "put", {"q": "q3"}],
    ]


# --- 2.5 failure object ---------------------------------------------------------------------


def test_automatic_failure_object(core: Core) -> None:
    core.put("a", T0, "q", "retries", 0)
    core.pop(now=T0)
    core("retry", T0 + 0.5, "a", "q", "w")
    assert json.loads(core.hget("ql:j:a", "failure") or "") == {
        "group": "failed-retries-q",
        "message": 'Job exhausted retries in queue "q"',
        "when": T0 + 0.5,
        "worker": "",
    }
    core.put("b", T0, "q", "retries", 0)
    core.pop(now=T0)
    core("retry", T0 + 0.5, "b", "q", "w", 0, "grp", "why")
    assert json.loads(core.hget("ql:j:b", "failure") or "") == {
        "group": "grp",
        "message": "why",
        "when": int(T0),
        "worker": "w",
    }


# --- 2.10 job object ------------------------------------------------------------------------


def test_job_object_fallbacks(core: Core) -> None:
    core.put("a", T0, "q", "retries", "2.5")
    core.pop(now=T0)
    core("retry", T0, "a", "q", "w")
    assert core.hget("ql:j:a", "remaining") == "1.5"
    job = core.job("a")
    assert job["remaining"] == 1  # floor
    core.conn.hdel("ql:j:a", "worker", "failure", "expires")
    job = core.job("a")
    assert job["worker"] == "" and job["failure"] == {} and job["expires"] == 0


def test_hash_without_jid_field_is_not_a_job(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0)
    core.conn.hdel("ql:j:a", "jid")
    assert core("get", T0, "a") is None
    assert [j["jid"] for j in core.json("multiget", T0, "a", "b")] == ["b"]
    assert [j["jid"] for j in as_list(core.json("peek", T0, "q", 5))] == ["b"]


def test_stored_tag_lists_accept_brackets(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["x"]')
    core.conn.hset("ql:j:a", "tags", "[]")
    assert core.job("a")["tags"] == {}
    assert b'"tags":{}' in core("get", T0, "a")
    assert core("tag", T0, "add", "a", "y") == b'["y"]'
    core.conn.hset("ql:r:r", mapping={"jid": "r", "tags": "[]"})
    assert core("recur.tag", T0, "r", "z") == b'["z"]'


def test_spawned_job_object(core: Core) -> None:
    core("recur", T0, "q", "r", "K", '{"p":1}', "interval", 60, -0.5, "tags", '["t"]')
    core.peek("q", 1, now=T0 + 1)
    job = core.job("r-1")
    assert job["spawned_from_jid"] == "r"
    assert job["retries"] == 0 and job["remaining"] == 0
    assert job["data"] == '{"p":1}' and job["tags"] == ["t"]
    assert job["history"] == [{"when": int(T0) - 1, "what": "put", "q": "q"}]
    assert core.hget("ql:j:r-1", "time") == "%.20f" % (T0 - 1)


# --- 2.11 other JSON shapes -----------------------------------------------------------------


def test_recurring_object_shape(core: Core) -> None:
    core("recur", T0, "q", "r", "K", '{"a":1}', "interval", 60, 30, "tags", '["t"]')
    obj = core.json("recur.get", T0, "r")
    assert obj == {
        "jid": "r",
        "klass": "K",
        "state": "recur",
        "queue": "q",
        "priority": 0,
        "interval": 60,
        "retries": 0,
        "count": 0,
        "data": '{"a":1}',
        "tags": ["t"],
        "backlog": 0,
    }
    core.conn.hdel("ql:r:r", "backlog")
    assert core.json("recur.get", T0, "r")["backlog"] == 0
    h = {text(k): text(v) for k, v in core.conn.hgetall("ql:r:r").items()}
    assert h["type"] == "interval" and h["state"] == "recur" and h["tags"] == '["t"]'


def test_worker_and_failure_shapes(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0)
    core.pop("q", "w", 2, now=T0)
    core("fail", T0, "b", "w", "g", "m")
    workers = core.json("workers", T0 + 1)
    assert workers == [{"name": "w", "jobs": 1, "stalled": 0}]
    assert core.json("workers", T0 + 1, "w") == {"jobs": ["a"], "stalled": {}}
    assert core.json("failed", T0) == {"g": 1}
    assert core.json("failed", T0, "g") == {"total": 1, "jobs": ["b"]}
    assert core.json("tag", T0, "get", "none") == {"total": 0, "jobs": {}}


# --- 3.37 phrase conditions -----------------------------------------------------------------


@pytest.mark.parametrize("command", ["pause", "unpause", "queue.forget", "worker.deregister"])
def test_no_names_raises_the_catalogue_arity_phrase(populated: Core, command: str) -> None:
    populated.rejects("Wrong number of args calling Redis command from script", command, T0)


def test_existence_is_defined_by_the_documented_field(core: Core) -> None:
    """heartbeat: `worker` field; timeout/priority: `queue`; tag: `tags`; depends: `state`."""
    core.put("a", T0)
    core.pop(now=T0)
    core.conn.hdel("ql:j:a", "worker")
    core.rejects("Heartbeat(): Job a does not exist", "heartbeat", T0, "a", "w")
    core.put("b", T0)
    core.conn.hdel("ql:j:b", "queue")
    core.rejects("Timeout(): Job b does not exist", "timeout", T0, "b")
    core.rejects("Priority(): Job b does not exist", "priority", T0, "b", 1)
    core.put("c", T0)
    core.conn.hdel("ql:j:c", "tags")
    core.rejects("Tag(): Job c does not exist", "tag", T0, "add", "c", "x")
    core.rejects("Tag(): Job c does not exist", "tag", T0, "remove", "c", "x")


def test_error_phrases_with_values(populated: Core) -> None:
    c = populated
    cases: list[tuple[str, tuple[object, ...], str]] = [
        ("put", ("w", "q", "j", "K", "{}", 0, "tags", "false"), 'Put(): Arg "tags" not JSONfalse'),
        (
            "put",
            ("w", "q", "j", "K", "{}", 0, "priority", "x"),
            'Put(): Arg "priority" not a numberx',
        ),
        ("put", ("w", "q", "j", "K", "{}", "soon"), 'Put(): Arg "delay" not a number: soon'),
        ("put", ("w", "q", "j", "K", "{}"), 'Put(): Arg "delay" not a number: nil'),
        ("pop", ("q", "w"), 'Pop(): Arg "count" missing or not a number: nil'),
        ("peek", ("q", "x"), 'Peek(): Arg "count" missing or not a number: x'),
        ("priority", ("wait1",), 'Priority(): Arg "priority" missing or not a number: nil'),
        ("stats", ("q",), 'Stats(): Arg "date" missing or not a number: nil'),
        ("heartbeat", ("wait1", "w"), "Heartbeat(): Job wait1 not currently running: waiting"),
        ("heartbeat", ("run1", "w"), "Heartbeat(): Job run1 given out to another worker: wA"),
        ("fail", ("zz", "w", "g", "m"), "Fail(): Job zzdoes not exist"),
        ("fail", ("wait1", "w", "g", "m"), "Fail(): Job wait1not currently running: waiting"),
        ("fail", ("run1", "w", "g", "m"), "Fail(): Job run1 running with another worker: wA"),
        ("retry", ("fail1", "other", "wA"), "Retry(): Job fail1 is not currently running: failed"),
        ("retry", ("run1", "other", "w"), "Retry(): Job run1 has been given to another worker: wA"),
        (
            "complete",
            ("run1", "wA", "q", "{}"),
            "Complete(): Job run1 running in another queue: other",
        ),
        (
            "complete",
            ("done1", "wA", "other", "{}"),
            "Complete(): Job done1 is not currently running: complete",
        ),
        (
            "complete",
            ("run1", "w", "other", "{}"),
            "Complete(): Job run1 has been handed out to another worker: wA",
        ),
        (
            "complete",
            ("run1", "wA", "other", "{}", "delay", 0),
            'Complete(): "delay" cannot be used without a "next".',
        ),
        ("complete", ("run1", "wA", "other", "{}", "next", "n", "delay", "x"), "assertion failed!"),
        ("timeout", ("wait1",), "Timeout(): Job wait1 not running"),
        ("depends", ("wait1", "ON", "x"), "Depends(): Job wait1 not in the depends state: waiting"),
        ("depends", ("dep1", "ON", "x"), 'Depends(): Argument "command" must be "on" or "off"'),
        ("log", ("zz", "m"), "Log(): Job zz does not exist"),
        ("log", ("wait1", "m", "false"), "Log(): Argument 'data' not cjson: false"),
        ("track", ("follow", "zz"), "Track(): Job does not exist"),
        ("track", ("Follow", "wait1"), 'Track(): Unknown action "Follow"'),
        ("tag", ("ADD", "wait1", "x"), 'Tag(): First argument must be "add", "remove" or "get"'),
        ("tag", ("get",), 'Tag(): Arg "tag" missing'),
        ("tag", ("remove",), 'Tag(): Arg "jid" missing'),
        ("jobs", ("waiting", "q"), 'Jobs(): Unknown type "waiting"'),
        ("jobs", ("waiting",), 'Jobs(): Arg "queue" missing'),
        ("jobs", ("waiting", "q", "x"), 'Jobs(): Arg "offset" not a number: x'),
        ("failed", ("g", "x"), 'Failed(): Arg "start" is not a number: x'),
        ("unfail", ("q",), 'Unfail(): Arg "group" missing'),
        ("unfail", ("q", "g", "x"), 'Unfail(): Arg "count" not a number: x'),
        ("recur", ("q", "r", "K", "{}", "cron", 60, 0), 'Recur(): schedule type "cron" unknown'),
        (
            "recur",
            ("q", "r", "K", "false", "cron"),
            'RecurringJob On(): Arg "data" not JSON: false',
        ),
        (
            "recur",
            ("q", "r", "K", "{}", "interval", 0, 0),
            'Recur(): Arg "interval" must be greater than 0',
        ),
        (
            "recur",
            ("q", "r", "K", "{}", "interval", 60, 0, "tags", "false"),
            'Recur(): Arg "tags" must be JSON string array: false',
        ),
        ("recur.update", ("zz", "priority", 1), "Recur(): No recurring job zz"),
        ("recur.update", ("tmpl", "interval", "x"), 'Recur(): Arg "interval" must be a number: x'),
        (
            "recur.update",
            ("tmpl", "data", "false"),
            'Recur(): Arg "data" is not JSON-encoded: false',
        ),
        ("recur.update", ("tmpl", "tags", "[]"), 'Recur(): Unrecognized option "tags"'),
        ("recur.tag", ("zz", "x"), "Tag(): Job zz does not exist"),
        ("recur.untag", ("zz", "x"), "Untag(): Job zz does not exist"),
        ("requeue", ("w", "q", "zz", "K", "{}", 0), "Requeue(): Job zz does not exist"),
        ("requeue", (), "Job(): no jid provided"),
        ("requeue", ("w",), "Job(): no jid provided"),
        ("config.set", ("k",), 'config.set(): Arg "value" missing'),
    ]
    failures = []
    for command, args, phrase in cases:
        try:
            c.rejects(phrase, command, T0 + 10, *args)  # type: ignore[arg-type]
        except AssertionError as exc:
            failures.append(f"{command} {args}: {exc}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    "command",
    ["get", "complete", "fail", "retry", "heartbeat", "depends", "priority", "requeue"],
)
def test_job_handle_phrase(populated: Core, command: str) -> None:
    populated.rejects("Job(): no jid provided", command, T0)


@pytest.mark.parametrize("command", ["put", "pop", "peek", "length", "stats", "unfail", "recur"])
def test_queue_handle_phrase(populated: Core, command: str) -> None:
    populated.rejects("Queue(): no queue name provided", command, T0)


@pytest.mark.parametrize("command", ["timeout", "cancel", "multiget"])
def test_variadic_job_commands_accept_no_jid(core: Core, command: str) -> None:
    assert core(command, T0) in (None, [], b"{}")


def test_dispatch_order_keys_before_everything(core: Core) -> None:
    with pytest.raises(redis.ResponseError, match="No Keys should be provided"):
        core.raw(1, "ql:x")
    with pytest.raises(redis.ResponseError, match="No Keys should be provided"):
        core.raw(1, "ql:x", "nope", "soon")


def test_stats_day_bin_uses_date_not_now(core: Core) -> None:
    core.put("a", T0 + 3 * DAY)
    core.pop(now=T0 + 3 * DAY + 5)
    assert core.json("stats", T0, "q", T0 + 3 * DAY + 100)["wait"]["count"] == 1
    assert core.json("stats", T0 + 3 * DAY, "q", T0)["wait"]["count"] == 0
