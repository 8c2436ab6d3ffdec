"""``create_app``: the dashboard as an ASGI application, to serve or to mount.

The app is a Starlette application behind the gate of ``security.py``. Everything it
shows is read through the ``Client`` it is given, or, for another namespace it serves, a
client like it in that namespace (``namespaces.py``); templates and assets are files of
this package (no CDN, no build step).
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from qless_py import Client
from qless_py.client.relay import parse_member
from qless_py.client.relay import shown as shown_member
from qless_py.client.siblings import ClientFor, without_namespace
from qless_py.stats import human_seconds
from qless_py.web import charts, data, pages
from qless_py.web.memory import MemoryWatch
from qless_py.web.namespaces import SCAN_LIMIT, Namespaces, shown
from qless_py.web.security import (
    ASGIApp,
    BasicAuth,
    Gate,
    Receive,
    Scope,
    Send,
    redact_url,
    url_secrets,
)

HERE = Path(__file__).resolve().parent
log = logging.getLogger("qless_py.web")


def _when(value: Any) -> str:
    """Unix seconds as a UTC timestamp (empty for 0/None)."""
    if not value:
        return ""
    stamp = dt.datetime.fromtimestamp(float(value), tz=dt.UTC)
    return stamp.strftime("%Y-%m-%d %H:%M:%S")


def _summary(message: str) -> str:
    """One line of a failure message: a traceback's last line, else the first line."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[-1] if lines[0].startswith("Traceback") else lines[0]


# Pages whose path makes sense in every namespace: the picker stays on them.
SECTIONS = ("/", "/queues", "/failed", "/workers", "/recurring", "/config", "/namespaces")


def _picker(request: Request, namespaces: Namespaces, current: str | None) -> dict[str, Any]:
    """The header's namespace picker: a GET form whose select names ``namespace=``."""
    section = pages.route_path(request)
    parts = section.strip("/").split("/") if section in SECTIONS and section != "/" else []
    options = [{"value": "" if name is None else name, "label": shown(name),
                "selected": name == current} for name in namespaces.served()]
    return {"action": pages.href(request, *parts, namespace=None), "options": options}


def _templates(site_globals: dict[str, Any], namespaces: Namespaces) -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every value is escaped; nothing from the database is marked safe
        undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )
    env.filters.update(when=_when, human=human_seconds, pretty=pages.pretty_json,
                       summary=_summary, shown=shown, remote=parse_member,
                       member=shown_member)
    env.globals.update(site_globals, timing_chart=charts.timing_chart,
                       states=data.QUEUE_STATES)

    def per_request(request: Request) -> dict[str, Any]:
        def link(*parts: Any, **query: Any) -> str:
            return pages.href(request, *parts, **query)

        def link_in(namespace: str | None, *parts: Any, **query: Any) -> str:
            """A link to a page of another namespace."""
            return pages.href(request, *parts, **query,
                              namespace=namespaces.link_value(namespace))

        current = getattr(request.state, "namespace", namespaces.home)
        return {"href": link, "href_in": link_in, "csrf": request.state.csrf,
                "path": request.url.path, "namespace": current,
                "namespace_shown": None if current is None else shown(current),
                "namespace_link": getattr(request.state, "namespace_link", None),
                "multi": namespaces.multi,
                "picker": _picker(request, namespaces, current) if namespaces.multi else None}

    return Jinja2Templates(env=env, context_processors=[per_request])


def _cleaner(url: str) -> Callable[[str], str]:
    secrets_in_url = url_secrets(url)

    def clean(text: str) -> str:
        for secret in secrets_in_url:
            text = text.replace(secret, "***")
        return text

    return clean


class Dashboard:
    """The ASGI application ``create_app`` returns: the gate and the pages behind it, and
    the namespaces it serves (``close()`` closes the clients it made for them)."""

    def __init__(self, app: ASGIApp, namespaces: Namespaces) -> None:
        self.app = app
        self.namespaces = namespaces

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)

    def close(self) -> None:
        self.namespaces.close()


def create_app(client: Client, *, read_only: bool = False, url_prefix: str = "",
               auth: BasicAuth | None = None, metrics_only: bool = False,
               refresh: float = 5.0, batch: int = 100, secret: bytes | None = None,
               namespaces: Sequence[str | None] | None = None, all_namespaces: bool = False,
               client_for: ClientFor | None = None,
               scan_limit: int = SCAN_LIMIT) -> Dashboard:
    """The dashboard for ``client``'s server.

    ``read_only`` hides every action and refuses every POST; ``url_prefix`` serves the app
    under a path (behind a reverse proxy that keeps the path); ``auth`` asks every request
    for these basic credentials; ``metrics_only`` serves ``/metrics`` alone; ``refresh`` is
    the live refresh period of the pages in seconds; ``batch`` bounds each round trip of a
    whole-group retry or cancel; ``secret`` keys the CSRF tokens (random by default, so
    tokens from an earlier run are refused). Mount it in another ASGI app as it is:
    links follow the mount's root path.

    ``namespaces`` lists the namespaces to serve (None: the default namespace), the first
    at ``/``; by default ``client``'s own. ``all_namespaces`` serves the default namespace
    and every namespace a ``SCAN`` of at most ``scan_limit`` keys finds (docs/web.md).
    Another namespace's client is ``client_for(namespace)``, by default a ``Client`` like
    ``client`` (same URL and settings) in that namespace.
    """
    if url_prefix and (not url_prefix.startswith("/") or url_prefix.endswith("/")):
        raise ValueError("url_prefix must start with '/' and not end with one, e.g. '/qless'")
    if refresh <= 0 or batch < 1:
        raise ValueError("refresh must be positive and batch at least 1")
    served = Namespaces(client, namespaces, discover_all=all_namespaces, client_for=client_for,
                        scan_limit=scan_limit)
    # Serving several namespaces, the header names the server alone (the picker the rest).
    server = without_namespace(client.url) if served.multi else client.url
    templates = _templates({"read_only": read_only or metrics_only,
                            "server": redact_url(server), "refresh": refresh}, served)
    site = pages.Site(served, templates, read_only or metrics_only, batch, _cleaner(client.url),
                      MemoryWatch(client))
    inner_routes: list[BaseRoute] = pages.routes(site, metrics_only)
    if not metrics_only:
        inner_routes.append(Mount("/static", StaticFiles(directory=HERE / "static"),
                                  name="static"))
    app = Starlette(routes=inner_routes, exception_handlers={500: _server_error(site)})
    outer: ASGIApp = app
    if url_prefix:
        def to_prefix(request: Request) -> Response:
            return RedirectResponse(url_prefix + "/", status_code=308)

        outer = Starlette(routes=[Route(url_prefix, to_prefix), Mount(url_prefix, app=app)])
    return Dashboard(Gate(outer, read_only=read_only or metrics_only, auth=auth,
                          secret=secret or secrets.token_bytes(32)), served)


def _server_error(site: pages.Site) -> Any:
    def handler(request: Request, exc: Exception) -> Response:
        text = site.clean(f"{type(exc).__name__}: {exc}")
        log.error("%s %s failed: %s", request.method, request.url.path, text)
        return PlainTextResponse(f"500: {text}\n", status_code=500)

    return handler
