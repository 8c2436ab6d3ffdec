"""Job commands: put, job, jobs, retry, cancel, move, priority, track/untrack, tag.

They check every argument and every named job before the first write, act through the
typed client (``client.jobs``, ``client.queues``, ``Job`` methods) and render the result.
"""

from __future__ import annotations

from typing import Any, NoReturn

import click

from qless_py import Client, Job, RecurringJob
from qless_py.cli.common import (
    check_names,
    console,
    echo_json,
    fail,
    json_option,
    parse_json_arg,
    pass_client,
    require_queues,
)
from qless_py.cli.render import job_view, jobs_table, recurring_view

QUEUE_STATES = ("waiting", "running", "stalled", "scheduled", "depends", "recurring",
                "throttled")


def not_a_job(jid: str, found: Job | RecurringJob | None) -> NoReturn:
    """Fail for a jid that names no job, pointing at ``recur`` for a recurring job."""
    if isinstance(found, RecurringJob):
        fail(f"{jid} is a recurring job, not a job: see 'qless-py recur --help'")
    fail(f"no such job: {jid}")


def fetch_job(client: Client, jid: str) -> Job:
    """The job ``jid``, or a clear error when there is no such job."""
    found = client.jobs[jid]
    if not isinstance(found, Job):
        not_a_job(jid, found)
    return found


def require_jobs(client: Client, jids: tuple[str, ...]) -> list[Job]:
    """Every named job, or an error naming the first unknown one (nothing is written)."""
    found = {job.jid: job for job in client.jobs.get(*jids)}
    for jid in jids:
        if jid not in found:
            not_a_job(jid, client.jobs[jid])
    return [found[jid] for jid in jids]


@click.command()
@click.argument("queue")
@click.argument("klass")
@click.argument("data", required=False, default="{}")
@click.option("--jid", default=None, help="Job id (default: a random 32-hex id).")
@click.option("--priority", type=int, default=0, show_default=True,
              help="Higher runs first.")
@click.option("--tag", "tags", multiple=True, help="Tag the job (repeatable).")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0,
              help="Seconds before the job may run.")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="Retry budget.")
@click.option("--depends", "depends", multiple=True,
              help="A job this one waits for (repeatable; it must exist).")
@click.option("--throttle", "throttles", multiple=True,
              help="A throttle the job needs (repeatable): it runs only when each has room.")
@click.option("--key", default=None,
              help="Ordering key: jobs of QUEUE with the same key run one at a time, in order.")
@click.option("--ttl", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds the job may wait to start before it is removed.")
@click.option("--unique", is_flag=True,
              help="Leave an unfinished job with this --jid alone (print nothing).")
@pass_client
def put(client: Client, queue: str, klass: str, data: str, jid: str | None, priority: int,
        tags: tuple[str, ...], delay: float, retries: int, depends: tuple[str, ...],
        throttles: tuple[str, ...], key: str | None, ttl: float | None, unique: bool) -> None:
    """Put a job of class KLASS into QUEUE with JSON DATA (default {}); print its jid."""
    value = parse_json_arg(data, "DATA")
    check_names(queue, klass, jid)
    if unique and jid is None:
        fail("--unique needs --jid (a new random jid is always unique)")
    for name in throttles:
        if not name.strip():
            fail("--throttle must not be empty")
    if key is not None and not key.strip():
        fail("--key must not be empty")
    if depends:
        require_jobs(client, depends)
    put_jid = client.queues[queue].put(klass, value, priority=priority, tags=tags,
                                       delay=delay, retries=retries, jid=jid,
                                       depends=depends or None,
                                       throttles=throttles or None, key=key, ttl=ttl,
                                       unique=unique)
    if put_jid is None:
        click.echo(f"{jid} exists and is not complete: left alone", err=True)
        return
    click.echo(put_jid)


@click.command()
@click.argument("jid")
@json_option
@pass_client
def job(client: Client, jid: str, as_json: bool) -> None:
    """Show one job: data, history, failure, dependencies, tags."""
    found = client.jobs[jid]
    if found is None:
        fail(f"no such job: {jid}")
    if as_json:
        echo_json(found.to_dict())
    elif isinstance(found, RecurringJob):
        console().print(recurring_view(found))
    else:
        console().print(job_view(found))


def _select(queue: str | None, state: str | None, tag: str | None, tracked: bool,
            failed: str | None) -> str:
    """Which listing was asked for; exactly one source is allowed."""
    sources = [name for name, given in (("queue", queue is not None or state not in
                                         (None, "complete")),
                                        ("complete", state == "complete"),
                                        ("tag", tag is not None), ("tracked", tracked),
                                        ("failed", failed is not None)) if given]
    if len(sources) != 1:
        raise click.UsageError(
            "choose one listing: --queue Q [--state S], --state complete, --tag T, "
            "--tracked or --failed GROUP")
    if sources[0] == "queue" and queue is None:
        raise click.UsageError(f"--state {state} needs --queue")
    return sources[0]


def rows_of(client: Client, jids: list[str]) -> list[dict[str, Any]]:
    """The jobs of ``jids`` as JSON rows, in order; vanished jobs as ``state: expired``."""
    by_jid = {found.jid: found.to_dict() for found in client.jobs.get(*jids)}
    return [by_jid.get(jid, {"jid": jid, "state": "expired"}) for jid in jids]


def _page(client: Client, source: str, queue: str, state: str, tag: str, failed: str,
          offset: int, count: int) -> tuple[list[dict[str, Any]], int | None]:
    """The rows of one page and, when the listing knows it, the total."""
    if source == "complete":
        return rows_of(client, client.jobs.complete(offset, count)), None
    if source == "tag":
        tagged = client.jobs.tagged(tag, offset, count)
        return rows_of(client, tagged["jobs"]), tagged["total"]
    if source == "failed":
        page = client.jobs.failed(failed, offset, count)
        return [found.to_dict() for found in page["jobs"]], page["total"]
    if source == "tracked":
        listing = client.jobs.tracked()
        rows = [found.to_dict() for found in listing["jobs"]]
        rows += [{"jid": jid, "state": "expired"} for jid in listing["expired"]]
        return rows[offset:offset + count], len(rows)
    named = client.queues[queue]
    if state == "waiting":
        return [found.to_dict() for found in named.peek(offset + count)[offset:]], None
    jids: list[str] = getattr(named.jobs, state)(offset, count)
    if state == "recurring":
        templates = (client.jobs[jid] for jid in jids)
        return [t.to_dict() for t in templates if isinstance(t, RecurringJob)], None
    return rows_of(client, jids), None


@click.command()
@click.option("--queue", "-q", default=None, help="List one queue's jobs (see --state).")
@click.option("--state", "-s", type=click.Choice([*QUEUE_STATES, "complete"]), default=None,
              help="With --queue: which jobs (default waiting). Alone: 'complete'.")
@click.option("--tag", default=None, help="Jobs carrying this tag.")
@click.option("--tracked", is_flag=True, help="Tracked jobs.")
@click.option("--failed", "failed", default=None, metavar="GROUP",
              help="Jobs of one failure group.")
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--count", type=click.IntRange(min=1), default=25, show_default=True)
@json_option
@pass_client
def jobs(client: Client, queue: str | None, state: str | None, tag: str | None,
         tracked: bool, failed: str | None, offset: int, count: int, as_json: bool) -> None:
    """List jobs by queue and state, tag, tracking or failure group, one page at a time."""
    source = _select(queue, state, tag, tracked, failed)
    state = state or "waiting"
    if source == "queue" and queue is not None:
        require_queues(client, [queue])
    found, total = _page(client, source, queue or "", state, tag or "", failed or "",
                         offset, count)
    if as_json:
        echo_json({"jobs": found, "offset": offset, "count": count, "total": total})
        return
    title = {"queue": f"{state} jobs in {queue}", "complete": "complete jobs",
             "tag": f"jobs tagged {tag}", "tracked": "tracked jobs",
             "failed": f"failed jobs in group {failed}"}[source]
    shown = f"{offset + 1}-{offset + len(found)}" if found else "none"
    title += f" ({shown}" + (f" of {total})" if total is not None else ")")
    console().print(jobs_table(found, title))


@click.command()
@click.argument("jid")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0,
              help="Seconds before the job may run again.")
@pass_client
def retry(client: Client, jid: str, delay: float) -> None:
    """Put a failed job back into the queue it failed in."""
    found = fetch_job(client, jid)
    if found.state != "failed":
        fail(f"job {jid} is not failed (state: {found.state})")
    if not found.queue_name:
        fail(f"job {jid} has no queue to go back to")
    found.move(found.queue_name, delay)
    click.echo(f"{jid} put back into {found.queue_name}")


@click.command()
@click.argument("jids", nargs=-1, required=True)
@pass_client
def cancel(client: Client, jids: tuple[str, ...]) -> None:
    """Cancel jobs (a job's dependents must be cancelled with it)."""
    require_jobs(client, jids)
    for jid in client.jobs.cancel(*jids):
        click.echo(f"canceled {jid}")


@click.command()
@click.argument("jid")
@click.argument("queue")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0,
              help="Seconds before the job may run in the new queue.")
@pass_client
def move(client: Client, jid: str, queue: str, delay: float) -> None:
    """Move a job to another queue (a running job loses its lock)."""
    if not queue.strip():
        fail("QUEUE must not be empty")
    fetch_job(client, jid).move(queue, delay)
    click.echo(f"{jid} moved to {queue}")


@click.command()
@click.argument("jid")
@click.argument("priority", type=int)
@pass_client
def priority(client: Client, jid: str, priority: int) -> None:
    """Set a job's priority (higher runs first)."""
    fetch_job(client, jid).priority = priority
    click.echo(f"{jid} priority {priority}")


@click.command()
@click.argument("jid")
@pass_client
def track(client: Client, jid: str) -> None:
    """Track a job (its events are published; it shows in 'jobs --tracked')."""
    newly = fetch_job(client, jid).track()
    click.echo(f"{jid} {'tracked' if newly else 'was already tracked'}")


@click.command()
@click.argument("jid")
@pass_client
def untrack(client: Client, jid: str) -> None:
    """Stop tracking a job."""
    was = fetch_job(client, jid).untrack()
    click.echo(f"{jid} {'untracked' if was else 'was not tracked'}")


@click.command()
@click.argument("jid")
@click.argument("tags", nargs=-1, required=True)
@click.option("--remove", is_flag=True, help="Remove the tags instead of adding them.")
@json_option
@pass_client
def tag(client: Client, jid: str, tags: tuple[str, ...], remove: bool, as_json: bool) -> None:
    """Add tags to a job (or remove them with --remove); print the job's tags."""
    found = fetch_job(client, jid)
    result = found.untag(*tags) if remove else found.tag(*tags)
    if as_json:
        echo_json(result)
    else:
        click.echo(", ".join(result) if result else "(no tags)")


def register(group: click.Group) -> None:
    for command in (put, job, jobs, retry, cancel, move, priority, track, untrack, tag):
        group.add_command(command)
