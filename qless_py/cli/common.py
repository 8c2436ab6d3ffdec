"""Shared pieces of the command line: URL resolution, the client, errors, JSON and tables.

Every command gets its client through ``pass_client``, so ``--url`` works both on the
group (``qless-py --url U jobs``) and on the command (``qless-py jobs --url U``).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

import click

if TYPE_CHECKING:
    from rich.console import Console

    from qless_py import Client


class CliError(click.ClickException):
    """A user-facing error: one line on stderr, exit status 1."""


class NoServerError(CliError):
    """No URL was given and the embedded server is not running."""


def resolve_url(url: str | None) -> str:
    """``--url``, else ``QLESS_URL``, else the running embedded server's URL."""
    if url:
        return url
    env = os.environ.get("QLESS_URL")
    if env:
        return env
    from qless_py.embedded import EmbeddedServer

    status = EmbeddedServer.default().status()
    if status.running:
        return status.url
    raise NoServerError(
        "no server to talk to: pass --url or set QLESS_URL, or start the embedded "
        "server with 'qless-py server start'"
    )


def with_namespace(url: str, namespace: str | None) -> str:
    """``url`` with ``namespace=<namespace>`` in its query (``url`` itself for None): the
    URL then carries the namespace to every client and worker process made from it. A URL
    that names another namespace already, or a namespace that is not valid, is one line's
    error."""
    if namespace is None:
        return url
    from urllib.parse import parse_qs, urlencode, urlsplit

    from qless_py.keys import namespace_prefix

    try:
        namespace_prefix(namespace)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    given = parse_qs(urlsplit(url).query).get("namespace")
    if given:
        if given[-1] != namespace:
            raise CliError(f"--namespace {namespace!r} and the URL's namespace={given[-1]!r} "
                           "differ")
        return url
    # appended as text: urlunsplit would drop the empty host of unix:///path
    return url + ("&" if "?" in url else "?") + urlencode({"namespace": namespace})


def target_url(ctx: click.Context, url: str | None, namespace: str | None = None) -> str:
    """The URL a command talks to: ``--url`` (of the command, else the group's), else
    ``QLESS_URL``, else the embedded server; with ``--namespace`` (or ``QLESS_NAMESPACE``)
    in its query."""
    root = ctx.find_root()
    obj = root.obj if isinstance(root.obj, dict) else {}
    return with_namespace(resolve_url(url or group_url(ctx)), namespace or obj.get("namespace"))


url_option = click.option(
    "--url", default=None, metavar="URL",
    help="Redis/Valkey URL (redis://, rediss://, unix://, redis+sentinel://, "
    "redis+cluster:// with a namespace; see docs/cli.md). Default: $QLESS_URL, else the "
    "embedded server.",
)

namespace_option = click.option(
    "--namespace", default=None, metavar="NAME", envvar="QLESS_NAMESPACE",
    help="Work in this namespace (docs/cluster.md); default: $QLESS_NAMESPACE, else the "
    "URL's namespace=, else the default namespace.",
)

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")


def group_url(ctx: click.Context) -> str | None:
    """The ``--url`` given to the top-level group, if any."""
    root = ctx.find_root()
    if isinstance(root.obj, dict):
        value = root.obj.get("url")
        return str(value) if value else None
    return None


def shard_count(ctx: click.Context, target: str, given: int | None = None) -> int:
    """The number of shards of the namespaces a command works in: ``given`` (a command's
    own ``--shards``), else the group's ``--shards`` (or ``$QLESS_SHARDS``), else the
    URL's ``shards=``, else 1; a bad value is one line."""
    from qless_py.connect.endpoint import url_option
    from qless_py.keys import check_count

    root = ctx.find_root()
    if given is None and isinstance(root.obj, dict):
        given = root.obj.get("shards")
    if given is not None:
        return int(given)
    in_url = url_option(target, "shards")
    try:
        return check_count(in_url) if in_url is not None else 1
    except ValueError as exc:
        raise CliError(str(exc)) from None


def open_client(ctx: click.Context, url: str | None, namespace: str | None = None) -> Client:
    """One client per command invocation, closed when the command ends. For a namespace of
    several shards (the group's ``--shards``, else the URL's ``shards=``) it is a
    ShardedClient, which answers the calls the commands make for the whole namespace."""
    from qless_py import Client

    target = target_url(ctx, url, namespace)
    count = shard_count(ctx, target)
    if count > 1:
        from qless_py.client.sharded import ShardedClient
        from qless_py.shards.clients import without_shards

        try:
            sharded = ShardedClient(without_shards(target), shards=count)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        ctx.call_on_close(sharded.close)
        sharded.verify(record=False)  # a count that disagrees: one line, before anything
        return cast("Client", sharded)
    client = Client(target)
    ctx.call_on_close(client.close)
    return client


def pass_client(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: add ``--url`` and pass a connected ``Client`` as the first argument."""

    @url_option
    @namespace_option
    @click.pass_context
    @functools.wraps(func)
    def wrapper(ctx: click.Context, url: str | None, namespace: str | None, *args: Any,
                **kwargs: Any) -> Any:
        client = open_client(ctx, url, namespace)
        return ctx.invoke(func, client, *args, **kwargs)

    return wrapper


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, sort_keys=True, default=str))


def fail(message: str) -> NoReturn:
    """Stop the command with one clear line and exit status 1."""
    raise CliError(message)


def check_names(queue: str, klass: str, jid: str | None) -> None:
    """The names a put or a recurring job needs must not be blank."""
    if not queue.strip():
        fail("QUEUE must not be empty")
    if not klass.strip():
        fail("KLASS must not be empty (a dotted 'module.Class' name)")
    if jid is not None and not jid.strip():
        fail("--jid must not be empty")


def require_queues(client: Client, names: Sequence[str]) -> None:
    """Fail on the first name that is not a known queue (before anything is written)."""
    known = set(client.queues.names())
    for name in names:
        if name not in known:
            fail(f"no such queue: {name!r} (known: {', '.join(sorted(known)) or 'none'})")


def parse_json_arg(value: str, what: str) -> Any:
    """Validate JSON given on the command line before anything is written."""
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        fail(f"{what} is not valid JSON ({exc.msg} at character {exc.pos}): {value!r}")


def console() -> Console:
    """A console on the current ``sys.stdout`` (looked up per call, so CliRunner captures it)."""
    from rich.console import Console  # imported here: the worker command never needs rich

    return Console(file=sys.stdout, soft_wrap=False,
                   width=int(os.environ.get("COLUMNS", "0") or 0) or None)


def one_line(exc: BaseException) -> str:
    """The first line of an error's message, prefixed with its kind when helpful."""
    lines = str(exc).strip().splitlines()
    if not lines:
        return type(exc).__name__
    return core_phrase(lines[0])


def core_phrase(message: str) -> str:
    """Strip Redis's script decoration (``ERR user_script:12: ... script: sha``)."""
    import re

    match = re.search(r"user_script:\d+:\s*(.*?)(?:\s+script:\s*[0-9a-f]{40}.*)?$", message)
    if match:
        return match.group(1).strip()
    return message


def connection_error_types() -> tuple[type[BaseException], ...]:
    """Errors that mean the server could not be reached (the client wraps redis-py's; the
    bare ones can still come from calls made before the first core command)."""
    import redis

    from qless_py import QlessConnectionError
    from qless_py.connect.wire import ConnectionFailed

    return (QlessConnectionError, ConnectionFailed, redis.ConnectionError, redis.TimeoutError)


class QlessGroup(click.Group):
    """The top-level group: any error below it becomes one line (traceback with --debug)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:
            if ctx.params.get("debug"):
                raise
            from qless_py.errors import ConnectionSetupError

            if isinstance(exc, ConnectionSetupError):  # reached, but refused for good
                raise CliError(f"cannot connect: {one_line(exc)}") from exc
            if isinstance(exc, connection_error_types()):
                raise CliError(f"cannot reach the server: {one_line(exc)}") from exc
            raise CliError(one_line(exc)) from exc


def format_time(value: float | int | None) -> str:
    """Unix seconds as a short UTC timestamp (empty for 0/None)."""
    import datetime as dt

    if not value:
        return ""
    stamp = dt.datetime.fromtimestamp(float(value), tz=dt.UTC)
    return stamp.strftime("%Y-%m-%d %H:%M:%S")
