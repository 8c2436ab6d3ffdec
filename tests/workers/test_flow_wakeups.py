"""Throttles and ordering keys wake an idle worker (30 s safety interval) at once.

As in test_wakeups.py: the worker's runners are asleep (the waker's ``quiet`` hook), the
test frees room in one of the ways a throttle or key can, and the waiting job must start
within ``WAKE`` seconds, which only a notice can explain. A queue's own throttle caps the
queue's running jobs as ``<queue>-max-concurrency`` does, so the worker watches the
queue's lock set for it too, and the throttle's hash for a changed maximum.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from qless_py import Client
from tests import jobs
from tests.workers.conftest import BackgroundWorker, wait_for
from tests.workers.test_wakeups import asleep, idle_worker, leased, started_at

Background = Callable[..., BackgroundWorker]


def test_a_job_leaving_a_queue_at_its_throttle_wakes_it(
        client: Client, background: Background) -> None:
    client.queues["q"].throttle.maximum = 1
    client.queues["q"].put(jobs.Noop, {}, jid="running")
    job = leased(client, "running")
    waiting = client.queues["q"].put(jobs.Noop, {})
    idle_worker(background, "q")
    assert client.redis.hget(jobs.STARTED, waiting) is None  # no room: nothing popped
    job.complete()
    started_at(client, waiting)


def test_raising_the_queue_throttle_wakes_it(client: Client, background: Background) -> None:
    client.queues["q"].throttle.maximum = 1
    client.queues["q"].put(jobs.Noop, {}, jid="running")
    leased(client, "running")
    waiting = client.queues["q"].put(jobs.Noop, {})
    worker = idle_worker(background, "q")
    assert worker.worker._listener is not None and worker.worker._listener.caps == {"q": 1}
    client.queues["q"].throttle.maximum = 2
    started_at(client, waiting)


def test_a_queue_throttle_set_while_it_sleeps_is_watched_too(
        client: Client, background: Background) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="running")
    job = leased(client, "running")
    worker = idle_worker(background, "q")
    client.queues["q"].throttle.maximum = 1
    wait_for(lambda: worker.worker._listener is not None
             and worker.worker._listener.caps == {"q": 1})
    waiting = client.queues["q"].put(jobs.Noop, {})
    asleep(worker)
    assert client.redis.hget(jobs.STARTED, waiting) is None
    job.complete()
    started_at(client, waiting)


@pytest.mark.parametrize(("throttle", "concurrency"), [(3, 2), (2, 3), (2, 0)])
def test_the_smaller_of_throttle_and_max_concurrency_is_the_cap(
        client: Client, background: Background, throttle: int, concurrency: int) -> None:
    client.queues["q"].throttle.maximum = throttle
    client.config["q-max-concurrency"] = concurrency
    worker = idle_worker(background, "q")
    assert worker.worker._listener is not None and worker.worker._listener.caps == {"q": 2}


def test_a_named_throttle_freed_wakes_it(client: Client, background: Background) -> None:
    client.throttles["api"].maximum = 1
    client.queues["q"].put(jobs.Noop, {}, jid="running", throttles=["api"])
    job = leased(client, "running")
    waiting = client.queues["q"].put(jobs.Noop, {}, throttles=["api"])
    idle_worker(background, "q")
    assert client.redis.hget(jobs.STARTED, waiting) is None
    job.complete()
    started_at(client, waiting)


def test_raising_a_named_throttle_wakes_it(client: Client, background: Background) -> None:
    client.throttles["api"].maximum = 1
    client.queues["q"].put(jobs.Noop, {}, jid="running", throttles=["api"])
    leased(client, "running")
    waiting = client.queues["q"].put(jobs.Noop, {}, throttles=["api"])
    idle_worker(background, "q")
    client.throttles["api"].maximum = 2
    started_at(client, waiting)


def test_the_next_job_of_a_key_wakes_it(client: Client, background: Background) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="first", key="customer")
    job = leased(client, "first")
    waiting = client.queues["q"].put(jobs.Noop, {}, key="customer")
    idle_worker(background, "q")
    assert client.redis.hget(jobs.STARTED, waiting) is None
    job.complete()
    started_at(client, waiting)
