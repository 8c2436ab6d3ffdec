"""The ``qless-py`` command: one click group, one module per command family.

A family's module is imported only when one of its commands runs (or when the help lists
every command), so ``qless-py worker`` does not pay for rich and the other families.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from qless_py.cli.common import QlessGroup

# Where each command lives (``qless_py.cli.<module>``, whose ``register(group)`` adds it).
# Only a shortcut: a name missing here is still found by loading every family.
FAMILIES: dict[str, str] = {
    **dict.fromkeys(("put", "job", "jobs", "retry", "cancel", "move", "priority", "track",
                     "untrack", "tag"), "jobs"),
    **dict.fromkeys(("queues", "workers", "failed", "unfail", "pause", "unpause", "stats"),
                    "queues"),
    "recur": "recur", "config": "config", "server": "server", "demo": "demo",
    "worker": "worker", "throttle": "throttles", "web": "web", "check": "check",
}
MODULES: tuple[str, ...] = ("jobs", "queues", "recur", "config", "server", "demo", "worker",
                            "throttles", "web", "check")


class LazyGroup(QlessGroup):
    """A group that imports a command family's module on first use of one of its commands."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()

    def load(self, module: str) -> None:
        """Import ``qless_py.cli.<module>`` and let it register its commands (once)."""
        if module in self._loaded:
            return
        self._loaded.add(module)
        family = importlib.import_module(f"qless_py.cli.{module}")
        register = getattr(family, "register", None)
        if register is not None:
            register(self)

    def load_all(self) -> None:
        for module in MODULES:
            self.load(module)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self.load_all()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            module = FAMILIES.get(cmd_name)
            if module is not None:
                self.load(module)
            if cmd_name not in self.commands:
                self.load_all()  # not in the table (or not where it says): look everywhere
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--url", default=None, metavar="URL",
              help="Redis/Valkey URL (redis://, rediss://, unix://). Default: $QLESS_URL, "
              "else the embedded server.")
@click.option("--namespace", default=None, metavar="NAME", envvar="QLESS_NAMESPACE",
              help="Work in this namespace (docs/cluster.md). Default: $QLESS_NAMESPACE, "
              "else the URL's namespace=, else the default namespace.")
@click.option("--shards", type=click.IntRange(min=1), default=None, envvar="QLESS_SHARDS",
              help="The namespace has this many shards (docs/cluster.md): commands see them "
              "as one namespace. Default: $QLESS_SHARDS, else the URL's shards=, else 1.")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="qless-next", prog_name="qless-py")
@click.pass_context
def cli(ctx: click.Context, url: str | None, namespace: str | None, shards: int | None,
        debug: bool) -> None:
    """qless-py: put and inspect jobs, run workers, manage queues, config and the server."""
    ctx.ensure_object(dict)
    ctx.obj["url"] = url
    ctx.obj["namespace"] = namespace
    ctx.obj["shards"] = shards
    ctx.obj["debug"] = debug


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``qless-py`` console script.

    Exit status: 0 on success, 1 on errors (one line on stderr; the traceback with
    ``--debug``), 2 on usage errors.
    """
    cli.main(args=argv, prog_name="qless-py")
