"""Queue-level commands: queues, workers, failed, unfail, pause/unpause, stats."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import Any

import click
from rich.console import Group

from qless_py import clock
from qless_py.cli.common import (
    as_list,
    console,
    echo_json,
    fail,
    format_time,
    json_option,
    json_reply,
    pass_client,
)
from qless_py.cli.jobs import fetch_jobs
from qless_py.cli.render import counts_table, timing_view

QUEUE_COLUMNS = ("name", "waiting", "running", "stalled", "scheduled", "depends",
                 "recurring", "paused")
DAY = 86400


def known_queues(client: Any) -> list[dict[str, Any]]:
    return [q for q in as_list(json_reply(client("queues"))) if isinstance(q, dict)]


def require_queues(client: Any, names: Sequence[str]) -> None:
    """Fail on the first name that is not a known queue (before anything is written)."""
    known = {q["name"] for q in known_queues(client)}
    for name in names:
        if name not in known:
            fail(f"no such queue: {name!r} (known: {', '.join(sorted(known)) or 'none'})")


@click.command()
@json_option
@pass_client
def queues(client: Any, as_json: bool) -> None:
    """Job counts of every queue."""
    rows = known_queues(client)
    if as_json:
        echo_json(rows)
        return
    console().print(counts_table(rows, QUEUE_COLUMNS, "queues"))


@click.command()
@click.argument("name", required=False)
@json_option
@pass_client
def workers(client: Any, name: str | None, as_json: bool) -> None:
    """Workers with their job counts, or the jobs of one worker."""
    if name is None:
        rows = [w for w in as_list(json_reply(client("workers"))) if isinstance(w, dict)]
        if as_json:
            echo_json(rows)
        else:
            console().print(counts_table(rows, ("name", "jobs", "stalled"), "workers"))
        return
    detail = json_reply(client("workers", name))
    result = {"name": name, "jobs": as_list(detail.get("jobs")),
              "stalled": as_list(detail.get("stalled"))}
    if as_json:
        echo_json(result)
        return
    click.echo(f"worker {name}")
    click.echo(f"  running: {', '.join(result['jobs']) or '-'}")
    click.echo(f"  stalled: {', '.join(result['stalled']) or '-'}")


def summary(lines: list[str]) -> str:
    """One line of a failure message: a traceback's last line, else the first line."""
    lines = [line for line in lines if line.strip()]
    if not lines:
        return ""
    return lines[-1].strip() if lines[0].startswith("Traceback") else lines[0].strip()


@click.command()
@click.argument("group", required=False)
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--count", type=click.IntRange(min=1), default=25, show_default=True)
@json_option
@pass_client
def failed(client: Any, group: str | None, offset: int, count: int, as_json: bool) -> None:
    """Failure groups with their counts, or the failed jobs of GROUP (newest first)."""
    if group is None:
        groups = json_reply(client("failed"))
        groups = groups if isinstance(groups, dict) else {}
        if as_json:
            echo_json(groups)
            return
        rows = [{"group": g, "jobs": n} for g, n in sorted(groups.items())]
        console().print(counts_table(rows, ("group", "jobs"), "failure groups"))
        return
    page = json_reply(client("failed", group, offset, count))
    found = fetch_jobs(client, as_list(page.get("jobs")))
    if as_json:
        echo_json({"group": group, "total": page.get("total", 0), "jobs": found})
        return
    rows = []
    for job in found:
        failure = job.get("failure") or {}
        lines = str(failure.get("message") or "").splitlines()
        rows.append({"jid": job["jid"], "class": job.get("klass"), "queue": job.get("queue"),
                     "when": format_time(failure.get("when")),
                     "message": summary(lines)})
    console().print(counts_table(rows, ("jid", "class", "queue", "when", "message"),
                                 f"group {group}: {page.get('total', 0)} failed"))


@click.command()
@click.argument("group")
@click.option("--queue", default=None,
              help="Queue to put the jobs into (default: the queue they failed in).")
@click.option("--count", type=click.IntRange(min=1), default=25, show_default=True,
              help="How many of the oldest failed jobs to move.")
@pass_client
def unfail(client: Any, group: str, queue: str | None, count: int) -> None:
    """Put the oldest failed jobs of GROUP back into a queue."""
    total = int(json_reply(client("failed", group, 0, 1)).get("total", 0))
    if total == 0:
        fail(f"no failed jobs in group {group!r}")
    if queue is None:
        start = max(0, total - count)
        oldest = as_list(json_reply(client("failed", group, start, count)).get("jobs"))
        origins = sorted({str(j.get("queue")) for j in fetch_jobs(client, oldest)})
        if len(origins) != 1 or not origins[0]:
            fail(f"the jobs of {group!r} failed in several queues ({', '.join(origins)}); "
                 "choose one with --queue")
        queue = origins[0]
    else:
        require_queues(client, [queue])
    moved = int(client("unfail", queue, group, count))
    click.echo(f"moved {moved} job{'s' if moved != 1 else ''} from {group} to {queue}")


@click.command()
@click.argument("names", nargs=-1, required=True)
@pass_client
def pause(client: Any, names: tuple[str, ...]) -> None:
    """Pause queues: workers get no jobs from them until 'unpause'."""
    require_queues(client, names)
    client("pause", *names)
    click.echo(f"paused {', '.join(names)}")


@click.command()
@click.argument("names", nargs=-1, required=True)
@pass_client
def unpause(client: Any, names: tuple[str, ...]) -> None:
    """Let workers take jobs from paused queues again."""
    require_queues(client, names)
    client("unpause", *names)
    click.echo(f"unpaused {', '.join(names)}")


def parse_date(value: str) -> float:
    """``YYYY-MM-DD`` (UTC) or Unix seconds."""
    try:
        return float(value)
    except ValueError:
        pass
    try:
        day = dt.datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=dt.UTC)
    except ValueError:
        fail(f"--date must be YYYY-MM-DD or Unix seconds, not {value!r}")
    return day.timestamp()


def merge_timing(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Combine per-day count/mean/std/histogram into one (pooled variance)."""
    count = sum(int(p.get("count", 0)) for p in parts)
    histogram = [0] * 148
    for part in parts:
        for i, value in enumerate(part.get("histogram", [])[:148]):
            histogram[i] += int(value)
    if count == 0:
        return {"count": 0, "mean": 0, "std": 0, "histogram": histogram}
    mean = sum(int(p.get("count", 0)) * float(p.get("mean", 0)) for p in parts) / count
    squares = 0.0
    for part in parts:
        n, m, s = int(part.get("count", 0)), float(part.get("mean", 0)), float(part.get("std", 0))
        if n:
            squares += (n - 1) * s * s + n * (m - mean) ** 2
    std = math.sqrt(squares / (count - 1)) if count > 1 else 0.0
    return {"count": count, "mean": mean, "std": std, "histogram": histogram}


def queue_stats(client: Any, queue: str, date: float, days: int) -> dict[str, Any]:
    """Statistics of QUEUE for the ``days`` days ending with the day of ``date``."""
    replies = [json_reply(client("stats", queue, int(date - i * DAY))) for i in range(days)]
    first = dt.datetime.fromtimestamp(date - (days - 1) * DAY, tz=dt.UTC).date()
    last = dt.datetime.fromtimestamp(date, tz=dt.UTC).date()
    return {
        "queue": queue, "from": first.isoformat(), "to": last.isoformat(),
        "failed": sum(int(r.get("failed", 0)) for r in replies),
        "failures": sum(int(r.get("failures", 0)) for r in replies),
        "retries": sum(int(r.get("retries", 0)) for r in replies),
        "wait": merge_timing([r["wait"] for r in replies]),
        "run": merge_timing([r["run"] for r in replies]),
    }


def stats_view(stats: dict[str, Any]) -> Group:
    span = stats["from"] if stats["from"] == stats["to"] else f"{stats['from']} .. {stats['to']}"
    head = (f"queue {stats['queue']}, {span} (UTC): failures {stats['failures']}, "
            f"still failed {stats['failed']}, retries {stats['retries']}")
    return Group(head, timing_view("wait", stats["wait"]), timing_view("run", stats["run"]))


@click.command()
@click.argument("queue")
@click.option("--date", default=None, help="Day to report, YYYY-MM-DD (UTC); default today.")
@click.option("--days", type=click.IntRange(1, 366), default=None,
              help="Report the last N days together (ending today or at --date).")
@json_option
@pass_client
def stats(client: Any, queue: str, date: str | None, days: int | None, as_json: bool) -> None:
    """Wait and run times of QUEUE: count, mean, std and histograms."""
    when = parse_date(date) if date is not None else clock.now()
    result = queue_stats(client, queue, when, days or 1)
    recorded = result["wait"]["count"] or result["run"]["count"] or result["failures"]
    if not recorded and queue not in {q["name"] for q in known_queues(client)}:
        fail(f"no such queue: {queue!r}")
    if as_json:
        echo_json(result)
        return
    console().print(stats_view(result))


def register(group: click.Group) -> None:
    for command in (queues, workers, failed, unfail, pause, unpause, stats):
        group.add_command(command)
