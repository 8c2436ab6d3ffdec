"""Protocol 3.0-3.12 (shared procedures, put .. priority), rule by rule.

Each test asserts one rule of the protocol reference that the rest of the suite did not pin
down (precedence between two errors, exact stored texts, event payloads, quirks).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.core.support import DAY, T0, Arg, Core, EventRecorder, decoded, running

DAY0 = int(T0 // DAY * DAY)


def raw_history(core: Core, jid: str) -> list[str]:
    entries: list[Any] = core.conn.lrange(f"ql:j:{jid}-history", 0, -1)
    return [bytes(x).decode() for x in entries]


def fields(core: Core, jid: str) -> dict[str, str]:
    raw: dict[Any, Any] = core.conn.hgetall(f"ql:j:{jid}")
    return {bytes(k).decode(): bytes(v).decode() for k, v in raw.items()}


def assert_exhausted_in_q(core: Core, jid: str, now: float) -> None:
    """The job's state after its retries ran out in queue q (lock expiry or retry)."""
    h = fields(core, jid)
    assert h["state"] == "failed" and h["worker"] == "" and h["expires"] == ""
    assert h["remaining"] == "-1"
    assert json.loads(h["failure"]) == {
        "group": "failed-retries-q",
        "worker": "",
        "message": 'Job exhausted retries in queue "q"',
        "when": now,
    }
    assert raw_history(core, jid)[-1] == f'[{int(now)},"failed",{{"group":"failed-retries-q"}}]'


# --------------------------------------------------------------------------- put / requeue


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        # klass missing wins over everything after it
        (("q", "j"), 'Put(): Arg "klass" missing'),
        # data (decodes to false) before delay
        (("q", "j", "K", "false", "soon"), 'Put(): Arg "data" missing or not JSON: false'),
        # delay before the option parity check
        (("q", "j", "K", "{}", "soon", "priority"), 'Put(): Arg "delay" not a number: soon'),
        # parity before any option value
        (("q", "j", "K", "{}", 0, "retries", "x", "tags"), "Odd number of additional args"),
        # retries before tags, tags before priority, priority before depends
        (
            ("q", "j", "K", "{}", 0, "tags", "false", "retries", "x"),
            'Put(): Arg "retries" not a number: x',
        ),
        (
            ("q", "j", "K", "{}", 0, "priority", "hi", "tags", "false"),
            'Put(): Arg "tags" not JSONfalse',
        ),
        (
            ("q", "j", "K", "{}", 0, "depends", "false", "priority", "hi"),
            'Put(): Arg "priority" not a numberhi',
        ),
    ],
)
def test_put_first_failing_check_wins(core: Core, args: tuple[Arg, ...], phrase: str) -> None:
    core.put("j", T0, "q", "tags", '["red"]')
    core.rejects(phrase, "put", T0 + 1, "w", *args)


def test_put_data_absent_raises_cjson_argument_error(core: Core) -> None:
    core.rejects("bad argument #1 to 'decode'", "put", T0, "w", "q", "j", "K")


def test_put_tags_invalid_json_raises_cjson_error(core: Core) -> None:
    core.rejects(
        "Expected value but found invalid token",
        "put",
        T0,
        "w",
        "q",
        "j",
        "K",
        "{}",
        0,
        "tags",
        "abc",
    )


def test_requeue_missing_job_reported_before_missing_queue_and_klass(core: Core) -> None:
    core.rejects("Job(): no jid provided", "requeue", T0, "w", "q")
    core.rejects("Requeue(): Job nope does not exist", "requeue", T0, "w", "q", "nope")
    # an empty queue name is present; the existence check still comes first
    core.rejects("Requeue(): Job nope does not exist", "requeue", T0, "w", "", "nope")


def test_requeue_of_existing_job_reports_put_phrases(core: Core) -> None:
    core.put("a")
    core.rejects('Put(): Arg "klass" missing', "requeue", T0, "w", "q", "a")
    core.rejects('Put(): Arg "delay" not a number: nil', "requeue", T0, "w", "q", "a", "K", "{}")


def test_put_stores_exact_texts(core: Core) -> None:
    now = T0 + 0.25
    core.put(
        "a",
        now,
        "q/x",
        "priority",
        "0x10",
        "retries",
        "1e1",
        "tags",
        '[ "b/c" ]',
        data='{ "k" : [ ] }',
    )
    h = fields(core, "a")
    assert h["data"] == '{ "k" : [ ] }'  # verbatim
    assert h["priority"] == "16" and h["retries"] == "10" and h["remaining"] == "10"
    assert h["tags"] == '["b\\/c"]'  # cjson re-encoding of the decoded list
    assert h["time"] == f"{now:.20f}"
    assert h["expires"] == "0" and h["worker"] == "" and h["state"] == "waiting"
    assert raw_history(core, "a") == [f'[{int(now)},"put",{{"q":"q\\/x"}}]']
    assert core.zset("ql:t:b/c") == [("a", now)]


def test_put_empty_tags_stored_as_empty_object(core: Core) -> None:
    core.put("a", T0, "q", "tags", "[]")
    assert core.hget("ql:j:a", "tags") == "{}"


def test_put_with_delay_keeps_leftover_dependencies_and_stores_scheduled(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q", "depends", '["b"]')
    # re-put without `depends` and with a delay: the old dependency is kept (step 12/11)
    core.put("a", T0 + 5, "q2", delay=30)
    assert core.hget("ql:j:a", "state") == "depends"
    assert float(core.hget("ql:j:a", "scheduled") or 0) == T0 + 35
    assert core.zset("ql:q:q2-depends") == [("a", T0 + 5)]
    assert core.zset("ql:q:q2-scheduled") == [] and core.zset("ql:q:q-depends") == []


def test_put_new_depends_all_complete_drops_old_links_and_waits(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q", "depends", '["b"]')
    core.put("done", T0 + 1, "z")
    core.pop("z", "w", 1, now=T0 + 1)
    core("complete", T0 + 2, "done", "w", "z", "{}")
    core.put("a", T0 + 3, "q", "depends", '["done"]')
    assert core.members("ql:j:a-dependencies") == set()
    assert core.members("ql:j:b-dependents") == set()
    assert core.hget("ql:j:a", "state") == "waiting"


def test_put_self_dependency_on_new_job(core: Core) -> None:
    # step 9 writes the hash before step 10 links, so the job depends on itself
    core.put("a", T0, "q", "depends", '["a"]')
    assert core.hget("ql:j:a", "state") == "depends"
    assert core.members("ql:j:a-dependencies") == {"a"}
    assert core.members("ql:j:a-dependents") == {"a"}


def test_put_lock_lost_to_worker_left_by_retry(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    core("retry", T0 + 1, "a", "q", "w1")  # waiting, but worker w1 is kept (quirk)
    core.conn.zadd("ql:w:w1:jobs", {"a": 1})  # an entry the put must remove
    with events.record() as msgs:
        core.put("a", T0 + 2, "q", worker="w2")
    lost = {"jid": "a", "event": "lock_lost", "worker": "w1"}
    assert decoded(msgs) == [
        ("ql:log", {"jid": "a", "event": "put", "queue": "q"}),
        ("ql:w:w1", lost),
        ("ql:log", lost),
    ]
    assert core.zset("ql:w:w1:jobs") == []


def test_put_same_worker_removes_job_from_its_set_silently(
    core: Core, events: EventRecorder
) -> None:
    running(core, "a", "w1")
    with events.record() as msgs:
        core.put("a", T0 + 2, "q", worker="w1")
    assert [c for c, _ in msgs] == ["ql:log"]
    assert core.zset("ql:w:w1:jobs") == [] and core.zset("ql:q:q-locks") == []


def test_put_failed_job_decrement_uses_day_of_failure_when(core: Core) -> None:
    running(core, "a", "w")
    core("fail", T0 + 5, "a", "w", "g", "m")
    core.put("a", T0 + 3 * DAY, "q2")
    assert core.conn.hget(f"ql:s:stats:{DAY0}:q2", "failed") == b"-1"
    assert core.conn.hget(f"ql:s:stats:{DAY0 + 3 * DAY}:q2", "failed") is None
    assert core.conn.lrange("ql:f:g", 0, -1) == [] and core.members("ql:failures") == set()


def test_put_failed_group_kept_while_other_jobs_remain(core: Core) -> None:
    running(core, "a", "w")
    core("fail", T0 + 5, "a", "w", "g", "m")
    running(core, "b", "w", T0 + 6)
    core("fail", T0 + 7, "b", "w", "g", "m")
    core.put("a", T0 + 8, "q")
    assert core.conn.lrange("ql:f:g", 0, -1) == [b"b"] and core.members("ql:failures") == {"g"}


def test_put_keeps_grace_spawned_scheduled_fields(core: Core) -> None:
    core.put("a")
    core.conn.hset("ql:j:a", mapping={"grace": "1", "spawned_from_jid": "t", "scheduled": "5"})
    core.put("a", T0 + 1, "q")
    h = core.conn.hgetall("ql:j:a")
    assert h[b"grace"] == b"1" and h[b"spawned_from_jid"] == b"t" and h[b"scheduled"] == b"5"


def test_put_tracked_event_last(core: Core, events: EventRecorder) -> None:
    core.put("a")
    core("track", T0, "track", "a")
    running(core, "b")
    with events.record() as msgs:
        core.put("a", T0 + 1, "r")
    assert decoded(msgs) == [
        ("ql:log", {"jid": "a", "event": "put", "queue": "r"}),
        ("ql:put", "a"),
    ]


# --------------------------------------------------------------------------- pop / peek


def test_pop_validation_order(core: Core) -> None:
    core.rejects("Queue(): no queue name provided", "pop", T0)
    core.rejects('Pop(): Arg "worker" missing', "pop", T0, "q")
    core.rejects('Pop(): Arg "count" missing or not a number: nil', "pop", T0, "q", "w")
    core.rejects('Pop(): Arg "count" missing or not a number: x', "pop", T0, "q", "w", "x")


def test_pop_writes_exact_texts(core: Core) -> None:
    core.put("a", T0, "q")
    core("pop", T0 + 2.5, "q", "w/1", 1)
    h = fields(core, "a")
    assert h["state"] == "running" and h["worker"] == "w/1"
    assert float(h["expires"]) == T0 + 62.5
    assert h["time"] == f"{(T0 + 2.5):.20f}"
    assert raw_history(core, "a")[-1] == f'[{int(T0 + 2.5)},"popped",{{"worker":"w\\/1"}}]'
    assert core.zset("ql:w:w/1:jobs") == [("a", T0 + 62.5)]
    assert core.zset("ql:q:q-locks") == [("a", T0 + 62.5)]
    assert core.zset("ql:workers") == [("w/1", T0 + 2.5)]
    wait = core.conn.hgetall(f"ql:s:wait:{DAY0}:q")
    assert wait[b"total"] == b"1" and float(wait[b"mean"]) == 2.5 and wait[b"s2"] == b"1"


def test_pop_job_object_reports_running_state(core: Core) -> None:
    core.put("a", T0, "q", "retries", 3, "priority", 2, "tags", '["x"]', data='{"k":1}')
    [job] = core.pop("q", "w", 1, now=T0 + 1)
    assert job["state"] == "running" and job["worker"] == "w" and job["expires"] == T0 + 61
    assert job["retries"] == 3 and job["remaining"] == 3 and job["priority"] == 2
    assert job["tags"] == ["x"] and job["data"] == '{"k":1}' and job["queue"] == "q"
    assert job["failure"] == {} and job["spawned_from_jid"] is False and job["tracked"] is False
    assert job["history"] == [
        {"when": int(T0), "what": "put", "q": "q"},
        {"when": int(T0) + 1, "what": "popped", "worker": "w"},
    ]


def test_pop_count_zero_with_expired_lock_reclaims_nothing(core: Core) -> None:
    running(core, "a")
    before = core.conn.hgetall("ql:j:a")
    assert core("pop", T0 + 1000, "q", "w2", 0) == b"{}"
    assert core.conn.hgetall("ql:j:a") == before
    assert dict(core.zset("ql:workers"))["w2"] == T0 + 1000


def test_reclaim_courtesy_step_writes(core: Core, events: EventRecorder) -> None:
    core("config.set", T0, "grace-period", 10)
    running(core, "a", "w1")
    core("track", T0, "track", "a")
    with events.record() as msgs:
        assert core("pop", T0 + 61, "q", "w2", 1) == b"{}"
    lost = {"jid": "a", "event": "lock_lost", "worker": "w1"}
    assert decoded(msgs) == [("ql:stalled", "a"), ("ql:w:w1", lost), ("ql:log", lost)]
    assert core.hget("ql:j:a", "grace") == "1"
    assert core.hget("ql:j:a", "state") == "running" and core.hget("ql:j:a", "worker") == "w1"
    assert core.zset("ql:q:q-locks") == [("a", T0 + 71)]
    assert core.zset("ql:w:w1:jobs") == []
    assert raw_history(core, "a")[-1] == f'[{int(T0 + 61)},"timed-out"]'
    assert core.conn.hget(f"ql:s:stats:{DAY0}:q", "retries") == b"1"
    assert core.hget("ql:j:a", "remaining") == "5"


def test_reclaim_invalidation_step_only_after_grace(core: Core, events: EventRecorder) -> None:
    core("config.set", T0, "grace-period", 10)
    running(core, "a", "w1")
    core("pop", T0 + 61, "q", "w2", 1)
    with events.record() as msgs:
        [job] = core.pop("q", "w2", 1, now=T0 + 72)
    assert msgs == []  # no second courtesy notice
    assert job["jid"] == "a" and job["worker"] == "w2" and job["remaining"] == 4
    assert core.hget("ql:j:a", "grace") is None
    assert core.conn.hget(f"ql:s:stats:{DAY0}:q", "retries") == b"1"
    assert [h["what"] for h in job["history"]] == ["put", "popped", "timed-out", "popped"]


def test_reclaim_negative_grace_does_both_steps(core: Core, events: EventRecorder) -> None:
    core("config.set", T0, "grace-period", -5)
    running(core, "a", "w1")
    with events.record() as msgs:
        [job] = core.pop("q", "w2", 1, now=T0 + 61)
    assert [c for c, _ in msgs] == ["ql:w:w1", "ql:log"]
    assert job["worker"] == "w2" and job["remaining"] == 4
    assert core.hget("ql:j:a", "grace") is None
    assert core.conn.hget(f"ql:s:stats:{DAY0}:q", "retries") == b"1"


def test_reclaim_exhaustion_writes(core: Core, events: EventRecorder) -> None:
    core("config.set", T0, "grace-period", 0)
    running(core, "a", "w1", T0, "retries", 0)
    now = T0 + 61.75
    with events.record() as msgs:
        assert core("pop", now, "q", "w2", 1) == b"{}"
    msg = {
        "jid": "a",
        "event": "failed",
        "group": "failed-retries-q",
        "worker": "w1",
        "message": 'Job exhausted retries in queue "q"',
    }
    lost = {"jid": "a", "event": "lock_lost", "worker": "w1"}
    assert decoded(msgs) == [("ql:w:w1", lost), ("ql:log", lost), ("ql:log", msg)]
    assert_exhausted_in_q(core, "a", now)
    assert core.conn.lrange("ql:f:failed-retries-q", 0, -1) == [b"a"]
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:w:w2:jobs") == []
    st = core.conn.hgetall(f"ql:s:stats:{DAY0}:q")
    assert st[b"failures"] == b"1" and st[b"failed"] == b"1" and st[b"retries"] == b"1"


def test_pop_max_concurrency_counts_only_live_locks_from_now(core: Core) -> None:
    core("config.set", T0, "q-max-concurrency", 2)
    core.put("a", T0)
    core.put("b", T0 + 0.001)
    core.put("c", T0 + 0.002)
    core.pop("q", "w", 1, now=T0)  # a: lock T0+60
    # at exactly T0+60 the lock of a still counts (score >= now)
    got = core.pop("q", "w", 5, now=T0 + 60)
    assert [j["jid"] for j in got] == ["b"]


def test_peek_lists_expired_locks_lowest_expiry_first_without_reclaim(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0 + 0.001)
    core.put("c", T0 + 0.002)
    core.pop("q", "w", 1, now=T0 + 5)  # a expires T0+65
    core.pop("q", "w", 1, now=T0)  # b expires T0+60
    before = core.digest()
    got = core.peek("q", 3, now=T0 + 100)
    assert [j["jid"] for j in got] == ["b", "a", "c"]
    assert core.digest() == before


def test_peek_ignores_pause_and_concurrency(core: Core) -> None:
    core.put("a")
    core("pause", T0, "q")
    core("config.set", T0, "q-max-concurrency", 1)
    running_b = core.put("b", T0 + 1, "q")
    assert running_b == b"b"
    assert [j["jid"] for j in core.peek("q", 5)] == ["a", "b"]
    assert core.zset("ql:workers") == []


# --------------------------------------------------------------------------- heartbeat


def test_heartbeat_validation_order(core: Core) -> None:
    running(core, "a")
    core.rejects("Job(): no jid provided", "heartbeat", T0)
    core.rejects('Heatbeat(): Arg "worker" missing', "heartbeat", T0, "a")
    # bad data is reported before a missing job
    core.rejects("Expected object key string", "heartbeat", T0, "zz", "w", "{bad")
    core.rejects("Heartbeat(): Job zz does not exist", "heartbeat", T0, "zz", "w")
    core.rejects("Heartbeat(): Job a given out to another worker: w", "heartbeat", T0, "a", "x")


def test_heartbeat_not_running_names_state(core: Core) -> None:
    core.put("a", T0, "q", delay=10)
    core.rejects("Heartbeat(): Job a not currently running: scheduled", "heartbeat", T0, "a", "")


def test_heartbeat_empty_worker_on_running_job_refused(core: Core) -> None:
    running(core, "a", "")
    core.rejects("Heartbeat(): Job a given out to another worker: ", "heartbeat", T0, "a", "")


def test_heartbeat_data_forms(core: Core) -> None:
    running(core, "a")
    core("heartbeat", T0 + 1, "a", "w", "null")
    assert core.hget("ql:j:a", "data") == "null"
    core("heartbeat", T0 + 1, "a", "w", '{"k":[],"p":"a/b"}')
    assert json.loads(core.hget("ql:j:a", "data") or "") == {"k": {}, "p": "a/b"}
    assert "\\/" in (core.hget("ql:j:a", "data") or "")
    core("heartbeat", T0 + 1, "a", "w", "false")  # ignored
    assert json.loads(core.hget("ql:j:a", "data") or "") == {"k": {}, "p": "a/b"}


def test_heartbeat_reply_truncated_and_all_sets_updated(core: Core) -> None:
    running(core, "a")
    reply = core("heartbeat", T0 + 1.9, "a", "w")
    assert reply == int(T0 + 61.9) and isinstance(reply, int)
    assert core.zset("ql:q:q-locks") == [("a", T0 + 61.9)]
    assert core.zset("ql:w:w:jobs") == [("a", T0 + 61.9)]
    assert float(core.hget("ql:j:a", "expires") or 0) == T0 + 61.9


# --------------------------------------------------------------------------- complete


@pytest.mark.parametrize(
    ("opts", "phrase"),
    [
        (("delay", "x", "depends", "false"), "assertion failed!"),
        (("depends", "false", "delay", 5), 'Complete(): Arg "depends" not JSON: false'),
        (("depends", "[]", "delay", 0), 'Complete(): "delay" cannot be used without a "next".'),
        (("depends", '["b"]'), 'Complete(): "depends" cannot be used without a "next".'),
    ],
)
def test_complete_option_check_order(core: Core, opts: tuple[Arg, ...], phrase: str) -> None:
    running(core)
    core.rejects(phrase, "complete", T0 + 1, "a", "w", "q", "{}", *opts)


def test_complete_option_checks_precede_job_checks(core: Core) -> None:
    core.rejects(
        'Complete(): "delay" cannot be used without a "next".',
        "complete",
        T0,
        "zz",
        "w",
        "q",
        "{}",
        "delay",
        1,
    )


def test_complete_job_check_order(core: Core) -> None:
    running(core)
    core.rejects("Complete(): Job zz does not exist", "complete", T0, "zz", "x", "r", "{}")
    core.rejects(
        "Complete(): Job a has been handed out to another worker: w",
        "complete",
        T0,
        "a",
        "x",
        "r",
        "{}",
    )
    core.rejects(
        "Complete(): Job a running in another queue: q", "complete", T0, "a", "w", "r", "{}"
    )


def test_complete_data_absent_is_cjson_error(core: Core) -> None:
    running(core)
    core.rejects("bad argument #1 to 'decode'", "complete", T0, "a", "w", "q")
    core.rejects(
        'Complete(): Arg "data" missing or not JSON: false', "complete", T0, "a", "w", "q", "false"
    )


def test_complete_stores_data_verbatim_and_history_text(core: Core) -> None:
    running(core)
    core("complete", T0 + 3.5, "a", "w", "q", '{ "r" : [ ] }')
    assert core.hget("ql:j:a", "data") == '{ "r" : [ ] }'
    assert raw_history(core, "a")[-1] == f'[{int(T0 + 3.5)},"done"]'
    assert core.hget("ql:j:a", "time") == f"{(T0 + 3.5):.20f}"


def test_complete_next_resets_fields(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 3)
    core("retry", T0 + 1, "a", "q", "w", 0, "g", "m")  # remaining 2, failure stored
    core.pop("q", "w", 1, now=T0 + 2)
    core.conn.hset("ql:j:a", "remaining", 1)
    assert core("complete", T0 + 4, "a", "w", "q", "{}", "next", "q2") == b"waiting"
    h = fields(core, "a")
    assert h["failure"] == "{}" and h["remaining"] == "3" and h["expires"] == "0"
    assert h["worker"] == "" and h["queue"] == "q2" and h["state"] == "waiting"
    assert raw_history(core, "a")[-2:] == [
        f'[{int(T0 + 4)},"done"]',
        f'[{int(T0 + 4)},"put",{{"q":"q2"}}]',
    ]
    [(jid, score)] = core.zset("ql:q:q2-work")
    assert jid == "a" and score == pytest.approx(0 - (T0 + 4) / 1e10, abs=1e-12)


def test_complete_next_events_order(core: Core, events: EventRecorder) -> None:
    running(core)
    core("track", T0, "track", "a")
    with events.record() as msgs:
        core("complete", T0 + 1, "a", "w", "q", "{}", "next", "q2")
    assert decoded(msgs) == [
        ("ql:completed", "a"),
        ("ql:log", {"jid": "a", "event": "advanced", "queue": "q", "to": "q2"}),
    ]


def test_complete_next_registers_next_queue_keeps_score(core: Core) -> None:
    core.put("x", T0 - 100, "q2")
    running(core)
    core("complete", T0 + 1, "a", "w", "q", "{}", "next", "q2")
    assert dict(core.zset("ql:queues"))["q2"] == T0 - 100
    core.pop("q2", "w", 2, now=T0 + 2)
    core("complete", T0 + 3, "a", "w", "q2", "{}", "next", "q3")
    assert dict(core.zset("ql:queues"))["q3"] == T0 + 3


def test_complete_next_negative_delay_without_depends_is_waiting(core: Core) -> None:
    running(core)
    assert core("complete", T0 + 1, "a", "w", "q", "{}", "next", "q2", "delay", -5) == b"waiting"
    assert [j for j, _ in core.zset("ql:q:q2-work")] == ["a"]


def test_complete_next_self_dependency(core: Core) -> None:
    running(core)
    reply = core("complete", T0 + 1, "a", "w", "q", "{}", "next", "q2", "depends", '["a"]')
    assert reply == b"depends"
    assert core.members("ql:j:a-dependencies") == {"a"}


def test_complete_final_releases_dependent_to_scheduled_time(core: Core) -> None:
    running(core, "b")
    core.put("d", T0, "q2", "depends", '["b"]', delay=100)
    core("complete", T0 + 5, "b", "w", "q", "{}")
    assert core.zset("ql:q:q2-scheduled") == [("d", T0 + 100)]
    assert core.hget("ql:j:d", "state") == "scheduled"
    assert core.hget("ql:j:d", "scheduled") is None
    assert core.zset("ql:q:q2-depends") == []
    assert core.conn.exists("ql:j:b-dependents") == 0


def test_complete_final_release_scores_dependent_at_now(core: Core) -> None:
    running(core, "b")
    core.put("d", T0, "q2", "depends", '["b"]', "priority", 3)
    core("complete", T0 + 5, "b", "w", "q", "{}")
    [(jid, score)] = core.zset("ql:q:q2-work")
    assert jid == "d" and score == pytest.approx(3 - (T0 + 5) / 1e10, abs=1e-9)
    assert core.hget("ql:j:d", "state") == "waiting"


def test_complete_final_release_waits_for_last_dependency(core: Core) -> None:
    running(core, "b")
    core.put("c", T0, "q3")
    core.put("d", T0, "q2", "depends", '["b","c"]')
    core("complete", T0 + 5, "b", "w", "q", "{}")
    assert core.hget("ql:j:d", "state") == "depends"
    assert core.members("ql:j:d-dependencies") == {"c"}


# --------------------------------------------------------------------------- fail


def test_fail_validation_order(core: Core) -> None:
    running(core)
    core.rejects('Fail(): Arg "worker" missing', "fail", T0, "a")
    core.rejects('Fail(): Arg "group" missing', "fail", T0, "a", "w")
    core.rejects('Fail(): Arg "message" missing', "fail", T0, "a", "w", "g")
    core.rejects("Expected object key string", "fail", T0, "zz", "w", "g", "m", "{x")
    core.rejects("Fail(): Job zzdoes not exist", "fail", T0, "zz", "w", "g", "m")
    core.rejects("Fail(): Job a running with another worker: w", "fail", T0, "a", "x", "g", "m")


def test_fail_not_running_no_space(core: Core) -> None:
    core.put("a")
    core.rejects("Fail(): Job anot currently running: waiting", "fail", T0, "a", "w", "g", "m")


def test_fail_writes_exact_texts(core: Core, events: EventRecorder) -> None:
    running(core)
    core("track", T0, "track", "a")
    now = T0 + 7.9
    with events.record() as msgs:
        assert core("fail", now, "a", "w", "g/1", "boom", '{"k":[]}') == b"a"
    assert decoded(msgs) == [
        (
            "ql:log",
            {"jid": "a", "event": "failed", "worker": "w", "group": "g/1", "message": "boom"},
        ),
        ("ql:failed", "a"),
    ]
    h = fields(core, "a")
    assert h["state"] == "failed" and h["worker"] == "" and h["expires"] == ""
    assert h["queue"] == "q" and h["data"] == '{"k":{}}'
    assert json.loads(h["failure"]) == {
        "group": "g/1",
        "message": "boom",
        "when": int(now),
        "worker": "w",
    }
    assert raw_history(core, "a")[-1] in (
        f'[{int(now)},"failed",{{"worker":"w","group":"g\\/1"}}]',
        f'[{int(now)},"failed",{{"group":"g\\/1","worker":"w"}}]',
    )
    st = core.conn.hgetall(f"ql:s:stats:{DAY0}:q")
    assert st[b"failures"] == b"1" and st[b"failed"] == b"1"
    assert core.members("ql:failures") == {"g/1"} and core.conn.lrange("ql:f:g/1", 0, -1) == [b"a"]
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:w:w:jobs") == []
    assert core.hget("ql:j:a", "remaining") == "5"  # fail consumes no retry


def test_fail_null_data_stored(core: Core) -> None:
    running(core)
    core("fail", T0, "a", "w", "g", "m", "null")
    assert core.hget("ql:j:a", "data") == "null"


# --------------------------------------------------------------------------- retry


def test_retry_validation_order(core: Core) -> None:
    running(core)
    core.rejects('Retry(): Arg "queue" missing', "retry", T0, "a")
    core.rejects('Retry(): Arg "worker" missing', "retry", T0, "a", "q")
    core.rejects('Retry(): Arg "delay" not a number: x', "retry", T0, "zz", "q", "w", "x")
    core.rejects("Retry(): Job zz does not exist", "retry", T0, "zz", "q", "w")
    core.rejects("Retry(): Job a has been given to another worker: w", "retry", T0, "a", "q", "x")


def test_retry_not_running_names_state(core: Core) -> None:
    core.put("a")
    core.rejects("Retry(): Job a is not currently running: waiting", "retry", T0, "a", "q", "w")


def test_retry_waiting_path_writes(core: Core) -> None:
    running(core, "a", "w", T0, "priority", 2)
    core.conn.hset("ql:j:a", "grace", 1)
    assert core("retry", T0 + 3, "a", "q", "w") == 4
    h = fields(core, "a")
    assert h["state"] == "waiting" and h["remaining"] == "4" and "grace" not in h
    assert h["worker"] == "w"  # quirk: not cleared
    [(_jid, score)] = core.zset("ql:q:q-work")
    assert score == pytest.approx(2 - (T0 + 3) / 1e10, abs=1e-9)
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:w:w:jobs") == []
    assert raw_history(core, "a")[-1].endswith('"popped",{"worker":"w"}]')  # no history entry


def test_retry_exhaustion_with_message_only_uses_default_group(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 0)
    now = T0 + 4.5
    assert core("retry", now, "a", "q", "w", 0, "failed-retries-q", "oops") == -1
    assert json.loads(core.hget("ql:j:a", "failure") or "") == {
        "group": "failed-retries-q",
        "message": "oops",
        "when": int(now),
        "worker": "w",
    }


def test_retry_exhaustion_writes(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w", T0, "retries", 0)
    core("track", T0, "track", "a")
    now = T0 + 4.5
    with events.record() as msgs:
        assert core("retry", now, "a", "q", "w") == -1
    assert msgs == [("ql:failed", "a")]
    assert_exhausted_in_q(core, "a", now)
    st = core.conn.hgetall(f"ql:s:stats:{DAY0}:q")
    assert st[b"failures"] == b"1" and st[b"failed"] == b"1"
    assert core.zset("ql:q:q-work") == [] and core.zset("ql:q:q-locks") == []


def test_retry_into_other_queue_keeps_queue_field(core: Core) -> None:
    running(core, "a", "w")
    assert core("retry", T0 + 1, "a", "other", "w", 10) == 4
    assert core.zset("ql:q:other-scheduled") == [("a", T0 + 11)]
    assert core.hget("ql:j:a", "queue") == "q" and core.hget("ql:j:a", "state") == "scheduled"
    assert core.zset("ql:q:q-locks") == []


def test_retry_exhaustion_other_queue_group_and_message_differ(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 0)
    core("retry", T0 + 1, "a", "other", "w")
    f = json.loads(core.hget("ql:j:a", "failure") or "")
    assert f["group"] == "failed-retries-other"
    assert f["message"] == 'Job exhausted retries in queue "q"'
    assert core.conn.hget(f"ql:s:stats:{DAY0}:other", "failed") == b"1"


# --------------------------------------------------------------------------- timeout


def test_timeout_writes_and_reply(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w", T0, "priority", 5)
    with events.record() as msgs:
        assert core("timeout", T0 + 2.5, "a") is None
    lost = {"jid": "a", "event": "lock_lost", "worker": "w"}
    assert decoded(msgs) == [("ql:w:w", lost), ("ql:log", lost)]
    h = fields(core, "a")
    assert h["state"] == "stalled" and h["expires"] == "0" and h["worker"] == "w"
    assert h["remaining"] == "5"
    assert core.zset("ql:q:q-work") == [("a", float("inf"))]
    assert core.zset("ql:q:q-locks") == []
    assert [j for j, _ in core.zset("ql:w:w:jobs")] == ["a"]
    assert raw_history(core, "a")[-1] == f'[{int(T0 + 2.5)},"timed-out"]'


def test_timeout_without_jids_is_nil(core: Core) -> None:
    assert core("timeout", T0) is None


def test_timeout_missing_queue_field_means_missing(core: Core) -> None:
    core.conn.hset("ql:j:x", mapping={"jid": "x", "state": "running"})
    core.rejects("Timeout(): Job x does not exist", "timeout", T0, "x")
    core.put("a", T0, "q", delay=5)
    core.rejects("Timeout(): Job a not running", "timeout", T0, "a")


def test_timed_out_job_pops_first_and_can_be_repopped(core: Core) -> None:
    running(core, "a", "w", T0 - 1)
    core.put("hi", T0, "q", "priority", 100)
    core("timeout", T0, "a")
    got = core.pop("q", "w2", 1, now=T0 + 1)
    assert got[0]["jid"] == "a" and got[0]["state"] == "running" and got[0]["worker"] == "w2"


# --------------------------------------------------------------------------- cancel


def test_cancel_same_jid_twice(core: Core, events: EventRecorder) -> None:
    core.put("a")
    with events.record() as msgs:
        assert core("cancel", T0, "a", "a") == [b"a", b"a"]
    assert decoded(msgs) == [
        ("ql:log", {"jid": "a", "worker": "", "event": "canceled", "queue": "q"}),
        ("ql:log", {"jid": "a", "worker": False, "event": "canceled", "queue": False}),
    ]


def test_cancel_no_jids_empty_array(core: Core) -> None:
    assert core("cancel", T0) == []


def test_cancel_failed_job_decrements_day_of_failure(core: Core) -> None:
    running(core, "a", "w")
    core("fail", T0 + 5, "a", "w", "g", "m")
    core.conn.hset(f"ql:s:stats:{DAY0}:q", "failed", 7)
    core("cancel", T0 + 3 * DAY, "a")
    assert core.conn.hget(f"ql:s:stats:{DAY0}:q", "failed") == b"6"
    assert core.members("ql:failures") == set() and core.conn.exists("ql:f:g") == 0


def test_cancel_removes_dependency_links_and_tags(core: Core) -> None:
    core.put("b", T0, "q", "tags", '["t","t"]')
    core.put("a", T0, "q", "depends", '["b"]', "tags", '["t"]')
    core("cancel", T0, "a")
    assert core.members("ql:j:b-dependents") == set()
    assert core.conn.exists("ql:j:a-dependencies", "ql:j:a", "ql:j:a-history") == 0
    assert core.zset("ql:t:t") == [("b", T0)]
    assert core.zset("ql:tags") == [("t", 2.0)]


def test_cancel_dependency_check_before_any_write(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q", "depends", '["b"]')
    core.put("c")
    core.rejects(
        "Cancel(): b is a dependency of a but is not mentioned to be canceled",
        "cancel",
        T0,
        "c",
        "b",
    )


# --------------------------------------------------------------------------- depends


def test_depends_missing_job_prints_false(core: Core) -> None:
    core.rejects("Depends(): Job zz not in the depends state: false", "depends", T0, "zz", "on")


def test_depends_state_checked_before_bad_subcommand(core: Core) -> None:
    core.put("a")
    core.rejects("Depends(): Job a not in the depends state: waiting", "depends", T0, "a", "bad")


def test_depends_on_ignores_complete_and_unknown(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q", "depends", '["b"]')
    running(core, "c", queue="q2")
    core("complete", T0, "c", "w", "q2", "{}")
    assert core("depends", T0, "a", "on", "c", "zz", "a") == 1
    assert core.members("ql:j:a-dependencies") == {"b", "a"}  # self-link allowed
    assert core.members("ql:j:c-dependents") == set()


def test_depends_off_last_releases_ignoring_scheduled(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q2", "depends", '["b"]', "priority", 1, delay=500)
    assert core("depends", T0 + 7, "a", "off", "b") == 1
    assert core.hget("ql:j:a", "state") == "waiting"
    assert float(core.hget("ql:j:a", "scheduled") or 0) == T0 + 500  # stale field kept
    [(_jid, score)] = core.zset("ql:q:q2-work")
    assert score == pytest.approx(1 - (T0 + 7) / 1e10, abs=1e-9)
    assert core.zset("ql:q:q2-depends") == [] and core.zset("ql:q:q2-scheduled") == []
    assert core.members("ql:j:b-dependents") == set()


def test_depends_off_not_last_keeps_depends(core: Core) -> None:
    core.put("b")
    core.put("c")
    core.put("a", T0, "q2", "depends", '["b","c"]')
    core("depends", T0, "a", "off", "b")
    assert core.hget("ql:j:a", "state") == "depends"
    assert core.members("ql:j:a-dependencies") == {"c"}


def test_depends_off_without_jids_does_nothing(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q2", "depends", '["b"]')
    before = core.digest()
    assert core("depends", T0, "a", "off") == 1
    assert core.digest() == before


def test_depends_reply_is_integer_one(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q2", "depends", '["b"]')
    reply = core("depends", T0, "a", "on")
    assert reply == 1 and isinstance(reply, int)


# --------------------------------------------------------------------------- priority


def test_priority_reply_truncates_toward_zero(core: Core) -> None:
    core.put("a")
    assert core("priority", T0, "a", "-3.7") == -3
    assert core("priority", T0, "a", "3.7") == 3
    assert float(core.hget("ql:j:a", "priority") or 0) == 3.7
    assert core.zset("ql:q:q-work") == [("a", 3.7)]


def test_priority_on_complete_and_timed_out_jobs(core: Core) -> None:
    running(core, "a")
    core("timeout", T0, "a")
    core("priority", T0, "a", 2)
    assert core.zset("ql:q:q-work") == [("a", 2.0)]  # +inf position lost
    running(core, "b", queue="q2")
    core("complete", T0, "b", "w", "q2", "{}")
    core("priority", T0, "b", 9)
    assert core.hget("ql:j:b", "priority") == "9"


def test_priority_validation_order(core: Core) -> None:
    core.rejects("Job(): no jid provided", "priority", T0)
    core.rejects('Priority(): Arg "priority" missing or not a number: nil', "priority", T0, "zz")
    core.rejects('Priority(): Arg "priority" missing or not a number: x', "priority", T0, "zz", "x")
    core.rejects("Priority(): Job zz does not exist", "priority", T0, "zz", 1)


def test_priority_scheduled_job_field_only(core: Core) -> None:
    core.put("a", T0, "q", delay=10)
    core("priority", T0, "a", 4)
    assert core.zset("ql:q:q-scheduled") == [("a", T0 + 10)] and core.zset("ql:q:q-work") == []
    # promotion uses the new priority and the promotion time
    core.peek("q", 1, now=T0 + 20)
    [(_jid, score)] = core.zset("ql:q:q-work")
    assert score == pytest.approx(4 - (T0 + 20) / 1e10, abs=1e-9)


# --------------------------------------------------------------------------- shared procedures


def test_legacy_history_migrated_before_append(core: Core) -> None:
    core.put("a", T0)
    core.conn.delete("ql:j:a-history")
    core.conn.hset(
        "ql:j:a",
        "history",
        json.dumps([{"q": "q", "put": T0 - 10.5, "popped": T0 - 5.2, "worker": "w0"}]),
    )
    core.pop("q", "w", 1, now=T0)
    assert core.history("a") == [
        [int(T0 - 11), "put", {"q": "q"}],
        [int(T0 - 6), "popped", {"worker": "w0"}],
        [int(T0), "popped", {"worker": "w"}],
    ]
    assert core.conn.hexists("ql:j:a", "history") is False


def test_promote_limit_takes_lowest_scheduled_first(core: Core) -> None:
    core.put("late", T0, "q", delay=20)
    core.put("early", T0, "q", delay=10)
    core.pop("q", "w", 1, now=T0 + 30)
    assert core.zset("ql:q:q-scheduled") == [("late", T0 + 20)]
    assert core.hget("ql:j:late", "state") == "scheduled"


def test_promote_scores_with_promotion_time_and_keeps_time_field(core: Core) -> None:
    core.put("a", T0, "q", "priority", 1, delay=10)
    core.peek("q", 5, now=T0 + 30)
    [(_, score)] = core.zset("ql:q:q-work")
    assert score == pytest.approx(1 - (T0 + 30) / 1e10, abs=1e-9)
    assert core.hget("ql:j:a", "time") == f"{T0:.20f}"
    assert core.hget("ql:j:a", "state") == "waiting"


def test_reclaim_exhaustion_message_names_popping_queue(core: Core, events: EventRecorder) -> None:
    # 4.2 step 4: group = failed-retries-<job's queue>, message names <queue> (the queue whose
    # locks are reclaimed), stats under <queue>. They differ after `retry` into another queue.
    core("config.set", T0, "grace-period", 0)
    running(core, "a", "w1", T0, "retries", 1)
    assert core("retry", T0 + 1, "a", "other", "w1") == 0  # waiting in `other`, queue field q
    [job] = core.pop("other", "w2", 1, now=T0 + 2)
    assert job["jid"] == "a"
    with events.record() as msgs:
        assert core("pop", T0 + 100, "other", "w3", 1) == b"{}"
    message = 'Job exhausted retries in queue "other"'
    failed = [m for c, m in decoded(msgs) if c == "ql:log" and m["event"] == "failed"]
    assert failed == [
        {
            "jid": "a",
            "event": "failed",
            "group": "failed-retries-q",
            "worker": "w2",
            "message": message,
        }
    ]
    failure = json.loads(core.hget("ql:j:a", "failure") or "")
    assert failure["group"] == "failed-retries-q" and failure["message"] == message
    assert core.conn.lrange("ql:f:failed-retries-q", 0, -1) == [b"a"]
    assert core.conn.hget(f"ql:s:stats:{DAY0}:other", "failed") == b"1"


def test_expire_completed_negative_count_uses_literal_rank_range(core: Core) -> None:
    # 4.7 step 3: the jids of ZRANGE ql:completed 0 (-N-1) are deleted. With N = -1 that is the
    # range 0..0: only the oldest completed job goes, not all of them.
    for i, jid in enumerate(["c1", "c2", "c3"]):
        running(core, jid, "w", T0 + i)
        core("complete", T0 + i + 0.5, jid, "w", "q", "{}")
    core("config.set", T0, "jobs-history-count", -1)
    running(core, "c4", "w", T0 + 10)
    core("complete", T0 + 11, "c4", "w", "q", "{}")
    assert [j for j, _ in core.zset("ql:completed")] == ["c2", "c3", "c4"]
    assert core("get", T0, "c1") is None
    assert core("get", T0, "c2") is not None
