"""Queue statistics: the core's numbers as typed values, bins with edges, merging days."""

from __future__ import annotations

import itertools
import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qless_py import QueueStats, TimingStats, merge_stats
from qless_py.stats import BIN_COUNT, BIN_EDGES, BIN_LABELS, day_start, day_starts
from tests.client.conftest import AnyClient, frozen, run

NOOP = "tests.client.jobs.Noop"
DAY0 = 1893456000  # T0 as Unix seconds (a UTC midnight)


def test_bins_have_explicit_edges() -> None:
    assert BIN_COUNT == 148 == len(BIN_LABELS) == len(BIN_EDGES) - 1
    assert BIN_EDGES[:3] == (0.0, 1.0, 2.0) and BIN_EDGES[60] == 60.0
    assert BIN_EDGES[61] == 120.0 and BIN_EDGES[119] == 3600.0 and BIN_EDGES[120] == 7200.0
    assert BIN_EDGES[142] == 86400.0 and BIN_EDGES[-1] == 7 * 86400.0
    assert BIN_LABELS[59:62] == ("s59", "m1", "m2") and BIN_LABELS[-1] == "d6"
    assert all(a < b for a, b in itertools.pairwise(BIN_EDGES))


async def _run_day(client: AnyClient, waits: list[float], runs: float) -> None:
    queue = client.queues["q"]
    with frozen() as clock:
        for i, wait in enumerate(waits):
            await run(queue.put(NOOP, {}, jid=f"j{i}"))
            clock.tick(wait)
            job = await run(queue.pop())
            assert job is not None
            clock.tick(runs)
            await run(job.complete())
            clock.tick(-(wait + runs))


@pytest.mark.asyncio
async def test_stats_of_a_day(client: AnyClient) -> None:
    await _run_day(client, [5, 5, 65], runs=3700)
    with frozen():
        stats = await run(client.queues["q"].stats())
    assert stats == await run(client.queues["q"].stats(DAY0 + 100))
    assert stats.wait.count == 3
    assert stats.wait.mean == pytest.approx(25)
    assert stats.wait.std == pytest.approx(statistics.stdev([5, 5, 65]))
    assert stats.wait.histogram[5] == 2 and stats.wait.histogram[60] == 1  # s5, m1
    assert sum(stats.wait.histogram) == 3
    assert stats.run.count == 3 and stats.run.histogram[119] == 3  # h1
    low, high, n = stats.run.bins[119]
    assert (low, high, n) == (3600.0, 7200.0, 3)
    assert (stats.failures, stats.failed, stats.retries) == (0, 0, 0)
    assert stats["wait"]["count"] == 3


@pytest.mark.asyncio
async def test_failures_are_counted(client: AnyClient) -> None:
    with frozen():
        await run(client.queues["q"].put(NOOP, {}, jid="a"))
        await run((await run(client.queues["q"].pop())).fail("g", "m"))
        stats = await run(client.queues["q"].stats())
    assert (stats.failures, stats.failed) == (1, 1)


@pytest.mark.asyncio
async def test_empty_day(client: AnyClient) -> None:
    assert await run(client.queues["q"].stats(DAY0)) == QueueStats.empty()


def test_merge_is_exact() -> None:
    a = [1.0, 2.0, 4.0]
    b = [10.0, 30.0]
    c = [7.0]

    def timing(xs: list[float]) -> TimingStats:
        hist = [0] * BIN_COUNT
        for x in xs:
            hist[int(x)] += 1
        std = statistics.stdev(xs) if len(xs) > 1 else 0.0
        return TimingStats(len(xs), statistics.mean(xs), std, tuple(hist))

    merged = timing(a).merge(timing(b)).merge(timing(c)).merge(TimingStats.empty())
    whole = timing(a + b + c)
    assert merged.count == whole.count and merged.histogram == whole.histogram
    assert math.isclose(merged.mean, whole.mean) and math.isclose(merged.std, whole.std)
    assert TimingStats.empty().merge(timing(c)) == timing(c)


@pytest.mark.asyncio
async def test_stats_range_sums_days(client: AnyClient) -> None:
    queue = client.queues["q"]
    for day, waits in ((0, [2, 4]), (1, []), (2, [9])):
        with frozen() as clock:
            clock.tick(day * 86400)
            for i, wait in enumerate(waits):
                await run(queue.put(NOOP, {}, jid=f"d{day}-{i}"))
                clock.tick(wait)
                await run((await run(queue.pop())).complete())
                clock.tick(-wait)
    total = await run(queue.stats_range(DAY0 + 10, DAY0 + 2 * 86400 + 5))
    assert total.wait.count == 3
    assert total.wait.mean == pytest.approx(5)
    assert total.wait.std == pytest.approx(statistics.stdev([2, 4, 9]))
    days = [await run(queue.stats(DAY0 + d * 86400)) for d in range(3)]
    assert total == merge_stats(days)
    assert list(day_starts(DAY0 + 5, DAY0 + 86400)) == [DAY0, DAY0 + 86400]
    assert day_start(DAY0 + 86399.5) == DAY0
    with pytest.raises(ValueError):
        await run(queue.stats_range(DAY0 + 86400, DAY0))


def _timing_of(xs: list[float]) -> TimingStats:
    hist = [0] * BIN_COUNT
    for x in xs:
        hist[min(int(x), 59)] += 1
    std = statistics.stdev(xs) if len(xs) > 1 else 0.0
    mean = statistics.fmean(xs) if xs else 0.0
    return TimingStats(len(xs), mean, std, tuple(hist))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(0, 59.9), max_size=6), max_size=5))
def test_merging_any_split_equals_the_whole(parts: list[list[float]]) -> None:
    merged = TimingStats.empty()
    for part in parts:
        merged = merged.merge(_timing_of(part))
    whole = _timing_of([x for part in parts for x in part])
    assert merged.count == whole.count and merged.histogram == whole.histogram
    assert merged.mean == pytest.approx(whole.mean, abs=1e-9)
    assert merged.std == pytest.approx(whole.std, abs=1e-7)
