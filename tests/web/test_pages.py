"""Every page of the dashboard through the test client: what it shows, its status codes,
and that every value from the database is escaped wherever it appears."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from freezegun import freeze_time

from qless_py import Client
from tests.web.conftest import MakeWeb, Web, frozen_at

T0 = "2030-01-01 12:00:00"
SCRIPT = "<script>window.pwned=1</script>"
IMG = "<img src=x onerror=window.pwned=2>"
QUEUE = f"q{SCRIPT}"
GROUP = f"g{IMG}"
TAG = f"t{SCRIPT}"
KLASS = f"k.{IMG}"
WORKER = f"w{SCRIPT}"
RAW = (SCRIPT, IMG, "<img", "onerror=window")


def hostile(client: Client) -> dict[str, str]:
    """Jobs whose every name and value holds markup, in every state a page shows."""
    hostile_worker = Client(client.url, worker_name=WORKER)
    queue = hostile_worker.queues[QUEUE]
    with freeze_time(T0) as frozen:
        queue.put(KLASS, {"note": SCRIPT, "img": IMG}, jid="failed1", tags=[TAG])
        frozen.tick(0.004)
        job = queue.pop()
        assert job is not None
        frozen.tick(0.02)
        job.fail(GROUP, f"Traceback (most recent call last):\n  {SCRIPT}\nValueError: {IMG}")
        queue.put(KLASS, {"x": SCRIPT}, jid="running1", tags=[TAG])
        assert queue.pop() is not None
        queue.put(KLASS, {}, jid="waiting1", tags=[TAG], depends=["running1"])
        queue.put(KLASS, {}, jid="waiting2", priority=5)
        queue.put(KLASS, {}, jid="later1", delay=600)
        queue.recur(KLASS, {"r": SCRIPT}, interval=60, jid="recur1", offset=600, tags=[TAG])
        hostile_worker.track("failed1")
        client.config[f"{QUEUE}-heartbeat"] = 30
    hostile_worker.close()
    return {"queue": QUEUE}


@pytest.fixture(autouse=True)
def soon_after() -> Iterator[None]:
    """Pages are read 30 s after the data were made (jobs popped then are still running)."""
    with frozen_at("2030-01-01 12:00:30"):
        yield


def assert_escaped(html: str) -> None:
    for raw in RAW:
        assert raw not in html.replace("&lt;img src=x onerror=window", ""), f"unescaped {raw!r}"
    # The page's own script, and no other.
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/app.js" defer>']


def q(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


PAGES = [
    "/", "/queues", f"/queues/{q(QUEUE)}", f"/queues/{q(QUEUE)}?state=running",
    f"/queues/{q(QUEUE)}?state=scheduled", f"/queues/{q(QUEUE)}?state=depends",
    f"/queues/{q(QUEUE)}?state=recurring", f"/queues/{q(QUEUE)}?state=stalled",
    "/jobs/failed1", "/jobs/running1", "/jobs/waiting1", "/jobs/recur1", "/failed",
    f"/failed/{q(GROUP)}", f"/failed/{q(GROUP)}?confirm=retry",
    f"/failed/{q(GROUP)}?confirm=cancel", "/workers", f"/workers/{q(WORKER)}",
    f"/tags/{q(TAG)}", "/recurring", "/recurring/recur1", "/config",
    f"/search?q={q(SCRIPT)}",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_escapes_every_database_value(client: Client, web: Web, path: str) -> None:
    hostile(client)
    status = 404 if path.startswith("/search") else 200
    html = web.html(path, status)
    assert_escaped(html)
    assert html.startswith("<!doctype html>")


def test_overview_shows_queues_groups_workers_and_tracked_jobs(client: Client, web: Web) -> None:
    hostile(client)
    html = web.html("/")
    escaped_queue = QUEUE.replace("<", "&lt;").replace(">", "&gt;")
    assert escaped_queue in html
    row = re.search(r"<tr>\s*<td><a href=\"/queues/[^\"]+\">" + re.escape(escaped_queue)
                    + r"</a></td>(.*?)</tr>", html, re.S)
    assert row is not None
    cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(1))
    # waiting running stalled scheduled depends throttled recurring | done today, failed
    # today, wait p50, run p50 (today is the frozen day, not the test's: no figures yet).
    assert cells[:7] == ["1", "1", "0", "1", "1", "0", "1"]
    assert "g&lt;img src=x onerror=window.pwned=2&gt;" in html
    assert "w&lt;script&gt;" in html and "failed1" in html  # worker, tracked job


def test_queue_page_lists_jobs_by_state_with_paging(client: Client, web: Web) -> None:
    queue = client.queues["plain"]
    with freeze_time("2030-01-01 11:00:00") as frozen:
        for i in range(30):
            queue.put("a.Job", {}, jid=f"j{i:02d}")
            frozen.tick(1)
    html = web.html("/queues/plain")
    shown = re.findall(r'<a href="/jobs/(j\d\d)">', html)
    assert shown == [f"j{i:02d}" for i in range(25)]
    assert "1&ndash;25 of 30" in html and 'href="/queues/plain?offset=25&amp;count=25' in html
    assert re.findall(r'<a href="/jobs/(j\d\d)">', web.html("/queues/plain?offset=25")) == \
        [f"j{i:02d}" for i in range(25, 30)]
    assert "Pause" in html
    web.html("/queues/plain?state=bogus", 400)
    web.html("/queues/plain?offset=-1", 400)
    web.html("/queues/nope", 404)


def test_queue_page_shows_fine_figures_and_charts(client: Client, web: Web) -> None:
    queue = client.queues["timed"]
    with frozen_at("2030-01-01 12:00:00") as frozen:
        for i, wait in enumerate((0.0003, 0.007, 0.12, 2.5)):
            queue.put("a.Job", {}, jid=f"j{i}")
            frozen.tick(wait)
            job = queue.pop()
            assert job is not None
            frozen.tick(0.014)
            job.complete()
        html = web.html("/queues/timed")
        value = web.get("/api/queues/timed").json()
    today = value["today"]
    assert today["wait"]["count"] == 4 and today["run"]["count"] == 4
    assert 0.0063 < today["wait"]["p50"] < 0.0079 and 0.0125 < today["run"]["p99"] < 0.0158
    assert value["week"]["wait"]["count"] == 4
    assert html.count('<svg class="chart"') == 4  # wait and run, today and 7 days
    assert len(re.findall(r"<rect ", html)) == 4 * 2 + 1 * 2  # four wait bars, one run bar
    assert "<title>6.31ms to 7.08ms: 1</title>" in html  # the 7 ms wait


def test_job_page_shows_everything_the_command_shows(client: Client, web: Web) -> None:
    hostile(client)
    html = web.html("/jobs/failed1")
    assert "Traceback (most recent call last):" in html and "ValueError" in html
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html  # data, pretty-printed
    assert '&#34;note&#34;: ' in html  # pretty-printed JSON, quotes escaped too
    for what in ("put", "popped", "failed"):
        assert f"<strong>{what}</strong>" in html
    assert "Retry" in html and "Cancel" in html
    waiting = web.html("/jobs/waiting1")
    assert 'href="/jobs/running1"' in waiting  # dependency as a link
    assert 'href="/jobs/waiting1"' in web.html("/jobs/running1")  # dependent as a link
    assert "lock expires" in waiting
    web.html("/jobs/nope", 404)
    assert "recurring job" in web.html("/jobs/recur1")


def test_group_page_pages_and_confirms(client: Client, web: Web) -> None:
    queue = client.queues["q"]
    for i in range(30):
        queue.put("a.Job", {}, jid=f"f{i:02d}")
        job = queue.pop()
        assert job is not None
        job.fail("boom", f"message {i}")
    html = web.html("/failed/boom")
    assert "30 jobs" in html and len(re.findall(r'href="/jobs/f\d\d"', html)) == 25
    assert '<td class="message">message 29</td>' in html
    client.queues["q"].put("a.Job", {}, jid="tb")
    job = client.queues["q"].pop()
    assert job is not None
    job.fail("tb", "Traceback (most recent call last):\n  File x\nKeyError: 'k'")
    assert '<td class="message">KeyError: &#39;k&#39;</td>' in web.html("/failed/tb")
    assert "Retry all" in html and 'action="/api/failed' not in html  # a link, not a form
    confirm = web.html("/failed/boom?confirm=retry")
    assert "Put all 30 jobs of boom back" in confirm
    assert 'action="/api/failed/boom/retry"' in confirm and 'value="yes"' in confirm
    web.html("/failed/nothing", 404)


def test_workers_tags_recurring_config_and_search(client: Client, web: Web) -> None:
    hostile(client)
    assert "running1" in web.html(f"/workers/{q(WORKER)}")
    assert {"failed1", "running1", "waiting1"} <= set(
        re.findall(r'href="/jobs/(\w+)"', web.html(f"/tags/{q(TAG)}")))
    assert "recur1" in web.html("/recurring")
    assert "1m" in web.html("/recurring/recur1")
    assert "heartbeat" in web.html("/config")
    web.html("/workers/nobody", 404)
    web.html("/tags/none", 404)
    web.html("/recurring/failed1", 404)
    found = web.get("/search?q=failed1", follow_redirects=False)
    assert found.status_code == 303 and found.headers["location"] == "/jobs/failed1"
    found = web.get(f"/search?q={q(TAG)}", follow_redirects=False)
    assert found.headers["location"] == f"/tags/{q(TAG)}"
    assert web.get("/search?q=", follow_redirects=False).status_code == 200


def test_static_assets_are_served_from_the_package(web: Web) -> None:
    assert "live refresh" in web.get("/static/app.js").text
    assert web.get("/static/app.css").headers["content-type"].startswith("text/css")
    assert web.get("/static/nothing.js").status_code == 404


def test_url_prefix_links_stay_under_it(client: Client, make_web: MakeWeb) -> None:
    client.queues["q"].put("a.Job", {}, jid="a")
    web = make_web(url_prefix="/qless")
    assert web.get("/qless", follow_redirects=False).headers["location"] == "/qless/"
    html = web.html("/qless/")
    assert 'href="/qless/queues/q"' in html and 'src="/qless/static/app.js"' in html
    assert web.get("/", follow_redirects=False).status_code == 404
    assert web.get("/qless/api/jobs/a").json()["jid"] == "a"


def test_mounted_in_another_app(client: Client) -> None:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route
    from starlette.testclient import TestClient

    from qless_py.web import create_app

    client.queues["q"].put("a.Job", {}, jid="a")
    host = Starlette(routes=[Route("/", lambda r: PlainTextResponse("host")),
                             Mount("/ops/qless", app=create_app(client))])
    with TestClient(host) as web:
        assert web.get("/").text == "host"
        html = web.get("/ops/qless/jobs/a", headers={"accept": "text/html"}).text
        assert 'href="/ops/qless/queues/q"' in html
        token = web.get("/ops/qless/api/csrf").json()["token"]
        done = web.post("/ops/qless/api/jobs/a/track", data={"csrf": token},
                        headers={"sec-fetch-site": "same-origin"})
        assert done.json()["ok"] is True
    assert client.jobs.tracked()["jobs"][0].jid == "a"
