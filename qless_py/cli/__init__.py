"""The ``qless-py`` command: one click group, one module per command family."""

from __future__ import annotations

import click

from qless_py.cli.common import QlessGroup


@click.group(cls=QlessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--url", default=None, metavar="URL",
              help="Redis/Valkey URL (redis://, rediss://, unix://). Default: $QLESS_URL, "
              "else the embedded server.")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="qless-next", prog_name="qless-py")
@click.pass_context
def cli(ctx: click.Context, url: str | None, debug: bool) -> None:
    """qless-py: put and inspect jobs, run workers, manage queues, config and the server."""
    ctx.ensure_object(dict)
    ctx.obj["url"] = url
    ctx.obj["debug"] = debug


def _register() -> None:
    # Each family module adds its commands to ``cli``.
    from qless_py.cli import config, demo, jobs, queues, recur, server, worker

    for module in (jobs, queues, recur, config, server, demo):
        module.register(cli)
    register_worker = getattr(worker, "register", None)
    if register_worker is not None:
        register_worker(cli)


_register()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``qless-py`` console script.

    Exit status: 0 on success, 1 on errors (one line on stderr; the traceback with
    ``--debug``), 2 on usage errors.
    """
    cli.main(args=argv, prog_name="qless-py")
