"""``GET /metrics``: the state of every queue in OpenMetrics text, collected at scrape time.

Four round trips whatever the size of the database: the queues' counts, the failure
groups, the workers, and one pipeline of a ``qlpy.stats`` call per queue (today's figures
and fine histograms). Nothing here reads a job, so the cost grows with the number of queues
and never with the number of jobs.

Histograms and counters cover today (UTC): they start again at midnight, which their
``_created`` sample (the day's start) tells Prometheus.
"""

from __future__ import annotations

from collections.abc import Iterator

from qless_py import Client, clock
from qless_py.calls.check import CheckSummary
from qless_py.stats import FINE_PER_DECADE, QueueStats, TimingStats, day_start, fine_bounds

CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
STATES = ("waiting", "running", "stalled", "scheduled", "depends", "throttled", "recurring")


def _export_bounds() -> tuple[float, ...]:
    """Upper bounds of the exported buckets: the fine bounds nearest to 1, 2 and 5 times a
    power of ten (1.000, 1.995, 5.012), from 1 ms to about 5.8 days. Each is a real
    bucket bound, so every exported count is exact."""
    steps = (0, 6, 14)
    return tuple(fine_bounds(decade * FINE_PER_DECADE + step)[0]
                 for decade in range(-3, 6) for step in steps)


EXPORT_BOUNDS = _export_bounds()
EXPORT_LABELS = tuple(repr(bound) for bound in EXPORT_BOUNDS)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(**labels: str) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items()) + "}"


def _number(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _family(name: str, kind: str, help_text: str, unit: str | None = None) -> Iterator[str]:
    yield f"# TYPE {name} {kind}"
    if unit:
        yield f"# UNIT {name} {unit}"
    yield f"# HELP {name} {help_text}"


def _histogram(name: str, queue: str, timing: TimingStats, created: float) -> Iterator[str]:
    count = max(timing.count, timing.fine.count)
    label = f'queue="{_escape(queue)}"'
    for le, below in zip(EXPORT_LABELS, timing.fine.cumulative(EXPORT_BOUNDS), strict=True):
        yield f'{name}_bucket{{{label},le="{le}"}} {below}'
    # Samples recorded without the fine histogram (by another core) count only here.
    yield f'{name}_bucket{{{label},le="+Inf"}} {count}'
    yield f"{name}_count{{{label}}} {count}"
    yield f"{name}_sum{{{label}}} {_number(timing.mean * timing.count)}"
    yield f"{name}_created{{{label}}} {_number(created)}"


def lines(counts: list[dict[str, object]], failed: dict[str, int], workers: int,
          stats: dict[str, QueueStats], created: float,
          check: CheckSummary | None = None) -> Iterator[str]:
    """The exposition, line by line, from values already read (no I/O here)."""
    names = [str(row["name"]) for row in counts]
    yield from _family("qless_queue_jobs", "gauge", "Jobs in a queue, by state.")
    for row in counts:
        for state in STATES:
            value = row.get(state, 0)
            yield (f"qless_queue_jobs{_labels(queue=str(row['name']), state=state)} "
                   f"{_number(float(value) if isinstance(value, int | float) else 0)}")
    yield from _family("qless_queue_paused", "gauge", "1 when the queue is paused.")
    for row in counts:
        yield f"qless_queue_paused{_labels(queue=str(row['name']))} {1 if row.get('paused') else 0}"
    yield from _family("qless_failed_jobs", "gauge", "Failed jobs, by failure group.")
    for group, n in sorted(failed.items()):
        yield f"qless_failed_jobs{_labels(group=group)} {n}"
    yield from _family("qless_workers", "gauge", "Workers the server knows (active recently).")
    yield f"qless_workers {workers}"
    for kind in ("wait", "run"):
        name = f"qless_job_{kind}_seconds"
        what = "waited before a worker took it" if kind == "wait" else "ran"
        yield from _family(name, "histogram", f"How long each job {what} today (UTC).",
                           "seconds")
        for queue in names:
            yield from _histogram(name, queue, getattr(stats[queue], kind), created)
    for field, help_text in (("failures", "Jobs that failed today (UTC)."),
                             ("retries", "Jobs retried today (UTC).")):
        name = f"qless_job_{field}"
        yield from _family(name, "counter", help_text)
        for queue in names:
            yield f"{name}_total{_labels(queue=queue)} {getattr(stats[queue], field)}"
            yield f"{name}_created{_labels(queue=queue)} {_number(created)}"
    if check is not None:
        yield from _check_lines(check)
    yield "# EOF"


def _check_lines(check: CheckSummary) -> Iterator[str]:
    """The last finished ``qless-py check``: its findings by invariant, keys, when."""
    yield from _family("qless_check_findings", "gauge",
                       "Findings of the last finished check, by invariant.")
    for invariant, n in sorted(check.counts.items()):
        yield f"qless_check_findings{_labels(invariant=invariant)} {n}"
    yield from _family("qless_check_keys", "gauge", "Keys the last finished check looked at.")
    yield f"qless_check_keys {check.keys}"
    yield from _family("qless_check_finished_seconds", "gauge",
                       "When the last check finished (Unix time).", "seconds")
    yield f"qless_check_finished_seconds {_number(check.finished)}"


def exposition(client: Client) -> str:
    """The OpenMetrics text for ``client``'s server now."""
    now = clock.now()
    counts = client.queues.counts
    failed = client.jobs.failed()
    workers = len(client.workers.counts)
    stats = client.queues.stats([str(row["name"]) for row in counts], now)
    check = client.last_check()
    found = lines(counts, failed, workers, stats, day_start(now), check)
    namespace = client.keys.namespace
    if namespace is not None:  # every sample of a namespace says which (docs/web.md)
        found = (_in_namespace(line, namespace) for line in found)
    return "\n".join(found) + "\n"


def _in_namespace(line: str, namespace: str) -> str:
    """A sample line with the label ``namespace`` first; comment lines as they are."""
    if line.startswith("#"):
        return line
    name, _, rest = line.rpartition(" ")  # a label's value may hold spaces, the value not
    label = f'namespace="{_escape(namespace)}"'
    if name.endswith("}"):
        metric, _, labels = name.partition("{")
        return f"{metric}{{{label},{labels} {rest}"
    return f"{name}{{{label}}} {rest}"
