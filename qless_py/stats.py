"""Queue statistics: the core's per-day wait/run summaries as typed values, and merging.

The core keeps, per queue and UTC day, a count, mean and sum of squared deviations of
wait and run times plus a histogram of 148 bins: s0..s59 (one second each), m1..m59 (one
minute), h1..h23 (one hour), d1..d6 (one day). ``BIN_EDGES`` gives those bins in seconds.

Beside it (an extension, ``qlpy.stats``) the core counts every sample in a fine
histogram: bucket ``b`` holds samples ``10**(b/20) <= seconds < 10**((b+1)/20)`` (20 per
decade, each 12.2 % wide), bucket ``FINE_LOWEST`` everything below 0.1 ms and
``FINE_HIGHEST`` everything from 10**10 s on. Its
percentiles are what the whole-second bins cannot give for jobs that take milliseconds.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
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


FINE_PER_DECADE = 20
FINE_LOWEST = -81
"""The fine bucket of every sample below ``10**-4`` s (0.1 ms), zero and negative ones too."""
FINE_FLOOR = 1e-4
FINE_HIGHEST = 199
"""The fine bucket of every sample from ``10**10`` s (317 years) on."""


def fine_bucket(seconds: float) -> int:
    """The fine bucket the core counts a sample of ``seconds`` in."""
    if not seconds >= FINE_FLOOR:
        return FINE_LOWEST
    return min(FINE_HIGHEST, math.floor(math.log10(seconds) * FINE_PER_DECADE))


@functools.lru_cache(maxsize=512)
def fine_bounds(bucket: int) -> tuple[float, float]:
    """``(low, high)`` in seconds of a fine bucket (the lowest one starts at 0, the
    highest ends at infinity)."""
    if bucket <= FINE_LOWEST:
        return 0.0, FINE_FLOOR
    if bucket >= FINE_HIGHEST:
        return 10 ** (FINE_HIGHEST / FINE_PER_DECADE), math.inf
    return 10 ** (bucket / FINE_PER_DECADE), 10 ** ((bucket + 1) / FINE_PER_DECADE)


FINE_ERROR = 10 ** (1 / FINE_PER_DECADE) - 1
"""Largest relative error of a percentile above 0.1 ms (a bucket's width, 12.2 %)."""


@dataclass(frozen=True, slots=True)
class FineHistogram:
    """Sample counts per fine bucket: ``counts`` holds ``(bucket, n)``, ascending, n > 0."""

    counts: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_core(cls, raw: Mapping[str, Any]) -> FineHistogram:
        """From the core's ``{"<bucket>": n}`` (fields that are not whole numbers are
        skipped: the hash belongs to the server, not to us)."""
        counts: dict[int, int] = {}
        for bucket, n in raw.items():
            try:
                b, c = int(bucket), int(n)
            except (TypeError, ValueError):
                continue
            if c > 0:
                counts[max(b, FINE_LOWEST)] = counts.get(max(b, FINE_LOWEST), 0) + c
        return cls(tuple(sorted(counts.items())))

    @property
    def count(self) -> int:
        return sum(n for _, n in self.counts)

    @property
    def buckets(self) -> list[tuple[float, float, int]]:
        """``(low, high, count)`` in seconds for every bucket holding samples."""
        return [(*fine_bounds(b), n) for b, n in self.counts]

    def cumulative(self, bounds: Sequence[float]) -> list[int]:
        """For each of the ascending ``bounds`` (seconds), how many samples lie in buckets
        that end at or below it (exact when the bounds are bucket bounds)."""
        out, seen, i = [], 0, 0
        for bound in bounds:
            limit = bound * (1 + 1e-12)
            while i < len(self.counts) and fine_bounds(self.counts[i][0])[1] <= limit:
                seen += self.counts[i][1]
                i += 1
            out.append(seen)
        return out

    def percentile(self, q: float) -> float | None:
        """The ``q``-quantile (0 < q <= 1) in seconds, or None without samples.

        The nearest-rank sample's bucket is found exactly; inside it the value is
        interpolated on the log scale, so the answer is within ``FINE_ERROR`` of the
        true sample (within 0.1 ms below that)."""
        if not 0 < q <= 1:
            raise ValueError("q must be in (0, 1]")
        total = self.count
        if total == 0:
            return None
        rank = max(1, math.ceil(q * total - 1e-9))
        seen = 0
        for bucket, n in self.counts:
            if seen + n >= rank:
                low, high = fine_bounds(bucket)
                within = (rank - seen - 0.5) / n
                if low == 0:
                    return high * within
                if high == math.inf:
                    return low
                return float(low * (high / low) ** within)
            seen += n
        raise AssertionError("unreachable: rank <= total")

    def merge(self, other: FineHistogram) -> FineHistogram:
        counts = dict(self.counts)
        for b, n in other.counts:
            counts[b] = counts.get(b, 0) + n
        return FineHistogram(tuple(sorted(counts.items())))


PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99))
"""The percentiles every report carries, by name."""


@dataclass(frozen=True, slots=True)
class TimingStats:
    """Count, mean and sample standard deviation (seconds), the histogram counts, and the
    fine histogram (empty when the data were recorded by a core without it).

    ``histogram`` is ``()`` when the statistics were read without qless's bins (see
    ``client.queues.stats``); merging such statistics with ones that have bins keeps the
    bins that were read.
    """

    count: int
    mean: float
    std: float
    histogram: tuple[int, ...]
    fine: FineHistogram = FineHistogram()

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], fine: Mapping[str, Any] | None = None
                  ) -> TimingStats:
        """From the ``wait``/``run`` part of a ``stats`` reply (with ``fine``, the same part
        of a ``qlpy.stats`` reply) or of a ``qlpy.stats`` reply alone."""
        hist: tuple[int, ...] = ()
        if "histogram" in raw:
            bins = [int(n) for n in raw.get("histogram") or []]
            hist = tuple((bins + [0] * BIN_COUNT)[:BIN_COUNT])
        buckets = (fine if fine is not None else raw).get("fine") or {}
        return cls(int(raw.get("count") or 0), float(raw.get("mean") or 0),
                   float(raw.get("std") or 0), hist, FineHistogram.from_core(buckets))

    @classmethod
    def empty(cls) -> TimingStats:
        return cls(0, 0.0, 0.0, (0,) * BIN_COUNT)

    def percentile(self, q: float) -> float | None:
        """The ``q``-quantile in seconds from the fine histogram (see FineHistogram)."""
        return self.fine.percentile(q)

    def to_dict(self) -> dict[str, Any]:
        """As the core reports it (mean and std ``0`` without samples), plus percentiles
        (None without fine samples) and the fine buckets as ``[low, high, count]`` (high
        None for the last bucket, which has no end)."""
        out: dict[str, Any] = {
            "count": self.count, "mean": self.mean if self.count else 0,
            "std": self.std if self.count else 0, "histogram": list(self.histogram)}
        for name, q in PERCENTILES:
            out[name] = self.percentile(q)
        out["fine"] = [[low, high if high < math.inf else None, n]
                       for low, high, n in self.fine.buckets]
        return out

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
        if self.histogram and other.histogram:
            hist = tuple(a + b for a, b in zip(self.histogram, other.histogram, strict=True))
        else:
            hist = self.histogram or other.histogram
        return TimingStats(total, mean, std, hist, self.fine.merge(other.fine))


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
    def from_core(cls, text: str, fine: str | None = None) -> QueueStats:
        """From a ``stats`` reply and a ``qlpy.stats`` reply, or from either alone (qless's
        bins come only with ``stats``, the fine histograms only with ``qlpy.stats``;
        ``qless_py.calls.queue.stats_batch`` sends them)."""
        raw = json.loads(text)
        extra = json.loads(fine) if fine else {}
        return cls(TimingStats.from_core(raw.get("wait") or {}, extra.get("wait")),
                   TimingStats.from_core(raw.get("run") or {}, extra.get("run")),
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


def report(queue: str, start: float, end: float, stats: QueueStats) -> dict[str, Any]:
    """The JSON of ``qless-py stats`` (and of the dashboard's API) for a range of days."""
    return {
        "queue": queue,
        "from": _iso_day(start), "to": _iso_day(end),
        "failed": stats.failed, "failures": stats.failures, "retries": stats.retries,
        "expired": stats.expired, "wait": stats.wait.to_dict(), "run": stats.run.to_dict(),
    }


def _iso_day(when: float) -> str:
    return dt.datetime.fromtimestamp(when, tz=dt.UTC).date().isoformat()


def human_seconds(seconds: float | None) -> str:
    """A duration in the unit that reads best, three significant digits (``7.08ms``)."""
    if seconds is None:
        return "-"
    if seconds == math.inf:
        return "∞"
    units = ((86400, "d"), (3600, "h"), (60, "m"), (1, "s"), (1e-3, "ms"), (1e-6, "µs"))
    for size, unit in units:
        if abs(seconds) >= size:
            return f"{seconds / size:.3g}{unit}"
    return "0s" if seconds == 0 else f"{seconds * 1e6:.3g}µs"
