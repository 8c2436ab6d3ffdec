"""Pub/sub traffic (section 6) checked with a real subscriber on ql:*."""

from __future__ import annotations

import redis

from tests.core.support import T0, Core, EventRecorder, decoded, running


def test_put_event(core: Core, events: EventRecorder) -> None:
    with events.record() as got:
        core.put("a", T0, "q")
    assert decoded(got) == [("ql:log", {"jid": "a", "event": "put", "queue": "q"})]


def test_tracked_put_and_lock_lost_order(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    core("track", T0, "track", "a")
    with events.record() as got:
        core.put("a", T0 + 1, "r", worker="w2")
    assert decoded(got) == [
        ("ql:log", {"jid": "a", "event": "put", "queue": "r"}),
        ("ql:w:w1", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
        ("ql:log", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
        ("ql:put", "a"),
    ]


def test_put_by_same_worker_sends_no_lock_lost(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    with events.record() as got:
        core.put("a", T0 + 1, "q", worker="w1")
    assert [c for c, _ in got] == ["ql:log"]


def test_requeue_event(core: Core, events: EventRecorder) -> None:
    core.put("a")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("requeue", T0, "", "q", "a", "K", "{}", 0)
    assert decoded(got) == [("ql:log", {"jid": "a", "event": "put", "queue": "q"}), ("ql:put", "a")]


def test_track_untrack_events(core: Core, events: EventRecorder) -> None:
    core.put("a")
    with events.record() as got:
        core("track", T0, "track", "a")
        core("track", T0, "track", "a")
        core("track", T0, "untrack", "a")
    assert got == [("ql:track", "a"), ("ql:track", "a"), ("ql:untrack", "a")]


def test_popped_only_when_tracked(core: Core, events: EventRecorder) -> None:
    core.put("a", T0)
    core.put("b", T0 + 1)
    core("track", T0, "track", "b")
    with events.record() as got:
        core.pop("q", "w", 2, now=T0 + 2)
    assert got == [("ql:popped", "b")]


def test_complete_events(core: Core, events: EventRecorder) -> None:
    running(core, "a")
    running(core, "b")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("complete", T0 + 1, "a", "w", "q", "{}")
        core("complete", T0 + 1, "b", "w", "q", "{}", "next", "q2")
    assert decoded(got) == [
        ("ql:completed", "a"),
        ("ql:log", {"jid": "a", "event": "completed", "queue": "q"}),
        ("ql:log", {"jid": "b", "event": "advanced", "queue": "q", "to": "q2"}),
    ]


def test_fail_events(core: Core, events: EventRecorder) -> None:
    running(core, "a")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("fail", T0 + 1, "a", "w", "g", "it/broke")
    assert decoded(got) == [
        (
            "ql:log",
            {"jid": "a", "event": "failed", "worker": "w", "group": "g", "message": "it/broke"},
        ),
        ("ql:failed", "a"),
    ]
    assert '"message":"it\\/broke"' in got[0][1]


def test_retry_exhaustion_publishes_only_tracked_failed(core: Core, events: EventRecorder) -> None:
    core.put("a", T0, "q", "retries", 0)
    core.pop(now=T0)
    core("track", T0, "track", "a")
    with events.record() as got:
        core("retry", T0 + 1, "a", "q", "w")
    assert got == [("ql:failed", "a")]


def test_retry_publishes_nothing(core: Core, events: EventRecorder) -> None:
    running(core)
    core("track", T0, "track", "a")
    with events.record() as got:
        core("retry", T0 + 1, "a", "q", "w")
    assert got == []


def test_timeout_events(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    with events.record() as got:
        core("timeout", T0 + 1, "a")
    assert decoded(got) == [
        ("ql:w:w1", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
        ("ql:log", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
    ]


def test_reclaim_events(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    core("track", T0, "track", "a")
    with events.record() as got:
        core.pop("q", "w2", 1, now=T0 + 61)  # courtesy step
    assert decoded(got) == [
        ("ql:stalled", "a"),
        ("ql:w:w1", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
        ("ql:log", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
    ]
    with events.record() as got:
        core.pop("q", "w2", 1, now=T0 + 72)  # invalidation, handed to w2
    assert got == [("ql:popped", "a")]


def test_reclaim_exhaustion_events(core: Core, events: EventRecorder) -> None:
    core("config.set", T0, "grace-period", 0)
    core.put("a", T0, "q", "retries", 0)
    core.pop("q", "w1", 1, now=T0)
    core("track", T0, "track", "a")
    with events.record() as got:
        core("pop", T0 + 61, "q", "w2", 1)
    assert decoded(got) == [
        ("ql:stalled", "a"),
        ("ql:w:w1", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
        ("ql:log", {"jid": "a", "event": "lock_lost", "worker": "w1"}),
        ("ql:failed", "a"),
        (
            "ql:log",
            {
                "jid": "a",
                "event": "failed",
                "group": "failed-retries-q",
                "worker": "w1",
                "message": 'Job exhausted retries in queue "q"',
            },
        ),
    ]


def test_cancel_events(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w1")
    core.put("b", T0, "q")
    core("track", T0, "track", "a")
    with events.record() as got:
        core("cancel", T0, "a", "b", "ghost")
    assert decoded(got) == [
        ("ql:log", {"jid": "a", "worker": "w1", "event": "canceled", "queue": "q"}),
        ("ql:w:w1", {"jid": "a", "worker": "w1", "event": "canceled", "queue": "q"}),
        ("ql:canceled", "a"),
        ("ql:log", {"jid": "b", "worker": "", "event": "canceled", "queue": "q"}),
        ("ql:log", {"jid": "ghost", "worker": False, "event": "canceled", "queue": False}),
    ]


def test_config_events(core: Core, events: EventRecorder) -> None:
    with events.record() as got:
        core("config.set", T0, "heartbeat", 30)
        core("config.unset", T0, "heartbeat")
    assert decoded(got) == [
        ("ql:log", {"event": "config_set", "option": "heartbeat", "value": "30"}),
        ("ql:log", {"event": "config_unset", "option": "heartbeat"}),
    ]


def test_quiet_commands_publish_nothing(populated: Core, events: EventRecorder) -> None:
    c = populated
    with events.record() as got:
        c("get", T0, "wait1")
        c("peek", T0, "q", 5)
        c("queues", T0)
        c("jobs", T0, "running", "other")
        c("failed", T0)
        c("workers", T0)
        c("stats", T0, "q", T0)
        c("tag", T0, "add", "wait1", "x")
        c("priority", T0, "wait1", 4)
        c("log", T0, "wait1", "note")
        c("unfail", T0, "q", "boom", 1)
        c("depends", T0, "dep1", "on", "wait1")
        c("pause", T0, "q")
        c("recur.update", T0, "tmpl", "priority", 2)
        c("heartbeat", T0 + 3, "run1", "wA")
    assert got == []


def test_failed_rejected_calls_publish_nothing(populated: Core, events: EventRecorder) -> None:
    with events.record() as got:
        for args in (
            ("put", T0, "", "q", "wait1", "K", "{}", 0, "retries", "x"),
            ("complete", T0, "run1", "wrong", "other", "{}"),
            ("fail", T0, "wait1", "w", "g", "m"),
            ("config.set", T0, "heartbeat"),
        ):
            try:
                populated(*args)
            except redis.ResponseError:
                continue
            raise AssertionError(f"{args} should have failed")
    assert got == []


def test_cancel_of_complete_job_publishes_nothing(core: Core, events: EventRecorder) -> None:
    running(core, "a")
    core("track", T0, "track", "a")
    core("complete", T0, "a", "w", "q", "{}")
    with events.record() as got:
        assert core("cancel", T0, "a") == [b"a"]
    assert got == []


def test_pop_events_for_two_reclaims_then_popped(core: Core, events: EventRecorder) -> None:
    core("config.set", T0, "grace-period", 0)
    core.put("x", T0)
    core.put("y", T0 + 1)
    core.pop("q", "w1", 2, now=T0 + 1)
    core("track", T0, "track", "x")
    core("track", T0, "track", "y")
    with events.record() as got:
        core.pop("q", "w2", 2, now=T0 + 100)
    assert [c for c, _ in got] == [
        "ql:stalled",
        "ql:w:w1",
        "ql:log",
        "ql:stalled",
        "ql:w:w1",
        "ql:log",
        "ql:popped",
        "ql:popped",
    ]
    # equal lock expiry: reclaimed in lexicographic order
    assert [d for c, d in got if c in ("ql:stalled", "ql:popped")] == ["x", "y", "x", "y"]
