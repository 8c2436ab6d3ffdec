"""Job objects (2.10) and the cjson encoding rules (1.3) seen through get/multiget."""

from __future__ import annotations

import json

import pytest

from tests.core.support import T0, Core
from tests.replies import bulk, text

JOB_KEYS = {
    "jid",
    "klass",
    "state",
    "queue",
    "worker",
    "tracked",
    "priority",
    "expires",
    "retries",
    "remaining",
    "data",
    "tags",
    "history",
    "failure",
    "spawned_from_jid",
    "dependents",
    "dependencies",
}


def test_get_missing_job_is_nil(core: Core) -> None:
    assert core("get", T0, "nope") is None


def test_get_requires_jid(core: Core) -> None:
    core.rejects("Job(): no jid provided", "get", T0)


def test_fresh_job_object_shape(core: Core) -> None:
    core.put("a1", T0, "q1", data='{"x":1}', klass="app.Job")
    raw = core("get", T0, "a1")
    assert isinstance(raw, bytes)
    job = json.loads(raw)
    assert set(job) == JOB_KEYS
    assert job["jid"] == "a1"
    assert job["klass"] == "app.Job"
    assert job["state"] == "waiting"
    assert job["queue"] == "q1"
    assert job["worker"] == ""
    assert job["tracked"] is False
    assert job["priority"] == 0
    assert job["expires"] == 0
    assert job["retries"] == 5
    assert job["remaining"] == 5
    assert job["data"] == '{"x":1}'
    assert job["failure"] == {}
    assert job["spawned_from_jid"] is False
    assert job["history"] == [{"when": int(T0), "what": "put", "q": "q1"}]
    # empty lists come out as {} (cjson), never []
    for key in ("tags", "dependents", "dependencies"):
        assert job[key] == {}, key
    for needle in (
        b'"tags":{}',
        b'"dependents":{}',
        b'"dependencies":{}',
        b'"failure":{}',
        b'"spawned_from_jid":false',
    ):
        assert needle in raw, needle
    assert b"[]" not in raw


def test_data_is_text_not_object(core: Core) -> None:
    core.put("a", data='{"k": [1, 2], "s": "a/b"}')
    job = core.job("a")
    assert job["data"] == '{"k": [1, 2], "s": "a/b"}'


def test_slash_is_escaped_in_json(core: Core) -> None:
    core.put("a/b", T0, "q/1", klass="pkg/Klass")
    raw = core("get", T0, "a/b")
    assert b'"jid":"a\\/b"' in raw
    assert b'"klass":"pkg\\/Klass"' in raw
    assert json.loads(raw)["queue"] == "q/1"


def test_utf8_passes_through_raw(core: Core) -> None:
    core.put("j\u00e9", T0, "q\u2603", klass="K\u00fc")
    raw = core("get", T0, "j\u00e9")
    assert "q\u2603".encode() in raw
    assert json.loads(raw)["klass"] == "K\u00fc"


def test_number_formatting_14_significant_digits(core: Core) -> None:
    core.put("a", T0, "q")
    core("pop", T0 + 0.123456, "q", "w", 1)
    raw = core("get", T0, "a")
    assert b'"expires":1893456060.1235' in raw


def test_integral_numbers_have_no_point(core: Core) -> None:
    core.put("a", T0, "q", "priority", 60)
    raw = core("get", T0, "a")
    assert b'"priority":60,' in raw or b'"priority":60}' in raw


def test_large_priority_uses_exponent(core: Core) -> None:
    core.put("a", T0, "q", "priority", "12345678901234567")
    raw = core("get", T0, "a")
    assert b'"priority":1.2345678901235e+16' in raw


def test_fractional_priority_is_14_digits(core: Core) -> None:
    core.put("a", T0, "q", "priority", "3.7")
    assert b'"priority":3.7' in core("get", T0, "a")
    assert float(core.hget("ql:j:a", "priority") or "nan") == 3.7


def test_multiget_order_and_omission(core: Core) -> None:
    core.put("a")
    core.put("b")
    got = core.json("multiget", T0, "b", "zz", "a")
    assert [j["jid"] for j in got] == ["b", "a"]


def test_multiget_nothing_found_is_empty_object(core: Core) -> None:
    assert core("multiget", T0, "zz") == b"{}"
    assert core("multiget", T0) == b"{}"


def test_job_hash_fields_after_put(core: Core) -> None:
    core.put("a", T0 + 0.5, "q", "priority", 2, "retries", 3, data='{"y":2}')
    h = {text(k): text(v) for k, v in core.conn.hgetall("ql:j:a").items()}
    assert h["jid"] == "a" and h["klass"] == "K" and h["data"] == '{"y":2}'
    assert h["state"] == "waiting" and h["worker"] == "" and h["queue"] == "q"
    assert float(h["priority"]) == 2 and float(h["retries"]) == 3
    assert float(h["remaining"]) == 3 and float(h["expires"]) == 0
    assert h["tags"] == "{}"
    # time is %.20f
    _whole, frac = h["time"].split(".")
    assert len(frac) == 20 and float(h["time"]) == T0 + 0.5
    assert "failure" not in h and "spawned_from_jid" not in h


def test_history_rendering_merges_extra(core: Core) -> None:
    core.put("a", T0)
    core("pop", T0 + 1.9, "q", "w1", 1)
    assert core.history("a") == [
        [int(T0), "put", {"q": "q"}],
        [int(T0) + 1, "popped", {"worker": "w1"}],
    ]
    assert core.job("a")["history"] == [
        {"when": int(T0), "what": "put", "q": "q"},
        {"when": int(T0) + 1, "what": "popped", "worker": "w1"},
    ]


def test_legacy_history_field_is_migrated(core: Core) -> None:
    core.put("a", T0)
    core.conn.delete("ql:j:a-history")
    legacy = [{"q": "old", "put": 100.7, "popped": 200.2, "worker": "w9", "done": 300.9}]
    core.conn.hset("ql:j:a", "history", json.dumps(legacy))
    job = core.job("a")
    assert job["history"] == [
        {"when": 100, "what": "put", "q": "old"},
        {"when": 200, "what": "popped", "worker": "w9"},
        {"when": 300, "what": "done"},
    ]
    assert core.conn.hexists("ql:j:a", "history") is False
    assert len(core.history("a")) == 3


def test_history_cap_keeps_first_and_newest(core: Core) -> None:
    core("config.set", T0, "max-job-history", 4)
    core.put("a", T0)
    for i in range(1, 8):
        core("log", T0 + i, "a", f"m{i}")
    whats = [e[1] for e in core.history("a")]
    assert whats == ["put", "m5", "m6", "m7"]


def test_history_cap_two_keeps_everything(core: Core) -> None:
    core("config.set", T0, "max-job-history", 2)
    core.put("a", T0)
    for i in range(1, 5):
        core("log", T0 + i, "a", f"m{i}")
    assert [e[1] for e in core.history("a")] == ["put", "m1", "m2", "m3", "m4"]


def test_history_cap_one_keeps_first_and_newest(core: Core) -> None:
    core("config.set", T0, "max-job-history", 1)
    core.put("a", T0)
    for i in range(1, 5):
        core("log", T0 + i, "a", f"m{i}")
    assert [e[1] for e in core.history("a")] == ["put", "m4"]


def test_history_cap_zero_disables(core: Core) -> None:
    core("config.set", T0, "max-job-history", 0)
    core.put("a", T0)
    for i in range(1, 120):
        core("log", T0 + i, "a", f"m{i}")
    assert len(core.history("a")) == 120


def test_history_default_cap_is_100(core: Core) -> None:
    core.put("a", T0)
    for i in range(1, 130):
        core("log", T0 + i, "a", f"m{i}")
    hist = core.history("a")
    assert len(hist) == 100
    assert hist[0][1] == "put" and hist[1][1] == "m31" and hist[-1][1] == "m129"


def test_automatic_failure_when_has_14_digits(core: Core) -> None:
    core.put("a", T0, "q", "retries", 0)
    core.pop(now=T0)
    core("retry", T0 + 0.123456, "a", "q", "w")
    raw = core("get", T0, "a")
    assert b'"when":1893456000.1235' in raw


def test_job_objects_have_exactly_the_protocol_keys_in_every_state(populated: Core) -> None:
    c = populated
    c.peek("q", 5, now=T0 + 3600)  # spawns the template's first child, promotes sched1
    c.put("sched2", T0, "q", delay=99999)
    jids = [
        "wait1",
        "wait2",
        "sched1",
        "sched2",
        "dep1",
        "run1",
        "run2",
        "stall1",
        "fail1",
        "done1",
        "tmpl-1",
    ]
    listed = json.loads(c("multiget", T0, *jids))
    assert [j["jid"] for j in listed] == jids
    for job in listed:
        assert set(job) == JOB_KEYS, job["jid"]
        assert isinstance(job["tracked"], bool)
        for key in ("priority", "expires", "retries", "remaining"):
            assert isinstance(job[key], int | float), (job["jid"], key)
        assert isinstance(job["data"], str) and isinstance(job["failure"], dict)
    assert {j["jid"]: j["state"] for j in listed} == {
        "wait1": "waiting",
        "wait2": "waiting",
        "sched1": "waiting",
        "sched2": "scheduled",
        "dep1": "depends",
        "run1": "running",
        "run2": "running",
        "stall1": "stalled",
        "fail1": "failed",
        "done1": "complete",
        "tmpl-1": "waiting",
    }
    for job in c.pop("q", "wZ", 10, now=T0 + 3600) + c.json("track", T0)["jobs"]:
        assert set(job) == JOB_KEYS, job["jid"]


SPECIAL = ["a/b", 'q"x', "back\\slash", "tab\there", "nl\nx", "\u00e9\u2603", "ctl\x01"]


@pytest.mark.parametrize("name", SPECIAL)
def test_history_escapes_special_names_like_cjson(core: Core, name: str) -> None:
    core.put("a", T0, name)
    core.pop(name, name, 1, now=T0 + 1)
    core("fail", T0 + 2, "a", name, name, name)
    stored = core.conn.lrange("ql:j:a-history", 0, -1)
    assert [json.loads(e) for e in stored] == [
        [int(T0), "put", {"q": name}],
        [int(T0) + 1, "popped", {"worker": name}],
        [int(T0) + 2, "failed", {"worker": name, "group": name}],
    ]
    raw = core("get", T0, "a")
    job = json.loads(raw)
    assert job["history"][0] == {"when": int(T0), "what": "put", "q": name}
    assert job["failure"]["message"] == name and job["queue"] == name
    # byte-exact against the server's own cjson for the single-key entries
    for entry, what, key in ((stored[0], "put", "q"), (stored[1], "popped", "worker")):
        expected = core.conn.eval(
            "return cjson.encode({tonumber(ARGV[1]), ARGV[2], {[ARGV[3]] = ARGV[4]}})",
            0,
            int(T0) + (what == "popped"),
            what,
            key,
            name,
        )
        assert entry == expected, (entry, expected)
    if "/" in name:
        assert b"/" not in raw.replace(b"\\/", b"")
        assert all(b"/" not in bulk(e).replace(b"\\/", b"") for e in stored)


@pytest.mark.parametrize("priority", ["3.7", "1e300", "-0.5", "12345678901234567", "0.1", "1e-7"])
def test_numbers_render_exactly_as_server_cjson(core: Core, priority: str) -> None:
    core.put("a", T0, "q", "priority", priority)
    expected = core.conn.eval("return cjson.encode(tonumber(ARGV[1]))", 0, priority)
    assert b'"priority":' + expected + b"," in core("get", T0, "a") or (
        b'"priority":' + expected + b"}" in core("get", T0, "a")
    )
