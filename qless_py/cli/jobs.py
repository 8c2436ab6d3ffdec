"""Job commands: put, job, jobs, retry, cancel, move, priority, track/untrack, tag.

They call the Lua core through ``client(command, ...)`` (the protocol's own commands),
check every argument and every named job before the first write, and render the reply.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, NoReturn

import click

from qless_py.cli.common import (
    as_list,
    console,
    echo_json,
    fail,
    json_option,
    json_reply,
    parse_json_arg,
    pass_client,
    text,
)
from qless_py.cli.render import (
    job_view,
    jobs_table,
    normalize_job,
    normalize_recurring,
    recurring_view,
)

QUEUE_STATES = ("waiting", "running", "stalled", "scheduled", "depends", "recurring")


def worker_name(client: Any) -> str:
    return str(getattr(client, "worker_name", "") or "qless-py-cli")


def fetch_job(client: Any, jid: str) -> dict[str, Any]:
    """The job object of ``jid``, or a clear error when there is no such job."""
    obj = json_reply(client("get", jid))
    if not isinstance(obj, dict):
        missing(client, jid)
    return normalize_job(obj)


def missing(client: Any, jid: str) -> NoReturn:
    """Fail for an unknown jid, pointing at ``recur`` when it names a recurring job."""
    if client("recur.get", jid) is not None:
        fail(f"{jid} is a recurring job, not a job: see 'qless-py recur --help'")
    fail(f"no such job: {jid}")


def fetch_jobs(client: Any, jids: list[str]) -> list[dict[str, Any]]:
    if not jids:
        return []
    found = as_list(json_reply(client("multiget", *jids)))
    return [normalize_job(obj) for obj in found]


def require_jobs(client: Any, jids: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every named job, or an error naming the first unknown one (nothing is written)."""
    jobs = {job["jid"]: job for job in fetch_jobs(client, list(jids))}
    for jid in jids:
        if jid not in jobs:
            missing(client, jid)
    return [jobs[jid] for jid in jids]


def requeue(client: Any, job: dict[str, Any], queue: str, delay: float = 0) -> str:
    """Put an existing job (again) into ``queue``, keeping its class, data and options."""
    return text(client(
        "requeue", worker_name(client), queue, job["jid"], job["klass"],
        json.dumps(job["data"]), delay,
        "priority", job.get("priority", 0),
        "tags", json.dumps(job.get("tags", [])),
        "retries", job.get("retries", 5),
    ))


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
@pass_client
def put(client: Any, queue: str, klass: str, data: str, jid: str | None, priority: int,
        tags: tuple[str, ...], delay: float, retries: int, depends: tuple[str, ...]) -> None:
    """Put a job of class KLASS into QUEUE with JSON DATA (default {}); print its jid."""
    parse_json_arg(data, "DATA")
    if not queue.strip():
        fail("QUEUE must not be empty")
    if not klass.strip():
        fail("KLASS must not be empty (a dotted 'module.Class' name)")
    if jid is not None and not jid.strip():
        fail("--jid must not be empty")
    if depends:
        require_jobs(client, depends)
    new_jid = jid or uuid.uuid4().hex
    args: list[Any] = [worker_name(client), queue, new_jid, klass, data, delay,
                       "priority", priority, "tags", json.dumps(list(tags)),
                       "retries", retries]
    if depends:
        args += ["depends", json.dumps(list(depends))]
    click.echo(text(client("put", *args)))


@click.command()
@click.argument("jid")
@json_option
@pass_client
def job(client: Any, jid: str, as_json: bool) -> None:
    """Show one job: data, history, failure, dependencies, tags."""
    obj = json_reply(client("get", jid))
    if isinstance(obj, dict):
        found = normalize_job(obj)
        if as_json:
            echo_json(found)
        else:
            console().print(job_view(found))
        return
    recurring = json_reply(client("recur.get", jid))
    if not isinstance(recurring, dict):
        fail(f"no such job: {jid}")
    template = normalize_recurring(recurring)
    if as_json:
        echo_json(template)
    else:
        console().print(recurring_view(template))


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


def _list(client: Any, source: str, queue: str | None, state: str, tag: str | None,
          failed: str | None, offset: int, count: int) -> tuple[list[str], int | None]:
    """The jids of one page and, when the core reports it, the total."""
    if source == "complete":
        return [text(j) for j in client("jobs", "complete", offset, count)], None
    if source == "tag":
        page = json_reply(client("tag", "get", tag, offset, count))
        return as_list(page.get("jobs")), int(page.get("total", 0))
    if source == "failed":
        page = json_reply(client("failed", failed, offset, count))
        return as_list(page.get("jobs")), int(page.get("total", 0))
    if source == "tracked":
        listing = json_reply(client("track"))
        jids = [j["jid"] for j in as_list(listing.get("jobs"))]
        jids += as_list(listing.get("expired"))
        return jids[offset:offset + count], len(jids)
    if state == "waiting":
        peeked = as_list(json_reply(client("peek", queue, offset + count)))
        return [j["jid"] for j in peeked][offset:], None
    return [text(j) for j in client("jobs", state, queue, offset, count)], None


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
def jobs(client: Any, queue: str | None, state: str | None, tag: str | None, tracked: bool,
         failed: str | None, offset: int, count: int, as_json: bool) -> None:
    """List jobs by queue and state, tag, tracking or failure group, one page at a time."""
    source = _select(queue, state, tag, tracked, failed)
    state = state or "waiting"
    if source == "queue" and queue is not None:
        from qless_py.cli.queues import require_queues

        require_queues(client, [queue])
    jids, total = _list(client, source, queue, state, tag, failed, offset, count)
    if source == "queue" and state == "recurring":
        found = [normalize_recurring(json_reply(client("recur.get", j))) for j in jids]
        found = [dict(f, state="recur") for f in found]
    else:
        by_jid = {j["jid"]: j for j in fetch_jobs(client, jids)}
        found = [by_jid.get(j, {"jid": j, "state": "expired"}) for j in jids]
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
def retry(client: Any, jid: str, delay: float) -> None:
    """Put a failed job back into the queue it failed in."""
    found = fetch_job(client, jid)
    if found["state"] != "failed":
        fail(f"job {jid} is not failed (state: {found['state']})")
    if not found.get("queue"):
        fail(f"job {jid} has no queue to go back to")
    requeue(client, found, found["queue"], delay)
    click.echo(f"{jid} put back into {found['queue']}")


@click.command()
@click.argument("jids", nargs=-1, required=True)
@pass_client
def cancel(client: Any, jids: tuple[str, ...]) -> None:
    """Cancel jobs (a job's dependents must be cancelled with it)."""
    require_jobs(client, jids)
    for jid in client("cancel", *jids):
        click.echo(f"canceled {text(jid)}")


@click.command()
@click.argument("jid")
@click.argument("queue")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0,
              help="Seconds before the job may run in the new queue.")
@pass_client
def move(client: Any, jid: str, queue: str, delay: float) -> None:
    """Move a job to another queue (a running job loses its lock)."""
    if not queue.strip():
        fail("QUEUE must not be empty")
    found = fetch_job(client, jid)
    requeue(client, found, queue, delay)
    click.echo(f"{jid} moved to {queue}")


@click.command()
@click.argument("jid")
@click.argument("priority", type=int)
@pass_client
def priority(client: Any, jid: str, priority: int) -> None:
    """Set a job's priority (higher runs first)."""
    fetch_job(client, jid)
    new = client("priority", jid, priority)
    click.echo(f"{jid} priority {int(new)}")


@click.command()
@click.argument("jid")
@pass_client
def track(client: Any, jid: str) -> None:
    """Track a job (its events are published; it shows in 'jobs --tracked')."""
    fetch_job(client, jid)
    newly = text(client("track", "track", jid)) == "1"
    click.echo(f"{jid} {'tracked' if newly else 'was already tracked'}")


@click.command()
@click.argument("jid")
@pass_client
def untrack(client: Any, jid: str) -> None:
    """Stop tracking a job."""
    fetch_job(client, jid)
    was = text(client("track", "untrack", jid)) == "1"
    click.echo(f"{jid} {'untracked' if was else 'was not tracked'}")


@click.command()
@click.argument("jid")
@click.argument("tags", nargs=-1, required=True)
@click.option("--remove", is_flag=True, help="Remove the tags instead of adding them.")
@json_option
@pass_client
def tag(client: Any, jid: str, tags: tuple[str, ...], remove: bool, as_json: bool) -> None:
    """Add tags to a job (or remove them with --remove); print the job's tags."""
    fetch_job(client, jid)
    result = as_list(json_reply(client("tag", "remove" if remove else "add", jid, *tags)))
    if as_json:
        echo_json(result)
    else:
        click.echo(", ".join(result) if result else "(no tags)")


def register(group: click.Group) -> None:
    for command in (put, job, jobs, retry, cancel, move, priority, track, untrack, tag):
        group.add_command(command)
