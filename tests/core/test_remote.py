"""Dependencies and hand-offs across namespaces at the core (lua/remote.lua,
docs/protocol.md "Across namespaces"), in the default namespace, on every server leg:
remote members in put, complete, cancel and depends; qlpy.remote and qlpy.outbox; and
that applying a message twice changes nothing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import redis

from tests.core.support import Core

OTHER = "ql:{b}:"  # another namespace's prefix; its keys are never touched here
T = 1_000_000


class Text:
    """``core`` with its replies as text (lists of texts)."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def __call__(self, command: str, now: object, *args: object) -> Any:
        return _text(self.core(command, now, *args))  # type: ignore[arg-type]

    def job(self, jid: str) -> dict[str, Any]:
        return self.core.job(jid)

    def digest(self) -> Any:
        return self.core.digest()


def _text(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [_text(item) for item in value]
    return value


@pytest.fixture
def text(core: Core) -> Text:
    return Text(core)


def member(prefix: str, jid: str) -> str:
    return "\x01" + json.dumps({"p": prefix, "jid": jid})


def taken(core: Text, now: float = T) -> list[dict[str, object]]:
    return [json.loads(m) for m in core("qlpy.outbox", now, "take", 30, 100)]


def test_a_job_waits_for_a_remote_dependency_until_its_release(text: Text) -> None:
    core = text
    core("put", T, "w", "q", "B", "k", "{}", 0, "depends", json.dumps([member(OTHER, "A")]))
    assert core.job("B")["state"] == "depends"
    assert core.job("B")["dependencies"] == [member(OTHER, "A")]
    assert core("qlpy.remote", T, "release", "B", OTHER, "other") == "already"
    assert core("qlpy.remote", T, "release", "B", OTHER, "A") == "released"
    assert core.job("B")["state"] == "waiting"
    assert core("qlpy.remote", T, "release", "B", OTHER, "A") == "already"  # idempotent


def test_a_completed_job_sends_a_release_to_each_remote_dependent(text: Text) -> None:
    core = text
    core("put", T, "w", "q", "A", "k", "{}", 0)
    assert core("qlpy.remote", T, "depend", "A", member(OTHER, "B")) == "pending"
    assert core("qlpy.remote", T, "depend", "nope", member(OTHER, "B")) == "missing"
    core("pop", T, "q", "w", 1)
    assert core("complete", T, "A", "w", "q", "{}") == "complete"
    assert core("qlpy.remote", T, "depend", "A", member(OTHER, "C")) == "complete"
    [message] = taken(core)
    assert {k: message[k] for k in ("op", "p", "jid", "dep", "from")} == \
        {"op": "release", "p": OTHER, "jid": "B", "dep": "A", "from": "ql:"}
    assert core("qlpy.outbox", T, "length") == 1  # taken, not yet acknowledged
    assert taken(core, T + 1) == []  # leased: nobody else takes it
    assert taken(core, T + 31) == [message]  # the lease ran out: taken again
    assert core("qlpy.outbox", T, "ack", *core("qlpy.outbox", T + 62, "take", 30, 10)) == 1
    assert core("qlpy.outbox", T, "length") == 0


def test_a_release_before_the_job_is_kept_and_honoured_by_its_put(text: Text) -> None:
    core = text
    assert core("qlpy.remote", T, "release", "B", OTHER, "A") == "early"
    core("put", T, "w", "q", "B", "k", "{}", 0, "depends", json.dumps([member(OTHER, "A")]))
    assert core.job("B")["state"] == "waiting"


def test_releases_in_one_call(text: Text) -> None:
    core = text
    for jid in ("B", "C"):
        core("put", T, "w", "q", jid, "k", "{}", 0, "depends",
             json.dumps([member(OTHER, "A1"), member(OTHER, "A2")]))
    assert core("qlpy.remote", T, "releases", "B", OTHER, "A1", "C", OTHER, "A1", "B", OTHER,
                "A2", "D", OTHER, "A1") == ["waiting", "waiting", "released", "early"]
    assert core.job("B")["state"] == "waiting" and core.job("C")["state"] == "depends"


def test_cancelling_a_remote_dependent_tells_its_dependency(text: Text) -> None:
    core = text
    core("put", T, "w", "q", "B", "k", "{}", 0, "depends", json.dumps([member(OTHER, "A")]))
    core("cancel", T, "B")
    [message] = taken(core)
    assert {k: message[k] for k in ("op", "p", "jid", "dependent")} == \
        {"op": "forget", "p": OTHER, "jid": "A", "dependent": "B"}
    core("put", T, "w", "q", "A", "k", "{}", 0)
    core("qlpy.remote", T, "depend", "A", member(OTHER, "B"))
    with pytest.raises(redis.ResponseError,
                       match=r"A is a dependency of B in namespace ql:\{b\}:, which must"):
        core("cancel", T, "A")
    assert core("qlpy.remote", T, "forget", "A", OTHER, "B") == 1
    assert core("qlpy.remote", T, "forget", "A", OTHER, "B") == 0
    assert core("cancel", T, "A") == ["A"]


def test_a_hand_off_is_put_once(text: Text) -> None:
    core = text
    core("put", T, "w", "q", "A", "k", '{"n":1}', 0, "priority", 3, "tags", '["t"]')
    core("pop", T, "q", "w", 1)
    assert core("complete", T, "A", "w", "q", '{"n":2}', "next", "q2", "namespace",
                OTHER) == "complete"
    assert core.job("A")["state"] == "complete"
    [m] = taken(core)
    assert (m["op"], m["p"], m["jid"], m["queue"], m["klass"], m["data"], m["priority"],
            m["tags"]) == ("put", OTHER, "A", "q2", "k", '{"n":2}', "3", '["t"]')
    # applied here as if this were namespace b: a put, then nothing the second time
    args = [m["id"], "", "q2", "X", "k", m["data"], 0, "priority", m["priority"]]
    assert core("qlpy.remote", T, "put", *args) == "X"
    assert core("qlpy.remote", T, "put", *args) == "already"
    assert core.job("X")["queue"] == "q2" and core.job("X")["priority"] == 3


@pytest.mark.parametrize(("args", "phrase"), [
    (("qlpy.remote",), 'Remote(): Arg "action" missing'),
    (("qlpy.remote", "depend"), 'Remote(): Arg "jid" missing'),
    (("qlpy.remote", "depend", "A"), 'Remote(): Arg "member" missing'),
    (("qlpy.remote", "depend", "A", "B"), 'Arg "member" is not a remote member'),
    (("qlpy.remote", "release", "A", OTHER), 'Remote(): Arg "dep" missing'),
    (("qlpy.remote", "forget", "A", OTHER), 'Remote(): Arg "dependent" missing'),
    (("qlpy.remote", "releases", "A", OTHER), '"releases" takes <jid> <prefix> <dep>'),
    (("qlpy.remote", "shout", "A", OTHER, "x"), 'Remote(): unknown action "shout"'),
    (("qlpy.remote", "put"), 'Remote(): Arg "id" missing'),
    (("qlpy.remote", "put", "i", "", "q", "J", "k", "nope", 0), "Expected value"),  # cjson's
    (("qlpy.outbox", "take", "x", 1), 'Outbox(): Arg "lease" not a number'),
    (("qlpy.outbox", "take", 1, 0), 'Outbox(): Arg "count" not a number'),
    (("qlpy.outbox", "shout"), 'Outbox(): unknown action "shout"'),
    (("complete", "A", "w", "q", "{}", "namespace", OTHER), '"namespace" cannot be used'),
    (("complete", "A", "w", "q", "{}", "next", "q2", "namespace", "b"),
     'Arg "namespace" is not a namespace prefix: b'),
])
def test_bad_arguments_are_refused_and_change_nothing(text: Text, args: tuple[object, ...],
                                                      phrase: str) -> None:
    core = text
    core("put", T, "w", "q", "A", "k", "{}", 0)
    core("pop", T, "q", "w", 1)
    before = core.digest()
    command, *rest = args
    with pytest.raises(redis.ResponseError, match=re.escape(phrase)):
        core(str(command), T, *rest)
    assert core.digest() == before
