"""A dashboard serving several namespaces: the picker and the links that carry a namespace,
every action in a namespace that is not the default one (and nothing changed in the
others), the namespaces page, the discovery of ``all_namespaces``, bad ``namespace=``
input, and ``/metrics``' labels and cost, counted by the real server's INFO commandstats."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest
import redis
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from qless_py import Client
from qless_py.client.siblings import without_namespace
from qless_py.connect.cluster import key_slot, spread
from qless_py.keys import namespace_prefix
from qless_py.web import namespaces as ns_module
from qless_py.web.namespaces import Namespaces, discover
from tests.conftest import flushed_cluster_url
from tests.core.support import keyspace_digest
from tests.web.conftest import SAME_ORIGIN, MakeWeb, Web

NS = "billing"
ODD = 'we"ird\\ <b>name</b>'  # a valid namespace: no braces; quotes, backslash, markup
Keyspace = Callable[[], dict[bytes, Any]]


@pytest.fixture
def billing(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="web-test", namespace=NS)
    yield c
    c.close()


@pytest.fixture
def odd(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="web-test", namespace=ODD)
    yield c
    c.close()


def outside(conn: redis.Redis, namespace: str) -> dict[bytes, Any]:
    """Every key but ``namespace``'s: proves an action there touched nothing else."""
    prefix = f"ql:{{{namespace}}}:".encode()
    return {k: v for k, v in keyspace_digest(conn).items() if not k.startswith(prefix)}


def failed_job(client: Client, jid: str, queue: str, group: str) -> None:
    client.queues[queue].put("a.Job", {}, jid=jid)
    job = client.queues[queue].pop()
    assert job is not None and job.jid == jid
    job.fail(group, "it broke")


def populate(client: Client) -> None:
    """The same names in every namespace, so an action in the wrong one would show."""
    client.queues["q"].put("a.Job", {}, jid="w1", tags=["x"])
    client.queues["q"].put("a.Job", {}, jid="d1", depends=["w1"])
    client.queues["q"].put("a.Job", {}, jid="c1")
    failed_job(client, "f1", "fq", "fq-one")
    failed_job(client, "f2", "fq", "fq-two")
    failed_job(client, "f3", "fq", "fq-three")
    client.queues["rq"].put("a.Job", {}, jid="r1")
    assert client.queues["rq"].pop() is not None
    client.queues["q"].recur("a.Job", {}, interval=60, jid="rec", offset=600)


def html_act(web: Web, path: str, fields: dict[str, str] | None = None) -> Any:
    return web.act(path, fields, headers={"accept": "text/html"})


def test_every_action_acts_in_the_namespace_its_url_names(
        client: Client, billing: Client, make_web: MakeWeb, redis_conn: redis.Redis) -> None:
    populate(client)
    populate(billing)
    web = make_web(app={"namespaces": [None, NS]})

    def job(jid: str) -> Any:
        return billing.jobs[jid]

    steps: list[tuple[str, dict[str, str], str, Callable[[], bool]]] = [
        ("jobs/f1/retry", {}, "/jobs/f1", lambda: job("f1").state == "waiting"),
        ("jobs/w1/priority", {"priority": "7"}, "/jobs/w1", lambda: job("w1").priority == 7),
        ("jobs/w1/track", {}, "/jobs/w1", lambda: job("w1").tracked),
        ("jobs/w1/untrack", {}, "/jobs/w1", lambda: not job("w1").tracked),
        ("jobs/w1/tag", {"tags": "a b"}, "/jobs/w1", lambda: job("w1").tags == ["x", "a", "b"]),
        ("jobs/w1/untag", {"tags": "x"}, "/jobs/w1", lambda: job("w1").tags == ["a", "b"]),
        ("jobs/r1/timeout", {}, "/jobs/r1", lambda: job("r1").state == "stalled"),
        ("jobs/d1/undepend", {"dependency": "w1"}, "/jobs/d1",
         lambda: job("d1").dependencies == []),
        ("jobs/w1/move", {"queue": "other"}, "/jobs/w1", lambda: job("w1").queue_name == "other"),
        ("jobs/c1/cancel", {}, "/queues/q", lambda: job("c1") is None),
        ("queues/q/pause", {}, "/queues/q", lambda: billing.queues["q"].paused),
        ("queues/q/unpause", {}, "/queues/q", lambda: not billing.queues["q"].paused),
        ("failed/fq-two/retry", {"confirm": "yes"}, "/failed",
         lambda: "fq-two" not in billing.jobs.failed() and job("f2").state == "waiting"),
        ("failed/fq-three/cancel", {"confirm": "yes"}, "/failed", lambda: job("f3") is None),
        ("recurring/rec/update", {"interval": "30"}, "/recurring/rec",
         lambda: job("rec").interval == 30),
        ("recurring/rec/cancel", {}, "/recurring", lambda: job("rec") is None),
        ("config/set", {"key": "heartbeat", "value": "90"}, "/config",
         lambda: billing.config["heartbeat"] == 90),
        ("config/unset", {"key": "heartbeat"}, "/config",
         lambda: billing.config["heartbeat"] == 60),
    ]
    for action, fields, then, done in steps:
        before = outside(redis_conn, NS)
        answer = html_act(web, f"/api/{action}?namespace={NS}", fields)
        assert answer.status_code == 303, (action, answer.text)
        # the page that shows the result is the namespace's page
        assert answer.headers["location"] == f"{then}?namespace={NS}", action
        assert done(), action
        assert outside(redis_conn, NS) == before, action
        page = web.html(answer.headers["location"])
        assert 'class="flash"' in page, action
    # the default namespace's twins are as populate() left them
    assert client.jobs["f1"].state == "failed"  # type: ignore[union-attr]
    assert client.jobs["c1"] is not None and client.jobs["rec"] is not None
    assert client.jobs.failed() == {"fq-one": 1, "fq-two": 1, "fq-three": 1}
    # and an API client's answer is the same JSON as in the home namespace
    answer = web.act(f"/api/jobs/w1/priority?namespace={NS}", {"priority": "3"})
    assert answer.json() == {"ok": True, "message": "w1 priority 3"}
    assert client.jobs["w1"].priority == 0  # type: ignore[union-attr]


def test_links_forms_and_the_picker_carry_the_namespace(
        client: Client, billing: Client, odd: Client, make_web: MakeWeb) -> None:
    client.queues["home-q"].put("a.Job", {}, jid="h1")
    billing.queues["bill-q"].put("a.Job", {}, jid="b1", tags=["t"])
    odd.queues["odd-q"].put("a.Job", {}, jid="o1")
    web = make_web(app={"namespaces": [None, NS, ODD]})
    home = web.html("/")
    assert "home-q" in home and "bill-q" not in home
    assert "namespace=" not in home.split("<main>")[1]  # the home namespace's links are bare
    page = web.html(f"/?namespace={NS}")
    assert "bill-q" in page and "home-q" not in page
    main = page.split("<main>")[1]
    links = re.findall(r'href="([^"]+)"', main)
    assert links and all(link.endswith(f"namespace={NS}") for link in links), links
    assert f'href="/queues/bill-q?namespace={NS}"' in page
    # the search box carries it too, and finds the namespace's job only
    assert f'<input type="hidden" name="namespace" value="{NS}">' in page
    found = web.get(f"/search?namespace={NS}&q=b1", follow_redirects=False)
    assert found.headers["location"] == f"/jobs/b1?namespace={NS}"
    assert web.get("/search?q=b1", follow_redirects=False).status_code == 404
    # the picker: every namespace, the current one selected, escaped
    picker = page.split('<form class="picker"')[1].split("</form>")[0]
    assert '<option value="">(default)</option>' in picker
    assert f'<option value="{NS}" selected>{NS}</option>' in picker
    assert "<b>" not in page and "we&#34;ird\\ &lt;b&gt;name&lt;/b&gt;" in picker
    # it stays on a section page, and goes to the overview from any other page
    assert 'action="/failed"' in web.html(f"/failed?namespace={NS}")
    assert 'action="/"' in web.html(f"/jobs/b1?namespace={NS}")
    switched = web.html(f"/failed?namespace={quote(ODD)}")
    assert "odd-q" not in switched and "No failed jobs." in switched
    assert "odd-q" in web.html(f"/?namespace={quote(ODD)}")
    # ?namespace= alone is the default namespace; the static assets never carry one
    assert "home-q" in web.html("/?namespace=")
    assert 'href="/static/app.css"' in page
    # the API twins answer the namespace's data
    assert [row["name"] for row in web.get(f"/api/queues?namespace={NS}").json()] == ["bill-q"]
    assert web.get(f"/api/jobs/b1?namespace={NS}").json()["jid"] == "b1"
    assert web.get("/api/jobs/b1").status_code == 404


def test_a_dashboard_of_one_namespace_keeps_its_plain_urls(
        billing: Client, make_web: MakeWeb) -> None:
    billing.queues["bill-q"].put("a.Job", {}, jid="b1")
    web = make_web(c=billing)
    page = web.html("/")
    assert "bill-q" in page and 'class="picker"' not in page
    assert "namespace billing" in page  # the header says which
    assert 'href="/queues/bill-q"' in page
    answer = html_act(web, "/api/jobs/b1/track")
    assert answer.headers["location"] == "/jobs/b1"
    assert billing.jobs["b1"].tracked  # type: ignore[union-attr]


def test_under_a_prefix_links_and_redirects_keep_both(
        client: Client, billing: Client, make_web: MakeWeb) -> None:
    failed_job(billing, "f1", "fq", "fq-one")
    web = make_web(url_prefix="/ops", app={"namespaces": [None, NS]})
    page = web.html(f"/ops/failed?namespace={NS}")
    assert 'action="/ops/failed"' in page  # the picker stays on the section
    assert f'href="/ops/failed/fq-one?namespace={NS}"' in page
    assert 'href="/ops/static/app.css"' in page
    token = web.get("/ops/api/csrf").json()["token"]
    answer = web.post(f"/ops/api/jobs/f1/retry?namespace={NS}", data={"csrf": token},
                      headers={**SAME_ORIGIN, "accept": "text/html"}, follow_redirects=False)
    assert answer.headers["location"] == f"/ops/jobs/f1?namespace={NS}"
    assert billing.jobs["f1"].state == "waiting"  # type: ignore[union-attr]


BAD_NAMESPACES = [
    ("{x}", 400, "invalid namespace '{x}'"),
    ("a}", 400, "invalid namespace"),
    ("n" * 65, 400, "1 to 64 characters"),
    ("nope", 404, "namespace 'nope' is not served here"),
    ("shipping", 404, "namespace 'shipping' is not served here"),  # exists, not served
]


@pytest.mark.parametrize(("name", "status", "says"), BAD_NAMESPACES)
def test_a_bad_or_unknown_namespace_is_one_line_and_changes_nothing(
        client: Client, billing: Client, server_url: str, make_web: MakeWeb,
        keyspace: Keyspace, name: str, status: int, says: str) -> None:
    with Client(server_url, namespace="shipping") as shipping:
        shipping.queues["s"].put("a.Job", {}, jid="w1")
    populate(client)
    populate(billing)
    web = make_web(app={"namespaces": [None, NS]})
    before = keyspace()
    query = f"namespace={quote(name)}"
    for path in ("/api/overview", "/api/jobs/w1", "/metrics", "/search?q=w1&"):
        url = f"{path}{'' if path.endswith('&') else '?'}{query}"
        answer = web.get(url, follow_redirects=False)
        assert answer.status_code == status, (url, answer.text)
        assert says in answer.json()["error"] and "\n" not in answer.json()["error"]
    for action, fields in (("jobs/w1/cancel", {}), ("queues/q/pause", {}),
                           ("failed/fq-one/retry", {"confirm": "yes"}),
                           ("config/set", {"key": "heartbeat", "value": "5"})):
        answer = web.act(f"/api/{action}?{query}", fields)
        assert answer.status_code == status, (action, answer.text)
        assert says in answer.json()["error"]
    page = web.html(f"/queues/q?{query}", status)
    assert says.replace("'", "&#39;") in page
    # the error page's own links stay in the home namespace
    assert all("namespace=" not in link for link in re.findall(r'href="([^"]+)"', page))
    assert keyspace() == before


def test_namespace_given_twice_is_refused(client: Client, make_web: MakeWeb) -> None:
    web = make_web(app={"namespaces": [None, NS]})
    answer = web.get(f"/api/overview?namespace={NS}&namespace=")
    assert answer.status_code == 400 and answer.json() == {"error": "give namespace= once"}


def test_the_namespaces_page_sums_each_namespace_in_one_round_trip(
        client: Client, billing: Client, server_url: str, make_web: MakeWeb,
        monkeypatch: pytest.MonkeyPatch) -> None:
    populate(client)
    billing.queues["a"].put_many([("a.Job", {})] * 5)
    billing.queues["b"].put("a.Job", {}, jid="later", delay=600)
    failed_job(billing, "bf", "b", "b-oops")
    # Each namespace's own script is on the server already (the first call of a namespace
    # new to a server also loads its script: one more round trip, once).
    with Client(server_url, namespace="empty") as empty:
        assert empty.queues.counts == []
    trips: dict[str | None, int] = {}

    def counting(c: Client) -> Client:
        original_send, original_call = c.core._redis_send, c.core._redis_call

        def send(payload: bytes, count: int) -> Any:
            trips[c.keys.namespace] = trips.get(c.keys.namespace, 0) + 1
            return original_send(payload, count)

        def call(argv: list[Any]) -> Any:
            trips[c.keys.namespace] = trips.get(c.keys.namespace, 0) + 1
            return original_call(argv)

        monkeypatch.setattr(c.core, "_redis_send", send)
        monkeypatch.setattr(c.core, "_redis_call", call)
        return c

    made: list[Client] = []

    def client_for(namespace: str | None) -> Client:
        made.append(Client(server_url, namespace=namespace))
        return counting(made[-1])

    counting(client)
    web = make_web(app={"namespaces": [None, NS, "empty"], "client_for": client_for})
    rows = web.get("/api/namespaces").json()
    assert rows["all_namespaces"] is False and rows["scan"] is None
    by_name = {row["namespace"]: row for row in rows["namespaces"]}
    assert list(by_name) == [None, NS, "empty"]
    assert by_name[NS] == {"namespace": NS, "prefix": "ql:{billing}:", "queues": 2,
                           "waiting": 5, "running": 0, "stalled": 0, "scheduled": 1,
                           "depends": 0, "failed": 1, "workers": 1}
    assert by_name[None]["failed"] == 3 and by_name[None]["depends"] == 1
    assert by_name["empty"]["queues"] == 0
    assert trips == {None: 1, NS: 1, "empty": 1}
    # one client per namespace, made on first use and kept
    web.get(f"/api/overview?namespace={NS}")
    web.get("/api/namespaces")
    assert [c.keys.namespace for c in made] == [NS, "empty"]
    page = web.html("/namespaces")
    assert f'href="/?namespace={NS}"' in page and f'href="/failed?namespace={NS}"' in page
    assert "<code>ql:{billing}:*</code>" in page
    for c in made:
        c.close()


def test_all_namespaces_are_found_by_a_bounded_scan(
        client: Client, server_url: str, make_web: MakeWeb, redis_conn: redis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    with Client(server_url, namespace="a") as a, Client(server_url, namespace="b") as b:
        a.queues["qa"].put("a.Job", {}, jid="ja", tags=["x}:queues"])  # a look-alike key
        b.queues["qb"].put("a.Job", {}, jid="jb")
    assert redis_conn.exists("ql:{a}:t:x}:queues")
    redis_conn.config_resetstat()
    web = make_web(app={"all_namespaces": True})
    listing = web.get("/api/namespaces").json()
    assert [row["namespace"] for row in listing["namespaces"]] == [None, "a", "b"]
    assert listing["scan"]["complete"] and listing["scan"]["calls"] == 1
    assert scans(redis_conn) == 1
    # a namespace made later is served once named (one EXISTS), without a scan
    with Client(server_url, namespace="c") as c:
        c.queues["qc"].put("a.Job", {}, jid="jc")
    assert "qc" in web.html("/?namespace=c")
    assert web.get("/api/overview?namespace=nothing").status_code == 404
    assert scans(redis_conn) == 1
    served = [row["namespace"] for row in web.get("/api/namespaces").json()["namespaces"]]
    assert served == [None, "a", "b", "c"]
    # a scan asked for again within SCAN_EVERY answers the last one's result ...
    monkeypatch.setattr(ns_module, "SCAN_EVERY", 3600.0)  # however slow this machine is
    with Client(server_url, namespace="d") as d:
        d.queues["qd"].put("a.Job", {}, jid="jd")
    web.get("/api/namespaces?scan=1")
    assert scans(redis_conn) == 1
    # ... and later scans again
    monkeypatch.setattr(ns_module, "SCAN_EVERY", 0.0)
    again = web.get("/api/namespaces?scan=1").json()
    assert scans(redis_conn) == 2 and "d" in [row["namespace"] for row in again["namespaces"]]
    page = web.html("/namespaces")
    assert "by a scan of" in page
    assert "the whole keyspace" in page and 'href="/namespaces?scan=1"' in page


def scans(conn: redis.Redis) -> int:
    return int(conn.info("commandstats").get("cmdstat_scan", {}).get("calls", 0))


def test_a_scan_stops_at_its_limit_and_says_so(client: Client, make_web: MakeWeb) -> None:
    client.queues["q"].put_many([("a.Job", {})] * 3000)
    scan = discover(client, limit=1000)
    assert scan.calls == 1 and scan.looked_at == 1000 and not scan.complete
    web = make_web(app={"all_namespaces": True, "scan_limit": 1000})
    assert web.get("/api/namespaces").json()["scan"]["complete"] is False
    assert "it stopped there" in web.html("/namespaces")
    with pytest.raises(ValueError, match="scan_limit"):
        Namespaces(client, discover_all=True, scan_limit=10)


def test_an_explicit_list_never_scans(client: Client, billing: Client, make_web: MakeWeb,
                                      redis_conn: redis.Redis) -> None:
    billing.queues["q"].put("a.Job", {}, jid="b1")
    redis_conn.config_resetstat()
    web = make_web(app={"namespaces": [NS, None]})
    for path in ("/", "/namespaces", "/metrics", "/?namespace=", "/api/namespaces?scan=1"):
        web.get(path).raise_for_status()
    assert web.get("/api/overview?namespace=other").status_code == 404
    assert scans(redis_conn) == 0


def test_a_client_whose_settings_its_url_does_not_say_is_refused(
        server_url: str, redis_conn: redis.Redis) -> None:
    given = Client(redis_client=redis_conn, namespace=NS)
    with pytest.raises(ValueError, match="client_for"):
        Namespaces(given, [NS, None])
    Namespaces(given, [NS])  # its own namespace alone needs no other client
    assert without_namespace("redis://h:1/0?namespace=a&db=2#f") == "redis://h:1/0?db=2#f"
    assert without_namespace("unix:///s.sock?namespace=a") == "unix:///s.sock"


# -- /metrics -------------------------------------------------------------------------------

def families(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            assert key not in samples, key
            samples[key] = sample.value
    return samples


def test_metrics_label_every_sample_of_every_namespace(
        client: Client, billing: Client, odd: Client, make_web: MakeWeb) -> None:
    for c, n in ((client, 1), (billing, 2), (odd, 3)):
        c.queues["q"].put_many([("a.Job", {})] * n)
        failed_job(c, f"f{n}", "fq", "q-boom")
    client.check()  # the default namespace's check families, labelled too
    web = make_web(app={"namespaces": [None, NS, ODD]})
    text = web.get("/metrics").text
    for name in ("qless_queue_jobs", "qless_workers", "qless_job_wait_seconds",
                 "qless_check_keys"):
        assert text.count(f"# TYPE {name} ") == 1, name  # each family once
    samples = families(text)
    assert samples
    assert all(dict(labels).get("namespace") in ("", NS, ODD) for _, labels in samples)
    for namespace, n in (("", 1), (NS, 2), (ODD, 3)):
        key = ("qless_queue_jobs", tuple(sorted({"namespace": namespace, "queue": "q",
                                                 "state": "waiting"}.items())))
        assert samples[key] == n
        key = ("qless_failed_jobs", tuple(sorted({"namespace": namespace,
                                                  "group": "q-boom"}.items())))
        assert samples[key] == 1
    assert ("qless_check_keys", (("namespace", ""),)) in samples
    assert 'namespace="we\\"ird\\\\ <b>name</b>"' in text
    # ?namespace= scrapes one namespace, labelled as in the whole
    one = families(web.get(f"/metrics?namespace={NS}").text)
    assert one and all(dict(labels)["namespace"] == NS for _, labels in one)
    assert one == {k: v for k, v in samples.items() if dict(k[1])["namespace"] == NS}


def commands(conn: redis.Redis) -> tuple[int, int]:
    """``(core calls, every command)`` the server ran since the last CONFIG RESETSTAT (but
    INFO and CONFIG). Commands a script runs count among every command."""
    stats = conn.info("commandstats")
    calls = {name: int(value["calls"]) for name, value in stats.items()
             if not name.startswith(("cmdstat_info", "cmdstat_config"))}
    core = sum(n for name, n in calls.items()
               if name in ("cmdstat_evalsha", "cmdstat_evalsha_ro", "cmdstat_fcall",
                           "cmdstat_fcall_ro"))
    return core, sum(calls.values())


def test_metrics_commands_grow_with_namespaces_and_queues_never_with_jobs(
        server_url: str, make_web: MakeWeb, redis_conn: redis.Redis) -> None:
    names = [None, "n1", "n2", "n3"]
    clients = {name: Client(server_url, namespace=name) for name in names}
    webs = {count: make_web(app={"namespaces": names[:count]}) for count in (1, 2, 4)}

    def cost(namespaces: int, queues: int, jobs: int) -> tuple[int, int]:
        redis_conn.flushdb()
        for name in names[:namespaces]:
            for q in range(queues):
                clients[name].queues[f"q{q}"].put_many([("a.Job", {})] * jobs)
                clients[name].queues[f"q{q}"].put("a.Job", {}, delay=60)
                clients[name].queues[f"q{q}"].put("a.Job", {}, depends=["nothing"])
        web = webs[namespaces]
        web.get("/metrics").raise_for_status()  # connections and the script: ready
        redis_conn.config_resetstat()
        text = web.get("/metrics").text
        assert text.count("# TYPE qless_queue_jobs ") == 1
        return commands(redis_conn)

    try:
        core, every = cost(namespaces=1, queues=2, jobs=1)
        # counts, failure groups and workers; one stats call per queue
        assert core == 3 + 2
        assert cost(namespaces=1, queues=2, jobs=500) == (core, every)
        assert cost(namespaces=2, queues=2, jobs=1) == (2 * core, 2 * every)
        assert cost(namespaces=4, queues=2, jobs=1) == (4 * core, 4 * every)
        assert cost(namespaces=4, queues=2, jobs=300) == (4 * core, 4 * every)
        per_queue = cost(namespaces=1, queues=3, jobs=1)[1] - every
        assert cost(namespaces=4, queues=5, jobs=1) == (4 * (core + 3),
                                                        4 * (every + 3 * per_queue))
    finally:
        for c in clients.values():
            c.close()


def test_a_dashboard_on_a_cluster_serves_namespaces_on_every_master(
        _clusters: Any, make_web: MakeWeb) -> None:
    made = _clusters["valkey"]
    url = flushed_cluster_url(made, "x")
    names = spread(made.slot_map(), 3, prefix="web-")
    clients = [Client(url.replace("namespace=x", f"namespace={name}")) for name in names]
    try:
        for n, c in enumerate(clients, 1):
            c.queues["q"].put_many([("a.Job", {})] * n)
            failed_job(c, f"f{n}", "fq", "q-boom")
        assert len({made.master_of(key_slot(namespace_prefix(n))).port for n in names}) == 3
        web = make_web(c=clients[0], app={"all_namespaces": True})
        # discovery scans every master
        listing = web.get("/api/namespaces").json()
        # (a cluster has no default namespace; the dashboard's own comes first)
        assert [row["namespace"] for row in listing["namespaces"]] == \
            [names[0], *sorted(names[1:])]
        # /metrics reads each namespace on its own master
        samples = families(web.get("/metrics").text)
        for n, name in enumerate(names, 1):
            key = ("qless_queue_jobs", tuple(sorted({"namespace": name, "queue": "q",
                                                     "state": "waiting"}.items())))
            assert samples[key] == n
        # an action in a namespace on another master than the dashboard's own client's
        last = names[-1]
        reply = web.act(f"/api/jobs/f3/retry?namespace={last}")
        assert reply.status_code == 200, reply.text
        job = clients[-1].jobs["f3"]
        assert job is not None and job.state == "waiting"
        assert web.get("/api/overview?namespace=nothing-here").status_code == 404
    finally:
        for c in clients:
            c.close()
