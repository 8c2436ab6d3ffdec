"""Malformed argument lists: a clear error, and a byte-identical keyspace afterwards.

The project validates every argument before the first write (a deliberate deviation from the
reference, which wrote before some checks) and rejects non-finite numbers with the command's
own "not a number" phrase. Every case runs against a keyspace holding jobs in every state.
"""

from __future__ import annotations

import json

import pytest

from tests.core.support import T0, Core, populate

NON_FINITE = ["nan", "-nan", "inf", "-inf", "1e999", "-1e999", "Infinity"]
NOT_NUMBERS = ["", "abc", "1,5", "\uff15", "\u0661", "1 2", b"\xff\xfe", "0x"]
BROKEN_JSON = ["{", "{'a': 1}", "[1,]", '{"a":1}}', b"\x00\xff", "\u2603"]
MEGA = 1024 * 1024


def json_error(phrase: str) -> tuple[str, ...]:
    # cjson's own parse error (reference) or the command's phrase (a validating core)
    return ("Expected", "cjson", "Found", "JSON parser", phrase)


PUT = ("put", "w", "q", "new", "K")
Case = tuple[str, tuple[object, ...], str | tuple[str, ...]]


def cases() -> list[Case]:
    out: list[Case] = []
    bad_numbers = ["nan", "inf", "-inf", "1e999", "abc", "", "\uff15", b"\xff\xfe"]
    for v in bad_numbers:
        out += [
            ("put", (*PUT[1:], "{}", v), 'Put(): Arg "delay" not a number'),
            ("put", (*PUT[1:], "{}", 0, "priority", v), 'Put(): Arg "priority" not a number'),
            ("put", (*PUT[1:], "{}", 0, "retries", v), 'Put(): Arg "retries" not a number'),
            (
                "put",
                ("w", "q", "wait1", "K", "{}", 0, "tags", '["z"]', "priority", v),
                'Put(): Arg "priority" not a number',
            ),
            ("requeue", ("w", "q", "wait1", "K", "{}", v), 'Put(): Arg "delay" not a number'),
            ("pop", ("q", "w", v), 'Pop(): Arg "count" missing or not a number'),
            ("peek", ("q", v), 'Peek(): Arg "count" missing or not a number'),
            (
                "complete",
                ("run1", "wA", "other", "{}", "next", "n", "delay", v),
                ("assertion failed!", '"delay"'),
            ),
            ("retry", ("run1", "other", "wA", v), 'Retry(): Arg "delay" not a number'),
            ("priority", ("wait1", v), 'Priority(): Arg "priority" missing or not a number'),
            ("tag", ("get", "red", v), 'Tag(): Arg "offset" not a number'),
            ("tag", ("get", "red", 0, v), 'Tag(): Arg "count" not a number'),
            ("tag", ("top", v), 'Tag(): Arg "offset" not a number'),
            ("jobs", ("complete", v), 'Jobs(): Arg "offset" not a number'),
            ("jobs", ("running", "other", 0, v), 'Jobs(): Arg "count" not a number'),
            ("failed", ("boom", v), 'Failed(): Arg "start" is not a number'),
            ("failed", ("boom", 0, v), 'Failed(): Arg "limit" is not a number'),
            ("unfail", ("q", "boom", v), 'Unfail(): Arg "count" not a number'),
            ("stats", ("q", v), 'Stats(): Arg "date" missing or not a number'),
            (
                "recur",
                ("q", "r2", "K", "{}", "interval", v, 0),
                (
                    'Recur(): Arg "interval" not a number',
                    'Recur(): Arg "interval" must be greater than 0',
                ),
            ),
            (
                "recur",
                ("q", "r2", "K", "{}", "interval", 60, v),
                'Recur(): Arg "offset" not a number',
            ),
            (
                "recur",
                ("q", "tmpl", "K", "{}", "interval", 60, 0, "priority", v),
                'Recur(): Arg "priority" not a number',
            ),
            (
                "recur",
                ("q", "tmpl", "K", "{}", "interval", 60, 0, "retries", v),
                'Recur(): Arg "retries" not a number',
            ),
            (
                "recur",
                ("q", "tmpl", "K", "{}", "interval", 60, 0, "backlog", v),
                'Recur(): Arg "backlog" not a number',
            ),
            ("recur.update", ("tmpl", "priority", v), 'Recur(): Arg "priority" must be a number'),
            ("recur.update", ("tmpl", "interval", v), 'Recur(): Arg "interval" must be a number'),
            ("recur.update", ("tmpl", "retries", v), 'Recur(): Arg "retries" must be a number'),
            (
                "recur.update",
                ("tmpl", "klass", "K3", "backlog", v),
                'Recur(): Arg "backlog" not a number',
            ),
        ]
    for v in BROKEN_JSON:
        out += [
            ("put", (*PUT[1:], v, 0), json_error('Put(): Arg "data"')),
            ("put", ("w", "q", "wait1", "K", "{}", 0, "tags", v), json_error('Put(): Arg "tags"')),
            ("put", (*PUT[1:], "{}", 0, "depends", v), json_error('Put(): Arg "depends"')),
            ("requeue", ("w", "q", "wait1", "K", v, 0), json_error('Put(): Arg "data"')),
            ("complete", ("run1", "wA", "other", v), json_error('Complete(): Arg "data"')),
            (
                "complete",
                ("run1", "wA", "other", "{}", "next", "n", "depends", v),
                json_error('Complete(): Arg "depends"'),
            ),
            ("fail", ("run1", "wA", "g", "m", v), json_error("Fail(): Arg")),
            ("heartbeat", ("run1", "wA", v), json_error("Heartbeat(): Arg")),
            ("log", ("wait1", "m", v), json_error("Log(): Argument 'data'")),
            (
                "recur",
                ("q", "tmpl", "K", v, "interval", 60, 0),
                json_error('RecurringJob On(): Arg "data"'),
            ),
            (
                "recur",
                ("q", "tmpl", "K", "{}", "interval", 60, 0, "tags", v),
                json_error('Recur(): Arg "tags"'),
            ),
            ("recur.update", ("tmpl", "priority", 1, "data", v), json_error('Recur(): Arg "data"')),
        ]
    out += [
        # JSON false where the command checks it
        ("put", (*PUT[1:], "false", 0), 'Put(): Arg "data" missing or not JSON: false'),
        ("put", ("w", "q", "wait1", "K", "{}", 0, "tags", "false"), 'Put(): Arg "tags" not JSON'),
        ("put", (*PUT[1:], "{}", 0, "depends", "false"), 'Put(): Arg "depends" not JSON: false'),
        (
            "complete",
            ("run1", "wA", "other", "false"),
            'Complete(): Arg "data" missing or not JSON: false',
        ),
        ("log", ("wait1", "m", "false"), "Log(): Argument 'data' not cjson: false"),
        (
            "recur",
            ("q", "tmpl", "K", "false", "interval", 60, 0),
            'RecurringJob On(): Arg "data" not JSON: false',
        ),
        (
            "recur",
            ("q", "tmpl", "K", "{}", "interval", 60, 0, "tags", "false"),
            'Recur(): Arg "tags" must be JSON string array: false',
        ),
        ("recur.update", ("tmpl", "data", "false"), 'Recur(): Arg "data" is not JSON-encoded'),
        # odd option lists
        ("put", (*PUT[1:], "{}", 0, "priority"), "Odd number of additional args"),
        ("put", (*PUT[1:], "{}", 0, "priority", 1, "tags"), "Odd number of additional args"),
        ("requeue", ("w", "q", "wait1", "K", "{}", 0, "tags"), "Odd number of additional args"),
        (
            "recur",
            ("q", "tmpl", "K", "{}", "interval", 60, 0, "retries"),
            "Odd number of additional args",
        ),
        ("recur", ("q", "tmpl", "K", "{}", "interval", 60), 'Recur(): Arg "offset"'),
        ("recur.update", ("tmpl", "priority", 3, "retries"), "No value provided for retries"),
        ("recur.update", ("tmpl", "priority", 3, "bogus", 1), "Recur(): Unrecognized option"),
        # a 1 MB broken payload
        ("put", (*PUT[1:], '{"a":"' + "x" * MEGA, 0), json_error('Put(): Arg "data"')),
        (
            "complete",
            ("run1", "wA", "other", "[" * 10 + "x" * MEGA),
            json_error('Complete(): Arg "data"'),
        ),
        # loops that must validate every element before acting
        ("timeout", ("run1", "run2", "nope"), "Timeout(): Job nope does not exist"),
        ("timeout", ("run1", "wait1"), "Timeout(): Job wait1 not running"),
        (
            "cancel",
            ("wait1", "wait2"),
            "Cancel(): wait2 is a dependency of dep1 but is not mentioned to be canceled",
        ),
        # missing arguments
        ("put", (), "Queue(): no queue name provided"),
        ("put", ("w", "q", "j", "K", "{}"), 'Put(): Arg "delay" not a number'),
        (
            "complete",
            ("run1", "wA", "other"),
            ("decode", 'Complete(): Arg "data" missing or not JSON'),
        ),
        ("heartbeat", ("run1",), 'Heatbeat(): Arg "worker" missing'),
        ("fail", ("run1", "wA", "g"), 'Fail(): Arg "message" missing'),
        ("retry", ("run1", "other"), 'Retry(): Arg "worker" missing'),
        ("priority", ("wait1",), 'Priority(): Arg "priority" missing or not a number'),
        ("config.set", ("heartbeat",), 'config.set(): Arg "value" missing'),
        ("config.unset", (), 'config.unset(): Arg "option" missing'),
        ("stats", ("q",), 'Stats(): Arg "date" missing or not a number: nil'),
        ("recur.update", ("ghost", "priority", 1), "Recur(): No recurring job ghost"),
        ("tag", ("add",), 'Tag(): Arg "jid" missing'),
        ("track", ("track",), 'Track(): Arg "jid" missing'),
        ("jobs", (), 'Jobs(): Arg "state" missing'),
        ("get", (), "Job(): no jid provided"),
        ("length", (), "Queue(): no queue name provided"),
        ("peek", (), "Queue(): no queue name provided"),
        ("unfail", ("q",), 'Unfail(): Arg "group" missing'),
        ("recur.get", (), "Recurring(): no jid provided"),
        ("unrecur", (), "Recurring(): no jid provided"),
        ("recur.tag", ("ghost", "x"), "Tag(): Job ghost does not exist"),
        ("recur.untag", ("ghost", "x"), "Untag(): Job ghost does not exist"),
        ("depends", ("dep1",), 'Depends(): Arg "command" missing'),
        ("depends", ("dep1", "maybe", "wait1"), 'Depends(): Argument "command" must be'),
        ("log", ("ghost", "m"), "Log(): Job ghost does not exist"),
        ("tag", ("top", 0, "many"), 'Tag(): Arg "count" not a number: many'),
        ("track", ("follow", "wait1"), 'Track(): Unknown action "follow"'),
        ("pause", (), ("Wrong number of args", "wrong number of arguments")),
        ("worker.deregister", (), ("Wrong number of args", "wrong number of arguments")),
    ]
    out += flow_cases()
    return out


def flow_cases() -> list[Case]:
    """The extensions of issue 24: throttles, ordering keys, ttl, unique, qlpy.put_many."""
    out: list[Case] = []
    recur = ("q", "tmpl", "K", "{}", "interval", 60, 0)
    for v in ["nan", "inf", "abc", "", b"\xff\xfe"]:
        out += [
            ("put", (*PUT[1:], "{}", 0, "ttl", v), 'Put(): Arg "ttl" not a number'),
            ("recur", (*recur, "ttl", v), 'Recur(): Arg "ttl" not a number'),
            ("recur.update", ("tmpl", "ttl", v), 'Recur(): Arg "ttl" must be a number'),
            ("throttle.set", ("t", v), 'Throttle(): Arg "maximum" missing or not a number'),
            ("throttle.set", ("t", 1, v), 'Throttle(): Arg "expiration" not a number'),
            ("queue.throttle.set", ("q", v), 'Throttle(): Arg "maximum" missing or not a'),
        ]
    for v in [*BROKEN_JSON, '"t"', "5", "null", "[[1]]", '[{"a":1}]', "false"]:
        out += [
            ("put", (*PUT[1:], "{}", 0, "throttles", v), 'Put(): Arg "throttles" not JSON array'),
            (
                "requeue",
                ("w", "q", "wait1", "K", "{}", 0, "throttles", v),
                'Put(): Arg "throttles" not JSON array',
            ),
            ("recur", (*recur, "throttles", v), 'Recur(): Arg "throttles" not JSON array'),
            (
                "recur.update",
                ("tmpl", "priority", 1, "throttles", v),
                'Recur(): Arg "throttles" is not JSON-encoded',
            ),
        ]
    out += [
        ("put", (*PUT[1:], "{}", 0, "key", ""), 'Put(): Arg "key" is empty'),
        ("put", (*PUT[1:], "{}", 0, "ttl", 0), 'Put(): Arg "ttl" must be greater than 0'),
        ("put", (*PUT[1:], "{}", 0, "ttl", -1), 'Put(): Arg "ttl" must be greater than 0'),
        ("put", (*PUT[1:], "{}", 0, "unique", "true"), 'Put(): Arg "unique" must be 0 or 1'),
        (
            "put",
            ("w", "q", "wait1", "K", "{}", 0, "unique", 1, "ttl", "x"),
            'Put(): Arg "ttl" not a number',
        ),
        ("recur", (*recur, "key", ""), 'Recur(): Arg "key" is empty'),
        ("recur", (*recur, "ttl", 0), 'Recur(): Arg "ttl" must be greater than 0'),
        ("recur.update", ("tmpl", "key", "k", "ttl", -1), 'Recur(): Arg "ttl" must be a number'),
        ("throttle.set", ("t", -1), 'Throttle(): Arg "maximum" must not be negative'),
        ("throttle.set", (), "Throttle(): no tid provided"),
        ("throttle.get", (), "Throttle(): no tid provided"),
        ("throttle.delete", (), "Throttle(): no tid provided"),
        ("throttle.locks", (), "Throttle(): no tid provided"),
        ("throttle.pending", (), "Throttle(): no tid provided"),
        ("throttle.ttl", (), "Throttle(): no tid provided"),
        ("throttle.release", (), "Throttle(): no tid provided"),
        ("queue.throttle.get", (), "Queue(): no queue name provided"),
        ("queue.throttle.set", (), "Queue(): no queue name provided"),
        ("queue.throttle.set", ("q", -3), 'Throttle(): Arg "maximum" must not be negative'),
        ("jobs", ("throttle", "q"), 'Jobs(): Unknown type "throttle"'),
        ("qlpy.put_many", (), "Queue(): no queue name provided"),
        ("qlpy.put_many", ("w",), "Queue(): no queue name provided"),
        (
            "qlpy.put_many",
            ("w", "q", "n1", "K", "{}", 0, 0, "n2", "K", "{}", 0, 1, "ttl", "x"),
            'qlpy.put_many(): job 2: Put(): Arg "ttl" not a number: x',
        ),
        (
            "qlpy.put_many",
            ("w", "q", "wait1", "K", "{}", 0, 1, "priority", 9, "n2", "K", "{", 0, 0),
            "qlpy.put_many(): job 2: ",
        ),
        (
            "qlpy.put_many",
            ("w", "q", "n1", "K", "{}", 0, 0, "n2", "K", "{}"),
            "qlpy.put_many(): job 2: option count missing or not a whole number",
        ),
        (
            "qlpy.put_many",
            ("w", "q", "n1", "K", "{}", 0, 3, "priority", 1),
            "qlpy.put_many(): job 1: option count missing or not a whole number: 3",
        ),
    ]
    return out


CASES = cases()


def case_id(case: Case) -> str:
    command, args, _ = case
    text = " ".join(repr(a)[:12] for a in args)
    return f"{command} {text}"


def add_flow(core: Core, now: float = T0) -> None:
    """Jobs that use the extensions beside the populated keyspace: a full throttle with a
    running holder, an admitted and a pending job, an ordering key, a deadline."""
    core("throttle.set", now, "t", 1)
    core("queue.throttle.set", now, "fq", 5)
    core.put("th1", now, "fq", "throttles", '["t"]', "key", "k")
    core.put("th2", now + 0.1, "fq", "throttles", '["t"]', "key", "k", "ttl", 600)
    core.put("th3", now + 0.2, "fq", "throttles", '["t"]', "ttl", 600)
    assert [j["jid"] for j in core.pop("fq", "wF", 1, now=now + 0.5)] == ["th1"]
    core("recur", now, "fq", "ftmpl", "K", "{}", "interval", 60, 600, "throttles", '["t"]')


# The keyspace of `populate` and `add_flow`, dumped once per server kind: some 3,000 cases
# run on it, and building it takes a hundred core calls where restoring it takes one
# pipeline. Each case compares the keyspace before and after its own call.
_SNAPSHOTS: dict[str, list[tuple[bytes, int, bytes]]] = {}


@pytest.fixture
def flowing(core: Core, server_kind: str) -> Core:
    """The populated keyspace with add_flow's jobs beside it."""
    snapshot = _SNAPSHOTS.get(server_kind)
    if snapshot is None:
        populate(core)
        add_flow(core)
        keys = sorted(core.conn.scan_iter(count=1000))
        pipe = core.conn.pipeline(transaction=False)
        for k in keys:
            pipe.pttl(k)
            pipe.dump(k)
        replies = pipe.execute()
        _SNAPSHOTS[server_kind] = [(k, max(0, int(replies[2 * i])), replies[2 * i + 1])
                                   for i, k in enumerate(keys)]
    else:
        pipe = core.conn.pipeline(transaction=False)
        for k, ttl, payload in snapshot:
            pipe.restore(k, ttl, payload)
        pipe.execute()
    return core


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_malformed_call_is_rejected_without_writes(flowing: Core, case: Case) -> None:
    command, args, phrase = case
    flowing.rejects(phrase, command, T0 + 5, *args)  # type: ignore[arg-type]


@pytest.mark.parametrize("now", [*NON_FINITE, "", "x"])
@pytest.mark.parametrize("command", ["put", "pop", "heartbeat", "complete", "recur", "get"])
def test_bad_now_rejected_without_writes(flowing: Core, command: str, now: str) -> None:
    args = {
        "put": (*PUT[1:], "{}", 0),
        "pop": ("other", "w", 1),
        "heartbeat": ("run1", "wA"),
        "complete": ("run1", "wA", "other", "{}"),
        "recur": ("q", "r9", "K", "{}", "interval", 60, 0),
        "get": ("wait1",),
    }[command]
    flowing.rejects('Arg "now" missing or not a number: nil', command, now, *args)


def test_megabyte_payload_is_accepted(populated: Core) -> None:
    data = json.dumps({"blob": "y" * MEGA, "n": [1, 2, 3]})
    assert populated.put("big", T0, "q", data=data) == b"big"
    assert populated.job("big")["data"] == data
    [job] = [j for j in populated.pop("q", "wB", 5, now=T0 + 7) if j["jid"] == "big"]
    assert populated("complete", T0 + 8, "big", "wB", "q", data) == b"complete"
    assert populated.job("big")["data"] == data
    assert job["data"] == data


def test_megabyte_recur_data_accepted(populated: Core) -> None:
    data = json.dumps(["z" * MEGA])
    populated("recur", T0, "q", "bigr", "K", data, "interval", 60, 0)
    assert populated.json("recur.get", T0, "bigr")["data"] == data


def test_binary_names_round_trip(core: Core) -> None:
    jid, queue = b"j\x80\xff", b"q\xfe"
    assert core("put", T0, "", queue, jid, "K", "{}", 0) == jid
    raw = core("get", T0, jid)
    assert b'"jid":"j\x80\xff"' in raw and b'"queue":"q\xfe"' in raw
    assert core.conn.zrange(b"ql:q:q\xfe-work", 0, -1) == [jid]


def test_unicode_values_round_trip(core: Core) -> None:
    core.put("\u00e9t\u00e9", T0, "\u961f\u5217", "tags", '["\u2603"]', data='{"s":"\u00fc\u00df"}')
    job = core.job("\u00e9t\u00e9")
    assert job["queue"] == "\u961f\u5217" and job["tags"] == ["\u2603"]
    assert json.loads(job["data"]) == {"s": "\u00fc\u00df"}
    assert core.zset("ql:t:\u2603") == [("\u00e9t\u00e9", T0)]


@pytest.mark.parametrize("count", ["0x2", " 2 ", "2e0", "2.0"])
def test_lua_number_forms_accepted(core: Core, count: str) -> None:
    for i in range(3):
        core.put(f"j{i}", T0 + i)
    assert len(core.pop("q", "w", count, now=T0 + 5)) == 2  # type: ignore[arg-type]
