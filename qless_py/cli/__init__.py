"""The ``qless-py`` command: one click group, one module per command family."""

from __future__ import annotations

import sys

import click

from qless_py.cli.common import run_cli


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """qless-py: run workers, put and inspect jobs, query config and stats."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _register() -> None:
    # Each family module adds its commands to ``cli`` when imported.
    from qless_py.cli import worker  # noqa: F401


_register()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``qless-py`` console script."""
    sys.exit(run_cli(cli, argv))
