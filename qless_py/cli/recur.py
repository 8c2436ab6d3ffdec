"""``qless-py recur create|update|cancel|list``: recurring jobs."""

from __future__ import annotations

import click

from qless_py import Client, RecurringJob
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
from qless_py.cli.render import counts_table


def fetch_template(client: Client, jid: str) -> RecurringJob:
    found = client.jobs[jid]
    if not isinstance(found, RecurringJob):
        fail(f"no such recurring job: {jid}")
    return found


@click.group()
def recur() -> None:
    """Jobs that are put again every INTERVAL seconds."""


@recur.command()
@click.argument("queue")
@click.argument("klass")
@click.argument("data", required=False, default="{}")
@click.option("--interval", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Seconds between two jobs.")
@click.option("--offset", type=float, default=0.0, help="Seconds until the first job.")
@click.option("--jid", default=None, help="Template id (default: a random 32-hex id).")
@click.option("--priority", type=int, default=0, show_default=True)
@click.option("--tag", "tags", multiple=True, help="Tag for every spawned job (repeatable).")
@click.option("--retries", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--backlog", type=click.IntRange(min=0), default=0,
              help="Most missed slots caught up after a pause (0 = all).")
@click.option("--throttle", "throttles", multiple=True,
              help="A throttle every spawned job needs (repeatable).")
@click.option("--key", default=None, help="Ordering key of every spawned job.")
@click.option("--ttl", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds a spawned job may wait to start before it is removed.")
@pass_client
def create(client: Client, queue: str, klass: str, data: str, interval: float, offset: float,
           jid: str | None, priority: int, tags: tuple[str, ...], retries: int,
           backlog: int, throttles: tuple[str, ...], key: str | None,
           ttl: float | None) -> None:
    """Create (or replace) a recurring job; print its id."""
    value = parse_json_arg(data, "DATA")
    check_names(queue, klass, jid)
    check_flow(throttles, key)
    click.echo(client.queues[queue].recur(klass, value, interval, offset, priority=priority,
                                          tags=tags, retries=retries, jid=jid,
                                          backlog=backlog, throttles=throttles or None,
                                          key=key, ttl=ttl))


def check_flow(throttles: tuple[str, ...], key: str | None) -> None:
    """Throttle names and an ordering key must not be empty."""
    if any(not name.strip() for name in throttles):
        fail("--throttle must not be empty")
    if key is not None and not key.strip():
        fail("--key must not be empty")


@recur.command()
@click.argument("jid")
@click.option("--interval", type=click.FloatRange(min=0, min_open=True), default=None)
@click.option("--priority", type=int, default=None)
@click.option("--retries", type=click.IntRange(min=0), default=None)
@click.option("--backlog", type=click.IntRange(min=0), default=None)
@click.option("--data", default=None, help="New JSON data.")
@click.option("--klass", default=None, help="New class.")
@click.option("--queue", default=None, help="New queue.")
@click.option("--tag", "add_tags", multiple=True, help="Add a tag (repeatable).")
@click.option("--untag", "remove_tags", multiple=True, help="Remove a tag (repeatable).")
@click.option("--throttle", "throttles", multiple=True,
              help="Spawned jobs need these throttles (repeatable; replaces the list).")
@click.option("--no-throttles", is_flag=True, help="Spawned jobs need no throttle.")
@click.option("--key", default=None, help="New ordering key of spawned jobs.")
@click.option("--no-key", is_flag=True, help="Spawned jobs get no ordering key.")
@click.option("--ttl", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds a spawned job may wait to start.")
@click.option("--no-ttl", is_flag=True, help="Spawned jobs may wait to start for ever.")
@pass_client
def update(client: Client, jid: str, interval: float | None, priority: int | None,
           retries: int | None, backlog: int | None, data: str | None, klass: str | None,
           queue: str | None, add_tags: tuple[str, ...], remove_tags: tuple[str, ...],
           throttles: tuple[str, ...], no_throttles: bool, key: str | None, no_key: bool,
           ttl: float | None, no_ttl: bool) -> None:
    """Change a recurring job; only the options given change."""
    given = (interval, priority, retries, backlog, data, klass, queue, key, ttl)
    flags = (add_tags, remove_tags, throttles, no_throttles, no_key, no_ttl)
    if all(value is None for value in given) and not any(flags):
        raise click.UsageError("nothing to update: give at least one option")
    for pair, setting, clear in (("--throttle and --no-throttles", throttles, no_throttles),
                                 ("--key and --no-key", key, no_key),
                                 ("--ttl and --no-ttl", ttl, no_ttl)):
        if clear and setting:
            raise click.UsageError(f"{pair} contradict each other")
    check_flow(throttles, key)
    value = parse_json_arg(data, "--data") if data is not None else None
    if queue is not None and not queue.strip():
        fail("--queue must not be empty")
    if klass is not None and not klass.strip():
        fail("--klass must not be empty")
    template = fetch_template(client, jid)
    if interval is not None:
        template.interval = interval
    if priority is not None:
        template.priority = priority
    if retries is not None:
        template.retries = retries
    if backlog is not None:
        template.backlog = backlog
    if data is not None:
        template.set_data(value)
    if klass is not None:
        template.set_klass(klass)
    if queue is not None:
        template.move(queue)
    if add_tags:
        template.tag(*add_tags)
    if remove_tags:
        template.untag(*remove_tags)
    if throttles or no_throttles:
        template.set_throttles(throttles)
    if key is not None or no_key:
        template.set_key(key)
    if ttl is not None or no_ttl:
        template.set_ttl(ttl)
    click.echo(f"{jid} updated")


@recur.command("cancel")
@click.argument("jid")
@pass_client
def cancel_(client: Client, jid: str) -> None:
    """Stop a recurring job (jobs it already put stay)."""
    fetch_template(client, jid).cancel()
    click.echo(f"{jid} no longer recurs")


@recur.command("list")
@click.option("--queue", default=None, help="Only this queue.")
@json_option
@pass_client
def list_(client: Client, queue: str | None, as_json: bool) -> None:
    """Recurring jobs of every queue (or of one)."""
    if queue is not None:
        require_queues(client, [queue])
        names = [queue]
    else:
        names = client.queues.names()
    found = []
    for name in names:
        for jid in client.queues[name].jobs.recurring(0, -1):
            template = client.jobs[jid]
            if isinstance(template, RecurringJob):
                found.append(template.to_dict())
    if as_json:
        echo_json(found)
        return
    rows = [dict(t, tags=", ".join(t["tags"])) for t in found]
    console().print(counts_table(
        rows, ("jid", "klass", "queue", "interval", "priority", "retries", "count", "tags"),
        "recurring jobs"))


def register(group: click.Group) -> None:
    group.add_command(recur)
