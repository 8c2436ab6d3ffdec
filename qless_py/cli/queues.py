"""Queue-level commands: queues, workers, failed, unfail, pause/unpause, stats."""

from __future__ import annotations

import datetime as dt
from typing import Any

import click
from rich.console import Group

from qless_py import Client, clock
from qless_py.cli.common import (
    console,
    echo_json,
    fail,
    format_time,
    json_option,
    pass_client,
    require_queues,
)
from qless_py.cli.render import counts_table, timing_view
from qless_py.stats import DAY, report

QUEUE_COLUMNS = ("name", "waiting", "running", "stalled", "scheduled", "depends",
                 "recurring", "throttled", "paused")


@click.command()
@json_option
@pass_client
def queues(client: Client, as_json: bool) -> None:
    """Job counts of every queue."""
    rows = client.queues.counts
    if as_json:
        echo_json(rows)
        return
    console().print(counts_table(rows, QUEUE_COLUMNS, "queues"))


@click.command()
@click.argument("name", required=False)
@json_option
@pass_client
def workers(client: Client, name: str | None, as_json: bool) -> None:
    """Workers with their job counts, or the jobs of one worker."""
    if name is None:
        rows = client.workers.counts
        if as_json:
            echo_json(rows)
        else:
            console().print(counts_table(rows, ("name", "jobs", "stalled"), "workers"))
        return
    detail = client.workers[name]
    if as_json:
        echo_json({"name": name, **detail})
        return
    click.echo(f"worker {name}")
    click.echo(f"  running: {', '.join(detail['jobs']) or '-'}")
    click.echo(f"  stalled: {', '.join(detail['stalled']) or '-'}")


def summary(message: str) -> str:
    """One line of a failure message: a traceback's last line, else the first line."""
    lines = [line for line in message.splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[-1].strip() if lines[0].startswith("Traceback") else lines[0].strip()


@click.command()
@click.argument("group", required=False)
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--count", type=click.IntRange(min=1), default=25, show_default=True)
@json_option
@pass_client
def failed(client: Client, group: str | None, offset: int, count: int, as_json: bool) -> None:
    """Failure groups with their counts, or the failed jobs of GROUP (newest first)."""
    if group is None:
        groups = client.jobs.failed()
        if as_json:
            echo_json(groups)
            return
        rows = [{"group": g, "jobs": n} for g, n in sorted(groups.items())]
        console().print(counts_table(rows, ("group", "jobs"), "failure groups"))
        return
    page = client.jobs.failed(group, offset, count)
    if as_json:
        echo_json({"group": group, "total": page["total"],
                   "jobs": [job.to_dict() for job in page["jobs"]]})
        return
    rows = []
    for job in page["jobs"]:
        failure = job.failure
        rows.append({"jid": job.jid, "class": job.klass_name, "queue": job.queue_name,
                     "when": format_time(failure.when if failure else None),
                     "message": summary(failure.message if failure else "")})
    console().print(counts_table(rows, ("jid", "class", "queue", "when", "message"),
                                 f"group {group}: {page['total']} failed"))


@click.command()
@click.argument("group")
@click.option("--queue", default=None,
              help="Queue to put the jobs into (default: the queue they failed in).")
@click.option("--count", type=click.IntRange(min=1), default=25, show_default=True,
              help="How many of the oldest failed jobs to move.")
@pass_client
def unfail(client: Client, group: str, queue: str | None, count: int) -> None:
    """Put the oldest failed jobs of GROUP back into a queue."""
    total = client.jobs.failed().get(group, 0)
    if total == 0:
        fail(f"no failed jobs in group {group!r}")
    if queue is None:
        oldest = client.jobs.failed(group, max(0, total - count), count)["jobs"]
        origins = sorted({job.queue_name for job in oldest})
        if len(origins) != 1 or not origins[0]:
            fail(f"the jobs of {group!r} failed in several queues ({', '.join(origins)}); "
                 "choose one with --queue")
        queue = origins[0]
    else:
        require_queues(client, [queue])
    moved = client.unfail(group, queue, count)
    click.echo(f"moved {moved} job{'s' if moved != 1 else ''} from {group} to {queue}")


@click.command()
@click.argument("names", nargs=-1, required=True)
@pass_client
def pause(client: Client, names: tuple[str, ...]) -> None:
    """Pause queues: workers get no jobs from them until 'unpause'."""
    require_queues(client, names)
    for name in names:
        client.queues[name].pause()
    click.echo(f"paused {', '.join(names)}")


@click.command()
@click.argument("names", nargs=-1, required=True)
@pass_client
def unpause(client: Client, names: tuple[str, ...]) -> None:
    """Let workers take jobs from paused queues again."""
    require_queues(client, names)
    for name in names:
        client.queues[name].unpause()
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


def queue_stats(client: Client, queue: str, date: float, days: int) -> dict[str, Any]:
    """Statistics of QUEUE for the ``days`` days ending with the day of ``date``, as JSON."""
    start = date - (days - 1) * DAY
    return report(queue, start, date, client.queues[queue].stats_range(start, date))


def stats_view(stats: dict[str, Any]) -> Group:
    span = stats["from"] if stats["from"] == stats["to"] else f"{stats['from']} .. {stats['to']}"
    head = (f"queue {stats['queue']}, {span} (UTC): failures {stats['failures']}, "
            f"still failed {stats['failed']}, retries {stats['retries']}, "
            f"expired {stats['expired']}")
    return Group(head, timing_view("wait", stats["wait"]), timing_view("run", stats["run"]))


@click.command()
@click.argument("queue")
@click.option("--date", default=None, help="Day to report, YYYY-MM-DD (UTC); default today.")
@click.option("--days", type=click.IntRange(1, 366), default=None,
              help="Report the last N days together (ending today or at --date).")
@json_option
@pass_client
def stats(client: Client, queue: str, date: str | None, days: int | None,
          as_json: bool) -> None:
    """Wait and run times of QUEUE: count, mean, std, p50/p90/p99 and histograms."""
    when = parse_date(date) if date is not None else clock.now()
    result = queue_stats(client, queue, when, days or 1)
    recorded = (result["wait"]["count"] or result["run"]["count"] or result["failures"]
                or result["expired"])
    if not recorded and queue not in client.queues.names():
        fail(f"no such queue: {queue!r}")
    if as_json:
        echo_json(result)
        return
    console().print(stats_view(result))


def register(group: click.Group) -> None:
    for command in (queues, workers, failed, unfail, pause, unpause, stats):
        group.add_command(command)
