"""One worker process serving three namespaces (``--namespace`` repeated, or
``namespaces=``): it runs every job of each once, wakes on new work in each through one
tracking connection per master (its interval is long, so only a wake explains a fast pop),
pops across them in the order asked for, and gives back, settles a killed child's jobs and
deregisters in each. On a standalone server and on a cluster with the three namespaces on
three different masters."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from qless_py import Client, Job
from qless_py.connect.cluster import key_slot, spread
from qless_py.keys import namespace_prefix
from qless_py.workers import Worker
from qless_py.workers.aio import AsyncWorker
from qless_py.workers.waker import MarkSet
from tests import jobs
from tests.conftest import flushed_cluster_url
from tests.replies import text
from tests.workers import async_jobs
from tests.workers.conftest import CliWorker, Kind, wait_for
from tests.workers.test_dropped_connections import STAGE, all_complete, done_counts

Start = Callable[..., CliWorker]
NAMESPACES = ["nsa", "nsb", "nsc"]
valkey_only = pytest.mark.parametrize("server_kind", ["valkey"], indirect=True)


def _clients(urls: dict[str, str]) -> dict[str, Client]:
    return {ns: Client(url, worker_name="producer") for ns, url in urls.items()}


def _tracking(node_url: str, worker: str) -> int:
    """The connections of ``worker`` on a server that track keys (its listeners')."""
    import redis

    conn = redis.Redis.from_url(node_url)
    try:
        return sum(1 for c in conn.client_list()
                   if c.get("name") == f"qless-py:{worker}" and "t" in c.get("flags", ""))
    finally:
        conn.close()


def _tracks_once(node_url: str, worker: str) -> bool:
    return _tracking(node_url, worker) == 1


def _started(client: Client, jid: str) -> bool:
    """Whether ``jid``'s handler has started (``tests.jobs`` records it)."""
    return client.redis.hget(jobs.STARTED, jid) is not None


def _recorded(client: Client, jid: str, record: bytes) -> bool:
    return bool(client.redis.hget(jobs.RECORD, jid) == record)


def _logged(worker: CliWorker, line: str) -> bool:
    return line in worker.log


def _state(client: Client, jid: str) -> str | None:
    job = client.jobs[jid]
    return None if job is None else job.state


def _runs(client: Client, jid: str) -> int:
    return int(client.redis.hget(jobs.RUNS, jid) or 0)


def _wakes_in_each(made: dict[str, Client], klass: Any) -> None:
    """A put in each namespace is run at once by the idle worker (its interval is 60 s)."""
    for ns, client in made.items():
        jid = client.queues["q"].put(klass, {}, jid=f"{ns}-woken")
        wait_for(partial(all_complete, client, [jid]), timeout=10)


def _threads(kind: Kind) -> tuple[str, ...]:
    """Options that let one process run a job of each namespace at once."""
    return ("--threads", "3") if kind.name == "threads" else ()


@valkey_only
def test_one_process_serves_three_namespaces_wakes_on_each_and_gives_back_in_each(
        server_url: str, cli_worker: Start, kind: Kind) -> None:
    made = _clients({ns: f"{server_url}?namespace={ns}" for ns in NAMESPACES})
    default = Client(server_url, worker_name="producer")
    other = default.queues["q"].put(kind.jobs.Noop, {}, jid="default-job")
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url,
                        *[arg for ns in NAMESPACES for arg in ("--namespace", ns)],
                        "--interval", "60", "--name", "multi", *_threads(kind), *kind.args)
    # registered in each: it popped once in each, idle now
    wait_for(lambda: all(c.workers.counts != [] for c in made.values()), timeout=20)
    # one tracking connection hears the three namespaces of this server
    wait_for(partial(_tracks_once, server_url, "multi"))
    _wakes_in_each(made, kind.jobs.Noop)
    # jobs in every namespace at once: each runs exactly once
    put = {ns: [c.queues["q"].put(kind.jobs.Noop, {}) for _ in range(10)]
           for ns, c in made.items()}
    for ns, client in made.items():
        wait_for(partial(all_complete, client, put[ns]))
        assert [_runs(client, jid) for jid in put[ns]] == [1] * 10, ns
    assert _state(default, other) == "waiting"  # not a namespace it serves
    # TERM gives back the job it runs in each namespace, and deregisters in each (the
    # second one's was cancelled first)
    sleepers = {ns: c.queues["q"].put(kind.jobs.Sleeper, {"seconds": 60}, jid=f"{ns}-sleeps")
                for ns, c in made.items()}
    for ns, client in made.items():
        wait_for(partial(_started, client, sleepers[ns]))
    assert _tracking(server_url, "multi") == 1
    # a cancel in the second namespace reaches its handler, on that namespace's channel
    made["nsb"].jobs.cancel(sleepers.pop("nsb"))
    wait_for(partial(_recorded, made["nsb"], "nsb-sleeps", b"stopped"))
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
    for ns, jid in sleepers.items():
        assert _state(made[ns], jid) == "waiting", ns
    for ns, client in made.items():
        assert "multi" not in [w["name"] for w in client.workers.counts], ns
    assert " ERROR " not in worker.log and "Traceback" not in worker.log
    for client in [*made.values(), default]:
        client.close()


@valkey_only
@pytest.mark.parametrize("mode", ["threads", "async"])
@pytest.mark.parametrize(("order", "expected"), [
    ("ordered", ["nsa", "nsa", "nsb", "nsb", "nsc", "nsc"]),
    ("round-robin", ["nsa", "nsb", "nsc", "nsa", "nsb", "nsc"]),
])
def test_the_order_runs_across_namespaces(server_url: str, mode: str, order: str,
                                          expected: list[str]) -> None:
    made = _clients({ns: f"{server_url}?namespace={ns}" for ns in NAMESPACES})
    module: Any = jobs if mode == "threads" else async_jobs
    for ns, client in made.items():
        for i in range(2):
            client.queues["q"].put(module.Noop, {}, jid=f"{ns}-{i}")
    client = Client(f"{server_url}?namespace=nsa", worker_name="ordered")
    options: dict[str, Any] = {"namespaces": NAMESPACES, "order": order, "burst": True,
                               "handle_signals": False}
    worker = (Worker(client, ["q"], threads=1, **options) if mode == "threads"
              else AsyncWorker(client, ["q"], concurrency=1, **options))
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive()
    started = made["nsa"].redis.hgetall(jobs.STARTED)
    ran = sorted(started, key=lambda jid: float(started[jid]))
    assert [text(jid).split("-")[0] for jid in ran] == expected
    for each in [*made.values(), client]:
        each.close()


def _expires(client: Client, jid: str) -> float:
    return float(client.redis.hget(f"{client.keys.prefix}j:{jid}", "expires") or 0)


def _renewed(client: Client, jid: str, after: float) -> bool:
    return _expires(client, jid) > after


@valkey_only
@pytest.mark.parametrize("mode", ["threads", "async"])
def test_heartbeats_and_adoption_go_to_each_jobs_namespace(server_url: str, mode: str) -> None:
    made = _clients({ns: f"{server_url}?namespace={ns}" for ns in NAMESPACES})
    module: Any = jobs if mode == "threads" else async_jobs
    # a job leased to the worker's name in the third namespace, that no process runs (its
    # pop's reply was lost, say): --resume takes it back there
    made["nsc"].queues["q"].put(module.Noop, {}, jid="nsc-orphan")
    assert made["nsc"].queues["q"].pop(worker="multi") is not None
    # jobs longer than their 1 s lock in the second and third namespaces
    for ns in ("nsb", "nsc"):
        made[ns].config["q-heartbeat"] = 1
        made[ns].queues["q"].put(module.Sleeper, {"seconds": 2}, jid=f"{ns}-long")
    client = Client(f"{server_url}?namespace=nsa", worker_name="multi")
    options: dict[str, Any] = {"namespaces": NAMESPACES, "resume": True, "burst": True,
                               "handle_signals": False}
    worker = (Worker(client, ["q"], threads=3, **options) if mode == "threads"
              else AsyncWorker(client, ["q"], concurrency=3, **options))
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    for ns in ("nsb", "nsc"):  # each lock is renewed in its own namespace
        wait_for(partial(_started, made[ns], f"{ns}-long"))
        first = _expires(made[ns], f"{ns}-long")
        wait_for(partial(_renewed, made[ns], f"{ns}-long", first + 0.5), timeout=3)
    thread.join(15)
    assert not thread.is_alive()
    assert all_complete(made["nsc"], ["nsc-orphan", "nsc-long"])
    assert all_complete(made["nsb"], ["nsb-long"])
    assert [_runs(made[ns], f"{ns}-long") for ns in ("nsb", "nsc")] == [1, 1]
    for each in [*made.values(), client]:
        each.close()


@valkey_only
def test_a_killed_child_is_settled_and_deregistered_in_each_namespace(
        server_url: str, cli_worker: Start) -> None:
    made = _clients({ns: f"{server_url}?namespace={ns}" for ns in NAMESPACES})
    held = {ns: c.queues["q"].put(jobs.Sleeper, {"seconds": 60}, retries=2)
            for ns, c in made.items()}
    # the URL's namespace is served too, with the --namespace ones
    worker = cli_worker("-q", "q", "--processes", "1", "--url", f"{server_url}?namespace=nsa",
                        "--threads", "3", "--namespace", "nsb", "--namespace", "nsc",
                        "--interval", "30")
    for ns, client in made.items():
        wait_for(partial(_started, client, held[ns]))
    job = made["nsa"].jobs[held["nsa"]]
    assert isinstance(job, Job)
    name = job.worker_name
    pid = int(name.rsplit("-", 1)[1])
    os.kill(pid, signal.SIGKILL)
    for ns in NAMESPACES:
        wait_for(partial(_logged, worker, f"worker {name} (process {pid}, killed by SIGKILL) "
                         f"in namespace {ns} deregistered"), timeout=20)
    for ns, client in made.items():
        assert name not in [w["name"] for w in client.workers.counts], ns
        job = client.jobs[held[ns]]
        assert isinstance(job, Job) and job.retries_left == 1, ns
        assert job.failure is not None and job.failure.group == "failed-retries-q", ns
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
    for client in made.values():
        client.close()


def test_on_a_cluster_one_process_serves_namespaces_on_three_masters(
        _clusters: Any, cli_worker: Start, kind: Kind) -> None:
    cluster = _clusters["valkey"]
    namespaces = spread(cluster.slot_map(), 3)
    masters = {ns: cluster.master_of(key_slot(namespace_prefix(ns))) for ns in namespaces}
    assert len({node.port for node in masters.values()}) == 3
    flushed_cluster_url(cluster, namespaces[0])
    made = _clients({ns: cluster.url(query=f"namespace={ns}") for ns in namespaces})
    worker = cli_worker("-q", "q", "--processes", "1", "--url", cluster.url(),
                        *[arg for ns in namespaces for arg in ("--namespace", ns)],
                        "--interval", "60", "--name", "multi", *_threads(kind), *kind.args)
    wait_for(lambda: all(c.workers.counts != [] for c in made.values()), timeout=20)
    # one tracking connection on each master
    for node in masters.values():
        wait_for(partial(_tracks_once, f"redis://127.0.0.1:{node.port}", "multi"))
    # (jobs whose calls stay in their namespace's slot: the Noop's records would not)
    _wakes_in_each(made, STAGE[kind.name])
    put = {ns: [c.queues["q"].put(STAGE[kind.name], {}) for _ in range(5)]
           for ns, c in made.items()}
    for ns, client in made.items():
        wait_for(partial(all_complete, client, put[ns]))
        assert set(done_counts(client, put[ns]).values()) == {1}, ns
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
    for client in made.values():
        assert "multi" not in [w["name"] for w in client.workers.counts]
        client.close()
    assert " ERROR " not in worker.log and "Traceback" not in worker.log


def test_a_namespace_whose_master_cannot_answer_does_not_hold_up_the_others(
        _clusters: Any, cli_worker: Start, kind: Kind) -> None:
    cluster = _clusters["valkey"]
    namespaces = spread(cluster.slot_map(), 3)
    first, second = namespaces[0], namespaces[1]
    flushed_cluster_url(cluster, first)
    made = _clients({ns: cluster.url(query=f"namespace={ns}") for ns in namespaces})
    # one job at a time, the stuck namespace first in the order
    worker = cli_worker("-q", "q", "--processes", "1", "--url", cluster.url(),
                        *[arg for ns in namespaces for arg in ("--namespace", ns)],
                        "--interval", "60", "--socket-timeout", "0.5", "--name", "multi",
                        *kind.args[:1], *(("--concurrency", "1") if kind.args else ()))
    wait_for(lambda: all(c.workers.counts != [] for c in made.values()), timeout=20)
    stuck = cluster.master_of(key_slot(namespace_prefix(first)))
    stuck.call("CLIENT", "PAUSE", "6000", "WRITE")  # its pops (scripts) wait, then time out
    try:
        jid = made[second].queues["q"].put(STAGE[kind.name], {})
        wait_for(partial(all_complete, made[second], [jid]), timeout=4)
    finally:
        stuck.call("CLIENT", "UNPAUSE")
    _wakes_in_each(made, STAGE[kind.name])
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
    assert f"pop in namespace {first}: the server cannot answer" in worker.log
    for client in made.values():
        client.close()


def test_a_pop_marks_the_stream_of_every_listener() -> None:
    # positions on different listeners' connections cannot be compared: each stream has
    # its own marks, and each pop's reply marks all of them (no server needed)
    at = {"a": 10, "b": 100}
    marks = MarkSet()
    first = marks.add(lambda: at["a"])
    second = marks.add(lambda: at["b"])
    marks.pop_started()
    marks.pop_ended(0)
    assert (first.is_news(10), first.is_news(11)) == (False, True)
    assert (second.is_news(100), second.is_news(101)) == (False, True)
    at.update(a=50, b=500)
    marks.pop_started()
    marks.pop_ended(-1)  # a failed pop marks nothing
    assert first.is_news(20) and second.is_news(200)
    marks.pop_started()
    third = marks.add(lambda: 7)  # a listener added while a pop is on its way
    marks.pop_ended(0)
    assert (third.is_news(7), third.is_news(8)) == (False, True)


def test_a_namespace_moved_off_a_shared_master_is_heard_on_its_new_one(
        private_cluster: Callable[..., Any], cli_worker: Start) -> None:
    cluster = private_cluster("valkey", replicas=0)
    by_master: dict[int, list[str]] = {}
    for ns in spread(cluster.slot_map(), 6):  # two namespaces on each master
        by_master.setdefault(cluster.master_of(_slot(ns)).port, []).append(ns)
    stays, moves = next(names for names in by_master.values() if len(names) >= 2)[:2]
    made = _clients({ns: cluster.url(query=f"namespace={ns}") for ns in (stays, moves)})
    worker = cli_worker("-q", "q", "--processes", "1", "--url", cluster.url(), "--namespace",
                        stays, "--namespace", moves, "--interval", "60", "--name", "multi")
    wait_for(lambda: all(c.workers.counts != [] for c in made.values()), timeout=20)
    source = cluster.master_of(_slot(moves))
    wait_for(partial(_tracks_once, f"redis://127.0.0.1:{source.port}", "multi"))  # shared
    target = next(node for node in cluster.masters_now() if node is not source)
    cluster.migrate_slot(_slot(moves), target)
    wait_for(partial(_logged, worker, f"namespace(s) {moves} served by another master"),
             timeout=20)
    # each wakes the idle worker (its interval is 60 s): one listener on each master now
    _wakes_in_each(made, STAGE["threads"])
    for node in (source, target):
        assert _tracking(f"redis://127.0.0.1:{node.port}", "multi") == 1
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
    assert " ERROR " not in worker.log and "Traceback" not in worker.log
    for client in made.values():
        client.close()


def _slot(namespace: str) -> int:
    return key_slot(namespace_prefix(namespace))


def test_a_pop_that_ends_while_a_listener_is_being_made_is_not_lost(
        server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A listener's stream joins the worker's marks before the listener exists (a split
    onto another master makes one while runners pop): a pop ending in that window marks
    the new stream as unknown (-1) instead of failing the runner that popped."""
    from qless_py.workers import listeners as module
    from qless_py.workers.listener import Listener
    from qless_py.workers.listeners import Listeners, Notices
    from qless_py.workers.parts import Part

    several = Listeners(["q"], "w", several=True)
    assert several.marks is not None
    real = Listener
    ended: list[bool] = []

    def made_after_a_pop(*args: Any, **kwargs: Any) -> Any:
        several.marks.pop_started()  # type: ignore[union-attr]
        several.marks.pop_ended(0)  # type: ignore[union-attr]  # reads the new stream
        ended.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "Listener", made_after_a_pop)
    clients = [Client(server_url, namespace=ns, worker_name="w") for ns in NAMESPACES[:2]]
    news = Notices(on_work=lambda: None, is_news=lambda _: True, on_reconnect=lambda: None,
                   on_schedule=lambda: None)
    try:
        several.start(news, [Part(c, 0.0) for c in clients])
        assert ended == [True]  # both namespaces on one server: one listener
        assert several.first is not None
    finally:
        several.stop()
        for c in clients:
            c.close()
