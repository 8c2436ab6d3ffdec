"""``qless-py demo``: the multi-stage pipeline over the standard library, end to end."""

from __future__ import annotations

import os

import click

from qless_py.cli.common import CliError, console, echo_json, group_url
from qless_py.server import ServerError


def demo_url(ctx: click.Context, url: str | None, port: int | None) -> str:
    """``--url``, else ``QLESS_URL``, else the embedded server (started if need be)."""
    given = url or group_url(ctx) or os.environ.get("QLESS_URL")
    if given:
        return given
    from qless_py.embedded import EmbeddedServer

    embedded = EmbeddedServer.default()
    status = embedded.status()
    if not status.running:
        try:
            status = embedded.start(None, port)
        except ServerError as exc:
            raise CliError(f"cannot start the embedded server: {exc}") from exc
        click.echo(f"started the embedded server at {status.url} (data {status.directory}; "
                   "stop it with 'qless-py server stop')")
    return status.url


@click.command()
@click.option("--url", default=None, metavar="URL",
              help="Server to use (default: $QLESS_URL, else the embedded server).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only this many source files (an even sample).")
@click.option("--processes", type=click.IntRange(min=1, max=64), default=2, show_default=True,
              help="Worker processes.")
@click.option("--top", "top_n", type=click.IntRange(min=1, max=1000), default=25,
              show_default=True, help="How many names the report lists.")
@click.option("--timeout", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Give up after this many seconds.")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="Port for the embedded server if the demo starts it.")
@click.option("--json", "as_json", is_flag=True,
              help="After the run, print the report and statistics as JSON.")
@click.pass_context
def demo(ctx: click.Context, url: str | None, limit: int | None, processes: int, top_n: int,
         timeout: float, port: int | None, as_json: bool) -> None:
    """Parse the standard library with ast in a three-stage pipeline and report on it.

    Stage one parses each file (one job per file), stage two merges per package (each
    job depends on its files' jobs), and a report job depends on every package job.
    A forking worker with --processes processes runs them.
    """
    from qless_py import Client
    from qless_py.demo.driver import DemoError, run_demo

    target = demo_url(ctx, url, port)
    client = Client(target)
    try:
        result = run_demo(client, target, console(), limit=limit, processes=processes,
                          top_n=top_n, timeout=timeout)
    except DemoError as exc:
        raise CliError(str(exc)) from exc
    finally:
        client.close()
    if as_json:
        echo_json(result)


def register(group: click.Group) -> None:
    group.add_command(demo)
