"""Routes: every page with its ``/api/`` twin, the actions, the search box and ``/metrics``.

A page and its twin call the same function of ``data.py``; the page renders the value
with its template, the twin answers it as JSON. Actions call ``actions.py`` and answer a
form with a redirect (303) to the page that shows the result, or JSON to anyone else.

Every request works in one namespace, the one its ``namespace=`` names (``namespaces.py``);
it is resolved before anything is read or written, and every link, form and redirect the
answer holds carries it on.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlencode

from starlette.requests import Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from qless_py import Client, OutOfMemoryError, QlessError
from qless_py.client.siblings import PARAM
from qless_py.web import actions, data, metrics
from qless_py.web.actions import Done
from qless_py.web.memory import REFUSED, MemoryWatch
from qless_py.web.namespaces import Namespaces

log = logging.getLogger("qless_py.web")

FLASH_COOKIE = "qlpy_flash"
# The live refresh (static/app.js) marks its fetches with this header: they neither show nor
# clear the flash, which belongs to the page the browser navigates to after an action.
LIVE_HEADER = "x-qlpy-live"
Gather = Callable[[Client, Request], Any]


@dataclass
class Site:
    """What the routes share: the namespaces and their clients, the templates and the app's
    settings."""

    namespaces: Namespaces
    templates: Jinja2Templates
    read_only: bool
    batch: int
    clean: Callable[[str], str]  # removes the server password from any text shown
    memory: MemoryWatch


def href(request: Request, *parts: str, **query: Any) -> str:
    """A link to an app path (each part quoted) under the app's root path, in the request's
    namespace (``namespace=`` among ``query`` names another: None for the home one)."""
    root = str(request.scope.get("root_path", ""))
    target = root + "/" + "/".join(quote(str(part), safe="") for part in parts)
    if PARAM not in query and parts[:1] != ("static",):
        query[PARAM] = getattr(request.state, "namespace_link", None)
    given = {k: v for k, v in query.items() if v is not None}
    return target + ("?" + urlencode(given) if given else "")


def route_path(request: Request) -> str:
    """The request's path within the app (without the root path of a mount or prefix)."""
    path, root = request.scope["path"], str(request.scope.get("root_path", ""))
    return path[len(root):] or "/" if root and path.startswith(root) else path


def _core_phrase(text: str) -> str:
    """The core's phrase without Redis's decoration (``ERR user_script:12: ... script: sha``)."""
    found = re.search(r"user_script:\d+:\s*(.*?)(?:\s+script:\s*[0-9a-f]{40}.*)?$", text)
    return found.group(1).strip() if found else text


def _wants_html(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "")


def _int_param(request: Request, name: str, default: int, high: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
    if value < 0 or (high is not None and value > high):
        raise ValueError(f"{name} must be between 0 and {high}, not {raw!r}")
    return value


def _paging(request: Request) -> tuple[int, int]:
    return (_int_param(request, "offset", 0),
            _int_param(request, "count", data.PAGE_SIZE, data.MAX_PAGE_SIZE) or data.PAGE_SIZE)


class Pages:
    """The route handlers of one app."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def client(self, request: Request) -> Client:
        """The client of the request's namespace (``namespace=``), noted on the request
        for its links; ValueError (400) or ``data.Missing`` (404) before anything else."""
        namespaces = self.site.namespaces
        namespace = namespaces.from_query(request.query_params.getlist(PARAM))
        request.state.namespace = namespace
        request.state.namespace_link = namespaces.link_value(namespace)
        return namespaces.client(namespace)

    # -- rendering -------------------------------------------------------------------------
    def render(self, request: Request, template: str, status_code: int = 200,
               **context: Any) -> Response:
        flash = None if request.headers.get(LIVE_HEADER) else request.cookies.get(FLASH_COOKIE)
        context.setdefault("flash", self.site.clean(unquote(flash)) if flash else None)
        context.setdefault("memory_limit", self.site.memory.line())
        response = self.site.templates.TemplateResponse(request, template, context,
                                                        status_code=status_code)
        if flash:
            response.delete_cookie(FLASH_COOKIE, path=request.scope.get("root_path") or "/")
        return response

    def error(self, request: Request, status: int, message: str) -> Response:
        message = self.site.clean(message)
        if _wants_html(request):
            return self.render(request, "error.html", status, status=status, message=message)
        return JSONResponse({"error": message}, status)

    def gathered(self, request: Request, gather: Gather) -> Any:
        """The view's value, or the error response for a missing subject or a bad query."""
        try:
            return gather(self.client(request), request)
        except data.Missing as exc:
            return self.error(request, 404, str(exc))
        except ValueError as exc:
            return self.error(request, 400, str(exc))

    def view(self, template: str, gather: Gather) -> Callable[[Request], Response]:
        def page(request: Request) -> Response:
            value = self.gathered(request, gather)
            if isinstance(value, Response):
                return value
            return self.render(request, template, view=value)

        return page

    def api(self, gather: Gather) -> Callable[[Request], Response]:
        def twin(request: Request) -> Response:
            value = self.gathered(request, gather)
            if isinstance(value, Response):
                return value
            return JSONResponse(value)

        return twin

    # -- actions ---------------------------------------------------------------------------
    def action(self, table: dict[str, actions.Action], param: str,
               **options: Any) -> Callable[[Request], Response]:
        def act(request: Request) -> Response:
            name = request.path_params["action"]
            handler = table.get(name)
            if handler is None:
                return self.error(request, 404, f"no such action: {name}")
            form: dict[str, str] = dict(request.state.form)
            args = [request.path_params[param]] if param else []
            try:
                client = self.client(request)
                done: Done = handler(client, form, *args, **options)
            except data.Missing as exc:
                return self.error(request, 404, str(exc))
            except (ValueError, TypeError) as exc:
                return self.error(request, 400, str(exc))
            except OutOfMemoryError:
                self.site.memory.refused()
                return self.error(request, 503, REFUSED)
            except QlessError as exc:
                return self.error(request, 409, _core_phrase(str(exc)))
            log.info("action %s%s: %s", request.url.path,
                     self.site.namespaces.query(client.keys.namespace),
                     self.site.clean(done.message))
            return self.answer(request, done)

        return act

    def answer(self, request: Request, done: Done) -> Response:
        if _wants_html(request):
            namespace = getattr(request.state, "namespace", self.site.namespaces.home)
            target = (request.scope.get("root_path", "") + done.then or "/") \
                + self.site.namespaces.query(namespace)
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(FLASH_COOKIE, quote(done.message), max_age=60,
                                path=request.scope.get("root_path") or "/", httponly=True,
                                samesite="strict")
            return response
        body: dict[str, Any] = {"ok": True, "message": done.message}
        if done.result is not None:
            body["result"] = done.result
        return JSONResponse(body)

    # -- special pages ---------------------------------------------------------------------
    def search(self, request: Request) -> Response:
        text = request.query_params.get("q", "")
        found = self.gathered(request, lambda c, r: data.search(c, text))
        if isinstance(found, Response):
            return found
        if found is None:
            return self.render(request, "search.html", 404 if text.strip() else 200, text=text)
        return RedirectResponse(href(request, *found), status_code=303)

    def metrics(self, request: Request) -> Response:
        """Every served namespace's samples; ``?namespace=`` names one of them."""
        namespaces = self.site.namespaces
        if PARAM in request.query_params:
            clients = self.gathered(request, lambda c, r: [c])
            if isinstance(clients, Response):
                return clients
        else:
            clients = [namespaces.client(name) for name in namespaces.served()]
        return PlainTextResponse(metrics.exposition(clients, namespaces.labelled),
                                 media_type=metrics.CONTENT_TYPE)

    def namespaces(self, request: Request) -> dict[str, Any]:
        """The namespaces page: each served namespace's totals, one round trip each
        (``?scan=1`` looks for namespaces again, with ``all_namespaces``)."""
        namespaces = self.site.namespaces
        if request.query_params.get("scan") == "1":
            namespaces.scan(again=True)
        rows = [data.namespace_row(namespaces.client(name)) for name in namespaces.served()]
        scan = namespaces.last_scan
        return {"namespaces": rows, "home": namespaces.home,
                "all_namespaces": namespaces.discover_all,
                "scan": scan.to_dict() if scan is not None else None}

    def csrf(self, request: Request) -> Response:
        return JSONResponse({"token": request.state.csrf})


def _queue(client: Client, request: Request) -> Any:
    offset, count = _paging(request)
    state = request.query_params.get("state") or "waiting"
    return data.queue(client, request.path_params["queue"], state, offset, count)


def _group(client: Client, request: Request) -> Any:
    offset, count = _paging(request)
    return data.failed_group(client, request.path_params["group"], offset, count)


def _tag(client: Client, request: Request) -> Any:
    offset, count = _paging(request)
    return data.tag(client, request.path_params["tag"], offset, count)


def _recurring_job(client: Client, request: Request) -> Any:
    value = data.job(client, request.path_params["jid"])
    if value.get("state") != "recur":
        raise data.Missing(f"no such recurring job: {request.path_params['jid']}")
    return value


VIEWS: list[tuple[str, str, str, Gather]] = [
    # (page path, API path, template, what both show)
    ("/", "/api/overview", "overview.html", lambda c, r: data.overview(c)),
    ("/queues", "/api/queues", "queues.html", lambda c, r: data.queues(c)),
    ("/queues/{queue:path}", "/api/queues/{queue:path}", "queue.html", _queue),
    ("/jobs/{jid:path}", "/api/jobs/{jid:path}", "job.html",
     lambda c, r: data.job(c, r.path_params["jid"])),
    ("/failed", "/api/failed", "failed.html", lambda c, r: data.failed(c)),
    ("/failed/{group:path}", "/api/failed/{group:path}", "group.html", _group),
    ("/workers", "/api/workers", "workers.html", lambda c, r: data.workers(c)),
    ("/workers/{name:path}", "/api/workers/{name:path}", "worker.html",
     lambda c, r: data.worker(c, r.path_params["name"])),
    ("/tags/{tag:path}", "/api/tags/{tag:path}", "tag.html", _tag),
    ("/recurring", "/api/recurring", "recurring.html", lambda c, r: data.recurring(c)),
    ("/recurring/{jid:path}", "/api/recurring/{jid:path}", "recurring_job.html",
     _recurring_job),
    ("/config", "/api/config", "config.html", lambda c, r: data.config(c)),
]
NAMESPACES_PATHS = ("/namespaces", "/api/namespaces")


def routes(site: Site, metrics_only: bool) -> list[BaseRoute]:
    pages = Pages(site)
    if metrics_only:
        return [Route("/metrics", pages.metrics)]
    found: list[BaseRoute] = [
        # Actions first: their paths end in /<action>, which a name (path) could also match.
        Route("/api/jobs/{jid:path}/{action}", pages.action(actions.JOB_ACTIONS, "jid"),
              methods=["POST"]),
        Route("/api/queues/{queue:path}/{action}", pages.action(actions.QUEUE_ACTIONS, "queue"),
              methods=["POST"]),
        Route("/api/failed/{group:path}/{action}",
              pages.action(actions.GROUP_ACTIONS, "group", batch=site.batch), methods=["POST"]),
        Route("/api/recurring/{jid:path}/{action}",
              pages.action(actions.RECURRING_ACTIONS, "jid"), methods=["POST"]),
        Route("/api/config/{action}", pages.action(actions.CONFIG_ACTIONS, ""),
              methods=["POST"]),
        Route("/api/csrf", pages.csrf),
        Route("/search", pages.search),
        Route("/metrics", pages.metrics),
    ]
    for page, api, template, gather in VIEWS:
        found.append(Route(api, pages.api(gather)))
        found.append(Route(page, pages.view(template, gather)))

    def every(client: Client, request: Request) -> Any:
        return pages.namespaces(request)

    found.append(Route(NAMESPACES_PATHS[1], pages.api(every)))
    found.append(Route(NAMESPACES_PATHS[0], pages.view("namespaces.html", every)))
    return found


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str, ensure_ascii=False)
