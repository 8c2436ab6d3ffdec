"""Queue: put, pop, peek, batch, recur, counts, settings and listings."""

from __future__ import annotations

import pytest
import redis
from freezegun import freeze_time

from qless_py import Client, CoreError, Job
from tests.client.conftest import T0
from tests.client.jobs import Noop

NOOP = "tests.client.jobs.Noop"


def test_put_then_pop_returns_the_job_leased_to_the_worker(client: Client) -> None:
    queue = client.queues["q"]
    jid = queue.put(Noop, {"a": 1}, jid="j1")
    assert jid == "j1"
    job = queue.pop()
    assert isinstance(job, Job)
    assert (job.jid, job.klass_name, job.state, job.worker_name) == (
        "j1", NOOP, "running", "worker")
    assert job.data == {"a": 1} and job.queue_name == "q"
    assert queue.pop() is None


def test_put_generates_hex_jids(client: Client) -> None:
    jid = client.queues["q"].put(NOOP, {})
    assert len(jid) == 32 and int(jid, 16) >= 0


def test_pop_with_count_returns_a_list(client: Client) -> None:
    queue = client.queues["q"]
    assert queue.pop(5) == []
    for i in range(3):
        queue.put(NOOP, {}, jid=f"j{i}")
    jobs = queue.pop(10)
    assert [j.jid for j in jobs] == ["j0", "j1", "j2"]


def test_pop_as_another_worker(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="a")
    job = queue.pop(worker="w7")
    assert job is not None and job.worker_name == "w7"
    job.complete()  # acts as the popping worker, not the client's name
    assert client.jobs["a"].state == "complete"  # type: ignore[union-attr]


def test_priority_orders_pops(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="low", priority=-1)
    queue.put(NOOP, {}, jid="mid")
    queue.put(NOOP, {}, jid="high", priority=5)
    assert [j.jid for j in queue.pop(3)] == ["high", "mid", "low"]


def test_peek_does_not_lease(client: Client) -> None:
    queue = client.queues["q"]
    assert queue.peek() is None and queue.peek(3) == []
    queue.put(NOOP, {}, jid="a")
    queue.put(NOOP, {}, jid="b")
    peeked = queue.peek()
    assert peeked is not None and peeked.jid == "a" and peeked.state == "waiting"
    assert len(queue.peek(10)) == 2
    assert queue.counts["waiting"] == 2


def test_delayed_job_is_invisible_until_due(client: Client) -> None:
    queue = client.queues["q"]
    with freeze_time(T0) as frozen:
        queue.put(NOOP, {}, jid="a", delay=30)
        assert queue.pop() is None
        assert queue.jobs.scheduled() == ["a"]
        frozen.tick(31)
        job = queue.pop()
        assert job is not None and job.jid == "a"


def test_counts_and_len(client: Client) -> None:
    queue = client.queues["q"]
    assert client.queues.counts == []
    queue.put(NOOP, {}, jid="a")
    queue.put(NOOP, {}, jid="b", delay=100)
    queue.put(NOOP, {}, jid="c", depends=["a"])
    queue.pop()
    expected = {"name": "q", "waiting": 0, "stalled": 0, "running": 1, "scheduled": 1,
                "depends": 1, "recurring": 0, "paused": False}
    assert queue.counts == expected
    assert client.queues.counts == [expected]
    assert len(queue) == 2  # running + scheduled; depending jobs are not counted


def test_pause_and_unpause(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="a")
    queue.pause()
    assert queue.paused and queue.counts["paused"] is True
    assert queue.pop() is None
    queue.unpause()
    assert not queue.paused
    assert queue.pop() is not None


def test_heartbeat_setting(client: Client) -> None:
    queue = client.queues["q"]
    assert queue.heartbeat == 60
    client.config["heartbeat"] = 30
    assert queue.heartbeat == 30
    queue.heartbeat = 10
    assert queue.heartbeat == 10 and client.config["q-heartbeat"] == 10
    with freeze_time(T0):
        queue.put(NOOP, {}, jid="a")
        job = queue.pop()
        assert job is not None and job.ttl == pytest.approx(10, abs=1)
    with pytest.raises(ValueError):
        queue.heartbeat = 0
    assert queue.heartbeat == 10


def test_max_concurrency_setting(client: Client) -> None:
    queue = client.queues["q"]
    assert queue.max_concurrency == 0
    queue.max_concurrency = 1
    assert queue.max_concurrency == 1
    queue.put(NOOP, {}, jid="a")
    queue.put(NOOP, {}, jid="b")
    assert len(queue.pop(5)) == 1
    with pytest.raises(ValueError):
        queue.max_concurrency = -1


def test_job_listings(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {})
    assert queue.jobs.running() == [] and queue.jobs.stalled() == []
    assert queue.jobs.scheduled() == [] and queue.jobs.depends() == []
    assert queue.jobs.recurring() == []
    with freeze_time(T0) as frozen:
        queue.put(NOOP, {}, jid="a")
        queue.put(NOOP, {}, jid="s", delay=10)
        queue.put(NOOP, {}, jid="b", depends=["a"])
        queue.recur(NOOP, {}, 60, jid="r")
        running = queue.pop(2)
        assert sorted(queue.jobs.running()) == sorted(j.jid for j in running)
        assert queue.jobs.depends() == ["b"]
        assert queue.jobs.scheduled() == ["s"]
        assert queue.jobs.recurring() == ["r"]
        frozen.tick(61 + 10)
        assert sorted(queue.jobs.stalled()) == sorted(j.jid for j in running)


def test_bad_put_changes_nothing(client: Client, redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    with pytest.raises(TypeError):
        queue.put(NOOP, {}, tags="one")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        queue.put(NOOP, {}, retries=-1)
    with pytest.raises(ValueError):
        queue.put("", {})
    with pytest.raises(ValueError):
        queue.put(NOOP, {"x": float("nan")})
    with pytest.raises(ValueError):
        client.queues[""]
    assert redis_conn.keys("ql:*") == []


def test_put_keeps_existing_options_unless_given(client: Client) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {}, jid="a", priority=3, tags=["t"], retries=2)
    client.queues["other"].put(NOOP, {"moved": True}, jid="a")
    job = client.jobs["a"]
    assert isinstance(job, Job)
    assert (job.queue_name, job.priority, job.tags, job.original_retries) == (
        "other", 3, ["t"], 2)


def test_put_many_in_one_round_trip(client: Client, redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    jids = queue.put_many([(Noop, {"i": i}) for i in range(50)], priority=1)
    assert len(jids) == 50 and len(set(jids)) == 50
    assert len(queue) == 50
    first = queue.pop()
    assert first is not None and first.jid == jids[0] and first.priority == 1
    more = queue.put_many([{"klass": NOOP, "data": {}, "jid": "x", "priority": 9, "tags": ["t"]},
                           (NOOP, {})])
    assert more[0] == "x"
    top = queue.pop()
    assert top is not None and top.jid == "x" and top.tags == ["t"]
    assert queue.put_many([]) == []


def test_put_many_reloads_the_script_after_a_flush(client: Client,
                                                   redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    queue.put(NOOP, {})
    redis_conn.script_flush()
    jids = queue.put_many([(NOOP, {}) for _ in range(5)])
    assert len(queue) == 6 and len(jids) == 5


def test_put_many_checks_every_item_first(client: Client, redis_conn: redis.Redis) -> None:
    queue = client.queues["q"]
    with pytest.raises(ValueError):
        queue.put_many([(NOOP, {}), {"klass": NOOP, "bogus": 1}])
    with pytest.raises(ValueError):
        queue.put_many([(NOOP, {}), (NOOP, {"bad": float("inf")})])
    assert redis_conn.keys("ql:*") == []


def test_recur_spawns_on_schedule(client: Client) -> None:
    queue = client.queues["q"]
    with freeze_time(T0) as frozen:
        jid = queue.recur(NOOP, {"r": 1}, 60, jid="tick", tags=["t"], retries=2)
        assert jid == "tick"
        job = queue.pop()
        assert job is not None and job.jid == "tick-1" and job.spawned_from_jid == "tick"
        assert job.data == {"r": 1} and job.tags == ["t"] and job.original_retries == 2
        assert queue.pop() is None
        frozen.tick(60)
        job = queue.pop()
        assert job is not None and job.jid == "tick-2"
    with pytest.raises(ValueError):
        queue.recur(NOOP, {}, 0)


def test_core_rejects_bad_count(client: Client) -> None:
    with pytest.raises(CoreError, match="not a number"):
        client("pop", "q", "worker", "many")


def test_negative_counts_are_refused(client: Client, redis_conn: redis.Redis) -> None:
    with pytest.raises(ValueError):
        client.queues["q"].pop(-1)
    with pytest.raises(ValueError):
        client.queues["q"].peek(-1)
    assert redis_conn.keys("ql:*") == []


@pytest.mark.parametrize("kwargs", [
    {"priority": "high"}, {"priority": float("nan")}, {"retries": 2.5}, {"retries": True},
    {"delay": float("inf")}, {"depends": "a"},
])
def test_bad_put_options_are_refused_before_sending(client: Client, redis_conn: redis.Redis,
                                                    kwargs: dict[str, object]) -> None:
    with pytest.raises((TypeError, ValueError)):
        client.queues["q"].put(NOOP, {}, **kwargs)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError)):
        client.queues["q"].put_many([(NOOP, {})], **kwargs)  # type: ignore[arg-type]
    assert redis_conn.keys("ql:*") == []
