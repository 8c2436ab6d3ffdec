"""Sharded namespaces from the client's side (qless_py.shards, qless_py.client.sharded):
where jobs go, how they come back, what is refused before anything is written. The cluster
side (shards spread over masters, workers over every shard) is in
tests/connections/test_sharded_cluster.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
import redis
from freezegun import freeze_time

from qless_py import Client, QlessError, ShardedClient
from qless_py.client.relay import member
from qless_py.connect.cluster import SLOTS, key_slot
from qless_py.keys import SHARDS_MAX, namespace_prefix
from qless_py.shards import (
    SHARDED_NAME_MAX,
    Shards,
    ShardsMismatch,
    jid_on,
    key_shard,
    shard_names,
    shard_of,
    throttle_shard,
)
from tests.client.conftest import T0


@pytest.fixture
def sharded(server_url: str) -> Iterator[ShardedClient]:
    client = ShardedClient(server_url, namespace="billing", shards=4, worker_name="w")
    yield client
    client.close()


def _keys(conn: redis.Redis) -> set[str]:
    return {k.decode() if isinstance(k, bytes) else k for k in conn.keys("*")}


def test_shard_names_land_in_equal_stretches_of_the_slots() -> None:
    for count in (2, 3, 6, 8, SHARDS_MAX):
        names = shard_names("billing", count)
        assert len(set(names)) == count
        stretch = SLOTS / count
        for i, name in enumerate(names):
            assert name.startswith(f"billing#{i}.")
            slot = key_slot(namespace_prefix(name))
            assert abs(slot - (i + 0.5) * stretch) <= stretch / 4
    assert shard_names("billing", 1) == ("billing",)
    # 6 shards on 3 masters holding equal runs of slots: 2 on each
    masters = Counter(key_slot(namespace_prefix(n)) * 3 // SLOTS
                      for n in shard_names("billing", 6))
    assert sorted(masters.values()) == [2, 2, 2]


def test_a_jid_names_its_shard_and_made_jids_land_where_asked() -> None:
    for shard in range(8):
        jid = jid_on(shard, 8)
        assert len(jid) == 32 and int(jid, 16) >= 0
        assert shard_of(jid, 8) == shard
    spread = Counter(shard_of(f"job-{n}", 4) for n in range(4000))
    assert min(spread.values()) > 900  # user jids spread evenly too


def test_placement_follows_jid_then_key_then_dependencies_then_turns() -> None:
    shards = Shards("billing", 4)
    assert shards.place(jid="given")[0] == shard_of("given", 4)
    shard, jid = shards.place(key="account-7")
    assert shard == key_shard("account-7", 4) == shard_of(jid, 4)
    dep = jid_on(2, 4)
    assert shards.place(depends=[dep])[0] == 2
    turns = Counter(shards.place()[0] for _ in range(400))
    assert set(turns.values()) == {100}


@pytest.mark.parametrize(("place", "phrase"), [
    (lambda s: s.place(jid=jid_on((key_shard("k", 4) + 1) % 4, 4), key="k"),
     "a job lives on one shard"),
    (lambda s: s.place(jid=jid_on(0, 4), key=next(
        k for k in (f"k{n}" for n in range(100)) if key_shard(k, 4) != 0)),
     "a job lives on one shard"),
])
def test_a_job_that_cannot_live_on_one_shard_is_refused(place, phrase: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=phrase) as info:
        place(Shards("billing", 4))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("kwargs", "phrase"), [
    ({"namespace": "billing", "shards": 0}, "invalid shard count 0"),
    ({"namespace": "billing", "shards": SHARDS_MAX + 1}, "invalid shard count"),
    ({"namespace": "x" * (SHARDED_NAME_MAX + 1), "shards": 2}, "sharded namespace's name"),
    ({"namespace": "a{b", "shards": 2}, "invalid namespace"),
    ({"shards": 2}, "default namespace cannot be sharded"),
])
def test_bad_shard_settings_are_refused_in_one_line(server_url: str, kwargs: dict,  # type: ignore[type-arg]
                                                     phrase: str,
                                                     redis_conn: redis.Redis) -> None:
    with pytest.raises(ValueError, match=phrase) as info:
        ShardedClient(server_url, **kwargs)
    assert "\n" not in str(info.value)
    assert _keys(redis_conn) == set()


def test_a_client_given_shards_is_a_sharded_client(server_url: str) -> None:
    sep = "&" if "?" in server_url else "?"
    for made in (Client(server_url, namespace="billing", shards=4),
                 Client(f"{server_url}{sep}namespace=billing&shards=4")):
        assert isinstance(made, ShardedClient) and made.shards.count == 4
        made.close()
    plain = Client(server_url, namespace="billing", shards=1)
    assert type(plain) is Client
    plain.close()
    with pytest.raises(ValueError, match="default namespace cannot be sharded"):
        Client(f"{server_url}{sep}shards=4")
    with pytest.raises(ValueError, match="invalid value for 'shards'"):
        Client(f"{server_url}{sep}namespace=billing&shards=many")


def test_jobs_are_spread_found_popped_and_completed_on_their_shards(
        sharded: ShardedClient, redis_conn: redis.Redis) -> None:
    queue = sharded.queues["q"]
    jids = [queue.put("a.Job", {"n": n}) for n in range(8)]
    assert Counter(sharded.shards.of(jid) for jid in jids) == {0: 2, 1: 2, 2: 2, 3: 2}
    for jid in jids:  # each job's keys are in its shard's namespace
        shard = sharded.shards.names[sharded.shards.of(jid)]
        assert redis_conn.exists(f"ql:{{{shard}}}:j:{jid}")
    assert queue.counts["waiting"] == len(queue) == 8
    assert [c["waiting"] for c in sharded.queues.counts] == [8]
    assert sharded.queues.names() == ["q"]
    assert [job.jid for job in sharded.jobs.get(*reversed(jids), "nope")] == jids[::-1]
    job = sharded.jobs[jids[3]]
    assert job is not None and job.data == {"n": 3}
    popped = queue.pop(8)
    assert sorted(j.jid for j in popped) == sorted(jids)
    for each in popped:
        assert each.client is sharded.client_of(each.jid)
        each.complete()
    assert queue.counts["waiting"] == queue.counts["running"] == 0
    assert sharded.jobs[jids[0]].state == "complete"  # type: ignore[union-attr]


def test_pop_takes_from_every_shard_in_turn(sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    only = jid_on(2, 4)
    queue.put("a.Job", {}, jid=only)
    # the one job is found whichever shard the turn starts at
    assert queue.pop() is not None and queue.pop() is None
    for n in range(4):
        queue.put("a.Job", {}, jid=jid_on(n, 4))
    shards = [sharded.shards.of(queue.pop().jid) for _ in range(4)]  # type: ignore[union-attr]
    assert sorted(shards) == [0, 1, 2, 3]


def test_an_ordering_key_keeps_its_jobs_on_one_shard_and_in_order(
        sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    keyed = [queue.put("a.Job", {"n": n}, key="account-7") for n in range(4)]
    assert {sharded.shards.of(jid) for jid in keyed} == {key_shard("account-7", 4)}
    for n in range(8):
        queue.put("a.Job", {"other": n})
    order = []
    while True:
        jobs = queue.pop(20)
        if not jobs:
            break
        for job in jobs:
            if job.jid in keyed:
                order.append(job.jid)
            job.complete()
    assert order == keyed


def test_a_dependent_goes_beside_its_dependencies(sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    first = queue.put("a.Job", {})
    second = queue.put("a.Job", {}, depends=[first])
    assert sharded.shards.of(second) == sharded.shards.of(first)
    assert sharded.jobs[second].state == "depends"  # type: ignore[union-attr]
    queue.pop().complete()  # type: ignore[union-attr]
    assert sharded.jobs[second].state == "waiting"  # type: ignore[union-attr]


def test_a_dependent_on_other_shards_waits_until_the_relay_releases_it(
        sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    first, second = (queue.put("a.Job", {}, jid=jid_on(n, 4)) for n in (0, 1))
    third = queue.put("a.Job", {}, depends=[first, second, jid_on(2, 4)])  # one is missing
    assert sharded.shards.of(third) in (0, 1)
    assert sharded.jobs[third].state == "depends"  # type: ignore[union-attr]
    with pytest.raises(QlessError, match=f"is a dependency of {third} in namespace"):
        sharded.jobs.cancel(first if sharded.shards.of(third) != 0 else second)
    for job in queue.pop(2):
        job.complete()
    # one dependency is on the dependent's shard, released at once; the other's release
    # waits in its shard's outbox until a relay applies it, once
    assert sharded.jobs[third].state == "depends"  # type: ignore[union-attr]
    assert sharded.relay() == 1
    assert sharded.jobs[third].state == "waiting"  # type: ignore[union-attr]
    assert sharded.relay() == 0
    assert sharded.check().findings == []


def test_a_cancelled_dependent_lets_its_remote_dependency_go(sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    first = queue.put("a.Job", {}, jid=jid_on(0, 4))
    waits = queue.put("a.Job", {}, jid=jid_on(1, 4), depends=[first])
    with pytest.raises(QlessError, match="which must be canceled first"):
        sharded.jobs.cancel(first)
    sharded.jobs.cancel(waits)
    assert sharded.relay() == 1  # the dependency forgets its dependent
    assert sharded.jobs.cancel(first) == [first]
    assert sharded.jobs[first] is None
    assert sharded.check().findings == []


def test_put_many_places_each_job_and_keeps_the_order_of_jids(
        sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    given = jid_on(1, 4)
    jids = queue.put_many([("a.Job", {"n": n}) for n in range(10)]
                          + [{"klass": "a.Job", "data": {}, "jid": given}])
    assert len(jids) == 11 and jids[-1] == given
    assert len(set(sharded.shards.of(j) for j in jids[:10])) == 4
    assert len(queue) == 11
    with pytest.raises(ValueError, match="unknown field"):
        queue.put_many([{"klass": "a.Job", "data": {}, "colour": "red"}])
    assert len(queue) == 11


def test_the_count_is_recorded_once_and_a_client_that_disagrees_writes_nothing(
        server_url: str, sharded: ShardedClient, redis_conn: redis.Redis) -> None:
    sharded.queues["q"].put("a.Job", {})
    assert redis_conn.get("ql:{billing}:shards") == b"4"
    before = _keys(redis_conn)
    other = ShardedClient(server_url, namespace="billing", shards=8)
    try:
        with pytest.raises(ShardsMismatch, match=r"has 4 shards \(recorded in "
                           r"ql:\{billing\}:shards\), not 8"):
            other.queues["q"].put("a.Job", {})
    finally:
        other.close()
    assert _keys(redis_conn) == before
    # the URL's shards= is the same setting
    sep = "&" if "?" in server_url else "?"
    again = ShardedClient(f"{server_url}{sep}namespace=billing&shards=4")
    try:
        again.queues["q"].put("a.Job", {})
        assert len(again.queues["q"]) == 2
    finally:
        again.close()


def test_check_knows_the_record(sharded: ShardedClient, server_url: str) -> None:
    sharded.queues["q"].put("a.Job", {})
    base = Client(server_url, namespace="billing")
    try:
        report = base.check()
        assert report.findings == []
    finally:
        base.close()


def _one_per_shard(client: ShardedClient, queue: str = "q") -> list[str]:
    jids = [jid_on(n, client.shards.count) for n in range(client.shards.count)]
    for jid in jids:
        client.queues[queue].put("a.Job", {}, jid=jid)
    return jids


def test_listings_merge_every_shard_in_time_order(sharded: ShardedClient) -> None:
    with freeze_time(T0) as frozen:
        jids = [jid_on(n, 4) for n in (2, 0, 3, 1)]
        for jid in jids:
            frozen.tick(1)
            sharded.queues["q"].put("a.Job", {}, jid=jid, tags=["blue"])
            sharded.track(jid)
        # tagged: oldest first, over the shards, paged
        assert sharded.jobs.tagged("blue", 0, 10) == {"total": 4, "jobs": jids}
        assert sharded.jobs.tagged("blue", 1, 2)["jobs"] == jids[1:3]
        assert {job.jid for job in sharded.jobs.tracked()["jobs"]} == set(jids)
        assert set(sharded.queues["q"].jobs.waiting(0, 10)) == set(jids)
        assert sharded.queues["q"].jobs.waiting(1, 2) == \
            sharded.queues["q"].jobs.waiting(0, 10)[1:3]
        # completed: most recent first; failed: most recent failure first
        done, broken = jids[::2], jids[1::2]
        for _ in jids:
            frozen.tick(1)
            job = sharded.queues["q"].pop()
            assert job is not None
            if job.jid in done:
                job.complete()
            else:
                job.fail("boom", "it broke")
        finish = {jid: n for n, jid in enumerate(
            j.jid for j in sorted(sharded.jobs.get(*jids), key=lambda j: j.history[-1]["when"]))}
        assert sharded.jobs.complete(0, 10) == sorted(done, key=lambda j: -finish[j])
        assert sharded.jobs.failed() == {"boom": 2}
        page = sharded.jobs.failed("boom", 0, 10)
        assert page["total"] == 2
        assert [job.jid for job in page["jobs"]] == sorted(broken, key=lambda j: -finish[j])
        assert [job.jid for job in sharded.jobs.failed("boom", 1, 1)["jobs"]] == \
            [page["jobs"][1].jid]
        assert sharded.workers.counts == [{"name": "w", "jobs": 0, "stalled": 0}]
        result = sharded.jobs.retry_group("boom")
        assert (result.done, result.refused) == (2, 0)
        assert sharded.jobs.failed() == {}


def test_workers_config_pause_and_stats_are_the_namespace_s(sharded: ShardedClient) -> None:
    jids = _one_per_shard(sharded)
    popped = sharded.queues["q"].pop(4)
    assert len(popped) == 4
    assert sharded.workers.counts == [{"name": "w", "jobs": 4, "stalled": 0}]
    assert sorted(sharded.workers["w"]["jobs"]) == sorted(jids)
    sharded.config["heartbeat"] = 90
    assert [client.config["heartbeat"] for client in sharded.clients] == [90] * 4
    assert sharded.config["heartbeat"] == 90
    sharded.queues["p"].pause()
    assert sharded.queues["p"].paused
    _one_per_shard(sharded, "p")
    assert sharded.queues["p"].pop() is None
    sharded.queues["p"].unpause()
    assert sharded.queues["p"].pop() is not None
    for job in popped:
        job.complete()
    stats = sharded.queues["q"].stats()
    assert stats.wait.count == 4 and stats.run.count == 4
    assert sharded.queues.stats(["q"])["q"].run.count == 4


def test_a_named_throttle_lives_on_one_shard_and_holds_over_the_namespace(
        sharded: ShardedClient) -> None:
    sharded.throttles["api"].maximum = 2
    queue = sharded.queues["q"]
    jids = [queue.put("a.Job", {}, throttles=["api"]) for _ in range(6)]
    assert {sharded.shards.of(jid) for jid in jids} == {sharded.shards.throttle_shard("api")}
    assert len(queue.pop(10)) == 2
    with pytest.raises(ValueError, match="a job lives on one shard"):
        sharded.queues["q"].put("a.Job", {}, throttles=["api"],
                                key=next(k for k in (f"k{n}" for n in range(100))
                                         if key_shard(k, 4) != throttle_shard("api", 4)))


def test_unique_puts_stay_unique_over_the_shards(sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    assert queue.put("a.Job", {}, jid="order-1", unique=True) == "order-1"
    assert queue.put("a.Job", {}, jid="order-1", unique=True) is None
    assert len(queue) == 1


def test_a_failed_or_missing_remote_dependency_behaves_as_within_a_namespace(
        sharded: ShardedClient) -> None:
    queue = sharded.queues["q"]
    breaks = queue.put("a.Job", {}, jid=jid_on(0, 4))
    waits = queue.put("a.Job", {}, jid=jid_on(1, 4), depends=[breaks, jid_on(2, 4)])
    assert sharded.jobs[waits].dependencies == [  # type: ignore[union-attr]
        member(sharded.clients[0].keys.prefix, breaks)]  # the missing one is not waited for
    job = queue.pop()
    assert job is not None and job.jid == breaks
    job.fail("boom", "it broke")
    assert sharded.relay() == 0  # a failure tells nobody: the dependent keeps waiting
    assert sharded.jobs[waits].state == "depends"  # type: ignore[union-attr]
    sharded.jobs.retry_group("boom")
    queue.pop().complete()  # type: ignore[union-attr]
    assert sharded.relay() == 1
    assert sharded.jobs[waits].state == "waiting"  # type: ignore[union-attr]


def test_throttles_given_as_an_iterator_reach_the_job(sharded: ShardedClient) -> None:
    jid = sharded.queues["q"].put("a.Job", {}, throttles=iter(["api"]))
    job = sharded.jobs[jid]
    assert job is not None and "api" in job.throttles
    assert sharded.shards.of(jid) == sharded.shards.throttle_shard("api")
