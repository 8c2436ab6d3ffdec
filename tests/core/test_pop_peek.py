"""pop and peek (3.3, 3.4), ordering (4.1), pause and max-concurrency (4.10)."""

from __future__ import annotations

import pytest
import redis

from tests.core.support import T0, Core, running


def jids(jobs: list[dict[str, object]]) -> list[object]:
    return [j["jid"] for j in jobs]


def test_pop_empty_queue_is_empty_object_and_registers_worker(core: Core) -> None:
    assert core("pop", T0, "q", "w1", 5) == b"{}"
    assert core.zset("ql:workers") == [("w1", T0)]


def test_pop_hands_out_and_locks(core: Core) -> None:
    core.put("a", T0)
    [job] = core.pop("q", "w1", 1, now=T0 + 10)
    assert job["jid"] == "a" and job["state"] == "running" and job["worker"] == "w1"
    assert job["expires"] == T0 + 70
    assert core.zset("ql:q:q-locks") == [("a", T0 + 70)]
    assert core.zset("ql:w:w1:jobs") == [("a", T0 + 70)]
    assert core.zset("ql:q:q-work") == []
    assert core.zset("ql:workers") == [("w1", T0 + 10)]
    assert float(core.hget("ql:j:a", "time") or 0) == T0 + 10
    assert job["history"][-1] == {"when": int(T0) + 10, "what": "popped", "worker": "w1"}


def test_pop_uses_heartbeat_config(core: Core) -> None:
    core("config.set", T0, "heartbeat", 30)
    core("config.set", T0, "fast-heartbeat", 5)
    core.put("a", T0, "q")
    core.put("b", T0, "fast")
    assert core.pop("q", now=T0)[0]["expires"] == T0 + 30
    assert core.pop("fast", now=T0)[0]["expires"] == T0 + 5


def test_priority_then_fifo(core: Core) -> None:
    core.put("low", T0, "q", "priority", -1)
    core.put("old", T0 + 1, "q")
    core.put("new", T0 + 2, "q")
    core.put("high", T0 + 3, "q", "priority", 5)
    core.put("frac", T0 + 4, "q", "priority", 0.5)
    assert jids(core.pop("q", "w", 10, now=T0 + 5)) == ["high", "frac", "old", "new", "low"]


def test_equal_scores_pop_reverse_lexicographic(core: Core) -> None:
    for jid in ("b", "c", "a"):
        core.put(jid, T0, "q")
    assert jids(core.pop("q", "w", 3, now=T0)) == ["c", "b", "a"]


def test_millisecond_fifo(core: Core) -> None:
    core.put("first", T0 + 0.001)
    core.put("second", T0 + 0.002)
    assert jids(core.pop("q", "w", 2, now=T0 + 1)) == ["first", "second"]


def test_pop_count_limits(core: Core) -> None:
    for i in range(5):
        core.put(f"j{i}", T0 + i)
    assert len(core.pop("q", "w", 2, now=T0 + 10)) == 2
    assert len(core.pop("q", "w", 0, now=T0 + 10)) == 0
    assert len(core.pop("q", "w", 10, now=T0 + 10)) == 3


def test_pop_promotes_due_scheduled_with_promotion_time(core: Core) -> None:
    core.put("late", T0, "q", delay=10)
    core.put("now", T0 + 15, "q")
    popped = core.pop("q", "w", 5, now=T0 + 20)
    # due at T0+10 but promoted (and scored) at T0+20, so it sorts after "now" (T0+15)
    assert jids(popped) == ["now", "late"]


def test_promotion_limited_by_count(core: Core) -> None:
    core.put("s1", T0, "q", delay=1)
    core.put("s2", T0, "q", delay=2)
    core.pop("q", "w", 1, now=T0 + 10)
    # only one promotion was needed
    assert [j for j, _ in core.zset("ql:q:q-scheduled")] == ["s2"]


def test_peek_does_not_lock_or_register(core: Core) -> None:
    core.put("a", T0)
    peeked = core.peek(now=T0)
    assert jids(peeked) == ["a"] and peeked[0]["state"] == "waiting"
    assert core.zset("ql:q:q-locks") == [] and core.zset("ql:workers") == []
    assert core("peek", T0, "empty", 3) == b"{}"


def test_peek_promotes_scheduled(core: Core) -> None:
    core.put("a", T0, "q", delay=5)
    assert core.peek(now=T0 + 1) == []
    assert jids(core.peek(now=T0 + 6)) == ["a"]
    assert core.hget("ql:j:a", "state") == "waiting"
    assert core.zset("ql:q:q-scheduled") == []


def test_peek_lists_expired_locks_first(core: Core) -> None:
    core.put("a", T0)
    core.put("b", T0 + 1)
    core.pop("q", "w", 1, now=T0)
    peeked = core.peek(now=T0 + 61)
    assert jids(peeked) == ["a", "b"]
    assert peeked[0]["state"] == "running"


def test_paused_queue_pops_nothing_and_does_not_register(core: Core) -> None:
    core.put("a", T0)
    assert core("pause", T0, "q") is None
    assert core.members("ql:paused_queues") == {"q"}
    assert core("pop", T0, "q", "w", 5) == b"{}"
    assert core.zset("ql:workers") == []
    assert jids(core.peek(now=T0)) == ["a"]  # peek ignores pause
    assert core("unpause", T0, "q") is None
    assert core.members("ql:paused_queues") == set()
    assert jids(core.pop(now=T0)) == ["a"]


def test_pause_several_names(core: Core) -> None:
    core("pause", T0, "a", "b", "c")
    assert core.members("ql:paused_queues") == {"a", "b", "c"}
    core("unpause", T0, "a", "c")
    assert core.members("ql:paused_queues") == {"b"}


@pytest.mark.parametrize("command", ["pause", "unpause", "queue.forget", "worker.deregister"])
def test_name_list_commands_need_a_name(populated: Core, command: str) -> None:
    populated.rejects("Wrong number of args calling Redis command from script", command, T0)


def test_max_concurrency(core: Core) -> None:
    core("config.set", T0, "q-max-concurrency", 2)
    for i in range(4):
        core.put(f"j{i}", T0 + i)
    assert len(core.pop("q", "w", 5, now=T0 + 10)) == 2
    assert core("pop", T0 + 11, "q", "w", 5) == b"{}"
    core("complete", T0 + 12, "j0", "w", "q", "{}")
    assert jids(core.pop("q", "w", 5, now=T0 + 13)) == ["j2"]


def test_max_concurrency_ignores_expired_locks(core: Core) -> None:
    core("config.set", T0, "q-max-concurrency", 1)
    core("config.set", T0, "grace-period", 0)
    core.put("a", T0)
    core.put("b", T0 + 1)
    core.pop("q", "w1", 1, now=T0)
    # a's lock expired at T0+60: it no longer counts, and it is reclaimed for w2
    got = core.pop("q", "w2", 1, now=T0 + 100)
    assert jids(got) == ["a"] and got[0]["worker"] == "w2"


def test_pop_errors(populated: Core) -> None:
    populated.rejects("Queue(): no queue name provided", "pop", T0)
    populated.rejects('Pop(): Arg "worker" missing', "pop", T0, "q")
    populated.rejects(
        'Pop(): Arg "count" missing or not a number: many', "pop", T0, "q", "w", "many"
    )
    populated.rejects('Pop(): Arg "count" missing or not a number', "pop", T0, "q", "w")


def test_peek_errors(populated: Core) -> None:
    populated.rejects("Queue(): no queue name provided", "peek", T0)
    populated.rejects('Peek(): Arg "count" missing or not a number: x', "peek", T0, "q", "x")
    populated.rejects('Peek(): Arg "count" missing or not a number', "peek", T0, "q")


def test_pop_corrupt_work_entry_does_not_break_queue(core: Core) -> None:
    # deviation: the reference crashes; whatever the core does, other jobs still come out
    core.put("a", T0)
    core.conn.zadd("ql:q:q-work", {"ghost": 100.0})
    try:
        got = core.pop("q", "w", 5, now=T0)
    except redis.ResponseError:  # an error is acceptable, garbage is not
        return
    assert "a" in jids(got)
    assert "ghost" not in jids(got)


def test_popped_job_shows_its_dependencies(core: Core) -> None:
    # A job is normally never handed out with dependencies, but retry into another queue
    # keeps its `queue` field (3.8 quirk): putting it back with a dependency cleans its own
    # queue's sets and leaves the q2 work entry, which pop then takes. The job object must
    # still list the dependency.
    running(core, "a")
    assert core("retry", T0 + 1, "a", "q2", "w") == 4
    core.put("k", T0 + 2)
    core.put("a", T0 + 3, "q", "depends", '["k"]')
    assert core.job("a")["state"] == "depends"
    popped = core.pop("q2", "w2", 1, now=T0 + 4)
    assert [j["jid"] for j in popped] == ["a"]
    assert popped[0]["dependencies"] == ["k"] and popped[0]["dependents"] == {}
