"""Rich views for the command line: one job, job tables, counts tables, histograms."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from qless_py.cli.common import as_list, format_time

LIST_FIELDS = ("tags", "history", "dependents", "dependencies")


def normalize_job(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A core job object made friendly: real lists, decoded data, ``None`` for no failure."""
    job = dict(obj)
    for name in LIST_FIELDS:
        job[name] = as_list(job.get(name))
    raw = job.get("data")
    if isinstance(raw, str):
        try:
            job["data"] = json.loads(raw)
        except ValueError:
            job["data"] = raw
    failure = job.get("failure")
    job["failure"] = failure if isinstance(failure, dict) and failure else None
    if job.get("spawned_from_jid") is False:
        job["spawned_from_jid"] = None
    return job


def normalize_recurring(obj: Mapping[str, Any]) -> dict[str, Any]:
    job = dict(obj)
    job["tags"] = as_list(job.get("tags"))
    raw = job.get("data")
    if isinstance(raw, str):
        try:
            job["data"] = json.loads(raw)
        except ValueError:
            job["data"] = raw
    return job


def _kv_table(rows: Iterable[tuple[str, Any]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, value if isinstance(value, Text) else Text(str(value)))
    return table


def job_view(job: Mapping[str, Any]) -> RenderableType:
    """The ``qless-py job JID`` page."""
    expires = job.get("expires") or 0
    rows: list[tuple[str, Any]] = [
        ("class", job.get("klass", "")),
        ("queue", job.get("queue") or "-"),
        ("state", Text(str(job.get("state", "")), style=state_style(str(job.get("state"))))),
        ("priority", job.get("priority", 0)),
        ("worker", job.get("worker") or "-"),
        ("lock expires", format_time(expires) if expires else "-"),
        ("retries left", f"{job.get('remaining', '?')} of {job.get('retries', '?')}"),
        ("tracked", "yes" if job.get("tracked") else "no"),
        ("tags", ", ".join(job.get("tags", [])) or "-"),
        ("depends on", ", ".join(job.get("dependencies", [])) or "-"),
        ("dependents", ", ".join(job.get("dependents", [])) or "-"),
    ]
    if job.get("spawned_from_jid"):
        rows.append(("spawned from", job["spawned_from_jid"]))
    parts: list[RenderableType] = [_kv_table(rows)]
    parts.append(Panel(Text(json.dumps(job.get("data"), indent=2, sort_keys=True)),
                       title="data", title_align="left"))
    failure = job.get("failure")
    if failure:
        parts.append(Panel(
            _kv_table([("group", failure.get("group", "")),
                       ("when", format_time(failure.get("when"))),
                       ("worker", failure.get("worker") or "-"),
                       ("message", failure.get("message", ""))]),
            title="failure", title_align="left", border_style="red"))
    parts.append(history_table(job.get("history", [])))
    return Panel(Group(*parts), title=f"job {job.get('jid', '')}", title_align="left")


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


def recurring_view(job: Mapping[str, Any]) -> RenderableType:
    rows = [
        ("class", job.get("klass", "")),
        ("queue", job.get("queue", "")),
        ("interval", f"{job.get('interval')} s"),
        ("priority", job.get("priority", 0)),
        ("retries", job.get("retries", 0)),
        ("backlog", job.get("backlog", 0)),
        ("spawned", job.get("count", 0)),
        ("tags", ", ".join(job.get("tags", [])) or "-"),
    ]
    data = Panel(Text(json.dumps(job.get("data"), indent=2, sort_keys=True)), title="data",
                 title_align="left")
    return Panel(Group(_kv_table(rows), data), title=f"recurring job {job.get('jid', '')}",
                 title_align="left")


def state_style(state: str) -> str:
    return {"failed": "red", "running": "green", "complete": "dim", "stalled": "yellow",
            "scheduled": "cyan", "depends": "magenta"}.get(state, "")


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
    """Labels of the 148 histogram buckets of the ``stats`` reply (protocol 5.3)."""
    return ([f"{i}s" for i in range(60)] + [f"{i}m" for i in range(1, 60)]
            + [f"{i}h" for i in range(1, 24)] + [f"{i}d" for i in range(1, 7)])


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


def timing_view(name: str, part: Mapping[str, Any]) -> RenderableType:
    """Count, mean, std and the histogram of one of ``wait``/``run``."""
    count = int(part.get("count", 0))
    head = Text(f"{name}: count {count}  mean {float(part.get('mean', 0)):.3f}s  "
                f"std {float(part.get('std', 0)):.3f}s", style="bold")
    return Group(head, histogram(list(part.get("histogram", [])), f"{name} time histogram"))
