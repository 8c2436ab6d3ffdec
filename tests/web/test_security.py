"""The gate's other duties: basic auth, the headers every answer carries, and a server
password that never shows in a page or an API reply."""

from __future__ import annotations

import base64

import pytest

from qless_py import Client
from qless_py.web import BasicAuth, redact_url
from qless_py.web.security import CONTENT_SECURITY_POLICY, url_secrets
from tests.web.conftest import SAME_ORIGIN, MakeWeb, Web


def basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"authorization": f"Basic {token}"}


def test_every_answer_carries_the_security_headers(client: Client, web: Web) -> None:
    client.queues["q"].put("a.Job", {}, jid="a")
    for path in ("/", "/jobs/a", "/api/jobs/a", "/static/app.js", "/metrics", "/jobs/nope"):
        answer = web.get(path)
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["server-timing"].startswith("app;dur=")
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY  # no inline script runs
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
    assert web.get("/api/jobs/a").headers["cache-control"] == "no-store"


def test_the_csrf_cookie_is_strict_and_http_only(web: Web) -> None:
    cookie = web.get("/").headers["set-cookie"]
    assert cookie.startswith("qlpy_csrf=") and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "set-cookie" not in web.get("/").headers  # kept, not renewed


def test_basic_auth_guards_every_path(client: Client, make_web: MakeWeb) -> None:
    client.queues["q"].put("a.Job", {}, jid="a")
    web = make_web(auth=BasicAuth("ops", "s3cret:pass"))
    for path in ("/", "/api/overview", "/static/app.css", "/metrics", "/nope"):
        answer = web.get(path)
        assert answer.status_code == 401, path
        assert answer.headers["www-authenticate"].startswith("Basic realm=")
    for wrong in (basic("ops", "nope"), basic("other", "s3cret:pass"),
                  {"authorization": "Basic !!!"}, {"authorization": "Bearer x"}):
        assert web.get("/", headers=wrong).status_code == 401
    good = basic("ops", "s3cret:pass")
    assert web.get("/", headers=good).status_code == 200
    token = web.get("/api/csrf", headers=good).json()["token"]
    refused = web.post("/api/jobs/a/cancel", data={"csrf": token}, headers=SAME_ORIGIN)
    assert refused.status_code == 401 and client.jobs["a"] is not None
    done = web.post("/api/jobs/a/cancel", data={"csrf": token}, headers={**SAME_ORIGIN, **good})
    assert done.status_code == 200 and client.jobs["a"] is None


def test_credentials_parse() -> None:
    assert BasicAuth.parse("ops:pa:ss\nignored") == BasicAuth("ops", "pa:ss")
    for bad in ("", "nocolon", ":pass", "user:"):
        with pytest.raises(ValueError):
            BasicAuth.parse(bad)


@pytest.mark.parametrize(("url", "shown"), [
    ("redis://:s3cret@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
    ("rediss://user:p%40ss@h/1", "rediss://user:***@h/1"),
    ("redis://:a:b@c@h:1/0", "redis://:***@h:1/0"),
    ("unix:///tmp/s.sock?db=1&password=abc", "unix:///tmp/s.sock?db=1&password=***"),
    ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
])
def test_urls_are_redacted(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    for secret in url_secrets(url):
        assert secret not in redact_url(url)


def test_a_password_in_the_server_url_never_shows(client: Client, make_web: MakeWeb,
                                                  server_url: str) -> None:
    # The app's client carries a password in its URL (a unix socket URL's password is a
    # query parameter); the test server needs none, so the client connects as it is.
    secret = "Sup3rS3cret"
    url = f"{server_url}?password={secret}" if server_url.startswith("unix") else server_url
    spy = Client(url, redis_client=client.redis)
    assert secret in spy.url
    client.queues["q"].put("a.Job", {"echo": secret.lower()}, jid="a")
    web = make_web(c=spy)
    texts = [web.get(path, headers={"accept": accept}).text
             for path in ("/", "/jobs/a", "/api/jobs/a", "/api/overview", "/metrics", "/config",
                          "/jobs/nope", "/api/jobs/nope")
             for accept in ("text/html", "application/json")]
    assert all(secret not in text for text in texts)
    assert "password=***" in texts[0]
