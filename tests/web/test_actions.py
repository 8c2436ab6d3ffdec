"""Every action through the test client: what it changes, its answer to a form and to an
API client, and that bad input, cross-site requests and read-only mode change nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from qless_py import Client
from tests.web.conftest import SAME_ORIGIN, MakeWeb, Web

Keyspace = Callable[[], dict[bytes, Any]]


def failed_job(client: Client, jid: str = "f1", queue: str = "q", group: str = "g") -> None:
    client.queues[queue].put("a.Job", {"n": 1}, jid=jid)
    job = client.queues[queue].pop()
    assert job is not None and job.jid == jid
    job.fail(group, "it broke")


def state(client: Client, jid: str) -> str:
    job = client.jobs[jid]
    return "gone" if job is None else job.state


def test_retry_a_failed_job(client: Client, web: Web) -> None:
    failed_job(client)
    answer = web.act("/api/jobs/f1/retry")
    assert answer.status_code == 200 and answer.json() == {"ok": True,
                                                           "message": "f1 put back into q"}
    assert state(client, "f1") == "waiting" and client.jobs.failed() == {}


def test_a_form_gets_a_redirect_and_the_next_page_says_what_happened(client: Client,
                                                                    web: Web) -> None:
    failed_job(client)
    answer = web.act("/api/jobs/f1/retry", headers={"accept": "text/html"})
    assert answer.status_code == 303 and answer.headers["location"] == "/jobs/f1"
    page = web.html("/jobs/f1")
    assert '<p class="flash" role="status">f1 put back into q</p>' in page
    assert "flash" not in web.html("/jobs/f1")  # shown once


def test_a_live_refresh_between_an_action_and_its_page_leaves_the_message(
        client: Client, web: Web) -> None:
    """The page's script refreshes on a timer; one that lands after the action's redirect
    but before the browser loads the page must neither show nor clear the message."""
    failed_job(client)
    assert web.act("/api/jobs/f1/retry", headers={"accept": "text/html"}).status_code == 303
    live = web.get("/jobs/f1", headers={"accept": "text/html", "x-qlpy-live": "1"})
    assert live.status_code == 200 and "flash" not in live.text
    assert "set-cookie" not in live.headers
    assert '<p class="flash" role="status">f1 put back into q</p>' in web.html("/jobs/f1")


@pytest.mark.parametrize(("action", "fields", "check"), [
    ("cancel", {}, lambda c: c.jobs["w1"] is None),
    ("move", {"queue": "other"}, lambda c: c.jobs["w1"].queue_name == "other"),
    ("priority", {"priority": "7"}, lambda c: c.jobs["w1"].priority == 7),
    ("track", {}, lambda c: c.jobs["w1"].tracked),
    ("tag", {"tags": "a, b c"}, lambda c: c.jobs["w1"].tags == ["x", "a", "b", "c"]),
    ("untag", {"tags": "x"}, lambda c: c.jobs["w1"].tags == []),
])
def test_job_actions(client: Client, web: Web, action: str, fields: dict[str, str],
                     check: Callable[[Client], bool]) -> None:
    client.queues["q"].put("a.Job", {}, jid="w1", tags=["x"])
    answer = web.act(f"/api/jobs/w1/{action}", fields)
    assert answer.status_code == 200, answer.text
    assert check(client)


def test_untrack_timeout_and_undepend(client: Client, web: Web) -> None:
    client.queues["q"].put("a.Job", {}, jid="r1")
    client.track("r1")
    assert web.act("/api/jobs/r1/untrack").status_code == 200
    assert not client.jobs["r1"].tracked  # type: ignore[union-attr]
    assert client.queues["q"].pop() is not None
    assert web.act("/api/jobs/r1/timeout").status_code == 200
    assert state(client, "r1") == "stalled"
    client.queues["q"].put("a.Job", {}, jid="p1")
    client.queues["q"].put("a.Job", {}, jid="p2")
    client.queues["q"].put("a.Job", {}, jid="d1", depends=["p1", "p2"])
    assert web.act("/api/jobs/d1/undepend", {"dependency": "p1"}).status_code == 200
    assert client.jobs["d1"].dependencies == ["p2"]  # type: ignore[union-attr]
    assert web.act("/api/jobs/d1/undepend", {"all": "yes"}).status_code == 200
    assert state(client, "d1") == "waiting"


def test_pause_and_unpause(client: Client, web: Web) -> None:
    client.queues["q"].put("a.Job", {}, jid="a")
    assert web.act("/api/queues/q/pause").status_code == 200
    assert client.queues["q"].paused
    assert "Unpause" in web.html("/queues/q")
    assert web.act("/api/queues/q/unpause").status_code == 200
    assert not client.queues["q"].paused


def test_retry_and_cancel_a_whole_group(client: Client, make_web: MakeWeb) -> None:
    for i in range(7):
        failed_job(client, f"a{i}", queue="q1")
    for i in range(3):
        failed_job(client, f"b{i}", queue="q2")
    failed_job(client, "c0", group="other")
    web = make_web()
    answer = web.act("/api/failed/g/retry", {"confirm": "yes"})
    assert answer.json()["result"] == {"done": 10, "refused": 0}
    assert len(client.queues["q1"].jobs.waiting(0, 50)) == 7
    assert len(client.queues["q2"].jobs.waiting(0, 50)) == 3
    assert client.jobs.failed() == {"other": 1}
    answer = web.act("/api/failed/other/cancel", {"confirm": "yes"},
                     headers={"accept": "text/html"})
    assert answer.status_code == 303 and answer.headers["location"] == "/failed"
    assert client.jobs["c0"] is None and client.jobs.failed() == {}


def test_group_actions_need_confirmation(client: Client, web: Web, keyspace: Keyspace) -> None:
    failed_job(client)
    before = keyspace()
    for fields in ({}, {"confirm": "no"}):
        answer = web.act("/api/failed/g/retry", fields)
        assert answer.status_code == 400 and "confirm=yes" in answer.json()["error"]
    assert web.act("/api/failed/nothing/cancel", {"confirm": "yes"}).status_code == 404
    assert keyspace() == before


def test_recurring_update_and_cancel(client: Client, web: Web) -> None:
    client.queues["q"].recur("a.Job", {}, interval=60, jid="r", offset=100)
    answer = web.act("/api/recurring/r/update", {"interval": "30", "priority": "2",
                                                  "retries": "4"})
    assert answer.status_code == 200, answer.text
    template = client.jobs["r"]
    assert (template.interval, template.priority, template.retries) == (30, 2, 4)  # type: ignore[union-attr]
    assert web.act("/api/recurring/r/update", {"priority": "9", "interval": ""}).is_success
    assert client.jobs["r"].priority == 9  # type: ignore[union-attr]
    assert web.act("/api/recurring/r/cancel").status_code == 200
    assert client.jobs["r"] is None


def test_config_set_and_unset(client: Client, web: Web) -> None:
    assert web.act("/api/config/set", {"key": "heartbeat", "value": "90"}).is_success
    assert client.config["heartbeat"] == 90
    assert web.act("/api/config/set", {"key": "q-max-concurrency", "value": "2"}).is_success
    assert web.act("/api/config/set", {"key": "mine", "value": "x", "force": "yes"}).is_success
    assert client.config["mine"] == "x"
    assert web.act("/api/config/unset", {"key": "heartbeat"}).is_success
    assert client.config["heartbeat"] == 60


BAD = [
    # (setup, path, fields, status, phrase)
    ("waiting", "/api/jobs/w1/retry", {}, 400, "is not failed (state: waiting)"),
    ("waiting", "/api/jobs/w1/priority", {"priority": "high"}, 400, "must be a number"),
    ("waiting", "/api/jobs/w1/priority", {"priority": "1.5"}, 400, "whole number"),
    ("waiting", "/api/jobs/w1/priority", {"priority": "inf"}, 400, "finite"),
    ("waiting", "/api/jobs/w1/move", {"queue": "  "}, 400, "queue is required"),
    ("waiting", "/api/jobs/w1/tag", {"tags": " , "}, 400, "tags is required"),
    ("waiting", "/api/jobs/w1/timeout", {}, 400, "is not running"),
    ("waiting", "/api/jobs/w1/undepend", {"dependency": "zz"}, 400, "does not depend on zz"),
    ("waiting", "/api/jobs/w1/explode", {}, 404, "no such action: explode"),
    ("waiting", "/api/jobs/nope/cancel", {}, 404, "no such job: nope"),
    ("waiting", "/api/queues/nope/pause", {}, 404, "no such queue: nope"),
    ("dependent", "/api/jobs/w1/cancel", {}, 409, "is a dependency of"),
    ("recurring", "/api/recurring/r/update", {"interval": "0"}, 400, "greater than 0"),
    ("recurring", "/api/recurring/r/update", {"retries": "-1"}, 400, "at least 0"),
    ("recurring", "/api/recurring/r/update", {}, 400, "at least one of"),
    ("recurring", "/api/recurring/w1/cancel", {}, 404, "no such recurring job"),
    ("waiting", "/api/config/set", {"key": "heartbeat", "value": "soon"}, 400,
     "heartbeat must be a number"),
    ("waiting", "/api/config/set", {"key": "mine", "value": "x"}, 400, "unknown config key"),
    ("waiting", "/api/config/set", {"key": "", "value": "x"}, 400, "key is required"),
]


@pytest.mark.parametrize(("setup", "path", "fields", "status", "phrase"), BAD)
def test_bad_input_is_one_line_and_changes_nothing(
        client: Client, web: Web, keyspace: Keyspace, setup: str, path: str,
        fields: dict[str, str], status: int, phrase: str) -> None:
    client.queues["q"].put("a.Job", {}, jid="w1")
    if setup == "dependent":
        client.queues["q"].put("a.Job", {}, jid="child", depends=["w1"])
    if setup == "recurring":
        client.queues["q"].recur("a.Job", {}, interval=60, jid="r", offset=100)
    before = keyspace()
    answer = web.act(path, fields)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert phrase in error and "\n" not in error
    assert keyspace() == before
    page = web.act(path, fields, headers={"accept": "text/html"})
    assert page.status_code == status and phrase.split(":")[0].replace("'", "&#39;") in page.text
    assert keyspace() == before


REFUSALS = [
    # (headers as sent, besides Accept; send the token; phrase)
    ({"sec-fetch-site": "cross-site"}, True, "cross-site request refused"),
    ({"sec-fetch-site": "same-site"}, True, "cross-site request refused"),
    ({"sec-fetch-site": "none"}, True, "cross-site request refused"),
    ({"origin": "http://evil.example"}, True, "cross-site request refused"),
    ({"origin": "null"}, True, "cross-site request refused"),
    ({"sec-fetch-site": "cross-site", "origin": "http://testserver"}, True,
     "cross-site request refused"),
    ({"sec-fetch-site": "same-origin"}, False, "CSRF token"),
    ({"sec-fetch-site": "same-origin", "x-csrf-token": "0" * 64}, False, "CSRF token"),
    ({}, False, "CSRF token"),
]


@pytest.mark.parametrize(("headers", "token", "phrase"), REFUSALS)
def test_cross_site_or_tokenless_actions_are_refused(
        client: Client, web: Web, keyspace: Keyspace, headers: dict[str, str], token: bool,
        phrase: str) -> None:
    failed_job(client)
    before = keyspace()
    body = {"csrf": web.token(), "confirm": "yes"} if token else {"confirm": "yes"}
    for path in ("/api/jobs/f1/retry", "/api/failed/g/cancel", "/api/queues/q/pause"):
        answer = web.post(path, data=body, headers={"accept": "application/json", **headers})
        assert answer.status_code == 403, (path, answer.text)
        assert phrase in answer.json()["error"]
    assert keyspace() == before


def test_a_same_origin_request_passes_with_origin_alone(client: Client, web: Web) -> None:
    failed_job(client)
    answer = web.post("/api/jobs/f1/retry", data={"csrf": web.token()},
                      headers={"origin": "http://testserver", "accept": "application/json"})
    assert answer.status_code == 200


def test_a_token_from_another_cookie_is_refused(client: Client, make_web: MakeWeb,
                                                keyspace: Keyspace) -> None:
    failed_job(client)
    web, other = make_web(), make_web()
    stolen = other.token()
    before = keyspace()
    web.token()  # web has a cookie of its own
    answer = web.post("/api/jobs/f1/retry", data={"csrf": stolen}, headers=SAME_ORIGIN)
    assert answer.status_code == 403 and keyspace() == before


def test_other_methods_and_bodies(client: Client, web: Web, keyspace: Keyspace) -> None:
    failed_job(client)
    before = keyspace()
    assert web.put("/api/jobs/f1/retry", headers=SAME_ORIGIN).status_code == 405
    assert web.delete("/api/jobs/f1", headers=SAME_ORIGIN).status_code == 405
    huge = web.post("/api/jobs/f1/retry", content=b"x" * 300_000,
                    headers={**SAME_ORIGIN, "content-type": "application/x-www-form-urlencoded"})
    assert huge.status_code == 413
    odd = web.post("/api/jobs/f1/retry", content=b"<xml/>",
                   headers={**SAME_ORIGIN, "content-type": "text/xml"})
    assert odd.status_code == 400
    no_action = web.post("/api/jobs/f1", data={"csrf": web.token()}, headers=SAME_ORIGIN)
    assert no_action.status_code == 405
    assert keyspace() == before
    token = web.token()
    answer = web.post("/api/jobs/f1/retry", json={"delay": 0},
                      headers={**SAME_ORIGIN, "x-csrf-token": token})
    assert answer.status_code == 200 and state(client, "f1") == "waiting"


def test_read_only_hides_every_action_and_refuses_every_post(
        client: Client, make_web: MakeWeb, keyspace: Keyspace) -> None:
    failed_job(client)
    client.queues["q"].recur("a.Job", {}, interval=60, jid="r", offset=100)
    web = make_web(read_only=True)
    for path in ("/", "/queues/q", "/jobs/f1", "/failed/g", "/failed/g?confirm=retry",
                 "/recurring/r", "/config"):
        html = web.html(path)
        assert "<form method=\"post\"" not in html and "/api/" not in html, path
        assert "Retry all" not in html and "read-only" in html
    before = keyspace()
    token = web.token()
    for path, fields in (("/api/jobs/f1/retry", {}), ("/api/failed/g/retry", {"confirm": "yes"}),
                         ("/api/queues/q/pause", {}), ("/api/config/set",
                                                      {"key": "heartbeat", "value": "1"}),
                         ("/api/recurring/r/cancel", {})):
        answer = web.post(path, data={**fields, "csrf": token}, headers=SAME_ORIGIN)
        assert answer.status_code == 403 and "read-only" in answer.json()["error"]
    assert keyspace() == before
