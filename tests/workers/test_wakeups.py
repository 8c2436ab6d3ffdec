"""No polling: an idle worker (with a 30 s safety interval) starts new work at once.

Each test starts an in-process worker, waits until its runners are asleep (the waker's
``quiet`` hook), makes work poppable in one of the ways the worker must notice, and waits
for the job to start: within ``WAKE`` seconds, which only a notice can explain (the
interval is 30 s). A job that becomes due later must not start before it is due; that
lower bound is the core's, measured from before the call that scheduled it.

The cost side: an idle worker sends nothing; changed schedules only make it read due times;
a job costs each idle process (and each threaded process) at most one empty pop; heartbeats
in a full capped queue wake nobody; and nothing of this shows on pub/sub.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import redis

from qless_py import Client, keys
from qless_py.client.job import Job
from tests import jobs
from tests.workers.conftest import Background, BackgroundWorker, wait_for

IDLE = 30.0  # the safety interval: nothing in these tests may wait for it
WAKE = 5.0  # seconds a notice may take to start a job, generously


def started_at(client: Client, jid: str, timeout: float = WAKE) -> float:
    raw = wait_for(lambda: client.redis.hget(jobs.STARTED, jid), timeout=timeout)
    return float(raw)


def asleep(worker: BackgroundWorker) -> BackgroundWorker:
    wait_for(lambda: worker.worker.waker.quiet(worker.worker.threads))
    return worker


def idle_worker(background: Background, *queues: str, **kwargs: Any) -> BackgroundWorker:
    return asleep(background(list(queues), name="idle", interval=IDLE, **kwargs))


def leased(client: Client, jid: str, queue: str = "q", worker: str = "ghost") -> Job:
    """A job of ``queue``, popped by another worker (``ghost``) that does not run it."""
    job = client.queues[queue].pop(worker=worker)
    assert job is not None and job.jid == jid
    return job


def completed(client: Client, jid: str) -> None:
    """Wait for the job to complete (reading its hash: no core call to count)."""
    wait_for(lambda: client.redis.hget(keys.job(jid), "state") == b"complete")


def evalsha_calls(client: Client) -> int:
    stats = client.redis.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0))


# -- every way work becomes poppable --------------------------------------------------------

def test_put_wakes_an_idle_worker(client: Client, background: Background) -> None:
    worker = idle_worker(background, "q")
    for _ in range(5):
        jid = client.queues["q"].put(jobs.Noop, {})
        started_at(client, jid)
        asleep(worker)


def test_any_of_several_queues_wakes_it(client: Client, background: Background) -> None:
    idle_worker(background, "a", "b", "c")
    started_at(client, client.queues["c"].put(jobs.Noop, {}))


def test_a_put_by_another_client_wakes_it(client: Client, background: Background,
                                          server_url: str) -> None:
    idle_worker(background, "q")
    other = Client(server_url)  # any qless client: the worker watches the work set
    try:
        other.core.call("put", "", "q", "foreign", "tests.jobs.Noop", "{}", 0)
    finally:
        other.close()
    started_at(client, "foreign")


def test_complete_with_next_wakes_the_next_queues_worker(
        client: Client, background: Background) -> None:
    client.queues["first"].put(jobs.Noop, {}, jid="j")
    job = leased(client, "j", "first")
    idle_worker(background, "q")
    job.complete(next="q")
    started_at(client, "j")


def test_dependency_completion_releases_and_wakes(
        client: Client, background: Background) -> None:
    client.queues["first"].put(jobs.Noop, {}, jid="dep")
    client.queues["q"].put(jobs.Noop, {}, jid="j", depends=["dep"])
    job = leased(client, "dep", "first")
    idle_worker(background, "q")
    job.complete()
    started_at(client, "j")


def test_depends_off_wakes_it(client: Client, background: Background) -> None:
    client.queues["first"].put(jobs.Noop, {}, jid="dep")
    client.queues["q"].put(jobs.Noop, {}, jid="j", depends=["dep"])
    idle_worker(background, "q")
    held = client.jobs["j"]
    assert isinstance(held, Job) and held.state == "depends"
    assert held.undepend(all=True)
    started_at(client, "j")


def test_retry_without_delay_by_another_worker_wakes_it(
        client: Client, background: Background) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="j")
    job = leased(client, "j")
    idle_worker(background, "q")
    assert job.retry() >= 0
    started_at(client, "j")


def test_timeout_wakes_it(client: Client, background: Background) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="j")
    leased(client, "j")
    idle_worker(background, "q")
    client.core.call("timeout", "j")
    started_at(client, "j")


def test_unfail_wakes_it(client: Client, background: Background) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="j")
    leased(client, "j").fail("broken", "by the test")
    idle_worker(background, "q")
    assert client.unfail("broken", "q") == 1
    started_at(client, "j")


def test_unpause_wakes_it(client: Client, background: Background) -> None:
    client.queues["q"].pause()
    jid = client.queues["q"].put(jobs.Noop, {})
    idle_worker(background, "q")
    assert client.redis.hget(jobs.STARTED, jid) is None  # paused: its pops took nothing
    client.queues["q"].unpause()
    started_at(client, jid)


@pytest.mark.parametrize("leave", ["complete", "fail", "retry", "cancel", "put"])
def test_a_running_job_leaving_a_capped_queue_wakes_it(
        client: Client, background: Background, leave: str) -> None:
    client.config["q-max-concurrency"] = 1
    client.queues["q"].put(jobs.Noop, {}, jid="running")
    job = leased(client, "running")
    waiting = client.queues["q"].put(jobs.Noop, {})
    idle_worker(background, "q")
    assert client.redis.hget(jobs.STARTED, waiting) is None  # no slot: nothing popped
    if leave == "complete":
        job.complete()
    elif leave == "fail":
        job.fail("broken", "by the test")
    elif leave == "retry":
        job.retry(delay=60)
    elif leave == "cancel":
        job.cancel()
    else:
        client.queues["elsewhere"].put(jobs.Noop, {}, jid="running")
    started_at(client, waiting)


def test_raising_the_cap_wakes_it(client: Client, background: Background) -> None:
    client.config["q-max-concurrency"] = 1
    client.queues["q"].put(jobs.Noop, {}, jid="running")
    leased(client, "running")
    waiting = client.queues["q"].put(jobs.Noop, {})
    idle_worker(background, "q")
    client.config["q-max-concurrency"] = 2
    started_at(client, waiting)


def test_a_cap_set_while_it_sleeps_is_watched_too(
        client: Client, background: Background) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="running")
    job = leased(client, "running")
    # the worker starts without a cap: it tracks the queue's lock set only from then on
    worker = idle_worker(background, "q")
    client.config["q-max-concurrency"] = 1
    wait_for(lambda: worker.worker._listener is not None
             and worker.worker._listener.caps == {"q": 1.0})
    waiting = client.queues["q"].put(jobs.Noop, {})
    asleep(worker)
    assert client.redis.hget(jobs.STARTED, waiting) is None  # no slot: nothing popped
    job.complete()
    started_at(client, waiting)


def test_known_scheduled_job_starts_when_due(client: Client, background: Background) -> None:
    before = time.time()
    jid = client.queues["q"].put(jobs.Noop, {}, delay=1)
    idle_worker(background, "q")
    assert started_at(client, jid) - before >= 1.0


def test_job_scheduled_while_idle_starts_when_due(
        client: Client, background: Background) -> None:
    # the put makes nothing poppable now: tracking of the scheduled set makes the idle
    # worker read its due times again
    worker = idle_worker(background, "q")
    assert worker.worker._listener is not None and worker.worker._listener.tracking
    before = time.time()
    jid = client.queues["q"].put(jobs.Noop, {}, delay=0.5)
    assert started_at(client, jid) - before >= 0.5


def test_retry_with_delay_runs_again_when_due(client: Client, background: Background) -> None:
    jid = client.queues["q"].put(jobs.RetryOnce, {"delay": 0.5})
    idle_worker(background, "q")
    first = started_at(client, jid)
    wait_for(lambda: client.redis.hget(jobs.RUNS, jid) == b"2", timeout=WAKE)
    assert started_at(client, jid) - first >= 0.5


def test_expired_lock_is_reclaimed_when_due(client: Client, background: Background) -> None:
    client.config["q-heartbeat"] = 1
    client.config["grace-period"] = 0
    jid = client.queues["q"].put(jobs.Noop, {})
    popped = time.time()  # the lock runs from the pop's ``now``, taken after this
    leased(client, jid)
    idle_worker(background, "q")
    assert started_at(client, jid) - popped >= 1.0


def test_recurring_job_spawns_when_due(client: Client, background: Background) -> None:
    before = time.time()
    client.queues["q"].recur(jobs.Noop, {}, interval=60, offset=0.5, jid="known")
    idle_worker(background, "q")
    assert started_at(client, "known-1") - before >= 0.5
    # one created while the worker sleeps is on time too
    before = time.time()
    client.queues["q"].recur(jobs.Noop, {}, interval=60, offset=0.5, jid="new")
    assert started_at(client, "new-1") - before >= 0.5


def test_a_recurring_job_due_at_once_starts_at_once(
        client: Client, background: Background) -> None:
    idle_worker(background, "q")
    client.queues["q"].recur(jobs.Noop, {}, interval=60, offset=0, jid="now")
    started_at(client, "now-1")


def test_work_put_before_the_listener_subscribed_is_found_once_it_has(
        client: Client, server_url: str, monkeypatch: Any) -> None:
    # The worker pops without waiting for its subscription. Writes made before it sends
    # no notice, so the subscription itself must make the sleeping runner pop again.
    from qless_py.workers import listener as listener_module

    gate = threading.Event()
    subscribe = listener_module.Listener._subscribe

    def late_subscribe(self: Any, conn: Any, extra: list[str]) -> None:
        gate.wait(10)
        subscribe(self, conn, extra)

    monkeypatch.setattr(listener_module.Listener, "_subscribe", late_subscribe)
    worker = BackgroundWorker(server_url, ["q"], "late", interval=IDLE)
    worker.thread.start()
    try:
        asleep(worker)  # its runner found nothing and went to sleep for the interval
        jid = client.queues["q"].put(jobs.Noop, {})
        asleep(worker)
        assert client.redis.hget(jobs.STARTED, jid) is None  # nothing woke it yet
        gate.set()
        started_at(client, jid)
    finally:
        gate.set()
        worker.stop()


# -- what it costs --------------------------------------------------------------------------

def test_schedule_changes_do_not_make_the_idle_worker_pop(
        client: Client, background: Background) -> None:
    worker = idle_worker(background, "q")
    client.redis.config_resetstat()
    for i in range(20):
        client.queues["q"].put(jobs.Noop, {}, delay=60 + i)
    wait_for(lambda: client.redis.info("commandstats").get("cmdstat_zrange", {}).get(
        "calls", 0) >= 1)  # it read its due times again
    asleep(worker)
    assert evalsha_calls(client) == 20  # only the puts: the worker did not pop


def test_idle_worker_costs_the_server_next_to_nothing(
        background: Background, server_url: str) -> None:
    # Between safety checks an idle worker sends nothing at all: with a short interval,
    # the first command the server sees from it after it fell asleep is the next safety
    # check's pop, a whole interval after the worker started.
    interval = 1.5
    began = time.monotonic()
    asleep(background(["a", "b"], name="idle", interval=interval))
    watcher = redis.Redis.from_url(server_url, socket_timeout=interval + WAKE)
    try:
        with watcher.monitor() as monitor:
            first = monitor.next_command()
            seen = time.monotonic()
    finally:
        watcher.close()
    assert first["command"].split()[:1] == ["EVALSHA"], first["command"]
    assert " pop " in f" {first['command']} ", first["command"]
    assert seen - began >= interval, first["command"]


def test_one_job_costs_a_threaded_process_at_most_one_empty_pop(
        client: Client, background: Background) -> None:
    worker = idle_worker(background, "q", threads=4)
    client.redis.config_resetstat()
    completed(client, client.queues["q"].put(jobs.Noop, {}))
    asleep(worker)
    # put, the pop that found the job, at most one pop by the runner it passed the baton
    # to, complete, and the finishing runner's look for more: 5. The pop's own removal
    # from the work set wakes nobody (it is no news to the process that popped).
    assert evalsha_calls(client) <= 5


def test_one_job_costs_each_idle_process_at_most_one_empty_pop(
        client: Client, background: Background) -> None:
    idle = [asleep(background(["q"], name=f"idle-{n}", interval=IDLE)) for n in range(3)]
    client.redis.config_resetstat()
    for _ in range(5):
        completed(client, client.queues["q"].put(jobs.Noop, {}))
        for worker in idle:
            asleep(worker)
    # per job: put, complete, and one pop per worker (one found the job; the others found
    # nothing, and its finishing runner looked for more). The winner's removal of the job
    # from the work set makes no loser pop again: each reads whether a job waits anyway
    # before it sleeps.
    assert evalsha_calls(client) <= 5 * (2 + len(idle) + 1)


def test_heartbeats_in_a_full_capped_queue_wake_nobody(
        client: Client, background: Background) -> None:
    client.config["q-max-concurrency"] = 1
    client.queues["q"].put(jobs.Noop, {}, jid="running")
    job = leased(client, "running")
    client.queues["q"].put(jobs.Noop, {})
    worker = idle_worker(background, "q")
    client.redis.config_resetstat()
    for _ in range(5):
        job.heartbeat()
    wait_for(lambda: client.redis.info("commandstats").get("cmdstat_zcount", {}).get(
        "calls", 0) >= 1)  # the listener looked: no free slot
    asleep(worker)
    assert evalsha_calls(client) == 5  # the heartbeats: no pop


def test_pubsub_clients_see_nothing_of_the_workers_notices(
        client: Client, background: Background) -> None:
    everything = client.redis.pubsub()
    everything.psubscribe("*")
    try:
        assert everything.get_message(timeout=5)["type"] == "psubscribe"
        worker = idle_worker(background, "q")
        completed(client, client.queues["q"].put(jobs.Noop, {}, delay=0.2))
        asleep(worker)
        worker.stop()
        client.redis.publish("ql:~done", "end")
        seen: list[tuple[str, str]] = []
        while (message := everything.get_message(timeout=5)) is not None:
            seen.append((message["channel"].decode(), message["data"].decode()))
            if message["channel"] == b"ql:~done":
                break
        channels = [channel for channel, _ in seen]
        assert channels == ["ql:log", "ql:log", "ql:~done"], seen  # put, completed
    finally:
        everything.close()


def test_without_key_tracking_a_worker_still_finds_work_at_its_interval(
        private_server: Any, caplog: pytest.LogCaptureFixture) -> None:
    server = private_server("valkey")
    admin = Client(server.url)
    try:
        admin.redis.execute_command("ACL", "SETUSER", "limited", "on", ">secret", "~*",
                                    "&*", "+@all", "-client|tracking")
        url = server.url.replace("unix://", "unix://limited:secret@")
        worker = BackgroundWorker(url, ["q"], "untracked", interval=0.2).start()
        try:
            completed(admin, admin.queues["q"].put(jobs.Noop, {}))
            listener = worker.worker._listener
            assert listener is not None and not listener.tracking
        finally:
            worker.stop()
        assert "refuses key tracking" in caplog.text
    finally:
        admin.close()


# -- a busy process does not track the keys of new work ---------------------------------------

@pytest.fixture
def quick_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process counts as busy after 0.2 s without an idle runner, looked at every 0.05 s."""
    monkeypatch.setattr("qless_py.workers.waker.BUSY_AFTER", 0.2)
    monkeypatch.setattr("qless_py.workers.listener.BUSY_CHECK", 0.05)


def test_one_idle_runner_keeps_the_keys_of_new_work_tracked(
        client: Client, background: Background, quick_busy: None) -> None:
    worker = idle_worker(background, "q", threads=2)
    listener = worker.worker._listener
    assert listener is not None
    busy = client.queues["q"].put(jobs.Quiet, {"seconds": 1.0})
    completed(client, busy)  # a second, most of it after the process could count as busy
    assert listener.work_tracked and listener.switches == 0


def test_a_busy_worker_stops_tracking_new_work_and_tracks_it_again_when_idle(
        client: Client, background: Background, quick_busy: None) -> None:
    worker = idle_worker(background, "q")
    listener = worker.worker._listener
    assert listener is not None and listener.work_tracked
    busy = client.queues["q"].put(jobs.Quiet, {"seconds": 1.5})
    wait_for(lambda: not listener.work_tracked, timeout=WAKE)  # while the job runs
    completed(client, busy)
    # asked for again by the runner about to sleep (it waits for the subscription)
    wait_for(lambda: listener.work_tracked, timeout=WAKE)
    asleep(worker)
    assert listener.switches == 2
    # a put now wakes it at once: the keys of new work are tracked again (the safety
    # interval is IDLE, far beyond WAKE)
    started_at(client, client.queues["q"].put(jobs.Noop, {}))


def test_work_put_while_the_worker_switches_back_is_not_missed(
        client: Client, background: Background, quick_busy: None) -> None:
    worker = idle_worker(background, "q", threads=2)
    listener = worker.worker._listener
    assert listener is not None
    # both runners busy (one busy runner and one idle one is not a busy process)
    first = [client.queues["q"].put(jobs.Quiet, {"seconds": 1.0}) for _ in range(2)]
    wait_for(lambda: not listener.work_tracked, timeout=WAKE)
    for jid in first:
        completed(client, jid)
    # put at once, while the idle runners ask for the keys of new work again
    jids = [client.queues["q"].put(jobs.Noop, {}) for _ in range(3)]
    for jid in jids:
        started_at(client, jid)


def test_idling_says_busy_only_after_a_while_without_an_idle_runner(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from qless_py.workers import waker

    idling = waker.Idling()
    assert not idling.busy()  # a process that starts counts as idle a while
    monkeypatch.setattr(waker, "BUSY_AFTER", 0.0)
    idling.enter()
    assert not idling.busy()  # a runner is idle
    idling.leave()
    assert idling.busy()
    monkeypatch.setattr(waker, "BUSY_AFTER", 3600.0)
    idling.enter()
    idling.leave()
    assert not idling.busy()  # one was idle a moment ago


def test_a_busy_async_worker_stops_tracking_new_work_and_tracks_it_again_when_idle(
        client: Client, server_url: str, quick_busy: None) -> None:
    from qless_py.workers.aio import AsyncWorker

    worker = AsyncWorker(Client(server_url, worker_name="aio-idle"), ["q"], concurrency=1,
                         interval=IDLE, handle_signals=False)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: worker._listener is not None and worker._listener.subscribed)
        listener = worker._listener
        assert listener is not None
        busy = client.queues["q"].put(jobs.Quiet, {"seconds": 1.5})  # its one slot
        wait_for(lambda: not listener.work_tracked, timeout=WAKE)
        completed(client, busy)
        wait_for(lambda: listener.work_tracked, timeout=WAKE)  # the idle popper asked
        assert listener.switches == 2
        started_at(client, client.queues["q"].put(jobs.Noop, {}))
    finally:
        worker.stop()
        thread.join(10)
        worker.client.close()
    assert not thread.is_alive()
