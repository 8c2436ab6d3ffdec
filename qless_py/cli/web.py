"""``qless-py web``: serve the dashboard (or only ``/metrics``) with uvicorn.

The command parses options and serves ``qless_py.web.create_app``; nothing else. It binds
127.0.0.1 by default and refuses another address unless the app asks for credentials or
is read-only, or ``--allow-unauthenticated`` says the exposure is meant. It serves the
namespaces ``--namespace`` names (several if repeated) and the one in the URL's query, or,
with ``--all-namespaces``, every namespace it finds (docs/web.md, "Several namespaces").
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from qless_py.cli.common import fail, group_url, resolve_url, shard_count, url_option

if TYPE_CHECKING:
    from qless_py.web import BasicAuth

AUTH_ENV = "QLESS_WEB_AUTH"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses; names are not resolved."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_allowed(host: str, auth: bool, read_only: bool, allowed: bool) -> bool:
    """Whether the dashboard may listen on ``host``: loopback always; any other address
    only with credentials, read-only, or when explicitly allowed."""
    return is_loopback(host) or auth or read_only or allowed


def load_auth(auth_file: Path | None) -> BasicAuth | None:
    """Credentials from ``--auth-file`` (first line ``user:password``), else from
    ``$QLESS_WEB_AUTH``, else none."""
    from qless_py.web import BasicAuth

    if auth_file is not None:
        try:
            text = auth_file.read_text(encoding="utf-8")
        except OSError as exc:
            fail(f"cannot read --auth-file {auth_file}: {exc.strerror}")
        where = f"--auth-file {auth_file}"
    elif os.environ.get(AUTH_ENV):
        text, where = os.environ[AUTH_ENV], f"${AUTH_ENV}"
    else:
        return None
    try:
        return BasicAuth.parse(text)
    except ValueError as exc:
        fail(f"{where}: {exc}")


class PasswordFilter(logging.Filter):
    """Replaces secrets in every log record: its message, arguments and traceback text."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def clean(self, value: object) -> object:
        if not isinstance(value, str):
            return value
        for secret in self.secrets:
            value = value.replace(secret, "***")
        return value

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.clean(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(self.clean(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: self.clean(arg) for key, arg in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = str(self.clean(record.exc_text))
        return True


def served_namespaces(url: str, given: tuple[str, ...],
                      group: str | None) -> list[str | None]:
    """The namespaces to serve, the first at ``/``: the URL's ``namespace=``, then each
    ``--namespace`` (else the group's ``--namespace`` or ``$QLESS_NAMESPACE``); ``''`` is
    the default namespace (None). A name that is not valid stops the command in one line."""
    from qless_py.client.siblings import url_namespace
    from qless_py.web.namespaces import parse_name

    in_url = url_namespace(url)
    names = [*([in_url] if in_url is not None else []),
             *(given or ([group] if group else []))]
    try:
        return list(dict.fromkeys(parse_name(name) for name in names))
    except ValueError as exc:
        fail(str(exc))


def _names(namespaces: list[str | None]) -> str:
    from qless_py.web.namespaces import shown

    return ", ".join(shown(n) if shown(n).isprintable() else repr(n) for n in namespaces)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


@click.command()
@url_option
@click.option("--namespace", "namespaces", multiple=True, metavar="NAME",
              help="Serve this namespace; repeat for several, the first shown at / ('' is "
              "the default namespace). Default: the group's --namespace or "
              "$QLESS_NAMESPACE, else the URL's namespace=, else the default namespace.")
@click.option("--all-namespaces", is_flag=True,
              help="Serve the default namespace and every namespace a SCAN of the server "
              "finds (at start, and again from the Namespaces page; see docs/web.md).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port, printed at start).")
@click.option("--read-only", is_flag=True, help="Hide every action and refuse every POST.")
@click.option("--metrics-only", is_flag=True, help="Serve only /metrics (OpenMetrics).")
@click.option("--url-prefix", default="", metavar="PATH",
              help="Serve under PATH (e.g. /qless) behind a reverse proxy that keeps it.")
@click.option("--auth-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=f"File whose first line is user:password for HTTP basic auth "
              f"(else ${AUTH_ENV}, if set).")
@click.option("--allow-unauthenticated", is_flag=True,
              help="Allow a non-loopback --host without auth and without --read-only.")
@click.option("--refresh", type=click.FloatRange(min=0.1), default=5.0, show_default=True,
              help="Seconds between live refreshes of the pages.")
@click.pass_context
def web(ctx: click.Context, url: str | None, namespaces: tuple[str, ...],
        all_namespaces: bool, host: str, port: int, read_only: bool, metrics_only: bool,
        url_prefix: str, auth_file: Path | None, allow_unauthenticated: bool,
        refresh: float) -> None:
    """Serve the web dashboard and /metrics for the server at --url."""
    target = resolve_url(url or group_url(ctx))
    root = ctx.find_root().obj
    group_namespace = root.get("namespace") if isinstance(root, dict) else None
    served = served_namespaces(target, namespaces, group_namespace)
    auth = load_auth(auth_file)
    if not exposure_allowed(host, auth is not None, read_only or metrics_only,
                            allow_unauthenticated):
        fail(f"refusing to serve actions on {host} to anyone who can reach it: give "
             f"--auth-file (or ${AUTH_ENV}), or --read-only, or --allow-unauthenticated")
    url_prefix = url_prefix.rstrip("/")
    if url_prefix and not url_prefix.startswith("/"):
        fail("--url-prefix must start with '/', e.g. /qless")
    import uvicorn

    from qless_py import Client
    from qless_py.client.siblings import without_namespace
    from qless_py.web import create_app
    from qless_py.web.security import redact_url, url_secrets

    count = shard_count(ctx, target)
    client_for = None
    try:
        if count > 1:
            client, client_for = _sharded(target, served, count, all_namespaces)
        else:
            client = Client(without_namespace(target))
    except ValueError as exc:
        fail(str(exc))
    ctx.call_on_close(client.close)
    try:
        app = create_app(client, read_only=read_only, url_prefix=url_prefix, auth=auth,
                         metrics_only=metrics_only, refresh=refresh,
                         namespaces=served or None, all_namespaces=all_namespaces,
                         client_for=client_for)
    except ValueError as exc:
        fail(str(exc))
    ctx.call_on_close(app.close)
    found = ""
    if all_namespaces:
        scan = app.namespaces.scan()
        assert scan is not None
        how = "the whole keyspace" if scan.complete else \
            f"the first {scan.looked_at} keys (stopped there)"
        found = f"; all namespaces: {_names(app.namespaces.served())}, found by a scan of " \
            f"{how} in {scan.calls} round trip{'s' if scan.calls != 1 else ''}"
    elif served and served != [None]:
        found = f"; namespace{'s' if len(served) > 1 else ''} {_names(served)}"
    sock = _bind(host, port)
    shown_host = f"[{host}]" if ":" in host else host
    where = f"http://{shown_host}:{sock.getsockname()[1]}{url_prefix}/"
    secrets = [*url_secrets(client.url), auth.password if auth else ""]
    log_filter = PasswordFilter(secrets)
    for name in ("", "uvicorn", "uvicorn.error", "uvicorn.access", "qless_py.web"):
        logging.getLogger(name).addFilter(log_filter)
    mode = "metrics only" if metrics_only else ("read-only" if read_only else "read-write")
    click.echo(f"qless-py web: {redact_url(client.url)} on {where} ({mode}{found})", err=True)
    config = uvicorn.Config(app, log_level="info", access_log=True, lifespan="off",
                            server_header=False)
    server = uvicorn.Server(config)
    for handler_owner in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        for handler in logging.getLogger(handler_owner).handlers:
            handler.addFilter(log_filter)
    server.run(sockets=[sock])


def _sharded(target: str, served: list[str | None], count: int,
             all_namespaces: bool) -> tuple[Any, Any]:
    """The client of the first served namespace and the maker of the others' clients, each
    a ShardedClient of ``count`` shards whose count is checked against the recorded one."""
    from qless_py.client.sharded import ShardedClient
    from qless_py.client.siblings import without_namespace
    from qless_py.shards.clients import without_shards

    if all_namespaces:
        raise ValueError("--all-namespaces finds plain namespaces: name the sharded ones "
                         "with --namespace")
    if not served or None in served:
        raise ValueError("shards need a namespace (--namespace NAME): the default "
                         "namespace cannot be sharded")
    plain = without_shards(without_namespace(target))

    def make(namespace: str | None) -> ShardedClient:
        made = ShardedClient(plain, namespace=namespace, shards=count)
        made.verify(record=False)
        return made

    return make(served[0]), make


def register(group: click.Group) -> None:
    group.add_command(web)
