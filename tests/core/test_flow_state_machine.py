"""The state-machine test (hypothesis) for the extensions of docs/protocol.md: throttles,
ordering keys, expiring jobs and unique puts, beside the plain machine of
test_state_machine.py.

Random sequences of put (and qlpy.put_many) with throttles, keys, ttls, delays, unique and
dependencies, pop, complete (and advance), fail, retry, timeout, cancel, unfail, throttle
and queue-throttle changes, lock expiry and the passing of time run against the real
server. A small model remembers what only the caller knows (put order per key, who
cancelled what); after every step the keyspace must satisfy the invariants the extensions
promise:

* every job sits in exactly one place matching its state (`throttled`: its queue's
  -throttled set);
* a throttle never has more lock holders than its maximum (holders from before a lowered
  maximum excepted), and every holder is a running job that names it;
* a job in a work set is admitted by each of its throttles (-ready), a throttled job waits
  in the pending set of exactly one throttle, and that throttle is full;
* the jobs of an ordering key are its unfinished jobs in put order, and only the first may
  be waiting or running; a keyed job starts only when it is first;
* a job whose deadline passed is never started; jobs vanish only by cancel or expiry;
* a unique put of an unfinished job changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from tests.core.support import T0, Core, as_list, sm_examples
from tests.replies import bulk, text

JIDS = ["a", "b", "c", "d", "e", "f"]
QUEUES = ["q1", "q2"]
WORKERS = ["wA", "wB"]
THROTTLES = ["t1", "t2"]
KEYS = ["k1", "k2"]
FINISHED = ("complete", "failed")
THROTTLE_LISTS = st.sampled_from([[], ["t1"], ["t1"], ["t2"], ["t1", "t2"], ["t2", "t1"]])
PUT_KEY = st.sampled_from([None, None, "k1", "k2"])
TTL = st.sampled_from([None, None, 5, 40])
DELAY = st.sampled_from([0, 0, 0, 10])


@dataclass
class Model:
    """What the caller knows: the put order of each key, and the jobs it removed."""

    order: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    key_of: dict[str, tuple[str, str]] = field(default_factory=dict)
    cancelled: set[str] = field(default_factory=set)
    cap: dict[str, int] = field(default_factory=dict)
    slack: dict[str, int] = field(default_factory=dict)

    def leave(self, jid: str) -> None:
        where = self.key_of.pop(jid, None)
        if where is not None:
            self.order[where].remove(jid)

    def join(self, jid: str, queue: str, key: str | None) -> None:
        self.leave(jid)
        if key is not None:
            self.order.setdefault((queue, key), []).append(jid)
            self.key_of[jid] = (queue, key)


def make_machine(core: Core) -> type[RuleBasedStateMachine]:
    class FlowMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            core.conn.flushdb()
            self.now = T0
            self.model = Model()
            core("config.set", self.now, "grace-period", 0)

        # plumbing ----------------------------------------------------------------------------
        def tick(self) -> float:
            self.now = round(self.now + 0.001, 3)
            return self.now

        def jobs(self) -> dict[str, dict[str, Any]]:
            pipe = core.conn.pipeline(transaction=False)
            for jid in JIDS:
                pipe.hgetall(f"ql:j:{jid}")
            out = {}
            for jid, raw in zip(JIDS, pipe.execute(), strict=True):
                if raw:
                    out[jid] = {k.decode(): v.decode() for k, v in raw.items()}
            return out

        def deadlines(self) -> dict[str, float]:
            out: dict[str, float] = {}
            for q in QUEUES:
                out.update(core.zset(f"ql:q:{q}-expiring"))
            return out

        def running(self) -> list[str]:
            return sorted(j for j, h in self.jobs().items() if h["state"] == "running")

        def pick(self, index: int, states: tuple[str, ...] = ("running",)) -> str | None:
            found = sorted(j for j, h in self.jobs().items() if h["state"] in states)
            return found[index % len(found)] if found else None

        def step(self, command: str, *args: Any) -> Any:
            """Run a command; jobs that vanish in it must have expired (a job that became
            ready late, promoted after its delay, may expire in the call that arms it)."""
            before, due = self.jobs(), self.deadlines()
            now = self.tick()
            reply = core(command, now, *args)
            after = self.jobs()
            for jid in set(before) - set(after):
                if jid in self.model.cancelled:
                    continue
                assert "ttl" in before[jid], (command, jid)
                assert due.get(jid, now) <= now, (command, jid, due.get(jid), now)
                self.model.leave(jid)
            return reply

        # rules -------------------------------------------------------------------------------
        @initialize(maxima=st.lists(st.integers(1, 2), min_size=2, max_size=2))
        def seed(self, maxima: list[int]) -> None:
            for tid, maximum in zip(THROTTLES, maxima, strict=True):
                self.set_maximum(tid, maximum)

        def set_maximum(self, tid: str, maximum: int) -> None:
            held = core.conn.zcard(f"ql:th:{tid}-locks")
            self.step("throttle.set", tid, maximum)
            self.model.cap[tid] = maximum
            self.model.slack[tid] = held

        def put_args(self, jid: str, queue: str, throttles: list[str], key: str | None,
                     ttl: int | None, delay: int, depends: list[str], unique: bool) -> list[Any]:
            opts: list[Any] = []
            if throttles:
                opts += ["throttles", json.dumps(throttles)]
            if key is not None:
                opts += ["key", key]
            if ttl is not None:
                opts += ["ttl", ttl]
            depends = [d for d in depends if d != jid]
            if depends:
                opts += ["depends", json.dumps(depends)]
            if unique:
                opts += ["unique", 1]
            return [jid, "K", "{}", delay, *opts]

        def expect_put(self, jid: str, queue: str, key: str | None, unique: bool,
                       reply: Any, known: dict[str, dict[str, Any]]) -> None:
            if unique and jid in known and known[jid]["state"] != "complete":
                assert reply is None
                return
            assert reply == jid.encode()
            self.model.cancelled.discard(jid)
            self.model.join(jid, queue, key)

        @rule(jid=st.sampled_from(JIDS), queue=st.sampled_from(QUEUES), throttles=THROTTLE_LISTS,
              key=PUT_KEY, ttl=TTL, delay=DELAY, unique=st.booleans(),
              depends=st.lists(st.sampled_from(JIDS), max_size=1))
        def put(self, jid: str, queue: str, throttles: list[str], key: str | None,
                ttl: int | None, delay: int, unique: bool, depends: list[str]) -> None:
            known = self.jobs()
            args = self.put_args(jid, queue, throttles, key, ttl, delay, depends, unique)
            if unique and jid in known and known[jid]["state"] != "complete":
                before = core.digest()
                assert core("put", self.tick(), "", queue, *args) is None
                assert core.digest() == before
                return
            reply = self.step("put", "", queue, *args)
            self.expect_put(jid, queue, key, unique, reply, known)

        @rule(jid=st.sampled_from(JIDS), queue=st.sampled_from(QUEUES), key=PUT_KEY)
        def put_under_t1(self, jid: str, queue: str, key: str | None) -> None:
            self.put(jid, queue, ["t1"], key, None, 0, False, [])

        @rule(queue=st.sampled_from(QUEUES), jobs=st.lists(st.tuples(
            st.sampled_from(JIDS), THROTTLE_LISTS, PUT_KEY, TTL, DELAY, st.booleans()),
            min_size=1, max_size=3))
        def put_many(self, queue: str,
                     jobs: list[tuple[str, list[str], str | None, int | None, int, bool]]) -> None:
            args: list[Any] = []
            for jid, throttles, key, ttl, delay, unique in jobs:
                one = self.put_args(jid, queue, throttles, key, ttl, delay, [], unique)
                args += [*one[:4], (len(one) - 4) // 2, *one[4:]]
            known = self.jobs()
            reply = self.step("qlpy.put_many", "", queue, *args)
            for (jid, _, key, _, _, unique), got in zip(jobs, reply, strict=True):
                self.expect_put(jid, queue, key, unique, got, known)
                if got is not None:
                    known[jid] = {"state": "waiting"}

        @rule(queue=st.sampled_from(QUEUES), worker=st.sampled_from(WORKERS),
              count=st.integers(1, 3))
        def pop_more(self, queue: str, worker: str, count: int) -> None:
            self.pop(queue, worker, count)

        @rule(queue=st.sampled_from(QUEUES), worker=st.sampled_from(WORKERS),
              count=st.integers(1, 3))
        def pop(self, queue: str, worker: str, count: int) -> None:
            due, before = self.deadlines(), self.jobs()
            self.step("pop", queue, worker, count)
            for jid, job in self.jobs().items():
                if job["state"] != "running" or before.get(jid, {}).get("state") == "running":
                    continue
                # a job this pop started (not a reclaimed one): in time, and first of its key
                assert jid not in due or due[jid] > self.now, (jid, due[jid], self.now)
                where = self.model.key_of.get(jid)
                if where is not None:
                    assert self.model.order[where][0] == jid, (jid, self.model.order[where])

        @rule(index=st.integers(0, 5))
        def complete_plainly(self, index: int) -> None:
            self.complete(index, None)

        @rule(index=st.integers(0, 5), next_queue=st.sampled_from([None, None, "q1", "q2"]))
        def complete(self, index: int, next_queue: str | None) -> None:
            jid = self.pick(index)
            if jid is None:
                return
            job = self.jobs()[jid]
            extra = ["next", next_queue] if next_queue else []
            self.step("complete", jid, job["worker"], job["queue"], "{}", *extra)
            if next_queue and "key" in job:
                self.model.join(jid, next_queue, job["key"])
            else:
                self.model.leave(jid)

        @rule(index=st.integers(0, 5))
        def fail(self, index: int) -> None:
            jid = self.pick(index)
            if jid is None:
                return
            self.step("fail", jid, self.jobs()[jid]["worker"], "g", "m")
            self.model.leave(jid)

        @rule(index=st.integers(0, 5), delay=st.sampled_from([0, 0, 10]))
        def retry(self, index: int, delay: int) -> None:
            jid = self.pick(index)
            if jid is None:
                return
            job = self.jobs()[jid]
            left = self.step("retry", jid, job["queue"], job["worker"], delay)
            if left < 0:
                self.model.leave(jid)

        @rule(index=st.integers(0, 5))
        def timeout(self, index: int) -> None:
            jid = self.pick(index)
            if jid is not None:
                self.step("timeout", jid)

        @rule(jid=st.sampled_from(JIDS))
        def cancel(self, jid: str) -> None:
            job = self.jobs().get(jid)
            dependents = core.members(f"ql:j:{jid}-dependents") - {jid}
            if dependents:
                return
            self.model.cancelled.add(jid)
            self.step("cancel", jid)
            if job is not None and job["state"] != "complete":
                self.model.leave(jid)

        @rule(queue=st.sampled_from(QUEUES))
        def unfail(self, queue: str) -> None:
            group = as_list(core.json("failed", self.now, "g")["jobs"])
            jobs = self.jobs()
            self.step("unfail", queue, "g", 1)
            if group and "key" in jobs[group[-1]]:
                self.model.join(group[-1], queue, jobs[group[-1]]["key"])

        @rule(tid=st.sampled_from(THROTTLES), maximum=st.integers(0, 3))
        def throttle_set(self, tid: str, maximum: int) -> None:
            self.set_maximum(tid, maximum)

        @rule(tid=st.sampled_from(THROTTLES))
        def throttle_delete(self, tid: str) -> None:
            self.step("throttle.delete", tid)
            self.model.cap[tid] = 0

        @rule(queue=st.sampled_from(QUEUES), maximum=st.integers(0, 2))
        def queue_throttle(self, queue: str, maximum: int) -> None:
            self.step("queue.throttle.set", queue, maximum)

        @rule(queue=st.sampled_from(QUEUES))
        def counts(self, queue: str) -> None:
            counts = json.loads(self.step("queues", queue))
            throttled = core.conn.zcard(f"ql:q:{queue}-throttled")
            assert counts.get("throttled", 0) == throttled
            assert ("throttled" in counts) == (throttled > 0)

        @rule(seconds=st.sampled_from([1, 6, 41, 61]))
        def advance(self, seconds: int) -> None:
            self.now += seconds

        # checks ------------------------------------------------------------------------------
        @invariant()
        def jobs_sit_where_their_state_says(self) -> None:
            jobs = self.jobs()
            places: dict[str, list[str]] = {jid: [] for jid in jobs}
            for q in QUEUES:
                for suffix in ("work", "scheduled", "depends", "locks", "throttled"):
                    for jid, _ in core.zset(f"ql:q:{q}-{suffix}"):
                        assert jid in jobs, (suffix, jid)
                        places[jid].append(f"{suffix}:{q}")
            for raw in core.conn.zrange("ql:completed", 0, -1):
                places[text(raw)].append("completed")
            for group in core.conn.smembers("ql:failures"):
                for raw in core.conn.lrange(b"ql:f:" + bulk(group), 0, -1):
                    places[text(raw)].append("failed")
            expected = {
                "waiting": ("work", "scheduled"), "stalled": ("work",),
                "scheduled": ("scheduled",), "depends": ("depends",), "running": ("locks",),
                "throttled": ("throttled",), "failed": ("failed",), "complete": ("completed",),
            }
            for jid, job in jobs.items():
                assert len(places[jid]) == 1, (jid, job["state"], places[jid])
                kind, _, queue = places[jid][0].partition(":")
                assert kind in expected[job["state"]], (jid, job["state"], places[jid])
                if queue:
                    assert queue == job["queue"], (jid, places[jid])

        @invariant()
        def throttles_hold_their_promises(self) -> None:
            jobs = self.jobs()

            def named(jid: str) -> list[str]:
                job = jobs[jid]
                listed = json.loads(job.get("throttles", "[]"))
                return [t for t in listed if t != f"ql:q:{job['queue']}"]

            for tid in THROTTLES:
                holders = [text(j) for j in core.conn.zrange(f"ql:th:{tid}-locks", 0, -1)]
                admitted = [text(j) for j in core.conn.zrange(f"ql:th:{tid}-ready", 0, -1)]
                waiting = [text(j) for j in core.conn.zrange(f"ql:th:{tid}-pending", 0, -1)]
                cap = self.model.cap.get(tid, 0)
                self.model.slack[tid] = min(self.model.slack.get(tid, 0), len(holders))
                if cap:
                    assert len(holders) <= max(cap, self.model.slack[tid]), (tid, holders)
                for jid in holders:
                    assert jobs[jid]["state"] == "running" and tid in named(jid), (tid, jid)
                for jid in admitted:
                    assert jobs[jid]["state"] in ("waiting", "stalled"), (tid, jid)
                    assert tid in named(jid), (tid, jid)
                for jid in waiting:
                    assert jobs[jid]["state"] == "throttled" and tid in named(jid), (tid, jid)
                    assert cap and len(holders) + len(admitted) >= cap, (tid, jid, cap)
            for jid, job in jobs.items():
                own = named(jid)
                if job["state"] == "running":
                    for tid in own:
                        assert core.conn.zscore(f"ql:th:{tid}-locks", jid) is not None, jid
                if job["state"] in ("waiting", "stalled") and \
                        core.conn.zscore(f"ql:q:{job['queue']}-work", jid) is not None:
                    for tid in own:
                        assert core.conn.zscore(f"ql:th:{tid}-ready", jid) is not None, jid
                if job["state"] == "throttled":
                    pending = [t for t in own
                               if core.conn.zscore(f"ql:th:{t}-pending", jid) is not None]
                    where = self.model.key_of.get(jid)
                    blocked = where is not None and self.model.order[where][0] != jid
                    assert len(pending) == (0 if blocked else 1), (jid, pending, blocked)

        @invariant()
        def keys_keep_put_order(self) -> None:
            jobs = self.jobs()
            for q in QUEUES:
                for k in KEYS:
                    members = [j for j, _ in core.zset(f"ql:q:{q}-key:{k}")]
                    expected = self.model.order.get((q, k), [])
                    assert members == expected, (q, k, members, expected)
                    for i, jid in enumerate(members):
                        job = jobs[jid]
                        assert job["state"] not in FINISHED and job.get("key") == k, jid
                        if i > 0:
                            assert job["state"] in ("throttled", "scheduled", "depends"), jid

        @invariant()
        def deadlines_belong_to_waiting_jobs(self) -> None:
            jobs = self.jobs()
            for q in QUEUES:
                for jid, _ in core.zset(f"ql:q:{q}-expiring"):
                    job = jobs[jid]
                    assert "ttl" in job and job["queue"] == q, jid
                    assert job["state"] in ("waiting", "throttled", "stalled"), jid
            for jid, job in jobs.items():
                if "ttl" in job and job["state"] in ("waiting", "throttled", "stalled") and \
                        job["queue"] in QUEUES and (
                        core.conn.zscore(f"ql:q:{job['queue']}-scheduled", jid) is None):
                    assert core.conn.zscore(f"ql:q:{job['queue']}-expiring", jid) is not None, jid

    return FlowMachine


def test_random_flow_sequences_keep_the_invariants(core: Core, server_kind: str) -> None:
    machine = make_machine(core)
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=sm_examples(server_kind),
            stateful_step_count=30,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )
