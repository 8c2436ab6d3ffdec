"""No polling: an idle worker (with a 30 s safety interval) starts work within milliseconds.

Each test starts an idle in-process worker, makes work poppable in one of the ways the
worker must notice, and checks the job started long before the 30 s interval could explain.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from qless_py import Client
from tests import jobs
from tests.workers.conftest import BackgroundWorker, wait_for

Background = Callable[..., BackgroundWorker]
IDLE = 30.0


def started_at(client: Client, jid: str, timeout: float = 5.0) -> float:
    raw = wait_for(lambda: client.redis.hget(jobs.STARTED, jid), timeout=timeout)
    return float(raw)


def idle_worker(background: Background, *queues: str) -> BackgroundWorker:
    worker = background(list(queues), name="idle", interval=IDLE)
    time.sleep(0.05)  # let it finish its first (empty) pops and go to sleep
    return worker


def test_put_wakes_an_idle_worker(client: Client, background: Background) -> None:
    idle_worker(background, "q")
    delays = []
    for _ in range(5):
        before = time.time()
        jid = client.queues["q"].put(jobs.Noop, {})
        delays.append(started_at(client, jid) - before)
        time.sleep(0.02)
    assert sorted(delays)[2] < 0.1, delays  # the median: milliseconds, not the 30 s interval
    assert max(delays) < 1.0, delays


def test_any_of_several_queues_wakes_it(client: Client, background: Background) -> None:
    idle_worker(background, "a", "b", "c")
    before = time.time()
    jid = client.queues["c"].put(jobs.Noop, {})
    assert started_at(client, jid) - before < 0.5


def test_known_scheduled_job_starts_when_due(client: Client, background: Background) -> None:
    before = time.time()
    jid = client.queues["q"].put(jobs.Noop, {}, delay=1)
    idle_worker(background, "q")
    delay = started_at(client, jid) - before
    assert 1.0 <= delay < 1.5, delay


def test_retry_with_delay_runs_again_when_due(client: Client, background: Background) -> None:
    jid = client.queues["q"].put(jobs.RetryOnce, {"delay": 0.5})
    idle_worker(background, "q")
    first = started_at(client, jid)
    wait_for(lambda: client.redis.hget(jobs.RUNS, jid) == b"2")
    gap = started_at(client, jid) - first
    assert 0.5 <= gap < 1.0, gap


def test_job_scheduled_while_idle_starts_when_due(
        client: Client, background: Background) -> None:
    # the core wakes workers only for work poppable now; a new schedule reaches the idle
    # worker through key tracking of the scheduled set, and it re-reads its due times
    worker = idle_worker(background, "q")
    assert worker.worker._listener is not None and worker.worker._listener.tracking
    before = time.time()
    jid = client.queues["q"].put(jobs.Noop, {}, delay=0.5)
    delay = started_at(client, jid) - before
    assert 0.5 <= delay < 1.0, delay


def test_dependency_completion_releases_and_wakes(
        client: Client, background: Background) -> None:
    idle_worker(background, "q")
    first = client.queues["q"].put(jobs.Sleeper, {"seconds": 0.3})
    second = client.queues["q"].put(jobs.Noop, {}, depends=[first])
    assert client.jobs[second].state == "depends"  # type: ignore[union-attr]
    gap = started_at(client, second) - started_at(client, first)
    assert 0.3 <= gap < 1.0, gap


def test_unfail_wakes_it(client: Client, background: Background) -> None:
    jid = client.queues["q"].put(jobs.FailOnce, {})
    idle_worker(background, "q")
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "failed")
    first = started_at(client, jid)
    time.sleep(0.1)
    before = time.time()
    assert client.unfail("q-ValueError", "q") == 1
    wait_for(lambda: started_at(client, jid) > first)
    assert started_at(client, jid) - before < 0.5
    wait_for(lambda: (j := client.jobs[jid]) is not None and j.state == "complete")


def test_expired_lock_is_reclaimed_when_due(client: Client, background: Background) -> None:
    client.config["q-heartbeat"] = 1
    client.config["grace-period"] = 0
    jid = client.queues["q"].put(jobs.Noop, {})
    popped = time.time()  # the lock runs from the pop's ``now``, taken after this
    taken = client.queues["q"].pop(worker="ghost")
    assert taken is not None
    idle_worker(background, "q")
    delay = started_at(client, jid) - popped
    assert 1.0 <= delay < 2.0, delay


def test_recurring_job_spawns_when_due(client: Client, background: Background) -> None:
    before = time.time()
    client.queues["q"].recur(jobs.Noop, {}, interval=60, offset=0.5, jid="known")
    idle_worker(background, "q")
    wait_for(lambda: client.redis.hlen(jobs.STARTED) >= 1, timeout=3)
    first = float(next(iter(client.redis.hvals(jobs.STARTED))))
    assert 0.5 <= first - before < 1.0
    # one created while the worker sleeps is on time too
    client.redis.delete(jobs.STARTED)
    before = time.time()
    client.queues["q"].recur(jobs.Noop, {}, interval=60, offset=0.5, jid="new")
    wait_for(lambda: client.redis.hlen(jobs.STARTED) >= 1, timeout=3)
    first = float(next(iter(client.redis.hvals(jobs.STARTED))))
    assert 0.5 <= first - before < 1.0


def test_schedule_changes_do_not_make_the_idle_worker_pop(
        client: Client, background: Background) -> None:
    idle_worker(background, "q")
    time.sleep(0.1)
    client.redis.config_resetstat()
    for i in range(20):
        client.queues["q"].put(jobs.Noop, {}, delay=60 + i)
    time.sleep(0.3)
    stats = client.redis.info("commandstats")
    evals = stats.get("cmdstat_evalsha", {}).get("calls", 0)
    assert evals == 20  # only the puts: the worker re-read due times, it did not pop
    assert stats["cmdstat_zrange"]["calls"] >= 1


def test_idle_worker_costs_the_server_next_to_nothing(
        client: Client, background: Background) -> None:
    idle_worker(background, "a", "b")
    time.sleep(0.2)
    client.redis.config_resetstat()
    time.sleep(1.5)
    stats: dict[str, Any] = client.redis.info("commandstats")
    calls = {k: v["calls"] for k, v in stats.items()}
    calls.pop("cmdstat_info", None)
    calls.pop("cmdstat_config|resetstat", None)
    assert sum(calls.values()) == 0, calls


def test_one_wake_up_costs_a_threaded_process_at_most_one_empty_pop(
        client: Client, background: Background) -> None:
    background(["q"], name="idle", interval=IDLE, threads=4)
    time.sleep(0.1)
    client.redis.config_resetstat()
    jid = client.queues["q"].put(jobs.Noop, {})
    started_at(client, jid)
    time.sleep(0.2)
    calls = client.redis.info("commandstats")["cmdstat_evalsha"]["calls"]
    # put, the pop that found the job, at most one pop by the runner it passed the baton
    # to, complete, and the finishing runner's look for more: 5 (waking all 4 runners: 7)
    assert calls <= 5, calls


def test_work_put_before_the_listener_subscribed_is_found_once_it_has(
        client: Client, server_url: str, monkeypatch: Any) -> None:
    # The worker pops without waiting for its subscription. A put made while nobody is
    # subscribed publishes no wake-up at all (the core checks for listeners), so the
    # subscription itself must make the sleeping runner pop again.
    from qless_py.workers import listener as listener_module

    gate = threading.Event()
    subscribe = listener_module.Listener._subscribe

    def late_subscribe(self: Any, pubsub: Any, extra: list[str]) -> None:
        gate.wait(10)
        subscribe(self, pubsub, extra)

    monkeypatch.setattr(listener_module.Listener, "_subscribe", late_subscribe)
    worker = BackgroundWorker(server_url, ["q"], "late", interval=IDLE)
    worker.thread.start()
    try:
        wait_for(lambda: worker.worker._listener is not None)
        time.sleep(0.1)  # its runner found nothing and went to sleep for the interval
        jid = client.queues["q"].put(jobs.Noop, {})
        time.sleep(0.1)
        assert client.redis.hget(jobs.STARTED, jid) is None  # nothing woke it yet
        released = time.time()
        gate.set()
        assert started_at(client, jid) - released < 2.0  # not the 30 s interval
    finally:
        gate.set()
        worker.stop()
