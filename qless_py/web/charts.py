"""Histogram charts as server-side SVG geometry: pages draw them without any script.

A chart is a row of equal-width bars, one per bucket from the first that holds samples to
the last (the fine buckets are equal steps on a log scale, so equal widths are honest),
with ticks at every power of ten.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qless_py.stats import BIN_EDGES, FINE_LOWEST, FINE_PER_DECADE, fine_bounds, human_seconds

WIDTH, HEIGHT, AXIS = 640, 150, 18
MIN_SLOTS = 24


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    title: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    axis_y: int
    bars: list[Bar]
    ticks: list[tuple[float, str]]
    samples: int


def _bucket_of(low: float) -> int:
    if low <= 0:
        return FINE_LOWEST
    return round(math.log10(low) * FINE_PER_DECADE)


def _layout(slots: Sequence[tuple[str, int]], ticks: dict[int, str]) -> Chart:
    count = max(len(slots), 1)
    step = WIDTH / count
    peak = max((n for _, n in slots), default=0)
    bars = []
    for i, (title, n) in enumerate(slots):
        if n:
            height = max(1.0, (HEIGHT - AXIS - 4) * n / peak)
            bars.append(Bar(round(i * step + step * 0.1, 2), round(HEIGHT - AXIS - height, 2),
                            round(step * 0.8, 2), round(height, 2), title))
    marks = [(round(i * step, 2), label) for i, label in sorted(ticks.items())]
    return Chart(WIDTH, HEIGHT, HEIGHT - AXIS, bars, marks, sum(n for _, n in slots))


def fine_chart(buckets: Sequence[Sequence[Any]]) -> Chart:
    """A chart of the fine buckets ``[low, high, count]`` (as ``TimingStats.to_dict``)."""
    counts = {_bucket_of(float(low)): int(n) for low, _, n in buckets}
    if not counts:
        return _layout([], {})
    first, last = min(counts), max(counts)
    pad = max(0, MIN_SLOTS - (last - first + 1))
    first, last = max(FINE_LOWEST, first - pad // 2), last + pad - pad // 2
    slots, ticks = [], {}
    for i, b in enumerate(range(first, last + 1)):
        low, high = fine_bounds(b)
        n = counts.get(b, 0)
        slots.append((f"{human_seconds(low)} to {human_seconds(high)}: {n}", n))
        if b % FINE_PER_DECADE == 0 or b == FINE_LOWEST:
            ticks[i] = "0" if b == FINE_LOWEST else human_seconds(low)
    return _layout(slots, ticks)


def coarse_chart(histogram: Sequence[int]) -> Chart:
    """A chart of qless's whole-second bins, for days recorded without the fine one."""
    used = [i for i, n in enumerate(histogram) if n]
    if not used:
        return _layout([], {})
    slots, ticks = [], {}
    for i, b in enumerate(range(used[0], used[-1] + 1)):
        low, high = BIN_EDGES[b], BIN_EDGES[b + 1]
        slots.append((f"{human_seconds(low)} to {human_seconds(high)}: {histogram[b]}",
                      int(histogram[b])))
        if i % 5 == 0:
            ticks[i] = human_seconds(low) if low else "0"
    return _layout(slots, ticks)


def timing_chart(timing: dict[str, Any]) -> Chart:
    """The fine chart when the day has fine samples, else qless's bins."""
    if timing.get("fine"):
        return fine_chart(timing["fine"])
    return coarse_chart(timing.get("histogram") or [])
