"""Each invariant, broken the way the world breaks it (a DEL or an HSET by hand, a key
evicted, a stale entry a foreign client left): the check reports exactly that damage, and
after ``repair=True`` the database passes the check and its jobs all run to completion."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import redis

from tests.check.support import Db, Seen


@dataclass
class Damage:
    name: str
    do: Callable[[redis.Redis], object]
    found: Seen


J = "ql:j:"
DAMAGES = [
    Damage("a waiting job's hash deleted", lambda r: r.delete(J + "a2"), {
        ("member-without-job", "ql:q:q-work", "a2"), ("history-orphan", J + "a2-history", ""),
        ("tag-stale", "ql:t:t1", "a2"), ("tag-stale", "ql:t:t2", "a2")}),
    Damage("a running job's lock deleted", lambda r: r.zrem("ql:q:r-locks", "r1"), {
        ("not-in-state-set", J + "r1", "ql:q:r-locks")}),
    Damage("a running job's worker cleared", lambda r: r.hset(J + "r1", "worker", ""), {
        ("running-without-worker", J + "r1", "ql:q:r-locks")}),
    Damage("a lock rescored", lambda r: r.zadd("ql:q:r-locks", {"r1": 5}), {
        ("lock-mismatch", J + "r1", "ql:q:r-locks")}),
    Damage("a worker's job set deleted", lambda r: r.delete("ql:w:w1:jobs"), {
        ("worker-set-missing", J + "r1", "ql:w:w1:jobs"),
        ("worker-set-missing", J + "t1", "ql:w:w1:jobs")}),
    Damage("a waiting job set running by hand", lambda r: r.hset(J + "a1", "state", "running"),
           {("running-without-worker", J + "a1", "ql:q:q-locks"),
            ("in-other-set", J + "a1", "ql:q:q-work")}),
    Damage("a dependency deleted", lambda r: r.delete(J + "a1", J + "a1-history"), {
        ("dependency-gone", J + "d1", "a1"), ("member-without-job", "ql:q:q-work", "a1"),
        ("tag-stale", "ql:t:t1", "a1")}),
    Damage("a dependents set deleted", lambda r: r.delete(J + "a1-dependents"), {
        ("dependency-one-sided", J + "d1", "a1")}),
    Damage("a dependency set left on a waiting job", lambda r: r.sadd(J + "a2-dependencies",
                                                                      "a1"), {
        ("dependencies-not-depends", J + "a2", J + "a2-dependencies")}),
    Damage("a dependencies set deleted", lambda r: r.delete(J + "d1-dependencies"), {
        ("depends-without-dependency", J + "d1", ""),
        ("dependent-stale", J + "a1-dependents", "d1")}),
    Damage("a queue forgotten", lambda r: r.zrem("ql:queues", "kq"), {
        ("queue-unlisted", J + "k1", "kq"), ("queue-unlisted", J + "k2", "kq")}),
    Damage("a tag index deleted", lambda r: r.delete("ql:t:t2"), {
        ("tag-unindexed", J + "a2", "t2")}),
    Damage("a throttle's locks deleted", lambda r: r.delete("ql:th:T-locks"), {
        ("throttle-lock-missing", J + "t1", "T")}),
    Damage("a foreign lock in a throttle", lambda r: r.zadd("ql:th:T-locks", {"ghost": 1}), {
        ("throttle-stale", "ql:th:T-locks", "ghost")}),
    Damage("a failure group's list deleted", lambda r: r.delete("ql:f:g"), {
        ("not-in-state-set", J + "f1", "ql:f:g"), ("failure-group-empty", "ql:failures", "g")}),
    Damage("the completed set emptied", lambda r: r.delete("ql:completed"), {
        ("not-in-state-set", J + "c1", "ql:completed")}),
    Damage("an ordering key's set deleted", lambda r: r.delete("ql:q:kq-key:K"), {
        ("order-missing", J + "k1", "K"), ("order-missing", J + "k2", "K")}),
    Damage("a scheduled job's set evicted", lambda r: r.delete("ql:q:q-scheduled"), {
        ("not-in-state-set", J + "s1", "ql:q:q-scheduled")}),
    Damage("a throttled job's set evicted", lambda r: r.delete("ql:q:tq-throttled"), {
        ("not-in-state-set", J + "t2", "ql:q:tq-throttled")}),
    Damage("a stalled job's work entry deleted", lambda r: r.zrem("ql:q:sq-work", "x1"), {
        ("not-in-state-set", J + "x1", "ql:q:sq-work")}),
    Damage("a stale deadline", lambda r: r.zadd("ql:q:eq-expiring", {"a1": 1}), {
        ("expiring-stale", "ql:q:eq-expiring", "a1")}),
    Damage("a deadline deleted", lambda r: r.zrem("ql:q:eq-expiring", "e1"), {
        ("expiring-missing", J + "e1", "ql:q:eq-expiring")}),
    Damage("a failed job listed twice", lambda r: r.rpush("ql:f:g", "f1", "f1"), {
        ("failure-duplicate", "ql:f:g", "f1")}),
    Damage("a template's schedule deleted", lambda r: r.delete("ql:q:rq-recur"), {
        ("recur-unlisted", "ql:r:rt", "ql:q:rq-recur")}),
    Damage("a job of another queue listed", lambda r: r.zadd("ql:q:kq-work", {"a1": 0}), {
        ("member-of-other-queue", "ql:q:kq-work", "a1")}),
]


@pytest.mark.parametrize("damage", DAMAGES, ids=[d.name for d in DAMAGES])
def test_the_check_reports_exactly_the_damage_and_repair_mends_it(db: Db,
                                                                  damage: Damage) -> None:
    db.build()
    damage.do(db.conn)
    assert db.findings() == damage.found
    report = db.client.check(repair=True)
    # one repair may mend several findings (a queue put back into ql:queues)
    assert 1 <= report.repaired <= len(damage.found)
    assert db.findings() == set()
    db.finish()
    assert db.findings() == set()


def test_keys_no_invariant_explains_are_reported_and_left_alone(db: Db) -> None:
    db.build()
    db.conn.set("ql:mystery", "x")
    db.conn.hset("ql:r:bad", "jid", "bad")
    db.conn.lpush("ql:j:zz-dependents", "odd")  # a list where a set belongs
    assert db.findings() == {("unknown-key", "ql:mystery", ""),
                             ("recur-malformed", "ql:r:bad", ""),
                             ("unknown-key", "ql:j:zz-dependents", "")}
    report = db.client.check(repair=True)
    assert report.repaired == 0
    assert db.conn.get("ql:mystery") == b"x"
    assert len(db.findings()) == 3


def test_a_repair_is_logged_in_the_jobs_history_and_is_idempotent(db: Db) -> None:
    db.build()
    db.conn.zrem("ql:q:r-locks", "r1")
    (finding,) = db.client.check().findings
    assert finding.jid == "r1" and "reclaims" in finding.repair
    assert db.client.core.send(("qlpy.repair", (finding.key, finding.invariant,
                                                 finding.member), int)) == 1
    assert db.client.core.send(("qlpy.repair", (finding.key, finding.invariant,
                                                 finding.member), int)) == 0
    history = db.client.jobs["r1"].history  # type: ignore[union-attr]
    assert history[-1]["what"] == "repaired"
    assert history[-1]["invariant"] == "not-in-state-set"


def test_keys_evicted_under_allkeys_lru_are_found_and_repaired(db: Db) -> None:
    for i in range(300):
        db.put("q", f"j{i}", "tags", '["t"]')
    db.conn.config_set("maxmemory-policy", "allkeys-lru")
    used = int(db.conn.info("memory")["used_memory"])
    try:
        db.conn.config_set("maxmemory", used + 200_000)
        # filler that pushes the server past its limit until some job keys went (the server
        # samples keys to evict, and may take the filler first: write more until it has)
        for i in range(5000):
            db.conn.set(f"filler:{i}", "x" * 2000)
            if i % 100 == 99 and sum(1 for _ in db.conn.scan_iter("ql:j:*")) < 600:
                break
    finally:
        db.conn.config_set("maxmemory", 0)
        db.conn.config_set("maxmemory-policy", "noeviction")
    db.conn.delete(*db.conn.keys("filler:*"))
    assert sum(1 for _ in db.conn.scan_iter("ql:j:*")) < 600, "nothing was evicted"
    assert db.findings()
    db.client.check(repair=True)
    assert db.findings() == set()
    db.finish()


def test_a_job_that_started_may_wait_with_a_ttl_and_no_deadline(db: Db) -> None:
    """Pop reclaims a job whose lock ran out without a deadline (it had started); when its
    throttle is taken meanwhile it waits, and is let in so: not a finding."""
    db("config.set", "grace-period", 0)
    db("throttle.set", "U", 1)
    db.put("uq", "h1", "ttl", 1000, "throttles", '["U"]')
    assert db.pop("uq") == ["h1"]
    db.put("uq", "h2", "throttles", '["U"]')
    for later in (100, 200, 300):  # h1's lock runs out, h2 takes the throttle, and so on
        db("pop", "uq", "w2", 1, now=db.now + later)
    assert db.state("h1") == "waiting"
    assert db.conn.zscore("ql:q:uq-expiring", "h1") is None
    assert db.findings() == set()
    db.put("uq", "h3", "ttl", 1000)  # and one that never started is reported
    db.conn.zrem("ql:q:uq-expiring", "h3")
    assert db.findings() == {("expiring-missing", J + "h3", "ql:q:uq-expiring")}
    assert db.client.check(repair=True).repaired == 1
    deadline = db.conn.zscore("ql:q:uq-expiring", "h3")
    assert deadline is not None and deadline > db.now + 999
