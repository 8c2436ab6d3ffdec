"""Fixtures of the dashboard tests: the app on the real test servers, through Starlette's
test client, with a browser's same-origin headers and the page's CSRF token."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from freezegun import freeze_time
from starlette.testclient import TestClient

from qless_py import Client
from qless_py.web import BasicAuth, create_app
from qless_py.web.app import Dashboard
from tests.core.support import keyspace_digest

SAME_ORIGIN = {"sec-fetch-site": "same-origin", "accept": "application/json"}


def frozen_at(when: str) -> Any:
    """``freeze_time(when)`` that the app's threads see too. freezegun answers real time to
    code called within a few frames of a module on its ignore list, and a request handled
    on a worker thread calls the clock that close to ``threading``."""
    frozen = freeze_time(when)
    frozen.ignore = tuple(name for name in frozen.ignore if name not in ("threading", "queue"))
    return frozen


class Web(TestClient):
    """A test client that knows the app's CSRF token and speaks as a same-site browser."""

    def token(self) -> str:
        return str(self.get("/api/csrf").json()["token"])

    def act(self, path: str, fields: dict[str, str] | None = None, *, token: bool = True,
            headers: dict[str, str] | None = None) -> Any:
        """POST an action as the page's form would (token included unless told not to)."""
        body = dict(fields or {})
        if token:
            body["csrf"] = self.token()
        return self.post(path, data=body, headers={**SAME_ORIGIN, **(headers or {})},
                         follow_redirects=False)

    def html(self, path: str, status: int = 200) -> str:
        response = self.get(path, headers={"accept": "text/html"}, follow_redirects=False)
        assert response.status_code == status, (path, response.status_code, response.text)
        return response.text


@pytest.fixture
def client(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="web-test")
    yield c
    c.close()


MakeWeb = Callable[..., Web]


@pytest.fixture
def make_web(client: Client) -> Iterator[MakeWeb]:
    """Apps on ``client`` (or ``c``); ``app`` passes create_app's other keywords
    (``namespaces``, ``all_namespaces``, ...)."""
    made: list[tuple[Web, Dashboard]] = []

    def make(*, read_only: bool = False, url_prefix: str = "", auth: BasicAuth | None = None,
             metrics_only: bool = False, c: Client | None = None,
             app: dict[str, Any] | None = None, **kwargs: Any) -> Web:
        dashboard = create_app(c or client, read_only=read_only, url_prefix=url_prefix,
                               auth=auth, metrics_only=metrics_only, **(app or {}))
        web = Web(dashboard, **kwargs)
        made.append((web, dashboard))
        return web

    yield make
    for web, dashboard in made:
        web.close()
        dashboard.close()


@pytest.fixture
def web(make_web: MakeWeb) -> Web:
    return make_web()


@pytest.fixture
def keyspace(redis_conn: redis.Redis) -> Callable[[], dict[bytes, Any]]:
    """The whole keyspace (every key, type, content and expiry): proves nothing changed."""
    return lambda: keyspace_digest(redis_conn)
