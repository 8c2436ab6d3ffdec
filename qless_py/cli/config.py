"""``qless-py config list|get|set|unset``: the shared settings in ``ql:config``."""

from __future__ import annotations

import click

from qless_py import Client
from qless_py.cli.common import console, echo_json, fail, json_option, pass_client
from qless_py.cli.render import counts_table
from qless_py.client.config import KNOWN_KEYS, describe


@click.group()
def config() -> None:
    """Show and change the shared configuration (see docs/config.md)."""


@config.command("list")
@json_option
@pass_client
def list_(client: Client, as_json: bool) -> None:
    """Every setting: the defaults overlaid with what was set."""
    values = client.config.all
    if as_json:
        echo_json(values)
        return
    rows = [{"key": k, "value": v, "meaning": describe(k) or ""}
            for k, v in sorted(values.items())]
    console().print(counts_table(rows, ("key", "value", "meaning"), "config"))


@config.command()
@click.argument("key")
@json_option
@pass_client
def get(client: Client, key: str, as_json: bool) -> None:
    """Print one setting (exit 1 if it is neither set nor has a default)."""
    # The overview, like ``list``: stored values as stored (text), defaults as numbers.
    value = client.config.all.get(key)
    if as_json:
        echo_json({key: value})
    if value is None:
        fail(f"{key} is not set and has no default")
    if not as_json:
        click.echo(str(value))


@config.command("set")
@click.argument("key")
@click.argument("value")
@click.option("--force", is_flag=True, help="Allow a key that qless_py does not know.")
@pass_client
def set_(client: Client, key: str, value: str, force: bool) -> None:
    """Set a key (numbers are checked for numeric keys)."""
    if not key.strip():
        fail("KEY must not be empty")
    if describe(key) is None and not force:
        fail(f"unknown config key {key!r}: known are {', '.join(sorted(KNOWN_KEYS))} and "
             "<queue>-heartbeat, <queue>-max-concurrency (use --force to set it anyway)")
    client.config[key] = value  # numbers are checked before the write (ValueError)
    click.echo(f"{key} = {value}")


@config.command()
@click.argument("key")
@pass_client
def unset(client: Client, key: str) -> None:
    """Remove a setting (back to its default)."""
    del client.config[key]
    click.echo(f"{key} unset")


def register(group: click.Group) -> None:
    group.add_command(config)
