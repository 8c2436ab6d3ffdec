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


def cluster_url(ctx: click.Context, url: str | None) -> str:
    """``--url`` (a cluster's), else ``QLESS_URL`` if it is one, else the local cluster of
    the embedded server's directory (started with 3 masters and 1 replica each if need be)."""
    given = url or group_url(ctx) or os.environ.get("QLESS_URL")
    if given:
        if not given.lower().startswith(("redis+cluster://", "rediss+cluster://")):
            raise CliError(f"--cluster needs a cluster URL (redis+cluster://...), not {given}")
        return given
    from qless_py.embedded import EmbeddedServer

    embedded = EmbeddedServer.default()
    status = embedded.status()
    if status.running and not status.url.startswith("redis+cluster://"):
        raise CliError("the embedded server runs a single server, not a cluster: stop it "
                       "('qless-py server stop') or give --url redis+cluster://...")
    if not status.running:
        try:
            status = embedded.start_cluster(None, 3, 1)
        except ServerError as exc:
            raise CliError(f"cannot start the local cluster: {exc}") from exc
        click.echo(f"started a local cluster at {status.url} (data {status.directory}; "
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
@click.option("--cluster", "on_cluster", is_flag=True,
              help="Run on a cluster (--url redis+cluster://..., else the local cluster of "
              "'qless-py server start --cluster 3 --replicas 1', started if need be), one "
              "pipeline per namespace, the namespaces on different masters.")
@click.option("--namespaces", type=click.IntRange(1, 64), default=3, show_default=True,
              help="With --cluster: how many namespaces share the packages.")
@click.pass_context
def demo(ctx: click.Context, url: str | None, limit: int | None, processes: int, top_n: int,
         timeout: float, port: int | None, as_json: bool, on_cluster: bool,
         namespaces: int) -> None:
    """Parse the standard library with ast in a three-stage pipeline and report on it.

    Stage one parses each file (one job per file), stage two merges per package (each
    job depends on its files' jobs), and a report job depends on every package job.
    A forking worker with --processes processes runs them. With --cluster, each of
    --namespaces namespaces (on different masters) gets a share of the packages, its own
    pipeline and its own worker, and the report adds them up.
    """
    from qless_py import Client
    from qless_py.demo.driver import DemoError, run_cluster_demo, run_demo

    if on_cluster:
        if port is not None:
            raise CliError("--port and --cluster do not go together: a cluster's ports are "
                           "chosen")
        try:
            result = run_cluster_demo(cluster_url(ctx, url), console(),
                                      namespaces=namespaces, limit=limit,
                                      processes=processes, top_n=top_n, timeout=timeout)
        except DemoError as exc:
            raise CliError(str(exc)) from exc
        if as_json:
            echo_json(result)
        return
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
