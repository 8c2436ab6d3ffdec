"""``qless-py server start|stop|status``: the embedded Valkey with AOF persistence."""

from __future__ import annotations

from pathlib import Path

import click

from qless_py.cli.common import CliError, echo_json, json_option
from qless_py.embedded import EmbeddedServer, ServerStatus
from qless_py.server import ServerError

dir_option = click.option(
    "--dir", "directory", default=None, type=click.Path(file_okay=False, path_type=Path),
    help="Data directory (default: $QLESS_PY_HOME/server, else ~/.local/share/qless-py/server).",
)


@click.group()
def server() -> None:
    """Run the embedded server (a private Valkey on 127.0.0.1 with AOF persistence)."""


def _show(status: ServerStatus, as_json: bool, verb: str) -> None:
    if as_json:
        echo_json(status.to_dict())
        return
    if status.running:
        click.echo(f"{verb} {status.url}  pid {status.pid}  {status.kind}  data {status.directory}")
    else:
        click.echo(f"stopped  (data {status.directory}; start with 'qless-py server start')")


@server.command()
@dir_option
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="TCP port on 127.0.0.1 (default: $QLESS_PY_PORT, else 6380).")
@click.option("--redis/--valkey", "use_redis", default=None,
              help="Run redis-server from PATH instead of the bundled Valkey (default: "
              "the kind that wrote the data directory, else Valkey).")
@click.option("--cluster", "masters", type=click.IntRange(1, 16), default=None,
              help="Start a local cluster of this many masters instead (ports are chosen "
              "below 55536; the URL is printed).")
@click.option("--replicas", type=click.IntRange(0, 4), default=0, show_default=True,
              help="Replicas per master, with --cluster.")
@json_option
def start(directory: Path | None, port: int | None, use_redis: bool | None,
          masters: int | None, replicas: int, as_json: bool) -> None:
    """Start the server detached; it keeps running after this command exits."""
    embedded = EmbeddedServer(directory)
    before = embedded.status()
    kind = None if use_redis is None else "redis" if use_redis else "valkey"
    if masters is None and replicas:
        raise CliError("--replicas needs --cluster")
    if masters is not None and port is not None:
        raise CliError("--port and --cluster do not go together: a cluster's ports are chosen")
    try:
        status = embedded.start(kind, port) if masters is None else \
            embedded.start_cluster(kind, masters, replicas)
    except ServerError as exc:
        raise CliError(str(exc)) from exc
    _show(status, as_json, "already running at" if before.running else "started at")


@server.command()
@dir_option
@json_option
def stop(directory: Path | None, as_json: bool) -> None:
    """Stop the server (or every node of the cluster) cleanly: SHUTDOWN flushes the AOF."""
    embedded = EmbeddedServer(directory)
    try:
        stopped = embedded.stop()
    except ServerError as exc:
        raise CliError(str(exc)) from exc
    if as_json:
        echo_json({"stopped": stopped, "directory": str(embedded.directory)})
    else:
        click.echo("stopped" if stopped else "not running")


@server.command()
@dir_option
@json_option
def status(directory: Path | None, as_json: bool) -> None:
    """Print URL, pid and data directory (exit 1 when the server is not running)."""
    current = EmbeddedServer(directory).status()
    _show(current, as_json, "running at")
    if not current.running:
        raise click.exceptions.Exit(1)


def register(group: click.Group) -> None:
    group.add_command(server)
