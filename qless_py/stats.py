"""Queue statistics: the core's per-day wait/run summaries as typed values, and merging.

The core keeps, per queue and UTC day, a count, mean and sum of squared deviations of
wait and run times plus a histogram of 148 bins: s0..s59 (one second each), m1..m59 (one
minute), h1..h23 (one hour), d1..d6 (one day). ``BIN_EDGES`` gives those bins in seconds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

DAY = 86400


def _edges() -> tuple[float, ...]:
    edges = [float(s) for s in range(61)]                      # s0..s59 -> 0..60
    edges += [float(m * 60) for m in range(2, 61)]             # m1..m59 -> ..3600
    edges += [float(h * 3600) for h in range(2, 25)]           # h1..h23 -> ..86400
    edges += [float(d * DAY) for d in range(2, 8)]             # d1..d6  -> ..604800
    return tuple(edges)


BIN_EDGES: tuple[float, ...] = _edges()
"""149 edges; bin ``i`` holds samples ``BIN_EDGES[i] <= seconds < BIN_EDGES[i + 1]``."""

BIN_LABELS: tuple[str, ...] = (
    tuple(f"s{i}" for i in range(60)) + tuple(f"m{i}" for i in range(1, 60))
    + tuple(f"h{i}" for i in range(1, 24)) + tuple(f"d{i}" for i in range(1, 7))
)
BIN_COUNT = len(BIN_LABELS)  # 148


def day_start(when: float) -> int:
    """UTC midnight of the day containing ``when`` (the core's day bin)."""
    return int(when - (when % DAY))


def day_starts(start: float, end: float) -> Iterator[int]:
    """Every day bin from the day of ``start`` to the day of ``end`` inclusive."""
    if end < start:
        raise ValueError("end must not be before start")
    day, last = day_start(start), day_start(end)
    while day <= last:
        yield day
        day += DAY


@dataclass(frozen=True, slots=True)
class TimingStats:
    """Count, mean and sample standard deviation (seconds), and the histogram counts."""

    count: int
    mean: float
    std: float
    histogram: tuple[int, ...]

    @classmethod
    def from_core(cls, raw: dict[str, Any]) -> TimingStats:
        hist = [int(n) for n in raw.get("histogram") or []]
        hist = (hist + [0] * BIN_COUNT)[:BIN_COUNT]
        return cls(int(raw.get("count") or 0), float(raw.get("mean") or 0),
                   float(raw.get("std") or 0), tuple(hist))

    @classmethod
    def empty(cls) -> TimingStats:
        return cls(0, 0.0, 0.0, (0,) * BIN_COUNT)

    @property
    def bins(self) -> list[tuple[float, float, int]]:
        """``(low, high, count)`` per histogram bin, in seconds."""
        return [(BIN_EDGES[i], BIN_EDGES[i + 1], n) for i, n in enumerate(self.histogram)]

    def merge(self, other: TimingStats) -> TimingStats:
        """Statistics of both samples together (exact for count, mean and variance)."""
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        n1, n2 = self.count, other.count
        total = n1 + n2
        delta = other.mean - self.mean
        mean = self.mean + delta * n2 / total
        m2 = (self.std ** 2 * (n1 - 1) + other.std ** 2 * (n2 - 1)
              + delta * delta * n1 * n2 / total)
        std = math.sqrt(m2 / (total - 1)) if total > 1 else 0.0
        hist = tuple(a + b for a, b in zip(self.histogram, other.histogram, strict=True))
        return TimingStats(total, mean, std, hist)


@dataclass(frozen=True, slots=True)
class QueueStats:
    """One queue's statistics for a day (or a merged range of days)."""

    wait: TimingStats
    run: TimingStats
    failures: int
    failed: int
    retries: int
    expired: int = 0
    """Jobs removed because they did not start within their ttl (docs/throttles.md)."""

    @classmethod
    def from_core(cls, text: str) -> QueueStats:
        raw = json.loads(text)
        return cls(TimingStats.from_core(raw.get("wait") or {}),
                   TimingStats.from_core(raw.get("run") or {}),
                   int(raw.get("failures") or 0), int(raw.get("failed") or 0),
                   int(raw.get("retries") or 0), int(raw.get("expired") or 0))

    @classmethod
    def empty(cls) -> QueueStats:
        return cls(TimingStats.empty(), TimingStats.empty(), 0, 0, 0)

    def merge(self, other: QueueStats) -> QueueStats:
        return QueueStats(self.wait.merge(other.wait), self.run.merge(other.run),
                          self.failures + other.failures, self.failed + other.failed,
                          self.retries + other.retries, self.expired + other.expired)

    def __getitem__(self, key: str) -> Any:
        """``stats['wait']['count']`` style access, as qless-py returned a dict."""
        if key in ("wait", "run"):
            timing: TimingStats = getattr(self, key)
            return {"count": timing.count, "mean": timing.mean, "std": timing.std,
                    "histogram": list(timing.histogram)}
        if key in ("failures", "failed", "retries", "expired"):
            return getattr(self, key)
        raise KeyError(key)


def merge_stats(items: Iterable[QueueStats]) -> QueueStats:
    """Merge several days (or queues) of statistics into one."""
    total = QueueStats.empty()
    for item in items:
        total = total.merge(item)
    return total
