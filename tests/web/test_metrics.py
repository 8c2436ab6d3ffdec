"""``/metrics``: OpenMetrics text read back by prometheus_client's parser, every value checked
against the database itself, and the number of round trips it costs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from freezegun import freeze_time
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from qless_py import Client
from qless_py.web.metrics import CONTENT_TYPE, EXPORT_BOUNDS
from tests.replies import text
from tests.web.conftest import MakeWeb, Web, frozen_at

NOW = "2030-01-01 12:00:00"
DAY0 = 1893456000
ODD = 'we"ird\\q\nname'


@pytest.fixture(autouse=True)
def frozen() -> Iterator[None]:
    with frozen_at(NOW):
        yield


def populate(client: Client) -> None:
    with freeze_time("2030-01-01 11:59:00") as tick:
        for name in ("q", ODD):
            queue = client.queues[name]
            for i, wait in enumerate((0.0003, 0.007, 0.12, 2.5, 0.05)):
                queue.put("a.Job", {}, jid=f"{name}-{i}")
                tick.tick(wait)
                job = queue.pop()
                assert job is not None
                tick.tick(0.01 * (i + 1))
                if i == 4:
                    job.fail("boom" if name == "q" else 'g"2', "x")
                elif i == 3:
                    job.retry()
                else:
                    job.complete()
            queue.put("a.Job", {}, jid=f"{name}-later", delay=600)
        client.queues["q"].put("a.Job", {}, jid="dep", depends=["q-later"])
        client.queues["q"].recur("a.Job", {}, interval=60, jid="rec", offset=600)
        client.queues["idle"].put("a.Job", {}, jid="idle-1")
        client.queues["idle"].pause()
        assert client.queues["q"].pop() is not None  # q-3, retried: running now


def scrape(web: Web) -> dict[str, Any]:
    answer = web.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == CONTENT_TYPE
    samples: dict[Any, Any] = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            assert key not in samples, key
            samples[key] = sample.value
        samples[f"type:{family.name}"] = family.type
    return samples


def value(samples: dict[Any, Any], name: str, **labels: str) -> Any:
    return samples[(name, tuple(sorted(labels.items())))]


def test_every_value_matches_the_database(client: Client, web: Web,
                                          redis_conn: redis.Redis) -> None:
    populate(client)
    samples = scrape(web)
    now = DAY0 + 12 * 3600
    names = [text(m) for m in redis_conn.zrange("ql:queues", 0, -1)]
    assert sorted(names) == sorted(["q", ODD, "idle"])
    for name in names:
        prefix = f"ql:q:{name}"
        expected = {
            "waiting": redis_conn.zcard(f"{prefix}-work"),
            "running": redis_conn.zcount(f"{prefix}-locks", now, "+inf"),
            "stalled": redis_conn.zcount(f"{prefix}-locks", "-inf", now),
            "scheduled": redis_conn.zcard(f"{prefix}-scheduled"),
            "depends": redis_conn.zcard(f"{prefix}-depends"),
            "throttled": redis_conn.zcard(f"{prefix}-throttled"),
            "recurring": redis_conn.zcard(f"{prefix}-recur"),
        }
        for state, n in expected.items():
            assert value(samples, "qless_queue_jobs", queue=name, state=state) == n
        paused = redis_conn.sismember("ql:paused_queues", name)
        assert value(samples, "qless_queue_paused", queue=name) == (1 if paused else 0)
        for kind in ("wait", "run"):
            check_histogram(samples, redis_conn, name, kind)
        stats = {text(k): int(v) for k, v in
                 redis_conn.hgetall(f"ql:s:stats:{DAY0}:{name}").items()}
        assert value(samples, "qless_job_failures_total", queue=name) == stats.get("failures", 0)
        assert value(samples, "qless_job_retries_total", queue=name) == stats.get("retries", 0)
        assert value(samples, "qless_job_failures_created", queue=name) == DAY0
    for group in ("boom", 'g"2'):
        assert value(samples, "qless_failed_jobs", group=group) == redis_conn.llen(f"ql:f:{group}")
    assert value(samples, "qless_workers", ) == redis_conn.zcard("ql:workers")
    assert value(samples, "qless_queue_jobs", queue="q", state="running") == 1
    assert value(samples, "qless_queue_paused", queue="idle") == 1
    assert samples["type:qless_job_wait_seconds"] == "histogram"
    assert samples["type:qless_job_failures"] == "counter"
    assert samples["type:qless_queue_jobs"] == "gauge"


def check_histogram(samples: dict[str, Any], conn: redis.Redis, queue: str, kind: str) -> None:
    name = f"qless_job_{kind}_seconds"
    fine = {int(k): int(v) for k, v in
            conn.hgetall(f"ql:fine:ql:s:{kind}:{DAY0}:{queue}").items()}
    coarse = {text(k): float(v) for k, v in conn.hgetall(f"ql:s:{kind}:{DAY0}:{queue}").items()}
    total = int(coarse.get("total", 0))
    assert value(samples, f"{name}_count", queue=queue) == total == sum(fine.values())
    assert value(samples, f"{name}_sum", queue=queue) == pytest.approx(
        coarse.get("mean", 0) * total)
    assert value(samples, f"{name}_created", queue=queue) == DAY0
    for bound in EXPORT_BOUNDS:
        below = sum(n for b, n in fine.items() if 10 ** ((b + 1) / 20) <= bound * (1 + 1e-12))
        assert value(samples, f"{name}_bucket", queue=queue, le=_le(bound)) == below
    assert value(samples, f"{name}_bucket", queue=queue, le="+Inf") == total


def _le(bound: float) -> str:
    # The parser hands le back as written; the exposition writes Python's repr.
    return repr(bound)


def test_fine_buckets_resolve_milliseconds(client: Client, web: Web) -> None:
    populate(client)
    samples = scrape(web)
    # The waits of q: 0.3 ms, 7 ms, 120 ms, 2.5 s and 50 ms, plus q-3's second wait.
    at = {le: value(samples, "qless_job_wait_seconds_bucket", queue="q", le=repr(le))
          for le in EXPORT_BOUNDS}
    assert at[0.001] == 1 and at[0.01] == 2 and at[0.1] == 3 and at[1.0] == 4
    assert len(EXPORT_BOUNDS) == 27 and EXPORT_BOUNDS[0] == 0.001 and math.isclose(
        EXPORT_BOUNDS[-1], 5.0118723362727e5)


def test_round_trips_grow_with_queues_not_jobs(client: Client, make_web: MakeWeb,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    web = make_web()
    counted: list[int] = []
    original = client.core._redis_send
    original_call = client.core._redis_call

    def send(payload: bytes, count: int) -> Any:
        counted.append(count)
        return original(payload, count)

    def call(argv: list[Any]) -> Any:
        counted.append(1)
        return original_call(argv)

    monkeypatch.setattr(client.core, "_redis_send", send)
    monkeypatch.setattr(client.core, "_redis_call", call)

    def trips(jobs: int, queues: int) -> tuple[int, int]:
        client.redis.flushdb()
        for q in range(queues):
            client.queues[f"q{q}"].put_many([("a.Job", {})] * jobs)
        counted.clear()
        scrape(web)
        return len(counted), sum(counted)

    small = trips(jobs=1, queues=3)
    assert trips(jobs=400, queues=3) == small
    assert small == (2, 3 + 3)  # queues, failed and workers at once; then a call per queue
    assert trips(jobs=1, queues=6) == (2, 3 + 6)


def test_metrics_only_serves_metrics_alone(client: Client, make_web: MakeWeb) -> None:
    client.queues["q"].put("a.Job", {}, jid="a")
    web = make_web(metrics_only=True)
    assert value(scrape(web), "qless_queue_jobs", queue="q", state="waiting") == 1
    for path in ("/", "/api/overview", "/jobs/a", "/static/app.js", "/api/csrf"):
        assert web.get(path).status_code == 404, path
    token_free = web.post("/api/jobs/a/cancel", headers={"sec-fetch-site": "same-origin"})
    assert token_free.status_code == 403
    assert client.jobs["a"] is not None


def test_a_namespace_labels_every_sample_and_shows_its_own_data(
        server_url: str, client: Client, make_web: MakeWeb) -> None:
    populate(client)  # the default namespace's data, which a namespace must not show
    billing = Client(server_url, worker_name="web-test", namespace="billing")
    try:
        billing.queues["in voices"].put("a.Job", {}, jid="inv-1")
        samples = scrape(make_web(c=billing))
        keys: list[Any] = [key for key in samples if isinstance(key, tuple)]
        labelled: list[dict[str, str]] = [dict(key[1]) for key in keys]
        assert labelled, samples
        assert all(labels.get("namespace") == "billing" for labels in labelled)
        assert value(samples, "qless_queue_jobs", namespace="billing", queue="in voices",
                     state="waiting") == 1
        assert not any(labels.get("queue") == "q" for labels in labelled)
        # and the dashboard's pages show the namespace's queue
        assert "in voices" in make_web(c=billing).html("/")
    finally:
        billing.close()
