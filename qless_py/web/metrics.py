"""``GET /metrics``: the state of every queue in OpenMetrics text, collected at scrape time.

Three round trips per namespace whatever the size of its database: one pipeline of the
queues' counts, the failure groups and the workers; one pipeline of a ``qlpy.stats`` call
per queue (today's figures and fine histograms); and the last check's summary. Nothing here
reads a job, so the cost grows with the number of namespaces and queues and never with the
number of jobs.

With several namespaces every sample carries the label ``namespace`` first (the default
namespace's value is empty, which Prometheus reads as no label at all); with one, only a
namespace other than the default one labels its samples.

Histograms and counters cover today (UTC): they start again at midnight, which their
``_created`` sample (the day's start) tells Prometheus.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from qless_py import Client, clock
from qless_py.calls.check import CheckSummary
from qless_py.stats import FINE_PER_DECADE, QueueStats, TimingStats, day_start, fine_bounds
from qless_py.web import data

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


def _labels(*first: str, **labels: str) -> str:
    """``{a="1",b="2"}``: ``first`` are labels already written (the namespace's)."""
    written = [*first, *(f'{k}="{_escape(v)}"' for k, v in labels.items())]
    return "{" + ",".join(written) + "}" if written else ""


def _number(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _family(name: str, kind: str, help_text: str, unit: str | None = None) -> Iterator[str]:
    yield f"# TYPE {name} {kind}"
    if unit:
        yield f"# UNIT {name} {unit}"
    yield f"# HELP {name} {help_text}"


def _histogram(name: str, ns: tuple[str, ...], queue: str, timing: TimingStats,
               created: float) -> Iterator[str]:
    count = max(timing.count, timing.fine.count)
    label = ",".join([*ns, f'queue="{_escape(queue)}"'])
    for le, below in zip(EXPORT_LABELS, timing.fine.cumulative(EXPORT_BOUNDS), strict=True):
        yield f'{name}_bucket{{{label},le="{le}"}} {below}'
    # Samples recorded without the fine histogram (by another core) count only here.
    yield f'{name}_bucket{{{label},le="+Inf"}} {count}'
    yield f"{name}_count{{{label}}} {count}"
    yield f"{name}_sum{{{label}}} {_number(timing.mean * timing.count)}"
    yield f"{name}_created{{{label}}} {_number(created)}"


@dataclass(frozen=True)
class Reading:
    """What one namespace's samples are made of, read at scrape time."""

    namespace: str | None
    counts: list[dict[str, object]]
    failed: dict[str, int]
    workers: int
    stats: dict[str, QueueStats]
    check: CheckSummary | None = None

    @property
    def names(self) -> list[str]:
        return [str(row["name"]) for row in self.counts]


def read(client: Client, now: float) -> Reading:
    """One namespace's reading: three round trips (two without queues)."""
    counts, failed, workers = data.summary(client)
    stats = client.queues.stats([str(row["name"]) for row in counts], now)
    return Reading(client.keys.namespace, counts, failed, len(workers), stats,
                   client.last_check())


Samples = Callable[[Reading, tuple[str, ...]], Iterator[str]]


def _queue_jobs(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
    for row in r.counts:
        for state in STATES:
            value = row.get(state, 0)
            yield (f"qless_queue_jobs{_labels(*ns, queue=str(row['name']), state=state)} "
                   f"{_number(float(value) if isinstance(value, int | float) else 0)}")


def _queue_paused(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
    for row in r.counts:
        paused = 1 if row.get("paused") else 0
        yield f"qless_queue_paused{_labels(*ns, queue=str(row['name']))} {paused}"


def _failed_jobs(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
    for group, n in sorted(r.failed.items()):
        yield f"qless_failed_jobs{_labels(*ns, group=group)} {n}"


def _workers(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
    yield f"qless_workers{_labels(*ns)} {r.workers}"


def _timings(kind: str, created: float) -> Samples:
    def samples(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
        for queue in r.names:
            yield from _histogram(f"qless_job_{kind}_seconds", ns, queue,
                                  getattr(r.stats[queue], kind), created)

    return samples


def _daily(field: str, created: float) -> Samples:
    def samples(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
        for queue in r.names:
            yield f"qless_job_{field}_total{_labels(*ns, queue=queue)} " \
                f"{getattr(r.stats[queue], field)}"
            yield f"qless_job_{field}_created{_labels(*ns, queue=queue)} {_number(created)}"

    return samples


def _check_findings(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
    if r.check is not None:
        for invariant, n in sorted(r.check.counts.items()):
            yield f"qless_check_findings{_labels(*ns, invariant=invariant)} {n}"


def _check_keys(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
    if r.check is not None:
        yield f"qless_check_keys{_labels(*ns)} {r.check.keys}"


def _check_finished(r: Reading, ns: tuple[str, ...]) -> Iterator[str]:
    if r.check is not None:
        yield f"qless_check_finished_seconds{_labels(*ns)} {_number(r.check.finished)}"


def _namespace_label(namespace: str | None, labelled: bool) -> tuple[str, ...]:
    if namespace is None and not labelled:
        return ()
    return (f'namespace="{_escape(namespace or "")}"',)


def lines(readings: Sequence[Reading], created: float, labelled: bool = False) -> Iterator[str]:
    """The exposition, line by line, from values already read (no I/O here): each family
    once, with the samples of every namespace in turn. ``labelled``: every sample carries
    ``namespace`` (the default namespace's empty); else only another namespace's do."""
    families: list[tuple[str, str, str, str | None, Samples]] = [
        ("qless_queue_jobs", "gauge", "Jobs in a queue, by state.", None, _queue_jobs),
        ("qless_queue_paused", "gauge", "1 when the queue is paused.", None, _queue_paused),
        ("qless_failed_jobs", "gauge", "Failed jobs, by failure group.", None, _failed_jobs),
        ("qless_workers", "gauge", "Workers the server knows (active recently).", None,
         _workers),
    ]
    for kind in ("wait", "run"):
        what = "waited before a worker took it" if kind == "wait" else "ran"
        families.append((f"qless_job_{kind}_seconds", "histogram",
                         f"How long each job {what} today (UTC).", "seconds",
                         _timings(kind, created)))
    families += [
        ("qless_job_failures", "counter", "Jobs that failed today (UTC).", None,
         _daily("failures", created)),
        ("qless_job_retries", "counter", "Jobs retried today (UTC).", None,
         _daily("retries", created)),
    ]
    if any(r.check is not None for r in readings):
        families += [
            ("qless_check_findings", "gauge",
             "Findings of the last finished check, by invariant.", None, _check_findings),
            ("qless_check_keys", "gauge", "Keys the last finished check looked at.", None,
             _check_keys),
            ("qless_check_finished_seconds", "gauge",
             "When the last check finished (Unix time).", "seconds", _check_finished),
        ]
    labels = [(r, _namespace_label(r.namespace, labelled)) for r in readings]
    for name, kind, help_text, unit, samples in families:
        yield from _family(name, kind, help_text, unit)
        for reading, ns in labels:
            yield from samples(reading, ns)
    yield "# EOF"


def exposition(clients: Sequence[Client], labelled: bool = False) -> str:
    """The OpenMetrics text for the namespaces of ``clients`` now (one client each)."""
    now = clock.now()
    readings = [read(client, now) for client in clients]
    return "\n".join(lines(readings, day_start(now), labelled)) + "\n"
