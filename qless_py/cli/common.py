"""Shared pieces of the command line: URL resolution, error handling, JSON output."""

from __future__ import annotations

import os
import sys
from typing import Any

import click


def resolve_url(url: str | None) -> str:
    """``--url``, else ``QLESS_URL``, else the embedded server's URL."""
    if url:
        return url
    env = os.environ.get("QLESS_URL")
    if env:
        return env
    return "redis://127.0.0.1:6379/0"


url_option = click.option(
    "--url", default=None, metavar="URL",
    help="Redis/Valkey URL (redis://, rediss://, unix://). Default: $QLESS_URL, "
    "else the embedded server.",
)


def run_cli(group: click.Group, argv: list[str] | None) -> int:
    """Run the group; turn errors into one readable line and a non-zero exit."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        group.main(args=argv, prog_name="qless-py", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except Exception as exc:  # one line for people, the traceback with --debug
        if debug:
            raise
        click.echo(f"Error: {one_line(exc)}", err=True)
        return 1
    return 0


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return f"{type(exc).__name__}: {first}" if not str(exc).strip() else first


def echo_json(value: Any) -> None:
    import json

    click.echo(json.dumps(value, indent=2, sort_keys=True, default=str))
