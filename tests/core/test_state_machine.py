"""A hypothesis state machine: random command sequences against a plain-Python model.

The model mirrors the protocol's key layout (work/scheduled/depends/locks sets per queue,
failure lists, the completed set, worker job sets, dependency sets) so that after every step
the real keyspace can be compared with it exactly, and every job can be checked to sit in
exactly one structure that matches its ``state`` field. Lock expiry runs with
``grace-period 0`` so a single ``pop`` both notices and reclaims an expired lock.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import redis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from tests.core.support import T0, Core, sm_examples

JIDS = ["a", "b", "c", "d", "e"]
QUEUES = ["q1", "q2"]
WORKERS = ["wA", "wB"]
GROUPS = ["g1", "g2"]
TAGS = ["t1", "t2", "t3"]
HEARTBEAT = 60.0
INF = math.inf
OWN = st.sampled_from([True, True, True, False])
INDEX = st.integers(0, 4)
POP_QUEUE = st.sampled_from(["q1", "q1", "q2"])


@dataclass
class MJob:
    state: str
    queue: str
    worker: str
    priority: float
    retries: int
    remaining: int
    deps: set[str] = field(default_factory=set)
    dependents: set[str] = field(default_factory=set)
    sched_field: float | None = None
    group: str | None = None
    tags: list[str] = field(default_factory=list)
    history: list[list[Any]] = field(default_factory=list)


class Model:
    def __init__(self) -> None:
        self.jobs: dict[str, MJob] = {}
        self.work: dict[str, dict[str, float]] = {q: {} for q in QUEUES}
        self.sched: dict[str, dict[str, float]] = {q: {} for q in QUEUES}
        self.depq: dict[str, dict[str, float]] = {q: {} for q in QUEUES}
        self.locks: dict[str, dict[str, float]] = {q: {} for q in QUEUES}
        self.failed: dict[str, list[str]] = {}
        self.completed: dict[str, float] = {}
        self.wjobs: dict[str, dict[str, float]] = {w: {} for w in WORKERS}
        self.tagged: dict[str, dict[str, float]] = {t: {} for t in TAGS}
        self.counters: dict[str, float] = {}
        self.tracked: dict[str, float] = {}
        # per queue: failures, failed, retries counters and wait/run sample counts (one day bin)
        self.stats: dict[str, dict[str, int]] = {q: {} for q in QUEUES}

    def count(self, queue: str, name: str, by: int = 1) -> None:
        self.stats[queue][name] = self.stats[queue].get(name, 0) + by

    def hist(self, jid: str, now: float, what: str, extra: dict[str, str] | None = None) -> None:
        entry: list[Any] = [math.floor(now), what]
        if extra is not None:
            entry.append(extra)
        self.jobs[jid].history.append(entry)

    def tag(self, jid: str, tag: str, now: float) -> None:
        self.tagged[tag][jid] = now
        self.counters[tag] = self.counters.get(tag, 0) + 1

    def untag(self, jid: str, tag: str) -> None:
        self.tagged[tag].pop(jid, None)
        self.counters[tag] = self.counters.get(tag, 0) - 1

    # helpers -------------------------------------------------------------------------------
    def unindex(self, jid: str, queue: str) -> None:
        for table in (self.work, self.sched, self.depq, self.locks):
            if queue in table:
                table[queue].pop(jid, None)

    def enqueue(self, jid: str, now: float) -> None:
        job = self.jobs[jid]
        self.work[job.queue][jid] = job.priority - now / 1e10
        job.state = "waiting"

    def link(self, jid: str, dep: str) -> None:
        self.jobs[jid].deps.add(dep)
        self.jobs[dep].dependents.add(jid)

    def unlink(self, jid: str, dep: str) -> None:
        self.jobs[jid].deps.discard(dep)
        if dep in self.jobs:
            self.jobs[dep].dependents.discard(jid)

    def fail_into(self, jid: str, group: str) -> None:
        job = self.jobs[jid]
        job.state, job.worker, job.group = "failed", "", group
        self.failed.setdefault(group, []).insert(0, jid)

    def unfail_index(self, jid: str) -> None:
        job = self.jobs[jid]
        if job.state == "failed" and job.group is not None:
            self.failed[job.group].remove(jid)

    def linkable(self, dep: str) -> bool:
        return dep in self.jobs and self.jobs[dep].state != "complete"

    # commands ------------------------------------------------------------------------------
    def put(
        self,
        now: float,
        jid: str,
        queue: str,
        delay: float,
        priority: float,
        retries: int,
        depends: list[str],
        tags: list[str] | None = None,
    ) -> None:
        old = self.jobs.get(jid)
        if old is not None:
            for tag in old.tags:
                self.untag(jid, tag)
            if tags is None:
                tags = old.tags
            if depends:
                for dep in sorted(old.deps - set(depends)):
                    self.unlink(jid, dep)
            self.unindex(jid, old.queue)
            if old.worker:
                self.wjobs[old.worker].pop(jid, None)
            if old.state == "complete":
                self.completed.pop(jid, None)
            if old.state == "failed":
                self.count(queue, "failed", -1)
            self.unfail_index(jid)
            job = old
            job.queue, job.worker, job.priority = queue, "", priority
            job.retries = job.remaining = retries
        else:
            job = MJob("waiting", queue, "", priority, retries, retries)
            self.jobs[jid] = job
        job.tags = list(tags or [])
        for tag in job.tags:
            self.tag(jid, tag, now)
        self.hist(jid, now, "put", {"q": queue})
        for dep in depends:
            if self.linkable(dep):
                self.link(jid, dep)
        if delay > 0:
            if job.deps:
                self.depq[queue][jid] = now
                job.state, job.sched_field = "depends", now + delay
            else:
                self.sched[queue][jid] = now + delay
                job.state = "scheduled"
        elif job.deps:
            self.depq[queue][jid] = now
            job.state = "depends"
        else:
            self.enqueue(jid, now)

    def pop(self, now: float, queue: str, worker: str, count: int) -> list[str]:
        expires = now + HEARTBEAT
        handed: list[str] = []
        due = sorted((exp, jid) for jid, exp in self.locks[queue].items() if exp <= now)
        for _, jid in due[:count]:
            job = self.jobs[jid]
            if job.worker:
                self.wjobs[job.worker].pop(jid, None)
            job.remaining -= 1
            self.hist(jid, now, "timed-out")
            self.count(queue, "retries")
            if job.remaining >= 0:
                handed.append(jid)
            else:
                self.unindex(jid, queue)
                self.fail_into(jid, f"failed-retries-{queue}")
                self.hist(jid, now, "failed", {"group": f"failed-retries-{queue}"})
                self.count(queue, "failures")
                self.count(queue, "failed")
        limit = count - len(handed)
        if limit > 0:
            ready = sorted((s, jid) for jid, s in self.sched[queue].items() if s <= now)
            for _, jid in ready[:limit]:
                del self.sched[queue][jid]
                self.enqueue(jid, now)
            ranked = sorted(self.work[queue].items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[
                :limit
            ]
            for jid, _ in ranked:
                del self.work[queue][jid]
                handed.append(jid)
        for jid in handed:
            job = self.jobs[jid]
            job.state, job.worker = "running", worker
            self.hist(jid, now, "popped", {"worker": worker})
            self.count(queue, "wait")
            self.wjobs[worker][jid] = expires
            self.locks[queue][jid] = expires
        return handed

    def release_dependents(self, jid: str, now: float) -> None:
        for dep_jid in sorted(self.jobs[jid].dependents):
            dep = self.jobs[dep_jid]
            dep.deps.discard(jid)
            if not dep.deps:
                self.depq[dep.queue].pop(dep_jid, None)
                if dep.sched_field is not None:
                    self.sched[dep.queue][dep_jid] = dep.sched_field
                    dep.state, dep.sched_field = "scheduled", None
                else:
                    self.enqueue(dep_jid, now)
        self.jobs[jid].dependents = set()


def error_for_owned(model: Model, name: str, jid: str, worker: str) -> str | None:
    """Expected error phrase of heartbeat/complete/fail/retry, or None when it succeeds."""
    job = model.jobs.get(jid)
    missing = {
        "heartbeat": f"Heartbeat(): Job {jid} does not exist",
        "complete": f"Complete(): Job {jid} does not exist",
        "fail": f"Fail(): Job {jid}does not exist",
        "retry": f"Retry(): Job {jid} does not exist",
    }
    if job is None:
        return missing[name]
    if job.state != "running":
        return {
            "heartbeat": f"Heartbeat(): Job {jid} not currently running: {job.state}",
            "complete": f"Complete(): Job {jid} is not currently running: {job.state}",
            "fail": f"Fail(): Job {jid}not currently running: {job.state}",
            "retry": f"Retry(): Job {jid} is not currently running: {job.state}",
        }[name]
    if job.worker != worker:
        return {
            "heartbeat": f"Heartbeat(): Job {jid} given out to another worker: ",
            "complete": f"Complete(): Job {jid} has been handed out to another worker: ",
            "fail": f"Fail(): Job {jid} running with another worker: ",
            "retry": f"Retry(): Job {jid} has been given to another worker: ",
        }[name]
    return None


def make_machine(core: Core) -> type[RuleBasedStateMachine]:
    class QlessMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            core.conn.flushdb()
            self.now = T0
            self.model = Model()
            core("config.set", self.now, "grace-period", 0)

        # plumbing ----------------------------------------------------------------------------
        def tick(self) -> str:
            self.now = round(self.now + 0.001, 3)
            return repr(self.now)

        def expect(self, phrase: str | None, command: str, *args: Any) -> Any:
            now = self.tick()
            if phrase is None:
                return core(command, now, *args)
            try:
                core(command, now, *args)
            except redis.ResponseError as exc:
                assert phrase in str(exc), (phrase, str(exc))
                return None
            raise AssertionError(f"{command} {args} should fail with {phrase!r}")

        def pick(self, jid: str, index: int, states: tuple[str, ...] = ("running",)) -> str:
            """Mostly a job in one of ``states`` (when any), so success paths get exercised."""
            candidates = sorted(j for j, job in self.model.jobs.items() if job.state in states)
            if index == 0 or not candidates:
                return jid
            return candidates[index % len(candidates)]

        def worker_for(self, jid: str, own: bool) -> str:
            job = self.model.jobs.get(jid)
            if own and job is not None and job.worker:
                return job.worker
            return "wX" if own else "wB" if job is not None and job.worker == "wA" else "wA"

        # rules -------------------------------------------------------------------------------
        @initialize(
            queues=st.lists(POP_QUEUE, min_size=len(JIDS), max_size=len(JIDS)),
            retries=st.lists(st.sampled_from([0, 1, 2]), min_size=len(JIDS), max_size=len(JIDS)),
        )
        def seed(self, queues: list[str], retries: list[int]) -> None:
            for jid, queue, budget in zip(JIDS[:3], queues, retries, strict=False):
                self.put(jid, queue, 0, 0, budget, [])

        @rule(
            jid=st.sampled_from(JIDS),
            queue=st.sampled_from(QUEUES),
            delay=st.sampled_from([0, 0, 0, 5, 30]),
            priority=st.sampled_from([0, 0, 1, -1]),
            retries=st.sampled_from([0, 1, 2]),
            depends=st.lists(st.sampled_from(JIDS), max_size=2, unique=True),
            tags=st.one_of(st.none(), st.lists(st.sampled_from(TAGS), max_size=2, unique=True)),
        )
        def put(
            self,
            jid: str,
            queue: str,
            delay: int,
            priority: int,
            retries: int,
            depends: list[str],
            tags: list[str] | None = None,
        ) -> None:
            depends = [d for d in depends if d != jid]
            now = self.tick()
            opts: list[Any] = ["priority", priority, "retries", retries]
            if depends:
                opts += ["depends", json.dumps(depends)]
            if tags is not None:
                opts += ["tags", json.dumps(tags)]
            assert core("put", now, "", queue, jid, "K", "{}", delay, *opts) == jid.encode()
            self.model.put(float(now), jid, queue, delay, priority, retries, depends, tags)

        @rule(jid=st.sampled_from(JIDS), queue=st.sampled_from(QUEUES))
        def put_plain(self, jid: str, queue: str) -> None:
            self.put(jid, queue, 0, 0, 2, [])

        @rule(queue=POP_QUEUE, worker=st.sampled_from(WORKERS), count=st.integers(1, 3))
        def pop_more(self, queue: str, worker: str, count: int) -> None:
            self.pop(queue, worker, count)

        @rule(queue=POP_QUEUE, worker=st.sampled_from(WORKERS), count=st.integers(1, 3))
        def pop(self, queue: str, worker: str, count: int) -> None:
            now = self.tick()
            reply = core.json("pop", now, queue, worker, count)
            got = [] if reply == {} else [j["jid"] for j in reply]
            expected = self.model.pop(float(now), queue, worker, count)
            assert got == expected

        @rule(jid=st.sampled_from(JIDS), index=INDEX, own=OWN)
        def heartbeat(self, jid: str, own: bool, index: int) -> None:
            jid = self.pick(jid, index)
            worker = self.worker_for(jid, own)
            phrase = error_for_owned(self.model, "heartbeat", jid, worker)
            reply = self.expect(phrase, "heartbeat", jid, worker)
            if phrase is None:
                job = self.model.jobs[jid]
                expires = self.now + HEARTBEAT
                assert reply == int(expires)
                self.model.wjobs[worker][jid] = expires
                self.model.locks[job.queue][jid] = expires

        @rule(
            jid=st.sampled_from(JIDS),
            index=INDEX,
            own=OWN,
            next_queue=st.sampled_from([None, None, "q1", "q2"]),
            delay=st.sampled_from([0, 0, 20]),
            depends=st.one_of(st.none(), st.lists(st.sampled_from(JIDS), max_size=2, unique=True)),
        )
        def complete(
            self,
            jid: str,
            own: bool,
            index: int,
            next_queue: str | None,
            delay: int,
            depends: list[str] | None,
        ) -> None:
            jid = self.pick(jid, index)
            worker = self.worker_for(jid, own)
            phrase = error_for_owned(self.model, "complete", jid, worker)
            job = self.model.jobs.get(jid)
            queue = job.queue if job is not None and job.queue else "q1"
            extra: list[Any] = []
            if next_queue:
                extra = ["next", next_queue]
                if delay:
                    extra += ["delay", delay]
                if depends is not None:
                    depends = [d for d in depends if d != jid]
                    extra += ["depends", "[" + ",".join(f'"{d}"' for d in depends) + "]"]
            reply = self.expect(phrase, "complete", jid, worker, queue, "{}", *extra)
            if phrase is None:
                assert job is not None
                m = self.model
                m.unindex(jid, queue)
                m.wjobs[worker].pop(jid, None)
                job.worker, job.remaining = "", job.retries
                m.hist(jid, self.now, "done")
                m.count(queue, "run")
                if next_queue:
                    m.hist(jid, self.now, "put", {"q": next_queue})
                    job.queue = next_queue
                    if delay > 0 and not depends:
                        assert reply == b"scheduled"
                        m.sched[next_queue][jid] = self.now + delay
                        job.state = "waiting"  # quirk 4: the hash says waiting
                        return
                    for dep in depends or []:
                        if m.linkable(dep):
                            m.link(jid, dep)
                    if job.deps:
                        assert reply == b"depends"
                        m.depq[next_queue][jid] = self.now
                        job.state = "depends"
                        if delay > 0:
                            job.sched_field = self.now + delay
                    else:
                        assert reply == b"waiting"
                        m.enqueue(jid, self.now)
                else:
                    assert reply == b"complete"
                    job.state, job.queue = "complete", ""
                    m.completed[jid] = self.now
                    m.release_dependents(jid, self.now)

        @rule(jid=st.sampled_from(JIDS), index=INDEX, priority=st.sampled_from([-1, 0, 2, 1.5]))
        def priority(self, jid: str, index: int, priority: float) -> None:
            jid = self.pick(jid, index, ("waiting", "stalled"))
            m = self.model
            job = m.jobs.get(jid)
            phrase = None if job is not None else f"Priority(): Job {jid} does not exist"
            reply = self.expect(phrase, "priority", jid, priority)
            if phrase is None and job is not None:
                assert reply == int(priority)
                job.priority = priority
                if job.queue in m.work and jid in m.work[job.queue]:
                    m.work[job.queue][jid] = float(priority)

        @rule(jid=st.sampled_from(JIDS), index=INDEX, own=OWN, group=st.sampled_from(GROUPS))
        def fail(self, jid: str, own: bool, index: int, group: str) -> None:
            jid = self.pick(jid, index)
            worker = self.worker_for(jid, own)
            phrase = error_for_owned(self.model, "fail", jid, worker)
            reply = self.expect(phrase, "fail", jid, worker, group, "msg")
            if phrase is None:
                assert reply == jid.encode()
                job = self.model.jobs[jid]
                self.model.wjobs[worker].pop(jid, None)
                self.model.unindex(jid, job.queue)
                self.model.fail_into(jid, group)
                self.model.hist(jid, self.now, "failed", {"worker": worker, "group": group})
                self.model.count(job.queue, "failures")
                self.model.count(job.queue, "failed")

        @rule(jid=st.sampled_from(JIDS), index=INDEX, own=OWN, delay=st.sampled_from([0, 0, 10]))
        def retry(self, jid: str, own: bool, index: int, delay: int) -> None:
            jid = self.pick(jid, index)
            worker = self.worker_for(jid, own)
            phrase = error_for_owned(self.model, "retry", jid, worker)
            job = self.model.jobs.get(jid)
            queue = job.queue if job is not None and job.queue else "q1"
            reply = self.expect(phrase, "retry", jid, queue, worker, delay)
            if phrase is None:
                assert job is not None
                m = self.model
                job.remaining -= 1
                assert reply == job.remaining
                m.locks[queue].pop(jid, None)
                m.wjobs[worker].pop(jid, None)
                if job.remaining < 0:
                    m.fail_into(jid, f"failed-retries-{queue}")
                    m.hist(jid, self.now, "failed", {"group": f"failed-retries-{queue}"})
                    m.count(queue, "failures")
                    m.count(queue, "failed")
                elif delay > 0:
                    m.sched[queue][jid] = self.now + delay
                    job.state = "scheduled"
                else:
                    m.enqueue(jid, self.now)

        @rule(jid=st.sampled_from(JIDS))
        def cancel(self, jid: str) -> None:
            m = self.model
            job = m.jobs.get(jid)
            blockers = sorted(job.dependents - {jid}) if job is not None else []
            phrase = f"Cancel(): {jid} is a dependency of " if blockers else None
            reply = self.expect(phrase, "cancel", jid)
            if phrase is not None:
                return
            assert reply == [jid.encode()]
            if job is None or job.state == "complete":
                return
            if job.worker:
                m.wjobs[job.worker].pop(jid, None)
            m.unindex(jid, job.queue)
            for dep in list(job.deps):
                m.unlink(jid, dep)
            for tag in job.tags:
                m.untag(jid, tag)
            if job.state == "failed":
                m.count(job.queue, "failed", -1)
            m.unfail_index(jid)
            del m.jobs[jid]

        @rule(
            jid=st.sampled_from(JIDS),
            index=st.integers(0, 4),
            on=st.booleans(),
            others=st.lists(st.sampled_from([*JIDS, "all"]), min_size=1, max_size=2, unique=True),
        )
        def depends(self, jid: str, index: int, on: bool, others: list[str]) -> None:
            jid = self.pick(jid, index, ("depends",))
            m = self.model
            job = m.jobs.get(jid)
            others = [t for t in others if t != jid]
            if not others or (on and "all" in others) or ("all" in others and len(others) > 1):
                return
            state = job.state if job is not None else "false"
            phrase = (
                None
                if state == "depends"
                else f"Depends(): Job {jid} not in the depends state: {state}"
            )
            reply = self.expect(phrase, "depends", jid, "on" if on else "off", *others)
            if phrase is not None:
                return
            assert reply == 1 and job is not None
            if on:
                for t in others:
                    if m.linkable(t):
                        m.link(jid, t)
                return
            for t in sorted(job.deps) if others == ["all"] else others:
                m.unlink(jid, t)
            if not job.deps:
                m.depq[job.queue].pop(jid, None)
                m.enqueue(jid, self.now)

        @rule(
            queue=st.sampled_from(QUEUES),
            group=st.sampled_from([*GROUPS, "failed-retries-q1", "failed-retries-q2"]),
            count=st.integers(1, 3),
        )
        def unfail(self, queue: str, group: str, count: int) -> None:
            m = self.model
            reply = self.expect(None, "unfail", queue, group, count)
            members = m.failed.get(group, [])
            moved = members[-count:]
            assert reply == len(moved)
            m.failed[group] = members[: len(members) - len(moved)]
            for jid in moved:
                job = m.jobs[jid]
                job.worker, job.queue, job.remaining, job.group = "", queue, job.retries, None
                m.hist(jid, self.now, "put", {"q": queue})
                m.enqueue(jid, self.now)

        @rule(jid=st.sampled_from(JIDS), index=st.integers(0, 4))
        def timeout(self, jid: str, index: int) -> None:
            jid = self.pick(jid, index)
            m = self.model
            job = m.jobs.get(jid)
            phrase = None
            if job is None:
                phrase = f"Timeout(): Job {jid} does not exist"
            elif job.state != "running":
                phrase = f"Timeout(): Job {jid} not running"
            assert self.expect(phrase, "timeout", jid) is None
            if phrase is None and job is not None:
                m.locks[job.queue].pop(jid, None)
                m.work[job.queue][jid] = INF
                job.state = "stalled"
                m.hist(jid, self.now, "timed-out")

        @rule(
            jid=st.sampled_from(JIDS),
            add=st.booleans(),
            tags=st.lists(st.sampled_from(TAGS), min_size=1, max_size=2, unique=True),
        )
        def tag(self, jid: str, add: bool, tags: list[str]) -> None:
            m = self.model
            job = m.jobs.get(jid)
            phrase = None if job is not None else f"Tag(): Job {jid} does not exist"
            reply = self.expect(phrase, "tag", "add" if add else "remove", jid, *tags)
            if phrase is not None or job is None:
                return
            for tag in tags:
                if add:
                    if tag not in job.tags:
                        job.tags.append(tag)
                    m.tag(jid, tag, self.now)
                else:
                    job.tags = [t for t in job.tags if t != tag]
                    m.untag(jid, tag)
            assert reply == (
                json.dumps(job.tags, separators=(",", ":")).encode() if job.tags else b"{}"
            )

        @rule(jid=st.sampled_from(JIDS), track=st.booleans())
        def track(self, jid: str, track: bool) -> None:
            m = self.model
            phrase = None if jid in m.jobs else "Track(): Job does not exist"
            reply = self.expect(phrase, "track", "track" if track else "untrack", jid)
            if phrase is not None:
                return
            assert reply == (b"0" if (jid in m.tracked) == track else b"1")
            if track:
                m.tracked[jid] = self.now
            else:
                m.tracked.pop(jid, None)

        @rule(seconds=st.sampled_from([1, 5, 31, 61, 100]))
        def advance(self, seconds: int) -> None:
            self.now += seconds

        @rule(queue=POP_QUEUE, worker=st.sampled_from(WORKERS), count=st.integers(1, 3))
        def pop_after_expiry(self, queue: str, worker: str, count: int) -> None:
            self.now += HEARTBEAT + 1
            self.pop(queue, worker, count)

        # checks ------------------------------------------------------------------------------
        @invariant()
        def keyspace_matches_model(self) -> None:
            m = self.model
            pipe = core.conn.pipeline(transaction=False)
            for jid in JIDS:
                pipe.hmget(f"ql:j:{jid}", "state", "queue", "worker", "remaining", "tags")
                pipe.smembers(f"ql:j:{jid}-dependencies")
                pipe.smembers(f"ql:j:{jid}-dependents")
                pipe.lrange(f"ql:j:{jid}-history", 0, -1)
            for q in QUEUES:
                for suffix in ("work", "scheduled", "depends", "locks"):
                    pipe.zrange(f"ql:q:{q}-{suffix}", 0, -1, withscores=True)
            for w in WORKERS:
                pipe.zrange(f"ql:w:{w}:jobs", 0, -1, withscores=True)
            pipe.zrange("ql:completed", 0, -1, withscores=True)
            for tag in TAGS:
                pipe.zrange(f"ql:t:{tag}", 0, -1, withscores=True)
            pipe.zrange("ql:tags", 0, -1, withscores=True)
            pipe.zrange("ql:tracked", 0, -1, withscores=True)
            pipe.smembers("ql:failures")
            pipe.keys("ql:f:*")
            replies = iter(pipe.execute())

            def zs(value: list[tuple[bytes, float]]) -> dict[str, float]:
                return {k.decode(): s for k, s in value}

            def ss(value: set[bytes]) -> set[str]:
                return {v.decode() for v in value}

            states: dict[str, str] = {}
            for jid in JIDS:
                state, queue, worker, remaining, tags = next(replies)
                deps, dependents = ss(next(replies)), ss(next(replies))
                history = [json.loads(entry) for entry in next(replies)]
                job = m.jobs.get(jid)
                if job is None:
                    assert state is None, f"{jid} should not exist"
                    assert not deps and not dependents and not history
                    continue
                states[jid] = state.decode()
                got = (state.decode(), queue.decode(), worker.decode(), float(remaining))
                assert got == (job.state, job.queue, job.worker, job.remaining), jid
                assert (deps, dependents) == (job.deps, job.dependents), jid
                assert (json.loads(tags) or []) == job.tags, jid
                assert history == job.history, jid
            where: dict[str, list[str]] = {jid: [] for jid in states}
            for q in QUEUES:
                for suffix, table in (
                    ("work", m.work),
                    ("scheduled", m.sched),
                    ("depends", m.depq),
                    ("locks", m.locks),
                ):
                    got_set = zs(next(replies))
                    assert got_set == table[q], f"ql:q:{q}-{suffix}"
                    for jid in got_set:
                        where.setdefault(jid, []).append(f"{suffix}:{q}")
            for w in WORKERS:
                assert zs(next(replies)) == m.wjobs[w], f"ql:w:{w}:jobs"
            completed = zs(next(replies))
            assert completed == m.completed
            for jid in completed:
                where.setdefault(jid, []).append("completed")
            for tag in TAGS:
                assert zs(next(replies)) == m.tagged[tag], f"ql:t:{tag}"
            assert zs(next(replies)) == m.counters, "ql:tags"
            assert zs(next(replies)) == m.tracked, "ql:tracked"
            groups = ss(next(replies))
            assert groups == {g for g, jids in m.failed.items() if jids}
            lists = sorted(k.decode() for k in next(replies))
            assert lists == sorted(f"ql:f:{g}" for g in groups)
            pipe = core.conn.pipeline(transaction=False)
            for g in sorted(groups):
                pipe.lrange(f"ql:f:{g}", 0, -1)
            for g, members in zip(sorted(groups), pipe.execute(), strict=True):
                assert [x.decode() for x in members] == m.failed[g], g
                for jid in members:
                    where.setdefault(jid.decode(), []).append("failed")
            # every job sits in exactly one structure, matching its state field (quirk 4: a
            # job advanced with a delay says "waiting" while it sits in the scheduled set)
            expected_place = {
                "waiting": ("work", "scheduled"),
                "stalled": ("work",),
                "scheduled": ("scheduled",),
                "depends": ("depends",),
                "running": ("locks",),
                "failed": ("failed",),
                "complete": ("completed",),
            }
            for jid, state in states.items():
                places = where.get(jid, [])
                assert len(places) == 1, (jid, state, places)
                kind = places[0].split(":")[0]
                assert kind in expected_place[state], (jid, state, places)
                if kind in ("work", "scheduled", "depends", "locks"):
                    assert places[0] == f"{kind}:{m.jobs[jid].queue}", (jid, places)
            assert set(where) <= set(states), where

        @invariant()
        def stats_match(self) -> None:
            day = int(T0 // 86400 * 86400)
            pipe = core.conn.pipeline(transaction=False)
            for q in QUEUES:
                pipe.hgetall(f"ql:s:stats:{day}:{q}")
                pipe.hget(f"ql:s:wait:{day}:{q}", "total")
                pipe.hget(f"ql:s:run:{day}:{q}", "total")
            replies = iter(pipe.execute())
            for q in QUEUES:
                counters = {k.decode(): int(v) for k, v in next(replies).items()}
                totals = {"wait": next(replies), "run": next(replies)}
                got = {k: v for k, v in counters.items() if v or k in self.model.stats[q]}
                got.update({k: int(float(v)) for k, v in totals.items() if v is not None})
                expected = dict(self.model.stats[q])
                assert got == expected, q

        @invariant()
        def lengths_match(self) -> None:
            for q in QUEUES:
                expected = (
                    len(self.model.work[q]) + len(self.model.sched[q]) + len(self.model.locks[q])
                )
                assert core("length", repr(self.now), q) == expected

    return QlessMachine


def test_random_command_sequences_match_model(core: Core, server_kind: str) -> None:
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
