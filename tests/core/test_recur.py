"""Recurring templates and spawning (3.26-3.30, 4.6)."""

from __future__ import annotations

import json

import pytest

from tests.core.support import T0, Arg, Core, EventRecorder

RECUR_KEYS = {
    "jid",
    "klass",
    "state",
    "queue",
    "priority",
    "interval",
    "retries",
    "count",
    "data",
    "tags",
    "backlog",
}


def recur(
    core: Core,
    jid: str = "r",
    interval: Arg = 60,
    offset: Arg = 0,
    *opts: Arg,
    now: float = T0,
    queue: str = "q",
) -> object:
    return core("recur", now, queue, jid, "K", '{"n":1}', "interval", interval, offset, *opts)


def test_recur_creates_template(core: Core) -> None:
    assert recur(core, "r", 60, 30) == b"r"
    tmpl = core.json("recur.get", T0, "r")
    assert set(tmpl) == RECUR_KEYS
    assert tmpl == {
        "jid": "r",
        "klass": "K",
        "state": "recur",
        "queue": "q",
        "priority": 0,
        "interval": 60,
        "retries": 0,
        "count": 0,
        "data": '{"n":1}',
        "tags": {},
        "backlog": 0,
    }
    assert core.zset("ql:q:q-recur") == [("r", T0 + 30)]
    assert core.zset("ql:queues") == [("q", T0)]
    h = core.conn.hgetall("ql:r:r")
    assert h[b"type"] == b"interval" and h[b"tags"] == b"{}"


def test_recur_get_missing_is_nil(core: Core) -> None:
    assert core("recur.get", T0, "nope") is None


def test_spawn_on_pop(core: Core) -> None:
    recur(core, "r", 60, 0, "priority", 2, "retries", 1, "tags", '["t"]')
    [job] = core.pop("q", "w", 1, now=T0 + 5)
    assert job["jid"] == "r-1" and job["spawned_from_jid"] == "r"
    assert job["klass"] == "K" and job["data"] == '{"n":1}' and job["priority"] == 2
    assert job["retries"] == 1 and job["tags"] == ["t"]
    assert job["history"][0] == {"when": int(T0), "what": "put", "q": "q"}
    assert float(core.hget("ql:j:r-1", "time") or 0) == pytest.approx(T0 + 5)  # reset by pop
    assert core.zset("ql:q:q-recur") == [("r", T0 + 60)]
    assert core.zset("ql:t:t") == [("r-1", T0 + 5)]
    assert core.json("recur.get", T0, "r")["count"] == 1


def test_spawn_one_per_missed_slot(core: Core) -> None:
    recur(core, "r", 10, 0)
    peeked = core.peek("q", 10, now=T0 + 35)
    assert [j["jid"] for j in peeked] == ["r-1", "r-2", "r-3", "r-4"]
    assert [j["history"][0]["when"] for j in peeked] == [int(T0) + s for s in (0, 10, 20, 30)]
    assert core.zset("ql:q:q-recur") == [("r", T0 + 40)]


def test_spawn_limited_by_count(core: Core) -> None:
    recur(core, "r", 10, 0)
    assert [j["jid"] for j in core.pop("q", "w", 2, now=T0 + 35)] == ["r-1", "r-2"]
    assert core.zset("ql:q:q-recur") == [("r", T0 + 20)]
    assert [j["jid"] for j in core.pop("q", "w", 5, now=T0 + 35)] == ["r-3", "r-4"]


def test_backlog_skips_old_slots(core: Core) -> None:
    core("recur", 1000, "q", "r", "K", "{}", "interval", 10, 0, "backlog", 2)
    got = core.peek("q", 25, now=1100)
    # the first slot at 1000 is far behind: only the most recent slots are spawned
    assert sorted(j["history"][0]["when"] for j in got) == [1080, 1090, 1100]
    assert core.zset("ql:q:q-recur") == [("r", 1110.0)]


def test_fractional_spawn_time_is_floored(core: Core) -> None:
    core("recur", T0 + 0.75, "q", "r", "K", "{}", "interval", 10, 0)
    core.peek("q", 1, now=T0 + 1)
    assert core.zset("ql:q:q-recur") == [("r", T0 + 10)]


def test_spawning_is_silent_and_does_not_register_queue(core: Core, events: EventRecorder) -> None:
    recur(core, "r", 60, 0, queue="qq")
    core("queue.forget", T0, "qq")
    with events.record() as got:
        core.peek("qq", 1, now=T0 + 1)
    assert got == []
    assert core.zset("ql:queues") == []


def test_rerecur_keeps_count_and_resets_options(core: Core) -> None:
    recur(core, "r", 10, 0, "priority", 5)
    core.peek("q", 1, now=T0)
    recur(core, "r", 20, 5, queue="q2")
    tmpl = core.json("recur.get", T0, "r")
    assert tmpl["count"] == 1 and tmpl["priority"] == 0 and tmpl["queue"] == "q2"
    assert core.zset("ql:q:q-recur") == [] and core.zset("ql:q:q2-recur") == [("r", T0 + 5)]
    assert [j["jid"] for j in core.peek("q2", 1, now=T0 + 6)] == ["r-2"]


def test_unrecur(core: Core) -> None:
    recur(core, "r")
    core.peek("q", 1, now=T0)
    assert core("unrecur", T0, "r") == 1
    assert core("unrecur", T0, "r") == 1
    assert core.conn.exists("ql:r:r") == 0 and core.zset("ql:q:q-recur") == []
    assert core.job("r-1")["state"] == "waiting"


def test_recur_update(core: Core) -> None:
    recur(core, "r", 60, 100)
    assert (
        core(
            "recur.update",
            T0,
            "r",
            "priority",
            3,
            "retries",
            2,
            "interval",
            90,
            "data",
            '{"m":2}',
            "klass",
            "K2",
            "backlog",
            4,
        )
        == 1
    )
    tmpl = core.json("recur.get", T0, "r")
    assert (
        tmpl["priority"],
        tmpl["retries"],
        tmpl["interval"],
        tmpl["data"],
        tmpl["klass"],
        tmpl["backlog"],
    ) == (3, 2, 90, '{"m":2}', "K2", 4)
    assert core.zset("ql:q:q-recur") == [("r", T0 + 130)]
    core("recur.update", T0 + 1, "r", "queue", "q9")
    assert core.zset("ql:q:q-recur") == [] and core.zset("ql:q:q9-recur") == [("r", T0 + 130)]
    assert "q9" in dict(core.zset("ql:queues"))


def test_recur_update_errors(populated: Core) -> None:
    c = populated
    c.rejects("Recur(): No recurring job nope", "recur.update", T0, "nope", "priority", 1)
    c.rejects("No value provided for priority", "recur.update", T0, "tmpl", "priority")
    for name in ("priority", "retries", "interval"):
        c.rejects(
            f'Recur(): Arg "{name}" must be a number: x', "recur.update", T0, "tmpl", name, "x"
        )
    c.rejects('Recur(): Arg "backlog" not a number: x', "recur.update", T0, "tmpl", "backlog", "x")
    c.rejects(
        'Recur(): Arg "data" is not JSON-encoded: false',
        "recur.update",
        T0,
        "tmpl",
        "data",
        "false",
    )
    c.rejects("Expected", "recur.update", T0, "tmpl", "data", "{x")
    c.rejects('Recur(): Unrecognized option "tags"', "recur.update", T0, "tmpl", "tags", "[]")
    # deviation: a later bad pair leaves earlier pairs unapplied
    c.rejects(
        'Recur(): Unrecognized option "colour"',
        "recur.update",
        T0,
        "tmpl",
        "priority",
        9,
        "colour",
        "red",
    )


def test_recur_tag_untag(core: Core) -> None:
    recur(core, "r")
    assert json.loads(core("recur.tag", T0, "r", "a", "b")) == ["a", "b"]
    assert json.loads(core("recur.tag", T0, "r", "a", "c", "c")) == ["a", "b", "c", "c"]
    assert json.loads(core("recur.untag", T0, "r", "a", "c")) == ["b"]
    assert core("recur.untag", T0, "r", "b") == b"{}"
    assert core.conn.exists("ql:t:a") == 0 and core.conn.exists("ql:tags") == 0


def test_recur_tag_errors(populated: Core) -> None:
    populated.rejects("Tag(): Job nope does not exist", "recur.tag", T0, "nope", "x")
    populated.rejects("Untag(): Job nope does not exist", "recur.untag", T0, "nope", "x")


RECUR_ERRORS = [
    ((), "Queue(): no queue name provided"),
    (("q",), 'RecurringJob On(): Arg "jid" missing'),
    (("q", "r"), 'RecurringJob On(): Arg "klass" missing'),
    (("q", "r", "K"), 'RecurringJob On(): Arg "spec" missing'),
    (("q", "r", "K", "false", "interval", 60, 0), 'RecurringJob On(): Arg "data" not JSON: false'),
    (("q", "r", "K", "{}", "cron", 60, 0), 'Recur(): schedule type "cron" unknown'),
    (("q", "r", "K", "{}", "interval", "x", 0), 'Recur(): Arg "interval" not a number: x'),
    (("q", "r", "K", "{}", "interval", 60, "y"), 'Recur(): Arg "offset" not a number: y'),
    (("q", "r", "K", "{}", "interval", 0, 0), 'Recur(): Arg "interval" must be greater than 0'),
    (("q", "r", "K", "{}", "interval", -5, 0), 'Recur(): Arg "interval" must be greater than 0'),
    (("q", "r", "K", "{}", "interval", 60, 0, "priority"), "Odd number of additional args"),
    (
        ("q", "r", "K", "{}", "interval", 60, 0, "tags", "false"),
        'Recur(): Arg "tags" must be JSON string array: false',
    ),
    (
        ("q", "r", "K", "{}", "interval", 60, 0, "priority", "p"),
        'Recur(): Arg "priority" not a number: p',
    ),
    (
        ("q", "r", "K", "{}", "interval", 60, 0, "retries", "p"),
        'Recur(): Arg "retries" not a number: p',
    ),
    (
        ("q", "r", "K", "{}", "interval", 60, 0, "backlog", "p"),
        'Recur(): Arg "backlog" not a number: p',
    ),
]


@pytest.mark.parametrize(("args", "phrase"), RECUR_ERRORS)
def test_recur_errors(
    populated: Core, args: tuple[Arg, ...], phrase: str | tuple[str, ...]
) -> None:
    populated.rejects(phrase, "recur", T0, *args)


def test_recur_spec_missing(populated: Core) -> None:
    populated.rejects('RecurringJob On(): Arg "spec" missing', "recur", T0, "q", "r", "K", "{}")


@pytest.mark.parametrize(
    "command", ["recur.get", "unrecur", "recur.update", "recur.tag", "recur.untag"]
)
def test_recurring_commands_need_a_jid(populated: Core, command: str) -> None:
    populated.rejects("Recurring(): no jid provided", command, T0)
