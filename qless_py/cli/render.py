"""Rich views for the command line: one job, job tables, counts tables, histograms."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from qless_py.cli.common import format_time
from qless_py.client.relay import shown
from qless_py.stats import BIN_LABELS, human_seconds

if TYPE_CHECKING:
    from qless_py import Job, RecurringJob


def _kv_table(rows: Iterable[tuple[str, Any]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, value if isinstance(value, Text) else Text(str(value)))
    return table


def job_view(job: Job) -> RenderableType:
    """The ``qless-py job JID`` page."""
    rows: list[tuple[str, Any]] = [
        ("class", job.klass_name),
        ("queue", job.queue_name or "-"),
        ("state", Text(job.state, style=state_style(job.state))),
        ("priority", job.to_dict()["priority"]),
        ("worker", job.worker_name or "-"),
        ("lock expires", format_time(job.expires_at) if job.expires_at else "-"),
        ("retries left", f"{job.retries_left} of {job.original_retries}"),
        ("tracked", "yes" if job.tracked else "no"),
        ("tags", ", ".join(job.tags) or "-"),
        ("depends on", ", ".join(map(shown, job.dependencies)) or "-"),
        ("dependents", ", ".join(map(shown, job.dependents)) or "-"),
    ]
    if job.spawned_from_jid:
        rows.append(("spawned from", job.spawned_from_jid))
    if len(job.throttles) > 1:
        rows.append(("throttles", ", ".join(job.throttles)))
    if job.key is not None:
        rows.append(("ordering key", job.key))
    if job.start_within is not None:
        rows.append(("ttl", f"must start within {job.to_dict()['ttl']} s"))
    parts: list[RenderableType] = [_kv_table(rows), data_panel(job.data)]
    failure = job.failure
    if failure is not None:
        parts.append(Panel(
            _kv_table([("group", failure.group), ("when", format_time(failure.when)),
                       ("worker", failure.worker or "-"), ("message", failure.message)]),
            title="failure", title_align="left", border_style="red"))
    parts.append(history_table(job.history))
    return Panel(Group(*parts), title=f"job {job.jid}", title_align="left")


def data_panel(data: Any) -> Panel:
    return Panel(Text(json.dumps(data, indent=2, sort_keys=True, default=str)), title="data",
                 title_align="left")


def history_table(history: Sequence[Mapping[str, Any]]) -> Table:
    table = Table(title="history", title_justify="left", expand=False)
    table.add_column("when (UTC)")
    table.add_column("what")
    table.add_column("details")
    for entry in history:
        extra = {k: v for k, v in entry.items() if k not in ("when", "what")}
        details = ", ".join(f"{k}={v}" for k, v in sorted(extra.items()))
        table.add_row(format_time(entry.get("when")), str(entry.get("what", "")), details)
    return table


def recurring_view(template: RecurringJob) -> RenderableType:
    shown = template.to_dict()
    rows = [
        ("class", template.klass_name),
        ("queue", template.queue_name),
        ("interval", f"{shown['interval']} s"),
        ("priority", shown["priority"]),
        ("retries", template.retries),
        ("backlog", shown["backlog"]),
        ("spawned", template.count),
        ("tags", ", ".join(template.tags) or "-"),
    ]
    return Panel(Group(_kv_table(rows), data_panel(template.data)),
                 title=f"recurring job {template.jid}", title_align="left")


def state_style(state: str) -> str:
    return {"failed": "red", "running": "green", "complete": "dim", "stalled": "yellow",
            "scheduled": "cyan", "depends": "magenta", "throttled": "blue"}.get(state, "")


def jobs_table(jobs: Sequence[Mapping[str, Any]], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for name in ("jid", "class", "queue", "state", "priority", "worker", "tags"):
        table.add_column(name)
    for job in jobs:
        state = str(job.get("state", ""))
        table.add_row(str(job.get("jid", "")), str(job.get("klass", "")),
                      str(job.get("queue", "")), Text(state, style=state_style(state)),
                      str(job.get("priority", "")), str(job.get("worker") or ""),
                      ", ".join(job.get("tags", [])))
    return table


def counts_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for name in columns:
        numeric = bool(rows) and all(isinstance(row.get(name), int | float)
                                     and not isinstance(row.get(name), bool) for row in rows)
        table.add_column(name, justify="right" if numeric else "left")
    for row in rows:
        cells = []
        for name in columns:
            value = row.get(name, "")
            if isinstance(value, bool):
                value = "yes" if value else ""
            cells.append(str(value))
        table.add_row(*cells)
    return table


def bucket_labels() -> list[str]:
    """Labels of the 148 histogram buckets (``4s``, ``1m``, ``2h``, ``1d``)."""
    return [label[1:] + label[0] for label in BIN_LABELS]


def histogram(values: Sequence[int], title: str, width: int = 40) -> RenderableType:
    """A horizontal bar chart of the non-empty buckets (empty ones between are elided)."""
    labels = bucket_labels()
    used = [i for i, v in enumerate(values) if v]
    if not used:
        return Text(f"{title}: no samples", style="dim")
    peak = max(values)
    table = Table(title=title, title_justify="left", show_header=False, box=None,
                  padding=(0, 1))
    table.add_column(justify="right")
    table.add_column()
    table.add_column(justify="right")
    for i in range(used[0], used[-1] + 1):
        value = values[i]
        if not value:
            continue
        eighths = round(value / peak * width * 8)
        bar = "█" * (eighths // 8) + ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")[eighths % 8]
        label = labels[i] if i < len(labels) else str(i)
        table.add_row(label, Text(bar or "▏", style="cyan"), str(value))
    return table


def bars(rows: Sequence[tuple[str, int]], title: str, width: int = 40) -> RenderableType:
    """A horizontal bar chart of labelled counts."""
    peak = max((n for _, n in rows), default=0)
    table = Table(title=title, title_justify="left", show_header=False, box=None,
                  padding=(0, 1))
    table.add_column(justify="right")
    table.add_column()
    table.add_column(justify="right")
    for label, value in rows:
        eighths = round(value / peak * width * 8) if peak else 0
        bar = "█" * (eighths // 8) + ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")[eighths % 8]
        table.add_row(label, Text(bar or "▏", style="cyan"), str(value))
    return table


def fine_histogram(buckets: Sequence[Sequence[Any]], title: str) -> RenderableType:
    """Bars of the fine buckets ``[low, high, count]`` that hold samples (high None: the
    last bucket, which has no end)."""
    rows = [(f"{human_seconds(low)}-{human_seconds(high)}" if high is not None
             else f"{human_seconds(low)}-", int(n)) for low, high, n in buckets]
    return bars(rows, title)


def timing_view(name: str, part: Mapping[str, Any]) -> RenderableType:
    """Count, mean, std, percentiles and the histogram of one of ``wait``/``run``: the fine
    one when the core recorded it, else qless's whole-second bins."""
    count = int(part.get("count", 0))
    head = Text(f"{name}: count {count}  mean {human_seconds(float(part.get('mean', 0)))}  "
                f"std {human_seconds(float(part.get('std', 0)))}", style="bold")
    if part.get("p50") is not None:
        head.append("  " + "  ".join(f"{p} {human_seconds(part.get(p))}"
                                     for p in ("p50", "p90", "p99")))
    fine = part.get("fine") or []
    if fine:
        return Group(head, fine_histogram(fine, f"{name} time histogram"))
    return Group(head, histogram(list(part.get("histogram", [])), f"{name} time histogram"))
