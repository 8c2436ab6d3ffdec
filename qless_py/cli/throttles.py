"""Throttle commands: ``qless-py throttle get|set|delete|list|locks|pending``.

A throttle runs at most its maximum of the jobs that name it at once; a queue's own
throttle is named ``ql:q:<queue>`` (``--queue Q`` names it too). Arguments are checked
before anything is written.
"""

from __future__ import annotations

from typing import Any

import click

from qless_py import Client
from qless_py.cli.common import (
    console,
    echo_json,
    fail,
    json_option,
    pass_client,
)
from qless_py.cli.render import counts_table


def pick_name(client: Client, name: str | None, queue: str | None) -> str:
    """The throttle named, or the queue's own (in the client's namespace): exactly one."""
    if (name is None) == (queue is None):
        raise click.UsageError("name a throttle (NAME) or a queue (--queue Q), not both")
    if queue is not None:
        if not queue.strip():
            fail("--queue must not be empty")
        return client.keys.queue_tid(queue)
    assert name is not None
    if not name.strip():
        fail("NAME must not be empty")
    return name


def describe(client: Client, name: str) -> dict[str, Any]:
    throttle = client.throttles[name]
    return {"name": name, "maximum": throttle.maximum, "ttl": throttle.ttl,
            "locks": len(throttle.locks()), "pending": len(throttle.pending())}


name_argument = click.argument("name", required=False)
queue_option = click.option("--queue", "-q", default=None,
                            help="The queue's own throttle (ql:q:QUEUE) instead of NAME.")


@click.group()
def throttle() -> None:
    """Throttles: at most MAXIMUM of the jobs that name one run at once."""


@throttle.command("get")
@name_argument
@queue_option
@json_option
@pass_client
def get(client: Client, name: str | None, queue: str | None, as_json: bool) -> None:
    """Show a throttle: its maximum (0: no limit), expiry, holders and waiting jobs."""
    shown = describe(client, pick_name(client, name, queue))
    if as_json:
        echo_json(shown)
        return
    ttl = shown["ttl"]
    expires = "never" if ttl < 0 else f"in {ttl} s"
    limit = shown["maximum"] or "none"
    click.echo(f"throttle {shown['name']}: maximum {limit}, settings expire {expires}, "
               f"{shown['locks']} running, {shown['pending']} waiting")


@throttle.command("set")
@click.argument("args", nargs=-1, required=True, metavar="[NAME] MAXIMUM")
@queue_option
@click.option("--ttl", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds until the setting expires (the throttle is unlimited again).")
@pass_client
def set_(client: Client, args: tuple[str, ...], queue: str | None, ttl: float | None) -> None:
    """Set a throttle's MAXIMUM (0: no limit). Waiting jobs start at once if it has room."""
    if len(args) > 2 or (queue is None and len(args) != 2) or (queue and len(args) != 1):
        raise click.UsageError("give NAME MAXIMUM, or --queue Q MAXIMUM")
    name = pick_name(client, args[0] if len(args) == 2 else None, queue)
    try:
        maximum = int(args[-1])
    except ValueError:
        raise click.UsageError(f"MAXIMUM must be a whole number, not {args[-1]!r}") from None
    if maximum < 0:
        raise click.UsageError(f"MAXIMUM must be 0 or more, not {maximum}")
    client.throttles[name].set(maximum, ttl)
    click.echo(f"throttle {name}: maximum {maximum or 'none'}")


@throttle.command()
@name_argument
@queue_option
@pass_client
def delete(client: Client, name: str | None, queue: str | None) -> None:
    """Forget a throttle's maximum: it runs its jobs without limit."""
    name = pick_name(client, name, queue)
    client.throttles[name].delete()
    click.echo(f"throttle {name} deleted")


@throttle.command("list")
@json_option
@pass_client
def list_(client: Client, as_json: bool) -> None:
    """Every throttle that is set or in use, with its maximum and jobs."""
    rows = [describe(client, name) for name in client.throttles.names()]
    if as_json:
        echo_json(rows)
        return
    console().print(counts_table(rows, ("name", "maximum", "locks", "pending", "ttl"),
                                 "throttles"))


@throttle.command()
@name_argument
@queue_option
@json_option
@pass_client
def locks(client: Client, name: str | None, queue: str | None, as_json: bool) -> None:
    """The jobs holding one of the throttle's locks (running)."""
    jids = client.throttles[pick_name(client, name, queue)].locks()
    if as_json:
        echo_json(jids)
    else:
        click.echo("\n".join(jids) if jids else "(none)")


@throttle.command()
@name_argument
@queue_option
@json_option
@pass_client
def pending(client: Client, name: str | None, queue: str | None, as_json: bool) -> None:
    """The jobs waiting for the throttle, oldest first."""
    jids = client.throttles[pick_name(client, name, queue)].pending()
    if as_json:
        echo_json(jids)
    else:
        click.echo("\n".join(jids) if jids else "(none)")


def register(group: click.Group) -> None:
    group.add_command(throttle)
