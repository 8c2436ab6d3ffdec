"""The extension command ``qlpy.giveback <now> <jid> <worker>`` (docs/protocol.md).

A job running under ``worker`` goes back to waiting in its queue, as that worker's put of
it would leave it, without spending or restoring a retry; any other job is left alone and
the reply says it was not the worker's to give. Times are explicit, as in every core test.
"""

from __future__ import annotations

import pytest

from tests.core.support import T0, Core, EventRecorder, decoded, running


def giveback(core: Core, jid: str, worker: str, now: float = T0 + 10) -> int:
    reply = core("qlpy.giveback", now, jid, worker)
    assert isinstance(reply, int)
    return reply


def test_a_running_job_goes_back_to_waiting_in_its_queue(core: Core) -> None:
    core.put("a", T0, "q", "priority", 3, "tags", '["red"]', "retries", 4, data='{"n":1}')
    assert core.pop("q", "w", 1, now=T0 + 1)[0]["jid"] == "a"
    assert giveback(core, "a", "w", T0 + 10) == 1
    job = core.job("a")
    assert (job["state"], job["worker"], job["queue"], job["expires"]) == ("waiting", "", "q", 0)
    assert (job["priority"], job["tags"], job["data"]) == (3, ["red"], '{"n":1}')
    assert (job["retries"], job["remaining"]) == (4, 4)
    assert job["history"][-1] == {"when": int(T0 + 10), "what": "put", "q": "q"}
    assert core.hget("ql:j:a", "time") == f"{T0 + 10:.20f}"
    [(member, score)] = core.zset("ql:q:q-work")
    assert member == "a" and score == pytest.approx(3 - (T0 + 10) / 1e10)
    assert core.zset("ql:q:q-locks") == []
    assert core.zset("ql:w:w:jobs") == []
    assert [jid for jid, _ in core.zset("ql:t:red")] == ["a"]
    assert core.pop("q", "w2", 1, now=T0 + 11)[0]["jid"] == "a"  # poppable again


def test_no_retry_is_spent_or_restored(core: Core) -> None:
    running(core, "a", "w", T0, "retries", 3)
    assert core("retry", T0 + 1, "a", "q", "w", 0) == 2  # one retry spent
    assert core.pop("q", "w", 1, now=T0 + 2)[0]["jid"] == "a"
    assert giveback(core, "a", "w") == 1
    job = core.job("a")
    assert (job["retries"], job["remaining"]) == (3, 2)


def test_events_are_those_of_the_owners_put(core: Core, events: EventRecorder) -> None:
    running(core, "a", "w")
    core("track", T0, "track", "a")
    with events.record() as got:
        assert giveback(core, "a", "w") == 1
    assert decoded(got) == [("ql:log", {"jid": "a", "event": "put", "queue": "q"}),
                            ("ql:put", "a")]


@pytest.mark.parametrize("case", ["another worker", "waiting", "scheduled", "depends",
                                  "failed", "complete", "missing", "lock reclaimed"])
def test_a_job_that_is_not_the_workers_is_left_alone(
        core: Core, events: EventRecorder, case: str) -> None:
    if case == "another worker":
        running(core, "a", "w2")
    elif case == "waiting":
        core.put("a")
    elif case == "scheduled":
        core.put("a", delay=60)
    elif case == "depends":
        core.put("b")
        core.put("a", T0, "q", "depends", '["b"]')
    elif case == "failed":
        running(core, "a", "w")
        core("fail", T0 + 1, "a", "w", "g", "m")
    elif case == "complete":
        running(core, "a", "w")
        core("complete", T0 + 1, "a", "w", "q", "{}")
    elif case == "lock reclaimed":
        core("config.set", T0, "grace-period", 0)
        running(core, "a", "w")
        core.pop("q", "w2", 1, now=T0 + 61)  # the courtesy step: stalled, given a grace
        core.pop("q", "w2", 1, now=T0 + 200)  # taken by w2
        assert core.job("a")["worker"] == "w2"
    before = core.digest()
    with events.record() as got:
        assert giveback(core, "a", "w", T0 + 300) == 0
    assert core.digest() == before
    assert got == []


@pytest.mark.parametrize(("args", "phrase"), [
    ((), 'qlpy.giveback(): Arg "jid" missing'),
    (("a",), 'qlpy.giveback(): Arg "worker" missing'),
])
def test_malformed_calls_are_rejected_without_writes(
        core: Core, args: tuple[str, ...], phrase: str) -> None:
    running(core, "a", "w")
    core.rejects(phrase, "qlpy.giveback", T0 + 1, *args)


@pytest.mark.parametrize("now", ["", "soon", "nan", "inf"])
def test_a_bad_now_is_rejected_without_writes(core: Core, now: str) -> None:
    running(core, "a", "w")
    core.rejects('Arg "now" missing or not a number: nil', "qlpy.giveback", now, "a", "w")
