"""Unique puts (`put ... unique 1`) and the batch put `qlpy.put_many` (docs/protocol.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.core.support import T0, Core, decoded


def many(core: Core, *jobs: tuple[Any, ...], queue: str = "q", now: float = T0) -> Any:
    """qlpy.put_many with jobs given as (jid, klass, data, delay, *option pairs)."""
    args: list[Any] = []
    for jid, klass, data, delay, *opts in jobs:
        args += [jid, klass, data, delay, len(opts) // 2, *opts]
    return core("qlpy.put_many", now, "w", queue, *args)


# -- unique -----------------------------------------------------------------------------------

@pytest.mark.parametrize("state", ["waiting", "running", "scheduled", "failed", "throttled"])
def test_unique_leaves_an_unfinished_job_alone(core: Core, state: str) -> None:
    core("throttle.set", T0, "t", 1)
    core.put("x", T0, "q", "throttles", '["t"]')
    if state == "scheduled":
        core.put("a", T0, "q", delay=60)
    elif state == "throttled":
        core.put("a", T0 + 1, "q", "throttles", '["t"]')
    else:
        core.put("a", T0 + 1, "q")
    if state in ("running", "failed"):
        core.pop("q", "w", 5, now=T0 + 2)
    if state == "failed":
        core("fail", T0 + 3, "a", "w", "g", "m")
    assert core.job("a")["state"] == state
    before = core.digest()
    assert core("put", T0 + 5, "w", "other", "a", "K", "{}", 0, "unique", 1) is None
    assert core.digest() == before


def test_unique_puts_a_new_or_completed_job(core: Core) -> None:
    assert core.put("a", T0, "q", "unique", 1) == b"a"
    core.pop("q", "w", 1, now=T0 + 1)
    core("complete", T0 + 2, "a", "w", "q", "{}")
    assert core.put("a", T0 + 3, "q2", "unique", 1) == b"a"
    assert core.job("a")["queue"] == "q2"
    assert core.put("a", T0 + 4, "q3", "unique", 0) == b"a"
    assert core.job("a")["queue"] == "q3"


def test_unique_must_be_0_or_1(core: Core) -> None:
    core.rejects('Put(): Arg "unique" must be 0 or 1: yes', "put", T0, "", "q", "a", "K", "{}",
                 0, "unique", "yes")


# -- qlpy.put_many ----------------------------------------------------------------------------

def test_put_many_puts_every_job_as_put_would(core: Core, events: Any) -> None:
    with events.record() as seen:
        reply = many(core, ("a", "K", '{"n":1}', 0), ("b", "L", "{}", 0, "priority", 5),
                     ("c", "K", "{}", 30, "tags", '["red"]'))
    assert reply == [b"a", b"b", b"c"]
    assert [e for _, e in decoded(seen)] == [
        {"jid": j, "event": "put", "queue": "q"} for j in "abc"]
    assert [j for j, _ in core.zset("ql:q:q-work")] == ["a", "b"]
    assert core.zset("ql:q:q-scheduled") == [("c", T0 + 0.00002 + 30)]
    assert core.zset("ql:queues") == [("q", T0)]
    assert core.job("b")["priority"] == 5 and core.job("c")["tags"] == ["red"]
    assert [j["jid"] for j in core.pop("q", "w", 5, now=T0 + 1)] == ["b", "a"]


def test_put_many_matches_single_puts_byte_for_byte(core: Core) -> None:
    jobs = [("a", "K", '{"x":1}', 0), ("b", "K", "{}", 0, "retries", 2, "depends", '["a"]'),
            ("c", "K", "{}", 0, "throttles", '["t"]', "key", "k", "ttl", 60)]
    many(core, *jobs)
    batch = core.digest()
    core.conn.flushdb()
    for i, (jid, klass, data, delay, *opts) in enumerate(jobs):
        core("put", T0 + i * 0.00001, "w", "q", jid, klass, data, delay, *opts)
    assert core.digest() == batch


@pytest.mark.parametrize("tracked", [False, True])
def test_a_plain_batch_matches_single_puts_byte_for_byte(core: Core, events: Any,
                                                        tracked: bool) -> None:
    """The straight path for new jobs without options writes what put writes."""
    jobs = [(f"p{i}", "K", f'{{"i":{i}}}', 0) for i in range(5)]

    def setup() -> None:
        if tracked:
            core.put("other", T0 - 10, "elsewhere")
            core("track", T0 - 10, "track", "other")

    setup()
    with events.record() as batch_events:
        many(core, *jobs)
    batch = core.digest()
    core.conn.flushdb()
    setup()
    with events.record() as single_events:
        for i, (jid, klass, data, delay) in enumerate(jobs):
            core("put", T0 + i * 0.00001, "w", "q", jid, klass, data, delay)
    assert core.digest() == batch
    assert batch_events == single_events


def test_put_many_keeps_batch_order_among_equal_priorities(core: Core) -> None:
    jids = [f"j{i}" for i in (5, 3, 9, 1, 7)]
    many(core, *[(jid, "K", "{}", 0) for jid in jids])
    assert [j["jid"] for j in core.pop("q", "w", 10, now=T0 + 1)] == jids


def test_put_many_of_existing_and_repeated_jobs(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["old"]')
    assert many(core, ("a", "K", "{}", 0, "tags", '["new"]'), ("b", "K", "{}", 0),
                ("b", "K", "{}", 0, "priority", 3), now=T0 + 1) == [b"a", b"b", b"b"]
    assert core.zset("ql:t:old") == [] and core.job("a")["tags"] == ["new"]
    assert len(core.history("b")) == 2 and core.job("b")["priority"] == 3
    assert [j for j, _ in core.zset("ql:q:q-work")] == ["a", "b"]


def test_put_many_unique_reply_has_nil_for_jobs_left_alone(core: Core) -> None:
    core.put("a", T0, "q")
    assert many(core, ("a", "K", "{}", 0, "unique", 1), ("b", "K", "{}", 0, "unique", 1),
                ("b", "K", "{}", 0, "unique", 1)) == [None, b"b", None]


def test_put_many_of_nothing(core: Core) -> None:
    assert core("qlpy.put_many", T0, "w", "q") == []
    assert core.digest() == {}


@pytest.mark.parametrize(("jobs", "phrase"), [
    ([("a", "K", "{}", 0), ("b", "K", "{", 0)], "qlpy.put_many(): job 2: "),
    ([("a", "K", "{}", 0), ("b", "K", "false", 0)],
     'qlpy.put_many(): job 2: Put(): Arg "data" missing or not JSON: false'),
    ([("a", "K", "{}", "x")], 'qlpy.put_many(): job 1: Put(): Arg "delay" not a number: x'),
    ([("a", "K", "{}", 0), ("b", "K", "{}", 0, "priority", "hi")],
     'qlpy.put_many(): job 2: Put(): Arg "priority" not a number'),
    ([("a", "K", "{}", 0, "throttles", "t")],
     'qlpy.put_many(): job 1: Put(): Arg "throttles" not JSON array: t'),
    ([("a", "K", "{}", 0, "ttl", 0)],
     'qlpy.put_many(): job 1: Put(): Arg "ttl" must be greater than 0: 0'),
    ([("a", "K", "{}", 0, "key", "")], 'qlpy.put_many(): job 1: Put(): Arg "key" is empty'),
    ([("a", "K", "{}", 0, "unique", 2)],
     'qlpy.put_many(): job 1: Put(): Arg "unique" must be 0 or 1: 2'),
])
def test_one_bad_job_and_nothing_is_written(core: Core, jobs: list[tuple[Any, ...]],
                                            phrase: str) -> None:
    core.put("x", T0, "q")
    args: list[Any] = []
    for jid, klass, data, delay, *opts in jobs:
        args += [jid, klass, data, delay, len(opts) // 2, *opts]
    core.rejects(phrase, "qlpy.put_many", T0, "w", "q", *args)


@pytest.mark.parametrize(("args", "phrase"), [
    ((), "Queue(): no queue name provided"),
    ((None,), "Queue(): no queue name provided"),
    (("q", "a", "K", "{}", 0), "qlpy.put_many(): job 1: option count missing or not a whole"),
    (("q", "a", "K", "{}", 0, 1, "priority"), "job 1: option count missing or not a whole"),
    (("q", "a", "K", "{}", 0, -1), "job 1: option count missing or not a whole number: -1"),
    (("q", "a", "K", "{}", 0, 0.5), "job 1: option count missing or not a whole number: 0.5"),
    (("q", "a", "K", "{}", 0, 0, "b", "K"), "job 2: option count missing or not a whole"),
])
def test_malformed_batches_are_refused(core: Core, args: tuple[Any, ...], phrase: str) -> None:
    core.put("x", T0, "q")
    if args == (None,):
        core.rejects(phrase, "qlpy.put_many", T0, "w")
        return
    core.rejects(phrase, "qlpy.put_many", T0, "w", *args)
    core.rejects("Queue(): no queue name provided", "qlpy.put_many", T0)


def test_a_large_batch_in_one_call(core: Core) -> None:
    jobs = [(f"j{i:05}", "K", json.dumps({"i": i}), 0) for i in range(3000)]
    reply = many(core, *jobs)
    assert len(reply) == 3000 and core.conn.zcard("ql:q:q-work") == 3000
    assert core.job("j02999")["data"] == '{"i": 2999}'
