"""Protocol 3.13-3.35 (log ... config.unset): rules not asserted elsewhere.

Every test asserts the protocol's behaviour (with the deviations of docs/compatibility.md).
"""

from __future__ import annotations

import json

import pytest

from tests.core.support import DAY, T0, Core, EventRecorder, decoded
from tests.replies import text

DAY0 = int(T0 // DAY * DAY)


# --------------------------------------------------------------------------- 3.13 log


def test_log_stored_entry_text(core: Core) -> None:
    core.put("a")
    core("log", T0 + 3.9, "a", "note", '{ "k" : [1, 2],  "s":"a/b" }')
    core("log", T0 + 4.2, "a", "plain")
    raw = core.conn.lrange("ql:j:a-history", 0, -1)
    # [floor(now), what, decoded-and-re-encoded extra]; no extra when data is absent
    assert json.loads(raw[-2]) == [int(T0) + 3, "note", {"k": [1, 2], "s": "a/b"}]
    assert raw[-1] == b'[%d,"plain"]' % (int(T0) + 4)
    assert b" " not in raw[-2]


def test_log_data_checked_before_job_existence(populated: Core) -> None:
    populated.rejects("Log(): Argument 'data' not cjson: false", "log", T0, "zz", "m", "false")
    populated.rejects("Expected", "log", T0, "zz", "m", "{bad")
    populated.rejects("Log(): Argument 'message' missing", "log", T0, "zz")


def test_log_on_complete_and_failed_jobs(populated: Core) -> None:
    c = populated
    for jid in ("done1", "fail1"):
        assert c("log", T0 + 9, jid, "later", '{"n":1}') is None
        assert c.job(jid)["history"][-1] == {"when": int(T0) + 9, "what": "later", "n": 1}


def test_log_array_data_renders_numeric_keys(core: Core) -> None:
    core.put("a")
    core("log", T0 + 1, "a", "arr", '["x", "y"]')
    assert core.job("a")["history"][-1] == {"when": int(T0) + 1, "what": "arr", "1": "x", "2": "y"}


def test_log_reply_is_nil_and_silent(core: Core, events: EventRecorder) -> None:
    core.put("a")
    core("track", T0, "track", "a")
    with events.record() as got:
        assert core("log", T0, "a", "m", "{}") is None
    assert got == []


# --------------------------------------------------------------------------- 3.14 / 3.15


def test_get_reply_is_bulk_json_and_nil(core: Core) -> None:
    core.put("a")
    reply = core("get", T0, "a")
    assert isinstance(reply, bytes) and json.loads(reply)["jid"] == "a"
    assert core("get", T0, "zz") is None
    # a hash without a jid field counts as missing
    core.conn.hset("ql:j:ghost", "state", "waiting")
    assert core("get", T0, "ghost") is None
    assert core("multiget", T0, "ghost") == b"{}"


def test_multiget_order_and_duplicates(core: Core) -> None:
    core.put("a")
    core.put("b")
    got = core.json("multiget", T0, "b", "a", "b", "nope")
    assert [j["jid"] for j in got] == ["b", "a", "b"]


# --------------------------------------------------------------------------- 3.16 track


def test_track_unknown_action_needs_existing_job(populated: Core) -> None:
    # the existence check comes before the action check
    populated.rejects("Track(): Job does not exist", "track", T0, "watch", "zz")
    populated.rejects('Track(): Arg "jid" missing', "track", T0, "watch")


def test_track_reply_is_json_number_string(core: Core) -> None:
    core.put("a")
    assert core("track", T0, "track", "a") == b"1"
    assert core("track", T0, "untrack", "a") == b"1"
    assert core("track", T0, "UNTRACK", "a") == b"0"
    assert core.zset("ql:tracked") == []


def test_track_events_even_when_no_change(core: Core, events: EventRecorder) -> None:
    core.put("a")
    with events.record() as got:
        core("track", T0, "untrack", "a")  # not tracked: still published
        core("track", T0, "track", "a")
    assert got == [("ql:untrack", "a"), ("ql:track", "a")]


def test_track_listing_order_and_expired(core: Core) -> None:
    for jid, t in (("a", 3), ("b", 1), ("c", 2)):
        core.put(jid)
        core("track", T0 + t, "track", jid)
    core("cancel", T0, "c")
    listing = core.json("track", T0)
    assert [j["jid"] for j in listing["jobs"]] == ["b", "a"]
    assert all(j["tracked"] is True for j in listing["jobs"])
    assert listing["expired"] == ["c"]


# --------------------------------------------------------------------------- 3.17 tag


def test_tag_add_duplicates_bump_counter_each_time(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["x"]')
    assert json.loads(core("tag", T0 + 5, "add", "a", "z", "z", "x")) == ["x", "z"]
    assert dict(core.zset("ql:tags")) == {"x": 2.0, "z": 2.0}
    assert core.zset("ql:t:x") == [("a", T0 + 5)] and core.zset("ql:t:z") == [("a", T0 + 5)]
    assert core.hget("ql:j:a", "tags") == '["x","z"]'


def test_tag_remove_drops_every_copy(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["x","y","x"]')
    assert json.loads(core("tag", T0, "remove", "a", "x")) == ["y"]
    assert core.hget("ql:j:a", "tags") == '["y"]'


def test_tag_add_keeps_existing_duplicates(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["x","x"]')
    assert json.loads(core("tag", T0, "add", "a", "y")) == ["x", "x", "y"]


def test_tag_add_nothing_stores_and_replies_list(core: Core) -> None:
    core.put("a")
    assert core("tag", T0, "add", "a") == b"{}"
    assert core.hget("ql:j:a", "tags") == "{}"


def test_tag_accepts_stored_empty_array(core: Core) -> None:
    core.put("a")
    core.conn.hset("ql:j:a", "tags", "[]")
    assert json.loads(core("tag", T0, "add", "a", "t")) == ["t"]
    core.conn.hset("ql:j:a", "tags", "[]")
    assert core("tag", T0, "remove", "a", "t") == b"{}"


def test_tag_on_complete_job(populated: Core) -> None:
    assert json.loads(populated("tag", T0, "add", "done1", "t")) == ["t"]


def test_tag_subcommands_are_case_sensitive(populated: Core) -> None:
    for word in ("Get", "TOP", "Remove", ""):
        populated.rejects(
            'Tag(): First argument must be "add", "remove" or "get"', "tag", T0, word, "x"
        )


def test_tag_get_default_count_is_25(core: Core) -> None:
    for i in range(30):
        core.put(f"j{i:02d}", T0 + i, "q", "tags", '["t"]')
    page = core.json("tag", T0, "get", "t")
    assert page["total"] == 30 and page["jobs"] == [f"j{i:02d}" for i in range(25)]
    assert core.json("tag", T0, "get", "t", 28)["jobs"] == ["j28", "j29"]


def test_tag_top_default_count_and_order(core: Core) -> None:
    for i in range(30):
        core.conn.zadd("ql:tags", {f"t{i:02d}": i + 2})
    core.conn.zadd("ql:tags", {"low": 1.5, "neg": -3})
    top = core.json("tag", T0, "top")
    assert top == [f"t{i:02d}" for i in range(29, 4, -1)]
    assert core.json("tag", T0, "top", 29) == ["t00"]


def test_tag_get_reply_types(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["t"]')
    raw = core("tag", T0, "get", "t")
    assert isinstance(raw, bytes)
    assert json.loads(raw) == {"total": 1, "jobs": ["a"]}


# --------------------------------------------------------------------------- 3.18 queues


def test_queues_lock_expiring_now_is_stalled(core: Core) -> None:
    core.put("a")
    core.put("b")
    core.pop("q", "w", 2, now=T0)  # locks at T0+60
    core("heartbeat", T0 + 10, "b", "w")  # b at T0+70
    got = core.json("queues", T0 + 60, "q")
    assert (got["stalled"], got["running"]) == (1, 1)
    assert core("jobs", T0 + 60, "stalled", "q") == [b"a"]
    assert core("jobs", T0 + 60, "running", "q") == [b"a", b"b"]


def test_queues_counts_recurring_and_depends_not_in_length(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    core.put("a", T0, "q")
    core.put("d", T0, "q", "depends", '["a"]')
    core.put("s", T0, "q", delay=50)
    got = core.json("queues", T0, "q")
    assert (got["waiting"], got["depends"], got["recurring"], got["scheduled"]) == (1, 1, 1, 1)
    assert core("length", T0, "q") == 2


def test_queues_all_promotes_each_queue(core: Core) -> None:
    core.put("a", T0, "q1", delay=5)
    core.put("b", T0, "q2", delay=5)
    got = core.json("queues", T0 + 10)
    assert [(q["name"], q["waiting"], q["scheduled"]) for q in got] == [
        ("q1", 1, 0),
        ("q2", 1, 0),
    ]
    assert core.hget("ql:j:b", "state") == "waiting"
    # promoted at the call's now (2.8)
    assert dict(core.zset("ql:q:q2-work"))["b"] == pytest.approx(-(T0 + 10) / 1e10, abs=1e-12)


def test_queues_does_not_register(core: Core) -> None:
    core.json("queues", T0, "ghost")
    assert core.zset("ql:queues") == []


# --------------------------------------------------------------------------- 3.19 length


def test_length_counts_expired_locks_and_timed_out(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0 + 1)
    core.put("c", T0 + 2)
    core.pop("q", "w", 2, now=T0 + 3)
    core("timeout", T0 + 3, "a")
    # a back in work at +inf, b still locked (expired), c waiting
    assert core("length", T0 + 1000, "q") == 3


# --------------------------------------------------------------------------- 3.20 jobs


def test_jobs_queue_checked_before_unknown_state(populated: Core) -> None:
    populated.rejects('Jobs(): Arg "queue" missing', "jobs", T0, "bogus")
    populated.rejects('Jobs(): Arg "offset" not a number: x', "jobs", T0, "bogus", "q", "x")
    populated.rejects('Jobs(): Arg "count" not a number: y', "jobs", T0, "bogus", "q", 0, "y")
    populated.rejects('Jobs(): Arg "count" not a number: y', "jobs", T0, "complete", 0, "y")
    populated.rejects('Jobs(): Unknown type "Running"', "jobs", T0, "Running", "q")


def test_jobs_complete_default_count(core: Core) -> None:
    for i in range(30):
        core.put(f"c{i:02d}", T0)
    core.pop("q", "w", 30, now=T0)
    for i in range(30):
        core("complete", T0 + i, f"c{i:02d}", "w", "q", "{}")
    got = core("jobs", T0, "complete")
    assert got == [f"c{i:02d}".encode() for i in range(29, 4, -1)]
    assert core("jobs", T0, "complete", 28) == [b"c01", b"c00"]


def test_jobs_recurring_excludes_negative_scores(core: Core) -> None:
    core("recur", 100, "q", "neg", "K", "{}", "interval", 60, -200)  # score -100
    core("recur", 100, "q", "pos", "K", "{}", "interval", 60, 0)
    assert core("jobs", 100, "recurring", "q") == [b"pos"]
    assert core.json("queues", 100, "q")["recurring"] == 2


def test_jobs_stalled_includes_negative_scores(core: Core) -> None:
    core.conn.zadd("ql:q:q-locks", {"x": -5, "y": 3})
    assert core("jobs", 10, "stalled", "q") == [b"x", b"y"]
    assert core("jobs", 10, "running", "q") == []


def test_jobs_depends_and_scheduled_offsets(core: Core) -> None:
    core.put("p", T0)
    for i in range(3):
        core.put(f"d{i}", T0 + i, "q", "depends", '["p"]')
    assert core("jobs", T0, "depends", "q", 1) == [b"d1", b"d2"]
    assert core("jobs", T0, "depends", "q", 1, 0) == []  # index range 1 .. 0
    assert core("jobs", T0, "depends", "q", 0, 0) == [b"d0", b"d1", b"d2"]  # 0 .. -1


def test_jobs_reply_is_array(core: Core) -> None:
    assert core("jobs", T0, "complete") == []


# --------------------------------------------------------------------------- 3.21 / 3.22


def test_pause_unpause_reply_nil(core: Core) -> None:
    assert core("pause", T0, "q") is None
    assert core("unpause", T0, "q", "never-paused") is None
    assert core.conn.exists("ql:paused_queues") == 0


def test_queue_forget_keeps_everything_else(core: Core) -> None:
    core.put("a", T0, "q", delay=5)
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    before = core.digest()
    assert core("queue.forget", T0, "q") is None
    after = core.digest()
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed == {b"ql:queues"} and core.zset("ql:queues") == []
    # recur (P-KNOW) registers it again with the new now
    core("recur", T0 + 7, "q", "r", "K", "{}", "interval", 60, 100)
    assert core.zset("ql:queues") == [("q", T0 + 7)]


# --------------------------------------------------------------------------- 3.23 stats


def test_stats_date_bin_is_floored_day(core: Core) -> None:
    core.conn.hset(f"ql:s:stats:{DAY0}:q", mapping={"retries": 2, "failed": -1, "failures": 4})
    for date in (DAY0, DAY0 + 0.5, DAY0 + DAY - 1):
        got = core.json("stats", 0, "q", date)
        assert (got["retries"], got["failed"], got["failures"]) == (2, -1, 4)
    assert core.json("stats", 0, "q", DAY0 - 0.001)["retries"] == 0


def test_stats_std_is_sample_std(core: Core) -> None:
    core.conn.hset(f"ql:s:run:{DAY0}:q", mapping={"total": 3, "mean": 2, "vk": 8, "s2": 3})
    run = core.json("stats", 0, "q", DAY0)["run"]
    assert run["count"] == 3 and run["mean"] == 2 and run["std"] == 2
    assert run["histogram"][2] == 3


# --------------------------------------------------------------------------- 3.24 failed


def test_failed_group_default_limit(core: Core) -> None:
    core.conn.lpush("ql:f:g", *[f"j{i:02d}" for i in range(30)])
    core.conn.sadd("ql:failures", "g")
    page = core.json("failed", T0, "g")
    assert page["total"] == 30 and page["jobs"] == [f"j{i:02d}" for i in range(29, 4, -1)]
    assert core.json("failed", T0) == {"g": 30}


# --------------------------------------------------------------------------- 3.25 unfail


def put_failed(core: Core, jid: str, group: str = "g", now: float = T0) -> None:
    core.put(jid, now, "q", "retries", 3, "priority", 2)
    core.pop("q", "w", 1, now=now)
    core("fail", now + 1, jid, "w", group, "msg")


def test_unfail_stored_fields(core: Core) -> None:
    put_failed(core, "a")
    time_before = core.hget("ql:j:a", "time")
    core.conn.hset("ql:j:a", "remaining", 0)
    assert core("unfail", T0 + 50, "q2", "g") == 1
    h = {text(k): text(v) for k, v in core.conn.hgetall("ql:j:a").items()}
    assert h["state"] == "waiting" and h["worker"] == "" and h["expires"] == "0"
    assert h["queue"] == "q2" and h["remaining"] == "3"
    assert h["time"] == time_before  # not reset
    assert json.loads(h["failure"])["group"] == "g"  # kept
    [(member, score)] = core.zset("ql:q:q2-work")
    assert member == "a" and score == pytest.approx(2 - (T0 + 50) / 1e10)
    assert core.history("a")[-1] == [int(T0) + 50, "put", {"q": "q2"}]
    assert core.conn.exists("ql:f:g") == 0 and core.members("ql:failures") == set()


def test_unfail_count_larger_than_group(core: Core) -> None:
    for i in range(3):
        put_failed(core, f"f{i}", now=T0 + 10 * i)
    assert core("unfail", T0 + 100, "q", "g", 10) == 3
    assert core.conn.exists("ql:f:g") == 0


def test_unfail_keeps_group_when_not_empty(core: Core) -> None:
    for i in range(3):
        put_failed(core, f"f{i}", now=T0 + 10 * i)
    assert core("unfail", T0 + 100, "q", "g", 1) == 1
    assert core.job("f0")["state"] == "waiting"
    assert core.members("ql:failures") == {"g"}
    assert core.conn.lrange("ql:f:g", 0, -1) == [b"f2", b"f1"]


def test_unfail_is_silent(core: Core, events: EventRecorder) -> None:
    put_failed(core, "a")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("unfail", T0 + 5, "q", "g")
    assert got == []


# --------------------------------------------------------------------------- 3.26 recur


def test_recur_stored_hash(core: Core) -> None:
    data = '{ "spaced" : [1, 2] }'
    core(
        "recur", T0, "q", "r", "K", data, "interval", 30.5, 10,
        "priority", "1.5", "tags", '["b","a/b"]', "retries", 2, "backlog", 3, "unknown", "z",
    )  # fmt: skip
    h = {text(k): text(v) for k, v in core.conn.hgetall("ql:r:r").items()}
    assert h == {
        "jid": "r",
        "klass": "K",
        "data": data,  # verbatim
        "priority": "1.5",
        "tags": '["b","a\\/b"]',
        "state": "recur",
        "queue": "q",
        "type": "interval",
        "count": "0",
        "interval": "30.5",
        "retries": "2",
        "backlog": "3",
    }
    assert core.zset("ql:q:q-recur") == [("r", T0 + 10)]


def test_recur_last_duplicate_option_wins(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "priority", 1, "priority", 7)
    assert core.json("recur.get", T0, "r")["priority"] == 7


def test_recur_empty_tag_array_stored_as_object(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "tags", "[]")
    assert core.hget("ql:r:r", "tags") == "{}"
    assert core("recur.tag", T0, "r") == b"{}"


def test_recur_keeps_first_seen_score_of_known_queue(core: Core) -> None:
    core.put("a", T0 - 100, "q")
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    assert core.zset("ql:queues") == [("q", T0 - 100)]


def test_recur_data_null_is_accepted(core: Core) -> None:
    assert core("recur", T0, "q", "r", "K", "null", "interval", 60, 0) == b"r"
    assert core.json("recur.get", T0, "r")["data"] == "null"


def test_recur_validation_order(populated: Core) -> None:
    c = populated
    # data is checked before the schedule type
    c.rejects(
        'RecurringJob On(): Arg "data" not JSON: false', "recur", T0, "q", "r", "K", "false", "cron"
    )
    c.rejects("Expected", "recur", T0, "q", "r", "K", "{x", "cron")
    # interval and offset before the > 0 check, > 0 before the odd-words check
    c.rejects(
        'Recur(): Arg "offset" not a number: nil', "recur", T0, "q", "r", "K", "{}", "interval", 0
    )
    c.rejects(
        'Recur(): Arg "interval" must be greater than 0',
        "recur", T0, "q", "r", "K", "{}", "interval", 0, 0, "priority",
    )  # fmt: skip
    c.rejects(
        'Recur(): Arg "interval" not a number: nil', "recur", T0, "q", "r", "K", "{}", "interval"
    )
    # odd words before any option check
    c.rejects(
        "Odd number of additional args",
        "recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "priority", "x", "retries",
    )  # fmt: skip
    # tags before priority, priority before retries, retries before backlog
    c.rejects(
        'Recur(): Arg "tags" must be JSON string array: false',
        "recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "priority", "x", "tags", "false",
    )  # fmt: skip
    c.rejects(
        'Recur(): Arg "priority" not a number: x',
        "recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "backlog", "y", "priority", "x",
    )  # fmt: skip
    c.rejects(
        'Recur(): Arg "retries" not a number: x',
        "recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "backlog", "y", "retries", "x",
    )  # fmt: skip


def test_recur_replacing_moves_between_queues_and_resets(core: Core) -> None:
    core(
        "recur",
        T0,
        "q",
        "r",
        "K",
        "{}",
        "interval",
        60,
        0,
        "tags",
        '["t"]',
        "retries",
        4,
        "backlog",
        2,
    )
    core("recur", T0 + 1, "q2", "r", "K2", '{"a":1}', "interval", 10, 5)
    got = core.json("recur.get", T0, "r")
    assert got["tags"] == {} and got["retries"] == 0 and got["backlog"] == 0
    assert got["klass"] == "K2" and got["queue"] == "q2"
    assert core.zset("ql:q:q-recur") == [] and core.zset("ql:q:q2-recur") == [("r", T0 + 6)]


# --------------------------------------------------------------------------- 3.27 / 3.28


def test_unrecur_reply_integer_and_children_untouched(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    core.peek("q", 1, now=T0)
    before = core.conn.hgetall("ql:j:r-1")
    assert core("unrecur", T0, "r") == 1
    assert core("unrecur", T0, "never") == 1
    assert core.conn.hgetall("ql:j:r-1") == before
    assert core("recur.get", T0, "r") is None


def test_recur_get_backlog_default_and_types(core: Core) -> None:
    core.conn.hset(
        "ql:r:old",
        mapping={
            "jid": "old", "klass": "K", "state": "recur", "queue": "q", "priority": "1.5",
            "interval": "60", "retries": "0", "count": "7", "data": "{}", "tags": '["x"]',
            "type": "interval",
        },
    )  # fmt: skip
    raw = core("recur.get", T0, "old")
    assert isinstance(raw, bytes)
    assert json.loads(raw) == {
        "jid": "old", "klass": "K", "state": "recur", "queue": "q", "priority": 1.5,
        "interval": 60, "retries": 0, "count": 7, "data": "{}", "tags": ["x"], "backlog": 0,
    }  # fmt: skip


# --------------------------------------------------------------------------- 3.29 recur.update


def test_recur_update_interval_no_positive_check(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    assert core("recur.update", T0, "r", "interval", 0) == 1
    assert core.zset("ql:q:q-recur") == [("r", T0 + 40)]
    assert core("recur.update", T0, "r", "interval", -10, "interval", 20) == 1
    assert core.zset("ql:q:q-recur") == [("r", T0 + 60)]
    assert core.hget("ql:r:r", "interval") == "20"


def test_recur_update_stored_texts(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    core("recur.update", T0, "r", "priority", "0x10", "retries", "2.5", "backlog", "1e1",
         "data", '{ "a" : 1 }', "klass", "")  # fmt: skip
    h = core.conn.hgetall("ql:r:r")
    assert h[b"priority"] == b"16" and h[b"retries"] == b"2.5" and h[b"backlog"] == b"10"
    assert h[b"data"] == b'{ "a" : 1 }' and h[b"klass"] == b""


def test_recur_update_queue_known_keeps_score_and_registers_new(core: Core) -> None:
    core.put("x", T0 - 50, "known")
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    core("recur.update", T0 + 5, "r", "queue", "known", "interval", 30)
    assert core.zset("ql:q:known-recur") == [("r", T0 + 70)]
    assert dict(core.zset("ql:queues"))["known"] == T0 - 50
    core("recur.update", T0 + 6, "r", "queue", "fresh")
    assert dict(core.zset("ql:queues"))["fresh"] == T0 + 6
    assert core.hget("ql:r:r", "queue") == "fresh"


def test_recur_update_no_pairs(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 100)
    assert core("recur.update", T0, "r") == 1


def test_recur_update_errors_more(populated: Core) -> None:
    c = populated
    # existence first, even with a bad pair
    c.rejects("Recur(): No recurring job nope", "recur.update", T0, "nope", "colour", "red")
    c.rejects("No value provided for klass", "recur.update", T0, "tmpl", "klass")
    c.rejects('Recur(): Unrecognized option "Priority"', "recur.update", T0, "tmpl", "Priority", 1)
    c.rejects("Expected", "recur.update", T0, "tmpl", "data", "")


# --------------------------------------------------------------------------- 3.30 recur.tag


def test_recur_tag_untag_stored_text(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "tags", '["a"]')
    assert core("recur.tag", T0, "r", "b/c") == b'["a","b\\/c"]'
    assert core.hget("ql:r:r", "tags") == '["a","b\\/c"]'
    assert core("recur.untag", T0, "r", "zz") == b'["a","b\\/c"]'
    assert core("recur.untag", T0, "r", "a", "b/c") == b"{}"
    assert core.hget("ql:r:r", "tags") == "{}"
    # future spawns carry the new list
    core("recur.tag", T0, "r", "n")
    [job] = core.peek("q", 1, now=T0)
    assert job["tags"] == ["n"]


# --------------------------------------------------------------------------- 3.31 / 3.32 workers


def test_workers_boundary_counts_in_both(core: Core) -> None:
    core.put("a")
    core.pop("q", "w", 1, now=T0)  # entry at T0+60
    assert core.json("workers", T0 + 60) == [{"name": "w", "jobs": 1, "stalled": 1}]
    assert core.json("workers", T0 + 60, "w") == {"jobs": ["a"], "stalled": ["a"]}


def test_workers_window_upper_bound(core: Core) -> None:
    core.conn.zadd("ql:workers", {"w": T0})
    core.conn.zadd("ql:w:w:jobs", {"far": T0 + 8640001, "edge": T0 + 8640000})
    assert core.json("workers", T0) == [{"name": "w", "jobs": 1, "stalled": 0}]
    assert core.json("workers", T0, "w") == {"jobs": ["edge"], "stalled": {}}


def test_workers_purge_boundary_and_unregistered_detail(core: Core) -> None:
    core.conn.zadd("ql:workers", {"old": T0 - 86400, "new": T0 - 86399})
    core.conn.zadd("ql:w:old:jobs", {"j": T0 + 5})
    core.conn.zadd("ql:w:new:jobs", {"k": T0 + 5})
    core.conn.zadd("ql:w:free:jobs", {"m": T0 + 5})
    assert core.json("workers", T0) == [{"name": "new", "jobs": 1, "stalled": 0}]
    assert core.conn.exists("ql:w:old:jobs") == 0
    # an unregistered worker's job set is reported (and not purged)
    assert core.json("workers", T0, "free") == {"jobs": ["m"], "stalled": {}}


def test_worker_deregister_keeps_job_sets(core: Core) -> None:
    core.conn.zadd("ql:workers", {"w": T0})
    core.conn.zadd("ql:w:w:jobs", {"j": T0 + 5})
    assert core("worker.deregister", T0, "w") is None
    assert core("workers", T0) == b"{}"
    assert core.json("workers", T0, "w") == {"jobs": ["j"], "stalled": {}}


# --------------------------------------------------------------------------- 3.33-3.35 config


def test_config_get_stored_overrides_and_types(core: Core) -> None:
    core("config.set", T0, "grace-period", "5")
    core("config.set", T0, "max-worker-age", "100")
    assert core("config.get", T0, "grace-period") == b"5"
    assert core("config.get", T0, "max-worker-age") == b"100"
    everything = core.json("config.get", T0)
    assert everything["grace-period"] == "5" and everything["max-worker-age"] == "100"
    assert everything["heartbeat"] == 60 and everything["application"] == "qless"
    assert len(everything) == 8


def test_config_set_unset_events_order(core: Core, events: EventRecorder) -> None:
    with events.record() as got:
        core("config.set", T0, "a/b", "")
        core("config.unset", T0, "never-set")
    assert decoded(got) == [
        ("ql:log", {"event": "config_set", "option": "a/b", "value": ""}),
        ("ql:log", {"event": "config_unset", "option": "never-set"}),
    ]
    assert core.conn.hgetall("ql:config") == {b"a/b": b""}


def test_config_unset_reply_nil_and_default_back(core: Core) -> None:
    core("config.set", T0, "application", "mine")
    assert core("config.get", T0, "application") == b"mine"
    assert core("config.unset", T0, "application") is None
    assert core("config.get", T0, "application") == b"qless"
    assert core.conn.exists("ql:config") == 0


def test_config_set_value_stored_verbatim(core: Core) -> None:
    core("config.set", T0, "heartbeat", " 0x1e ")
    assert core("config.get", T0, "heartbeat") == b" 0x1e "
    core.put("a")
    # parsed with tonumber where used: 30 seconds
    assert core.pop("q", "w", 1, now=T0)[0]["expires"] == T0 + 30


# --------------------------------------------------------------------------- name-list arity


@pytest.mark.parametrize("command", ["pause", "unpause", "queue.forget", "worker.deregister"])
def test_name_list_arity_phrase_verbatim(populated: Core, command: str) -> None:
    # 3.21 / 3.22 / 3.32 / 3.37: the catalogue phrase, whatever the server's own wording
    populated.rejects("Wrong number of args calling Redis command from script", command, T0)


def test_json_null_accepted_by_recur_update(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    assert core("recur.update", T0, "r", "data", "null") == 1
    assert core.hget("ql:r:r", "data") == "null"


def test_pagination_numbers_parse_like_tonumber(core: Core) -> None:
    for i in range(4):
        core.put(f"j{i}", T0 + i, "q", "tags", '["t"]')
    assert core.json("tag", T0, "get", "t", " 0x1 ", "2e0")["jobs"] == ["j1", "j2"]
    assert core.json("stats", T0, "q", f" {T0:.0f} ")["failed"] == 0
    core.rejects('Tag(): Arg "offset" not a number: ', "tag", T0, "get", "t", "")
