"""The dashboard in a real browser: Debian's chromium driven by Playwright, against the app
served by uvicorn on a loopback port and a real server.

Set QLESS_SCREENSHOTS=1 to write the screenshots of docs/web.md into docs/img/ (CI never
does, so it never rewrites the repository).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from freezegun import freeze_time
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from qless_py import Client
from qless_py.web import create_app
from qless_py.web.app import Dashboard

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags chromium waits for network it cannot reach.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"
SCRIPT = "<script>alert('script ran'); window.pwned = 1</script>"
IMG = "<img src=x onerror=\"alert('img ran'); window.pwned = 2\">"


def screenshot(page: Page, name: str) -> None:
    """Write docs/img/<name>.png when QLESS_SCREENSHOTS is set."""
    if os.environ.get("QLESS_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    # A missing browser fails these tests: .ci/run installs Debian's chromium.
    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: apt-get install chromium"
    with tempfile.TemporaryDirectory(prefix="qlpw-") as profile:
        # Playwright gives every launch a fresh profile of its own (--user-data-dir); the
        # temporary directory is its downloads and artifacts.
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS,
                                              downloads_path=profile)
        yield launched
        launched.close()


class Tab:
    """One page of a fresh browser context, recording dialogs and console errors."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800})
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", self._dialog)
        self.page.on("console", lambda msg: self.errors.append(msg.text)
                     if msg.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def refreshed(self) -> None:
        """Wait until the live refresh has swapped the page's parts once more."""
        before = self.page.evaluate(
            "document.documentElement.getAttribute('data-refreshed') || ''")
        self.page.wait_for_function(
            "(before) => (document.documentElement.getAttribute('data-refreshed') || '')"
            " !== before", arg=before)


@pytest.fixture
def serve(client: Client, browser: Browser) -> Iterator[Callable[..., Tab]]:
    """Serve the app with uvicorn on 127.0.0.1 (a free port) and open a tab on it."""
    running: list[tuple[uvicorn.Server, threading.Thread, socket.socket, Tab, Dashboard]] = []

    def start(**options: Any) -> Tab:
        app = create_app(client, refresh=0.3, **options)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)  # listening already: the browser's first request waits, not fails
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        tab = Tab(browser, f"http://127.0.0.1:{sock.getsockname()[1]}")
        running.append((server, thread, sock, tab, app))
        return tab

    yield start
    for server, thread, sock, tab, app in running:
        tab.context.close()
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        app.close()


def fail_job(client: Client, jid: str, queue: str = "q", group: str = "q-ValueError",
             message: str = "ValueError: bad input", data: Any = None) -> None:
    client.queues[queue].put("app.jobs.Parse", data or {"path": f"/in/{jid}"}, jid=jid)
    job = client.queues[queue].pop()
    assert job is not None and job.jid == jid
    job.fail(group, message)


def test_overview_to_a_failed_job_retried_and_waiting(client: Client,
                                                      serve: Callable[..., Tab]) -> None:
    fail_job(client, "f1", message="Traceback (most recent call last):\n  File \"parse.py\", "
             "line 3, in parse\nValueError: bad input")
    client.queues["q"].put("app.jobs.Parse", {}, jid="w1")
    tab = serve()
    page = tab.page
    page.goto("/")
    expect(page.get_by_role("heading", name="Queues")).to_be_visible()
    page.get_by_role("link", name="q", exact=True).first.click()
    expect(page.get_by_role("heading", name="Queue q")).to_be_visible()
    page.get_by_role("link", name="q-ValueError").click()
    page.get_by_role("link", name="f1").click()
    expect(page.locator(".state").first).to_have_text("failed")
    expect(page.locator("pre.traceback")).to_contain_text("ValueError: bad input")
    page.get_by_role("button", name="Retry").click()
    expect(page.locator(".flash")).to_have_text("f1 put back into q")
    expect(page.locator(".state").first).to_have_text("waiting")
    page.get_by_role("link", name="q", exact=True).first.click()
    expect(page.locator("#jobs")).to_contain_text("f1")
    assert client.jobs["f1"].state == "waiting"  # type: ignore[union-attr]
    assert tab.dialogs == [] and tab.errors == []


def test_a_failure_group_is_retried_through_its_confirmation(client: Client,
                                                             serve: Callable[..., Tab]) -> None:
    for i in range(5):
        fail_job(client, f"g{i}")
    tab = serve()
    page = tab.page
    page.goto("/failed")
    page.get_by_role("link", name="q-ValueError").click()
    expect(page.locator("h2")).to_contain_text("5 jobs")
    page.get_by_role("link", name="Retry all…").click()
    expect(page.get_by_role("alertdialog")).to_contain_text(
        "Put all 5 jobs of q-ValueError back into the queues they failed in?")
    screenshot(page, "confirm")
    assert client.jobs.failed() == {"q-ValueError": 5}  # nothing happens before the yes
    page.get_by_role("button", name="Yes, retry all").click()
    expect(page.locator(".flash")).to_have_text("put back 5 jobs of q-ValueError")
    expect(page.locator("#failed")).to_contain_text("No failed jobs.")
    assert sorted(client.queues["q"].jobs.waiting(0, 10)) == [f"g{i}" for i in range(5)]


def test_a_job_put_after_the_page_loaded_appears_without_a_reload(
        client: Client, serve: Callable[..., Tab]) -> None:
    client.queues["q"].put("app.jobs.Parse", {}, jid="first")
    tab = serve()
    page = tab.page
    page.goto("/queues/q")
    expect(page.locator("#jobs")).to_contain_text("first")
    page.evaluate("window.loadedOnce = true")  # gone if the page were loaded again
    client.queues["q"].put("app.jobs.Parse", {}, jid="second")
    expect(page.locator("#jobs")).to_contain_text("second")
    expect(page.locator(".tabs .current .count")).to_have_text("2")
    assert page.evaluate("window.loadedOnce") is True
    # The toggle stops it (and says so for the next pages).
    page.get_by_label("live").uncheck()
    client.queues["q"].put("app.jobs.Parse", {}, jid="third")
    page.reload()
    expect(page.get_by_label("live")).not_to_be_checked()
    expect(page.locator("#jobs")).to_contain_text("third")  # a reload still shows it
    assert tab.errors == []


def test_markup_in_the_data_shows_as_text_and_runs_nothing(
        client: Client, serve: Callable[..., Tab]) -> None:
    fail_job(client, "evil", queue=f"q{IMG}", group=f"g{SCRIPT}",
             message=f"Traceback\n{SCRIPT}\n{IMG}", data={"a": SCRIPT, "b": IMG})
    client.queues[f"q{IMG}"].put(f"k{IMG}", {}, jid="evil2", tags=[SCRIPT])
    tab = serve()
    page = tab.page
    for path in ("/", "/jobs/evil", "/failed", "/jobs/evil2"):
        page.goto(path)
        tab.refreshed()  # the live refresh swaps the same markup in again
        assert page.evaluate("window.pwned") is None
    page.goto("/jobs/evil")
    expect(page.locator("pre.data")).to_contain_text(SCRIPT)
    expect(page.locator("pre.data")).to_contain_text(IMG.replace('"', '\\"'))
    expect(page.locator("pre.traceback")).to_contain_text(SCRIPT)
    expect(page.locator("pre.traceback")).to_contain_text(IMG)
    page.get_by_role("link", name=f"g{SCRIPT}").click()
    expect(page.locator("h2")).to_contain_text(f"g{SCRIPT}")
    tab.refreshed()
    assert page.evaluate("window.pwned") is None
    assert page.locator("img").count() == 0 and page.locator("main script").count() == 0
    assert tab.dialogs == []


def test_the_picker_switches_namespace_and_actions_stay_in_it(
        client: Client, server_url: str, serve: Callable[..., Tab]) -> None:
    odd = f"ops{IMG}"  # a valid namespace name: markup, but no braces
    with Client(server_url, namespace="billing") as billing, \
            Client(server_url, namespace=odd) as marked:
        fail_job(billing, "f1", queue="invoices", group="invoices-ValueError")
        fail_job(client, "f1")  # the same jid in the default namespace
        marked.queues[f"q{IMG}"].put("app.jobs.Parse", {}, jid="m1")
        tab = serve(namespaces=[None, "billing", odd])
        page = tab.page
        page.goto("/failed")
        expect(page.locator("#failed")).to_contain_text("q-ValueError")
        page.get_by_label("namespace").select_option(label="billing")  # no button: app.js
        expect(page).to_have_url(re.compile(r"/failed\?namespace=billing$"))
        expect(page.locator("#failed")).to_contain_text("invoices-ValueError")
        expect(page.locator("#failed")).not_to_contain_text("q-ValueError")
        page.get_by_role("link", name="invoices-ValueError").click()
        page.get_by_role("link", name="f1").click()
        expect(page).to_have_url(re.compile(r"/jobs/f1\?namespace=billing$"))
        page.get_by_role("button", name="Retry").click()
        expect(page.locator(".flash")).to_have_text("f1 put back into invoices")
        expect(page).to_have_url(re.compile(r"/jobs/f1\?namespace=billing$"))
        assert billing.jobs["f1"].state == "waiting"  # type: ignore[union-attr]
        assert client.jobs["f1"].state == "failed"  # type: ignore[union-attr]
        page.get_by_role("link", name="Namespaces").click()
        expect(page.locator("table.namespaces")).to_contain_text(odd)
        page.get_by_role("link", name=odd).click()
        expect(page.locator("table.queues")).to_contain_text(f"q{IMG}")
        expect(page.get_by_label("namespace")).to_have_value(odd)
        tab.refreshed()
        assert page.evaluate("window.pwned") is None
        assert tab.dialogs == [] and tab.errors == []


def test_the_namespaces_page_sums_each_namespace(
        client: Client, server_url: str, serve: Callable[..., Tab]) -> None:
    for name, waiting, failing in ((None, 4, 0), ("billing", 12, 2), ("shipping", 30, 1)):
        with Client(server_url, namespace=name) as in_namespace:
            for i in range(failing):  # first: fail_job pops the job it put
                fail_job(in_namespace, f"{name}-f{i}", queue="notify",
                         group="notify-TimeoutError")
            for queue in ("ingest", "notify"):
                in_namespace.queues[queue].put_many([("app.jobs.Work", {})] * waiting)
    tab = serve(all_namespaces=True)
    page = tab.page
    page.goto("/namespaces")
    rows = page.locator("table.namespaces tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text("shipping")
    expect(rows.nth(2).locator("td").nth(3)).to_have_text("60")
    expect(page.locator("#scan")).to_contain_text("the whole keyspace")
    screenshot(page, "namespaces")
    rows.nth(1).get_by_role("link", name="2").click()  # billing's failed jobs
    expect(page).to_have_url(re.compile(r"/failed\?namespace=billing$"))
    expect(page.locator("#failed")).to_contain_text("notify-TimeoutError")
    assert tab.errors == [] and tab.dialogs == []


def test_read_only_shows_no_action(client: Client, serve: Callable[..., Tab]) -> None:
    fail_job(client, "f1")
    client.queues["q"].recur("app.jobs.Report", {}, interval=3600, jid="r1", offset=60)
    tab = serve(read_only=True)
    page = tab.page
    for path in ("/", "/queues/q", "/jobs/f1", "/failed/q-ValueError",
                 "/failed/q-ValueError?confirm=retry", "/recurring/r1", "/config"):
        page.goto(path)
        expect(page.locator(".server")).to_contain_text("read-only")
        assert page.locator("form[method=post]").count() == 0, path
        for name in ("Retry", "Cancel", "Pause", "Retry all…", "Save", "Set", "Unset"):
            assert page.get_by_role("button", name=name).count() == 0, (path, name)
            assert page.get_by_role("link", name=name).count() == 0, (path, name)


def test_a_tour_of_the_main_pages(client: Client, serve: Callable[..., Tab]) -> None:
    """A quarter of an hour of traffic on three queues, seen by the pages docs/web.md
    shows. The traffic is made on a frozen clock that ends before now; the pages are
    served at the real time (uvicorn's loop must see a running clock)."""
    start = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=15)
    with freeze_time(start) as clock:
        traffic(client, clock)
    tab = serve()
    page = tab.page
    page.goto("/")
    expect(page.locator("table.queues")).to_contain_text("parse")
    screenshot(page, "overview")
    page.get_by_role("link", name="parse", exact=True).first.click()
    expect(page.locator("#stats")).to_be_visible()
    screenshot(page, "queue")
    page.goto("/jobs/parse-failed-0")
    expect(page.locator("pre.traceback")).to_contain_text("UnicodeDecodeError")
    screenshot(page, "job")
    page.goto("/failed/parse-UnicodeDecodeError")
    expect(page.locator("h2")).to_contain_text("jobs")
    screenshot(page, "failed-group")
    assert tab.errors == [] and tab.dialogs == []


def traffic(client: Client, clock: Any) -> None:
    """Jobs of three queues with millisecond to second timings, failures and a worker."""
    import random

    rng = random.Random(7)
    workers = {name: Client(client.url, worker_name=name)
               for name in ("ingest-1.example-4711", "ingest-2.example-4712")}
    spans = {"parse": (0.004, 0.030), "resize": (0.05, 0.4), "report": (0.8, 6.0)}
    for round_ in range(60):
        for queue, (low, high) in spans.items():
            worker = workers["ingest-1.example-4711" if round_ % 2 else "ingest-2.example-4712"]
            jid = f"{queue}-{round_}"
            worker.queues[queue].put(f"app.jobs.{queue.title()}", {"n": round_}, jid=jid,
                                     tags=["nightly"] if round_ % 10 == 0 else [])
            clock.tick(rng.uniform(0.001, 0.05) * (10 if queue == "report" else 1))
            job = worker.queues[queue].pop()
            assert job is not None
            clock.tick(rng.uniform(low, high))
            if queue == "parse" and round_ % 9 == 4:
                job.fail("parse-UnicodeDecodeError", UNICODE_TRACEBACK)
            else:
                job.complete()
    for i in range(3):
        fail_job(client, f"parse-failed-{i}", queue="parse", group="parse-UnicodeDecodeError",
                 message=UNICODE_TRACEBACK, data={"path": f"/srv/in/batch-{i}.csv"})
    for i in range(14):
        client.queues["resize"].put("app.jobs.Resize", {"image": f"img-{i}.png"})
    running = workers["ingest-1.example-4711"].queues["report"]
    running.put("app.jobs.Report", {"day": "2030-03-03"}, jid="report-nightly")
    assert running.pop() is not None
    client.queues["report"].recur("app.jobs.Report", {"kind": "daily"}, interval=86400,
                                  jid="daily-report", offset=3600)
    for worker in workers.values():
        worker.close()


UNICODE_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/jobs.py", line 41, in parse\n'
    "    rows = read_rows(job.data['path'])\n"
    '  File "/srv/app/csvio.py", line 12, in read_rows\n'
    "    return list(csv.reader(handle))\n"
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 118: "
    "invalid continuation byte")
