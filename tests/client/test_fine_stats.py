"""The fine histograms through the client: distinct sub-second buckets, percentiles within
a bucket's error, merging days, several queues in one round trip."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qless_py.stats import (
    FINE_ERROR,
    FINE_LOWEST,
    FineHistogram,
    QueueStats,
    fine_bounds,
    fine_bucket,
    human_seconds,
)
from tests.client.conftest import AnyClient, frozen, run

NOOP = "tests.client.jobs.Noop"
DAY0 = 1893456000


def nearest_rank(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(q * len(ordered) - 1e-9)) - 1]


def histogram_of(samples: list[float]) -> FineHistogram:
    counts: dict[str, int] = {}
    for s in samples:
        counts[str(fine_bucket(s))] = counts.get(str(fine_bucket(s)), 0) + 1
    return FineHistogram.from_core(counts)


async def run_jobs(client: AnyClient, waits: list[float], runs: list[float]) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        for i, (wait, took) in enumerate(zip(waits, runs, strict=True)):
            await run(queue.put(NOOP, {}, jid=f"j{i}"))
            clock.tick(wait)
            job = await run(queue.pop())
            assert job is not None
            clock.tick(took)
            await run(job.complete())


@pytest.mark.asyncio
async def test_sub_second_samples_land_in_distinct_buckets(client: AnyClient) -> None:
    samples = [0.0003, 0.007, 0.12, 2.5]
    await run_jobs(client, samples, samples)
    stats = await run(client.queues["q"].stats(DAY0))
    for timing in (stats.wait, stats.run):
        assert [n for _, _, n in timing.fine.buckets] == [1, 1, 1, 1]
        for (low, high, _), sample in zip(timing.fine.buckets, samples, strict=True):
            assert low <= sample < high
        # Every percentile of four samples is one of them, found within its bucket's width.
        for q, sample in ((0.25, 0.0003), (0.5, 0.007), (0.75, 0.12), (1.0, 2.5)):
            got = timing.percentile(q)
            assert got is not None and abs(got / sample - 1) < FINE_ERROR
    # qless's own bins put the first three together.
    assert stats.wait.histogram[0] == 3


@pytest.mark.asyncio
async def test_percentiles_of_a_spread_of_samples(client: AnyClient) -> None:
    waits = [0.001 * 1.37 ** i for i in range(30)]  # 1 ms to about 9 s
    runs = [0.0025 + 0.0001 * i for i in range(30)]  # all between 2.5 and 5.4 ms
    await run_jobs(client, waits, runs)
    stats = await run(client.queues["q"].stats(DAY0))
    for timing, samples in ((stats.wait, waits), (stats.run, runs)):
        assert timing.fine.count == timing.count == 30
        for q in (0.5, 0.9, 0.95, 0.99):
            got, true = timing.percentile(q), nearest_rank(samples, q)
            assert got is not None and abs(got / true - 1) < FINE_ERROR, (q, got, true)


@pytest.mark.asyncio
async def test_days_merge_and_queues_come_together(client: AnyClient) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        for day in range(3):
            await run(queue.put(NOOP, {}, jid=f"d{day}"))
            clock.tick(0.004 * (day + 1))
            assert await run(queue.pop()) is not None
            clock.tick(86400)
    week = await run(queue.stats_range(DAY0, DAY0 + 2 * 86400))
    assert week.wait.fine.count == 3
    days = [await run(queue.stats(DAY0 + i * 86400)) for i in range(3)]
    assert week.wait.fine == days[0].wait.fine.merge(days[1].wait.fine).merge(
        days[2].wait.fine)
    assert await run(queue.stats_range(DAY0 + 86400)) == days[1]
    both = await run(client.queues.stats(["q", "empty"], DAY0 + 86400, bins=True))
    assert both["q"] == days[1]
    assert both["empty"] == QueueStats.empty()
    assert await run(client.queues.stats([])) == {}
    # Without qless's bins: the same figures and fine histograms, and no bins.
    lean = (await run(client.queues.stats(["q"], DAY0 + 86400)))["q"]
    full = both["q"]
    assert lean.wait.histogram == () and lean.wait.fine == full.wait.fine
    assert (lean.wait.count, lean.wait.mean, lean.wait.std) == (
        full.wait.count, full.wait.mean, full.wait.std)
    assert (lean.failures, lean.failed, lean.retries) == (full.failures, full.failed,
                                                          full.retries)
    assert lean.wait.to_dict()["histogram"] == []


def test_from_core_tolerates_foreign_fields() -> None:
    got = FineHistogram.from_core({"3": "2", "x": 1, "-90": 4, "5": "nan?", "6": 0})
    assert got.counts == ((FINE_LOWEST, 4), (3, 2))


def test_bounds_and_labels() -> None:
    assert fine_bounds(FINE_LOWEST) == (0.0, 1e-4)
    low, high = fine_bounds(-60)
    assert low == 0.001 and high == pytest.approx(10 ** (-59 / 20))
    assert fine_bucket(0) == fine_bucket(-3) == fine_bucket(5e-5) == FINE_LOWEST
    assert fine_bucket(1.0) == 0 and fine_bucket(10.0) == 20
    assert [human_seconds(x) for x in (0.0003, 0.00708, 2.5, 90, 7200, 3 * 86400, None)] == \
        ["300µs", "7.08ms", "2.5s", "1.5m", "2h", "3d", "-"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=1e-4, max_value=1e7), min_size=1, max_size=60),
       st.sampled_from([0.01, 0.5, 0.9, 0.95, 0.99, 1.0]))
def test_percentile_is_within_a_bucket_of_the_truth(samples: list[float], q: float) -> None:
    got = histogram_of(samples).percentile(q)
    true = nearest_rank(samples, q)
    assert got is not None and abs(got / true - 1) <= FINE_ERROR * (1 + 1e-9)


def test_percentile_rejects_nonsense() -> None:
    assert FineHistogram().percentile(0.5) is None
    with pytest.raises(ValueError):
        FineHistogram().percentile(0)
