"""put and requeue (3.1, 3.2)."""

from __future__ import annotations

import pytest

from tests.core.support import DAY, T0, Arg, Core


def work(core: Core, queue: str = "q") -> list[tuple[str, float]]:
    return core.zset(f"ql:q:{queue}-work")


def test_put_replies_jid_as_bulk_string(core: Core) -> None:
    assert core.put("abc") == b"abc"


def test_put_indexes_waiting_job_with_score(core: Core) -> None:
    core.put("a", T0, "q", "priority", 2)
    [(jid, score)] = work(core)
    assert jid == "a"
    assert score == pytest.approx(2 - T0 / 1e10, abs=1e-9)
    assert core.zset("ql:queues") == [("q", T0)]


def test_known_queue_keeps_first_score(core: Core) -> None:
    core.put("a", T0, "q")
    core.put("b", T0 + 50, "q")
    core.put("c", T0 + 60, "r")
    assert core.zset("ql:queues") == [("q", T0), ("r", T0 + 60)]


def test_put_with_delay_is_scheduled(core: Core) -> None:
    core.put("a", T0, "q", delay=30)
    assert core.zset("ql:q:q-scheduled") == [("a", T0 + 30)]
    assert work(core) == []
    assert core.job("a")["state"] == "scheduled"


def test_negative_delay_behaves_like_zero(core: Core) -> None:
    core.put("a", T0, "q", delay=-5)
    assert [j for j, _ in work(core)] == ["a"]
    assert core.job("a")["state"] == "waiting"


def test_put_defaults_and_options(core: Core) -> None:
    core.put("a", T0, "q", "priority", -1.5, "retries", 2, "tags", '["t1","t2"]', "bogus", "x")
    job = core.job("a")
    assert job["priority"] == -1.5 and job["retries"] == 2 and job["remaining"] == 2
    assert job["tags"] == ["t1", "t2"]


def test_last_repeated_option_wins(core: Core) -> None:
    core.put("a", T0, "q", "priority", 1, "priority", 7)
    assert core.job("a")["priority"] == 7


def test_reput_keeps_priority_tags_retries(core: Core) -> None:
    core.put("a", T0, "q", "priority", 4, "retries", 9, "tags", '["x"]')
    core.put("a", T0 + 1, "r")
    job = core.job("a")
    assert (job["priority"], job["retries"], job["tags"], job["queue"]) == (4, 9, ["x"], "r")
    assert work(core, "q") == [] and [j for j, _ in work(core, "r")] == ["a"]
    assert core.zset("ql:t:x") == [("a", T0 + 1)]
    assert core.zset("ql:tags") == [("x", 1.0)]


def test_put_resets_remaining(core: Core) -> None:
    core.put("a", T0, "q", "retries", 3)
    core.pop(now=T0)
    core("retry", T0 + 1, "a", "q", "w")
    assert core.job("a")["remaining"] == 2
    core.put("a", T0 + 2, "q")
    assert core.job("a")["remaining"] == 3


def test_put_tags_duplicates_kept(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["x","x"]')
    assert core.job("a")["tags"] == ["x", "x"]
    assert core.zset("ql:tags") == [("x", 2.0)]


def test_put_steals_running_job_and_moves_it(core: Core) -> None:
    core.put("a", T0, "q")
    core.pop("q", "w1", now=T0)
    core.put("a", T0 + 1, "r", worker="w2")
    job = core.job("a")
    assert job["state"] == "waiting" and job["worker"] == "" and job["queue"] == "r"
    assert job["expires"] == 0
    assert core.zset("ql:q:q-locks") == []
    assert core.zset("ql:w:w1:jobs") == []
    assert [j for j, _ in work(core, "r")] == ["a"]


def test_put_of_complete_job_removes_it_from_completed(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    core("complete", T0 + 1, "a", "w", "q", "{}")
    assert [j for j, _ in core.zset("ql:completed")] == ["a"]
    core.put("a", T0 + 2)
    assert core.zset("ql:completed") == []
    assert core.job("a")["state"] == "waiting"


def test_put_of_failed_job_clears_failure_index_but_keeps_failure(core: Core) -> None:
    core.put("a", T0)
    core.pop(now=T0)
    core("fail", T0 + 5, "a", "w", "grp", "msg")
    day = int(T0 // DAY * DAY)
    assert core.hget(f"ql:s:stats:{day}:q", "failed") == "1"
    core.put("a", T0 + 10, "q")
    assert core.conn.exists("ql:f:grp") == 0
    assert core.members("ql:failures") == set()
    assert core.hget(f"ql:s:stats:{day}:q", "failed") == "0"
    job = core.job("a")
    assert job["state"] == "waiting"
    assert job["failure"]["group"] == "grp"  # quirk: put keeps the failure object


def test_put_failed_job_decrements_new_queue_stats(core: Core) -> None:
    core.put("a", T0, "q")
    core.pop(now=T0)
    core("fail", T0 + 5, "a", "w", "grp", "msg")
    day = int(T0 // DAY * DAY)
    core.put("a", T0 + 10, "elsewhere")
    assert core.hget(f"ql:s:stats:{day}:q", "failed") == "1"
    assert core.hget(f"ql:s:stats:{day}:elsewhere", "failed") == "-1"


def test_put_with_depends_on_live_job(core: Core) -> None:
    core.put("b")
    core.put("a", T0 + 1, "q", "depends", '["b", "ghost"]')
    job = core.job("a")
    assert job["state"] == "depends" and job["dependencies"] == ["b"]
    assert core.job("b")["dependents"] == ["a"]
    assert core.zset("ql:q:q-depends") == [("a", T0 + 1)]
    assert [j for j, _ in work(core)] == ["b"]


def test_put_depends_on_complete_job_is_ignored(core: Core) -> None:
    core.put("b")
    core.pop(now=T0)
    core("complete", T0, "b", "w", "q", "{}")
    core.put("a", T0 + 1, "q", "depends", '["b"]')
    assert core.job("a")["state"] == "waiting"
    assert core.conn.exists("ql:j:a-dependencies") == 0


def test_put_with_delay_and_dependency_stores_scheduled(core: Core) -> None:
    core.put("b")
    core.put("a", T0 + 1, "q", "depends", '["b"]', delay=100)
    assert core.job("a")["state"] == "depends"
    assert float(core.hget("ql:j:a", "scheduled") or 0) == T0 + 101
    assert core.zset("ql:q:q-scheduled") == []
    # release: goes to the scheduled set at the stored time
    core("pop", T0 + 2, "q", "w", 1)
    core("complete", T0 + 3, "b", "w", "q", "{}")
    assert core.job("a")["state"] == "scheduled"
    assert core.zset("ql:q:q-scheduled") == [("a", T0 + 101)]
    assert core.conn.hexists("ql:j:a", "scheduled") is False


def test_put_empty_depends_keeps_old_dependencies(core: Core) -> None:
    core.put("b")
    core.put("a", T0, "q", "depends", '["b"]')
    core.put("a", T0 + 1, "q", "depends", "[]")
    assert core.job("a")["state"] == "depends"
    assert core.job("a")["dependencies"] == ["b"]


def test_put_new_depends_replaces_old(core: Core) -> None:
    core.put("b")
    core.put("c")
    core.put("a", T0, "q", "depends", '["b"]')
    core.put("a", T0 + 1, "q", "depends", '["c"]')
    assert core.job("a")["dependencies"] == ["c"]
    assert core.job("b")["dependents"] == {}
    assert core.job("c")["dependents"] == ["a"]


def test_requeue_requires_existing_job(core: Core) -> None:
    core.rejects(
        "Requeue(): Job nope does not exist", "requeue", T0, "w", "q", "nope", "K", "{}", 0
    )


def test_requeue_checks_existence_before_queue(core: Core) -> None:
    core.rejects("Requeue(): Job nope does not exist", "requeue", T0, "w", "", "nope")


def test_requeue_requires_jid(core: Core) -> None:
    core.rejects("Job(): no jid provided", "requeue", T0, "w", "q")


def test_requeue_moves_existing_job(core: Core) -> None:
    core.put("a", T0, "q")
    assert core("requeue", T0 + 1, "w", "r", "a", "K2", '{"z":1}', 0) == b"a"
    job = core.job("a")
    assert job["queue"] == "r" and job["klass"] == "K2" and job["data"] == '{"z":1}'


PUT_ERRORS = [
    ((), "Queue(): no queue name provided"),
    (("q",), 'Put(): Arg "jid" missing'),
    (("q", "j"), 'Put(): Arg "klass" missing'),
    (("q", "j", "K", "false"), 'Put(): Arg "data" missing or not JSON: false'),
    (("q", "j", "K", "{}", "soon"), 'Put(): Arg "delay" not a number: soon'),
    (("q", "j", "K", "{}"), 'Put(): Arg "delay" not a number'),
    (("q", "j", "K", "{}", 0, "priority"), "Odd number of additional args"),
    (("q", "j", "K", "{}", 0, "retries", "x"), 'Put(): Arg "retries" not a number: x'),
    (("q", "j", "K", "{}", 0, "tags", "false"), 'Put(): Arg "tags" not JSONfalse'),
    (("q", "j", "K", "{}", 0, "priority", "hi"), 'Put(): Arg "priority" not a numberhi'),
    (("q", "j", "K", "{}", 0, "depends", "false"), 'Put(): Arg "depends" not JSON: false'),
]


REQUEUE_ERRORS = [
    ((), "Job(): no jid provided"),
    (("q",), "Job(): no jid provided"),
    *[(tuple("wait1" if a == "j" else a for a in args), phrase) for args, phrase in PUT_ERRORS[2:]],
]


@pytest.mark.parametrize(("args", "phrase"), PUT_ERRORS)
def test_put_error_phrases(populated: Core, args: tuple[Arg, ...], phrase: str) -> None:
    populated.rejects(phrase, "put", T0 + 10, "w", *args)


@pytest.mark.parametrize(("args", "phrase"), REQUEUE_ERRORS)
def test_requeue_error_phrases(populated: Core, args: tuple[Arg, ...], phrase: str) -> None:
    populated.rejects(phrase, "requeue", T0 + 10, "w", *args)


def test_put_late_validation_keeps_tags(populated: Core) -> None:
    # deviation: the reference detached the old tags before validating retries; ours changes nothing
    populated.rejects(
        'Put(): Arg "retries" not a number: x',
        "put",
        T0,
        "",
        "q",
        "wait1",
        "K",
        "{}",
        0,
        "retries",
        "x",
    )
    assert populated.job("wait1")["tags"] == ["red"]
