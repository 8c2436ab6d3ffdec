"""Ordering keys (docs/protocol.md "Ordering keys"): per-key FIFO, one job at a time.

Jobs put into one queue with the same `key` run one at a time in put order. A job that is
retried, times out or loses its lock runs again before the key's next job; completing,
advancing, failing, cancelling, expiring or putting it again lets the next one start. Other
keys, and jobs without a key, are never held up.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.support import T0, Core


def put(core: Core, jid: str, key: str = "k", now: float = T0, queue: str = "q",
        *opts: Any, delay: float = 0) -> Any:
    return core.put(jid, now, queue, "key", key, *opts, delay=delay)


def popped(core: Core, now: float, count: int = 10, queue: str = "q") -> list[str]:
    return [j["jid"] for j in core.pop(queue, "w", count, now=now)]


def members(core: Core, key: str = "k", queue: str = "q") -> list[tuple[str, float]]:
    return core.zset(f"ql:q:{queue}-key:{key}")


def state(core: Core, jid: str) -> str:
    return str(core.job(jid)["state"])


def test_jobs_of_one_key_run_one_at_a_time_in_put_order(core: Core) -> None:
    for i, jid in enumerate(["c", "a", "b"]):
        put(core, jid, now=T0 + i)
    assert members(core) == [("c", 1.0), ("a", 2.0), ("b", 3.0)]
    assert [state(core, j) for j in "cab"] == ["waiting", "throttled", "throttled"]
    job = core.job("a")
    assert job["key"] == "k"
    assert job["history"][-1] == {"when": int(T0 + 1), "what": "throttled", "queue": "q"}
    assert popped(core, T0 + 5) == ["c"]
    assert popped(core, T0 + 6) == []
    core("complete", T0 + 7, "c", "w", "q", "{}")
    assert state(core, "a") == "waiting"
    assert popped(core, T0 + 8) == ["a"]
    core("complete", T0 + 9, "a", "w", "q", "{}")
    assert popped(core, T0 + 10) == ["b"]
    core("complete", T0 + 11, "b", "w", "q", "{}")
    assert members(core) == []


def test_jobs_put_in_one_instant_keep_their_order(core: Core) -> None:
    for jid in ["z", "y", "x"]:
        put(core, jid)
    order = []
    for i in range(3):
        [jid] = popped(core, T0 + 1 + 2 * i)
        order.append(jid)
        core("complete", T0 + 2 + 2 * i, jid, "w", "q", "{}")
    assert order == ["z", "y", "x"]


def test_other_keys_and_plain_jobs_are_not_held_up(core: Core) -> None:
    put(core, "a1", "a", T0)
    put(core, "a2", "a", T0 + 1)
    put(core, "b1", "b", T0 + 2)
    core.put("p", T0 + 3, "q")
    assert popped(core, T0 + 5) == ["a1", "b1", "p"]


def test_keys_are_per_queue(core: Core) -> None:
    put(core, "a", "k", T0, "q1")
    put(core, "b", "k", T0 + 1, "q2")
    assert popped(core, T0 + 5, queue="q1") == ["a"]
    assert popped(core, T0 + 5, queue="q2") == ["b"]


@pytest.mark.parametrize("how", ["retry", "retry-delay", "timeout", "lock-loss", "giveback"])
def test_a_job_that_runs_again_goes_before_the_next(core: Core, how: str) -> None:
    core("config.set", T0, "grace-period", 0)
    put(core, "a", now=T0)
    put(core, "b", now=T0 + 1)
    assert popped(core, T0 + 2) == ["a"]
    if how == "retry":
        core("retry", T0 + 3, "a", "q", "w")
    elif how == "retry-delay":
        core("retry", T0 + 3, "a", "q", "w", 10)
        assert popped(core, T0 + 4) == []
    elif how == "timeout":
        core("timeout", T0 + 3, "a")
    elif how == "giveback":
        assert core("qlpy.giveback", T0 + 3, "a", "w") == 1
        assert state(core, "a") == "waiting"
    assert state(core, "b") == "throttled"
    assert popped(core, T0 + 100) == ["a"]
    assert popped(core, T0 + 101) == []


@pytest.mark.parametrize("how", ["complete", "advance", "fail", "cancel", "put", "exhausted"])
def test_a_job_that_leaves_lets_the_next_start(core: Core, how: str) -> None:
    core("config.set", T0, "grace-period", 0)
    put(core, "a", "k", T0, "q", "retries", 0)
    put(core, "b", now=T0 + 1)
    assert popped(core, T0 + 2) == ["a"]
    commands: dict[str, tuple[Any, ...]] = {
        "complete": ("complete", "a", "w", "q", "{}"),
        "advance": ("complete", "a", "w", "q", "{}", "next", "q2"),
        "fail": ("fail", "a", "w", "g", "m"),
        "cancel": ("cancel", "a"),
        "put": ("put", "", "q", "a", "K", "{}", 0, "key", "k"),
        "exhausted": ("retry", "a", "q", "w"),
    }
    core(commands[how][0], T0 + 3, *commands[how][1:])
    assert state(core, "b") == "waiting"
    assert popped(core, T0 + 4) == ["b"]
    if how == "put":
        # put again, a went to the end of its key
        assert members(core) == [("b", 2.0), ("a", 3.0)]
        assert state(core, "a") == "throttled"


def test_an_advanced_job_joins_its_key_in_the_next_queue(core: Core) -> None:
    put(core, "x", "k", T0, "q2")
    put(core, "a", now=T0 + 1)
    assert popped(core, T0 + 2) == ["a"]
    assert core("complete", T0 + 3, "a", "w", "q", "{}", "next", "q2") == b"throttled"
    assert members(core, queue="q2") == [("x", 1.0), ("a", 2.0)]


def test_a_delayed_or_dependent_first_job_holds_its_key(core: Core) -> None:
    put(core, "a", delay=60)
    put(core, "b", now=T0 + 1)
    assert state(core, "b") == "throttled"
    assert popped(core, T0 + 10) == []
    assert popped(core, T0 + 61) == ["a"]
    core.put("dep", T0, "other")
    core.put("c", T0 + 62, "q2", "key", "k2", "depends", '["dep"]')
    core.put("d", T0 + 63, "q2", "key", "k2")
    assert state(core, "d") == "throttled"
    [_] = core.pop("other", "w", 1, now=T0 + 64)
    core("complete", T0 + 65, "dep", "w", "other", "{}")
    assert popped(core, T0 + 66, queue="q2") == ["c"]


def test_a_delayed_later_job_waits_for_its_turn_when_due(core: Core) -> None:
    put(core, "a")
    put(core, "b", now=T0 + 1, delay=5)
    assert popped(core, T0 + 10) == ["a"]
    assert state(core, "b") == "throttled"
    core("complete", T0 + 11, "a", "w", "q", "{}")
    assert popped(core, T0 + 12) == ["b"]


def test_a_stale_head_is_dropped(core: Core) -> None:
    put(core, "a")
    put(core, "b", now=T0 + 1)
    # another program deletes the first job without the core
    core.conn.delete("ql:j:a")
    core.conn.zrem("ql:q:q-work", "a")
    assert popped(core, T0 + 2) == []  # the short pop looks at b again
    assert members(core) == [("b", 2.0)] and state(core, "b") == "waiting"
    assert popped(core, T0 + 3) == ["b"]


def test_key_with_throttles(core: Core) -> None:
    core("throttle.set", T0, "t", 1)
    core.put("x", T0, "q", "throttles", '["t"]')
    core.put("a", T0 + 1, "q", "key", "k", "throttles", '["t"]')
    core.put("b", T0 + 2, "q", "key", "k", "throttles", '["t"]')
    # a heads its key and waits for t; b waits for a
    assert [j.decode() for j in core("throttle.pending", T0, "t")] == ["a"]
    assert popped(core, T0 + 3) == ["x"]
    core("complete", T0 + 4, "x", "w", "q", "{}")
    assert popped(core, T0 + 5) == ["a"]
    core("complete", T0 + 6, "a", "w", "q", "{}")
    assert popped(core, T0 + 7) == ["b"]


def test_key_is_shown_only_when_set(core: Core) -> None:
    core.put("plain", T0, "p")
    assert "key" not in core.job("plain")
    put(core, "a")
    assert core.pop("q", "w", 1, now=T0 + 1)[0]["key"] == "k"
    assert core.job("a")["key"] == "k"


def test_put_again_without_key_leaves_the_key(core: Core) -> None:
    put(core, "a")
    put(core, "b", now=T0 + 1)
    core.put("a", T0 + 2, "q")
    assert "key" not in core.job("a")
    assert members(core) == [("b", 2.0)] and state(core, "b") == "waiting"


def test_unfail_rejoins_the_key_at_the_end(core: Core) -> None:
    put(core, "a")
    put(core, "b", now=T0 + 1)
    popped(core, T0 + 2)
    core("fail", T0 + 3, "a", "w", "g", "m")
    assert core("unfail", T0 + 4, "q", "g") == 1
    assert [j for j, _ in members(core)] == ["b", "a"]
    assert state(core, "a") == "throttled"


def test_recurring_children_share_the_key(core: Core) -> None:
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0, "key", "rk")
    assert core.json("recur.get", T0, "r")["key"] == "rk"
    assert popped(core, T0 + 130, 5) == ["r-1"]
    assert state(core, "r-2") == "throttled" and state(core, "r-3") == "throttled"
    core("recur.update", T0, "r", "key", "")
    assert "key" not in core.json("recur.get", T0, "r")


@pytest.mark.parametrize(("opts", "phrase"), [
    (("key", ""), 'Put(): Arg "key" is empty'),
])
def test_bad_key_is_refused(core: Core, opts: tuple[Any, ...], phrase: str) -> None:
    core.rejects(phrase, "put", T0, "", "q", "a", "K", "{}", 0, *opts)
    core.rejects(phrase.replace("Put()", "Recur()"), "recur", T0, "q", "r", "K", "{}",
                 "interval", 60, 0, *opts)
