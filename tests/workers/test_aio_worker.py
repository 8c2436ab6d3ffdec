"""The asyncio worker in the test's own event loop: handlers of both kinds, the
concurrency limit, cancellation of a lost job, and a loop that is never blocked (asyncio's
debug mode with a slow-step threshold; tests/loopcheck.py fails the test on a warning).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from qless_py import Client
from qless_py.aio import AsyncClient
from qless_py.aio import Job as AsyncJob
from qless_py.workers.aio import AsyncWorker
from tests import jobs
from tests.loopcheck import SLOW, collected, no_slow_callbacks
from tests.replies import text
from tests.workers import async_jobs
from tests.workers.conftest import ROOT

AJ = "tests.workers.async_jobs"


@pytest.fixture(autouse=True)
def _no_collection() -> Iterator[None]:
    with collected():
        yield


@pytest_asyncio.fixture
async def aclient(server_url: str) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(server_url, worker_name="producer") as client:
        yield client


async def until(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Wait in the loop for a condition the test reads (awaitable or not)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(0.01)


def make_worker(url: str, queues: list[str], **kwargs: Any) -> AsyncWorker:
    kwargs.setdefault("handle_signals", False)
    return AsyncWorker(Client(url, worker_name="aw"), queues, **kwargs)


async def get_job(aclient: AsyncClient, jid: str) -> AsyncJob:
    """The job ``jid``, which must exist and not be a recurring template."""
    job = await aclient.jobs[jid]
    assert isinstance(job, AsyncJob), f"expected job {jid}, found {job!r}"
    return job


async def states(aclient: AsyncClient, jids: list[str]) -> dict[str, str]:
    return {job.jid: job.state for job in await aclient.jobs.get(*jids)}


@pytest.mark.asyncio
async def test_async_and_plain_handlers_run_in_one_loop_that_never_blocks(
        server_url: str, aclient: AsyncClient) -> None:
    q = aclient.queues["q"]
    awaited = [await q.put(f"{AJ}.Noop", {}) for _ in range(29)]
    awaited.append(await q.put(f"{AJ}.Wrapped", {}))
    threaded = [await q.put("tests.jobs.Noop", {}) for _ in range(30)]
    advancing = [await q.put(f"{AJ}.Advance", {"next": "q2"}) for _ in range(5)]
    raising = [await q.put(f"{AJ}.Raiser", {}) for _ in range(3)]
    missing = await q.put("tests.workers.no_such_module.Job", {})
    method_missing = await q.put("tests.jobs.NoMethod", {})
    worker = make_worker(server_url, ["q", "q2"], concurrency=8, threads=3, burst=True)
    async with no_slow_callbacks(SLOW):
        code = await worker.work()
    assert code == 0
    done = await states(aclient, awaited + threaded + advancing)
    assert set(done.values()) == {"complete"}, done
    counts = await aclient.redis.hgetall(jobs.COMPLETED)
    assert {text(k) for k in counts} == {f"{j}:{stage}" for j in advancing
                                            for stage in ("q", "q2")}
    assert set((await aclient.redis.hgetall(jobs.RUNS)).values()) == {b"1"}
    assert len(await aclient.redis.hgetall(jobs.RUNS)) == 60
    failed = await aclient.jobs.failed()
    assert failed == {"q-ValueError": 3, "q-ImportError": 1, "q-method-missing": 1}
    for jid in raising:
        job = await get_job(aclient, jid)
        assert job.failure is not None
        assert "boom from " + jid in job.failure.message
    job = await get_job(aclient, missing)
    assert job.failure is not None
    assert "no_such_module" in job.failure.message
    job = await get_job(aclient, method_missing)
    assert job.failure is not None and job.failure.group == "q-method-missing"
    assert worker.stats.jobs == 75  # the advancing jobs run twice
    assert "aw" not in [w["name"] for w in await aclient.workers.counts]  # deregistered


@pytest.mark.asyncio
async def test_the_retry_decorator_retries_an_async_handler(
        server_url: str, aclient: AsyncClient) -> None:
    q = aclient.queues["q"]
    transient = await q.put(f"{AJ}.Flaky", {}, tags=["transient"], retries=3)
    broken = await q.put(f"{AJ}.Flaky", {}, retries=3)
    worker = make_worker(server_url, ["q"], concurrency=2, burst=True)
    assert await worker.work() == 0
    job = await get_job(aclient, transient)
    # retried once (no failure, a second pop), then done; complete restores its retries
    assert job.state == "complete" and job.failure is None
    assert [entry["what"] for entry in job.history] == ["put", "popped", "popped", "done"]
    job = await get_job(aclient, broken)
    assert job.state == "failed" and job.failure is not None
    assert job.failure.group == "q-KeyError"


@pytest.mark.asyncio
@pytest.mark.parametrize(("klasses", "concurrency"), [
    (["Crowd"], 4), (["ThreadCrowd"], 3), (["Crowd", "ThreadCrowd"], 5)])
async def test_never_more_than_concurrency_jobs_run_at_once(
        server_url: str, aclient: AsyncClient, klasses: list[str], concurrency: int) -> None:
    # Each job waits (up to 5 s) until `size` jobs run at once, with `size` above the
    # limit: a worker that ran more at once would let one see more than the limit.
    size = concurrency + 1
    jids = [await aclient.queues["q"].put(f"{AJ}.{klasses[i % len(klasses)]}",
                                          {"size": size, "within": 0.3})
            for i in range(4 * concurrency)]
    worker = make_worker(server_url, ["q"], concurrency=concurrency, threads=8, burst=True)
    async with no_slow_callbacks(SLOW):
        assert await worker.work() == 0
    assert set((await states(aclient, jids)).values()) == {"complete"}
    seen = [int(v) for v in (await aclient.redis.hgetall(async_jobs.PEAK)).values()]
    assert len(seen) == len(jids)
    assert max(seen) == concurrency  # reached, never passed


async def _started(aclient: AsyncClient, jid: str) -> bool:
    return bool(await aclient.redis.hget(jobs.STARTED, jid))


@pytest.mark.asyncio
@pytest.mark.parametrize("how", ["timeout", "cancel"])
async def test_a_lost_job_s_task_is_cancelled_and_never_completed(
        server_url: str, aclient: AsyncClient, how: str) -> None:
    jid = await aclient.queues["q"].put(f"{AJ}.Sleeper", {"seconds": 60})
    worker = make_worker(server_url, ["q"], concurrency=2)
    async with no_slow_callbacks(SLOW):
        running = asyncio.get_running_loop().create_task(worker.work())
        await until(lambda: _started(aclient, jid))
        if how == "timeout":
            await aclient.queues["q"].pause()  # the stalled job stays in the queue
            await aclient("timeout", jid)  # lock_lost for the holder
        else:
            await aclient.jobs.cancel(jid)  # canceled for the holder
        await until(lambda: aclient.redis.hget(async_jobs.CANCELLED, jid))
        await until(lambda: worker.stats.jobs == 1)
        worker.stop("now")
        assert await running == 0
    assert worker.stats.outcomes == {"lost": 1}
    assert await aclient.redis.hget(jobs.RECORD, jid) == b"stopped"
    assert await aclient.redis.hget(jobs.COMPLETED, jid) is None
    job = await aclient.jobs[jid]
    if how == "timeout":
        assert isinstance(job, AsyncJob) and job.state == "stalled"
        assert "done" not in [entry["what"] for entry in job.history]
    else:
        assert job is None


@pytest.mark.asyncio
async def test_a_lost_thread_pool_job_is_told_through_its_stop_event(
        server_url: str, aclient: AsyncClient) -> None:
    jid = await aclient.queues["q"].put("tests.jobs.Sleeper", {"seconds": 60})
    worker = make_worker(server_url, ["q"], concurrency=2)
    async with no_slow_callbacks(SLOW):
        running = asyncio.get_running_loop().create_task(worker.work())
        await until(lambda: _started(aclient, jid))
        await aclient.queues["q"].pause()
        await aclient("timeout", jid)
        await until(lambda: worker.stats.jobs == 1)
        worker.stop("now")
        assert await running == 0
    assert worker.stats.outcomes == {"stopped": 1}
    assert await aclient.redis.hget(jobs.RECORD, jid) == b"stopped"
    job = await aclient.jobs[jid]
    assert job is not None and job.state == "stalled"


@pytest.mark.asyncio
async def test_stop_now_gives_running_jobs_back_without_a_retry(
        server_url: str, aclient: AsyncClient) -> None:
    jids = [await aclient.queues["q"].put(f"{AJ}.Sleeper", {"seconds": 60}, retries=3),
            await aclient.queues["q"].put("tests.jobs.Sleeper", {"seconds": 60}, retries=3)]
    worker = make_worker(server_url, ["q"], concurrency=2)
    async with no_slow_callbacks(SLOW):
        running = asyncio.get_running_loop().create_task(worker.work())
        for jid in jids:
            await until(partial(_started, aclient, jid))
        worker.stop("now")
        assert await running == 0
    for jid in jids:
        job = await get_job(aclient, jid)
        assert job.state == "waiting" and job.retries_left == 3
        assert await aclient.redis.hget(jobs.RECORD, jid) == b"stopped"


def _docs_job_class() -> str:
    """The job class docs/asyncio.md shows, as the text of a module."""
    text = (ROOT / "docs" / "asyncio.md").read_text()
    marker = "<!-- the job class below is run by tests/workers/test_aio_worker.py -->"
    block = text.split(marker, 1)[1].split("```python\n", 1)[1]
    return block.split("```", 1)[0]


@pytest.mark.asyncio
async def test_the_docs_job_class_runs_both_stages(
        server_url: str, aclient: AsyncClient, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "billing_example.py").write_text(_docs_job_class())
    monkeypatch.syspath_prepend(str(tmp_path))
    jid = await aclient.queues["invoices"].put("billing_example.SendInvoice",
                                               {"customer": 42})
    worker = make_worker(server_url, ["invoices", "archive"], concurrency=4, burst=True)
    async with no_slow_callbacks(SLOW):
        assert await worker.work() == 0
    job = await get_job(aclient, jid)
    assert job.state == "complete"
    assert job.data == {"customer": 42, "sent": True}
    put = [entry["q"] for entry in job.history if entry["what"] == "put"]
    assert put == ["invoices", "archive"]
    assert [entry["what"] for entry in job.history].count("popped") == 2
    assert worker.stats.outcomes == {"waiting": 1, "complete": 1}


@pytest.mark.asyncio
async def test_its_connections_carry_the_worker_name(
        server_url: str, aclient: AsyncClient) -> None:
    jid = await aclient.queues["q"].put(f"{AJ}.Noop", {})
    worker = make_worker(server_url, ["q"], concurrency=2)
    async with no_slow_callbacks(SLOW):
        running = asyncio.get_running_loop().create_task(worker.work())
        await until(lambda: _started(aclient, jid))
        await until(lambda: worker._listener is not None and worker._listener.subscribed)
        listing = (await aclient.redis.execute_command("CLIENT", "LIST")).decode()
        worker.stop("now")
        assert await running == 0
    names = [field.split("=", 1)[1] for line in listing.splitlines()
             for field in line.split() if field.startswith("name=")]
    # the core calls' pipelined connection, the listener's and the async client's own
    assert names.count("qless-py:aw") >= 3, names
    assert set(names) <= {"qless-py:aw", ""}, names
