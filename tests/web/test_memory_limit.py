"""The dashboard at the server's memory limit (``maxmemory`` with ``noeviction``): every page
still renders and says so at its top, and an action the server refuses answers with one
readable line (a 503) and changes nothing. On both servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from qless_py import Client
from qless_py.web.memory import REFUSED, MemoryWatch, limit_line
from tests.web.conftest import MakeWeb, Web

Keyspace = Callable[[], dict[bytes, Any]]
BANNER = 'class="memory-limit" role="alert"'
PAGES = ["/", "/queues", "/queues/q", "/queues/q?state=running", "/jobs/f1", "/jobs/w1",
         "/failed", "/failed/g", "/workers", "/workers/web-test", "/tags/t",
         "/recurring", "/recurring/r1", "/config", "/search?q=nothing-like-it"]


# Actions whose command's first write frees memory (a removal): the server lets the whole
# command through at the limit (docs/operations.md, "At the memory limit").
RUN_WHOLE = {"/api/jobs/f1/retry", "/api/failed/g/retry", "/api/jobs/w1/cancel"}


def _fill(client: Client) -> None:
    queue = client.queues["q"]
    queue.put("a.Job", {}, jid="f1", tags=["t"])
    job = queue.pop()
    assert job is not None
    job.fail("g", "it broke")
    queue.put("a.Job", {}, jid="w1", tags=["t"])
    queue.put("a.Job", {}, jid="r2")
    assert queue.pop() is not None
    queue.recur("a.Job", {}, jid="r1", interval=60)


@pytest.fixture
def at_the_limit(redis_conn: redis.Redis) -> Iterator[Callable[[], None]]:
    """Puts the (shared) server at its limit when called; always lifts it at the end."""
    policy = str(redis_conn.config_get("maxmemory-policy")["maxmemory-policy"])

    def reach() -> None:
        redis_conn.config_set("maxmemory-policy", "noeviction")
        redis_conn.config_set("maxmemory", 1)

    try:
        yield reach
    finally:
        redis_conn.config_set("maxmemory", 0)
        redis_conn.config_set("maxmemory-policy", policy)


def test_every_page_renders_and_says_the_server_is_at_its_limit(
        client: Client, web: Web, at_the_limit: Callable[[], None]) -> None:
    _fill(client)
    for path in PAGES:
        assert BANNER not in web.html(path, 404 if path.startswith("/search") else 200)
    at_the_limit()
    for path in PAGES:
        page = web.html(path, 404 if path.startswith("/search") else 200)
        assert BANNER in page and "at its memory limit" in page, path
    assert web.get("/api/overview").status_code == 200
    assert web.get("/metrics").status_code == 200


@pytest.mark.parametrize(("path", "fields"), [
    ("/api/jobs/f1/retry", {}),
    ("/api/jobs/w1/cancel", {}),
    ("/api/jobs/w1/priority", {"priority": "3"}),
    ("/api/jobs/w1/tag", {"tags": "x"}),
    ("/api/queues/q/pause", {}),
    ("/api/failed/g/retry", {"confirm": "yes"}),
    ("/api/recurring/r1/update", {"interval": "30"}),
    ("/api/config/set", {"key": "heartbeat", "value": "30"}),
])
def test_a_refused_action_answers_one_readable_line_and_changes_nothing(
        client: Client, web: Web, at_the_limit: Callable[[], None], keyspace: Keyspace,
        path: str, fields: dict[str, str]) -> None:
    _fill(client)
    token = web.token()
    at_the_limit()
    before = keyspace()
    answer = web.post(path, data={**fields, "csrf": token},
                      headers={"sec-fetch-site": "same-origin", "accept": "application/json"})
    if answer.status_code == 200:  # its first write frees memory: the server lets it run
        assert path in RUN_WHOLE, answer.text
        return
    assert answer.status_code == 503, answer.text
    assert answer.json() == {"error": REFUSED}
    assert "\n" not in REFUSED
    assert keyspace() == before
    form = web.post(path, data={**fields, "csrf": token},
                    headers={"sec-fetch-site": "same-origin", "accept": "text/html"},
                    follow_redirects=False)
    assert form.status_code == 503
    assert REFUSED.replace('"', "&#34;") in form.text and BANNER in form.text


def test_the_line_follows_info_and_else_a_recent_refusal(client: Client) -> None:
    assert limit_line({"used_memory": 10, "maxmemory": 0,
                       "maxmemory_policy": "noeviction"}) is None
    assert limit_line({"used_memory": 10, "maxmemory": 11,
                       "maxmemory_policy": "noeviction"}) is None
    assert limit_line({"used_memory": 10, "maxmemory": 10,
                       "maxmemory_policy": "allkeys-lru"}) is None  # it evicts instead
    assert "at its memory limit" in str(limit_line(
        {"used_memory": 12, "maxmemory": 10, "maxmemory_policy": "noeviction"}))

    class NoInfo(MemoryWatch):
        def line(self) -> str | None:
            self.client = None  # type: ignore[assignment]  # INFO raises: an ACL without it
            return super().line()

    watch = NoInfo(client)
    assert watch.line() is None
    watch.refused()
    assert "refused a change for memory" in str(watch.line())


def test_a_read_only_app_says_so_too(client: Client, make_web: MakeWeb,
                                     at_the_limit: Callable[[], None]) -> None:
    at_the_limit()
    assert BANNER in make_web(read_only=True).html("/")
