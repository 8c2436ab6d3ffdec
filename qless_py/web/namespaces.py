"""The namespaces one dashboard serves: which they are, how a request names one, and one
``Client`` per namespace, made on first use and kept.

A dashboard serves the namespaces it was given (``create_app(namespaces=[...])``, the
command's ``--namespace``), or, with ``all_namespaces``, the default namespace and every
namespace a bounded ``SCAN`` finds (docs/web.md, "Several namespaces"). The first served
namespace is the *home* one: a URL without ``namespace=`` shows it, and links within it
carry no ``namespace=``. Every other page, link, form and redirect carries
``?namespace=<name>`` (``?namespace=`` for the default namespace), so the namespace is part
of the URL of everything the dashboard shows or does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from qless_py import Client
from qless_py.client.siblings import PARAM, ClientFor, sibling_maker
from qless_py.keys import NAMESPACE_MAX, Keys, namespace_of, namespace_prefix
from qless_py.web.data import Missing

# Each namespace's set of queues, ql:{*}:queues: the set of a namespace named '*' is the
# glob that matches every one (in SCAN's glob, { and } are plain characters).
SCAN_MATCH = Keys("*").queues
SCAN_COUNT = 1000  # keys the server looks at per SCAN call
SCAN_LIMIT = 1_000_000  # keys one discovery looks at, at most (about 1000 round trips)
SCAN_EVERY = 10.0  # seconds: a rescan asked for sooner answers the last one's result


def shown(namespace: str | None) -> str:
    """A namespace's name for a person (``(default)`` for the default namespace)."""
    return "(default)" if namespace is None else namespace


def short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, for echoing bad input in one line."""
    return text if len(text) <= limit else text[:limit] + "…"


def parse_name(raw: str) -> str | None:
    """A namespace as a URL or an option spells it: ``""`` is the default namespace (None),
    anything else must be a valid name (ValueError in one line)."""
    if raw == "":
        return None
    try:
        namespace_prefix(raw)
    except ValueError:
        raise ValueError(f"invalid namespace {short(raw)!r}: a namespace is 1 to "
                         f"{NAMESPACE_MAX} characters without '{{' or '}}' "
                         "(namespace= alone is the default namespace)") from None
    return raw


def client_maker(base: Client) -> ClientFor:
    """Clients like ``base`` (same server, settings, codec and worker name) in another
    namespace (``qless_py.client.siblings``); a ValueError at once for a client whose
    settings its URL does not say (made from a ``redis_client``)."""
    return sibling_maker(base, "the dashboard cannot repeat this client's connection "
                         "settings from its URL (was it made with redis_client=?): pass "
                         "client_for= to create_app")


@dataclass(frozen=True)
class Scan:
    """What the last discovery found, and what it cost."""

    found: tuple[str, ...]
    looked_at: int  # keys the server was asked to look at (calls x COUNT)
    calls: int
    complete: bool  # False: stopped at the limit, so some namespaces may be missing
    at: float  # Unix time
    seconds: float

    def to_dict(self) -> dict[str, object]:
        return {"found": len(self.found), "looked_at": self.looked_at, "calls": self.calls,
                "complete": self.complete, "at": self.at, "seconds": self.seconds}


def discover(client: Client, limit: int = SCAN_LIMIT) -> Scan:
    """Every namespace with a ``ql:{<name>}:queues`` key on ``client``'s server (on a
    cluster: on each master), found by ``SCAN ... MATCH ql:{*}:queues TYPE zset`` in calls
    of ``SCAN_COUNT`` keys, stopping once ``limit`` keys were looked at. A SCAN walks the
    whole keyspace whatever it matches, so its cost is about ``keys / SCAN_COUNT`` round
    trips."""
    from qless_py.connect.resp import Connection, cluster_slots

    started, at = time.monotonic(), time.time()
    ep = client.endpoint()
    nodes = sorted({ep.at(*address) for *_, address in cluster_slots(ep)}, key=str) \
        if ep.cluster else [ep]
    found: set[str] = set()
    calls, complete = 0, True
    for node in nodes:
        conn = Connection(node)
        try:
            cursor = b"0"
            while True:
                cursor, keys = conn.call("SCAN", cursor, "MATCH", SCAN_MATCH, "COUNT",
                                         SCAN_COUNT, "TYPE", "zset")
                calls += 1
                for raw in keys:
                    name = _namespace_of_queues(raw)
                    if name is not None:
                        found.add(name)
                if int(cursor) == 0:
                    break
                if calls * SCAN_COUNT >= limit:
                    complete = False
                    break
        finally:
            conn.close()
        if not complete:
            break
    return Scan(tuple(sorted(found)), calls * SCAN_COUNT, calls, complete, at,
                time.monotonic() - started)


def _queues_exist(base: Client, namespace: str) -> bool:
    """Whether ``namespace`` has a queues set, asked of the node that serves it (on a
    cluster, its slot's master), over a connection of its own."""
    from qless_py.connect.resp import Connection

    conn = Connection(base.endpoint().replace(namespace=namespace))
    try:
        return bool(conn.call("EXISTS", Keys(namespace).queues))
    finally:
        conn.close()


def _namespace_of_queues(raw: bytes | str) -> str | None:
    """The namespace whose queues set ``raw`` is, or None (a jid or queue name that only
    looks like one, a key that is not UTF-8, a name that is not valid)."""
    try:
        key = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        return None
    name = namespace_of(key)
    if name is None:
        return None
    try:
        return name if Keys(name).queues == key else None
    except ValueError:
        return None


class Namespaces:
    """The namespaces of one dashboard and their clients (thread-safe: Starlette runs the
    pages on worker threads)."""

    def __init__(self, base: Client, given: Sequence[str | None] | None = None, *,
                 discover_all: bool = False, client_for: ClientFor | None = None,
                 scan_limit: int = SCAN_LIMIT) -> None:
        if scan_limit < SCAN_COUNT:
            raise ValueError(f"scan_limit must be at least {SCAN_COUNT}")
        explicit = list(dict.fromkeys(given)) if given else []
        for name in explicit:
            if name is not None:
                namespace_prefix(name)  # ValueError in one line
        # a cluster has no default namespace (its keys would be spread over the masters)
        on_cluster = bool(base.endpoint().cluster)
        if on_cluster and None in explicit:
            raise ValueError("a cluster has no default namespace: name the namespaces")
        if not explicit:
            explicit = [base.keys.namespace] if on_cluster or not discover_all else [None]
        if discover_all and None not in explicit and not on_cluster:
            explicit.append(None)
        self.base = base
        self.explicit: tuple[str | None, ...] = tuple(explicit)
        self.home: str | None = explicit[0]
        self.discover_all = discover_all
        self.scan_limit = scan_limit
        self.labelled = discover_all or len(explicit) > 1  # /metrics: a namespace label
        self._client_for = client_for
        self._clients: dict[str | None, Client] = {base.keys.namespace: base}
        self._made: list[Client] = []
        self._found: tuple[str, ...] = ()
        self._scan: Scan | None = None
        self._lock = threading.Lock()
        self._scan_lock = threading.Lock()
        others = discover_all or any(name != base.keys.namespace for name in explicit)
        if client_for is None and others:
            self._client_for = client_maker(base)  # fails now, not on the first request

    @property
    def multi(self) -> bool:
        """Whether the dashboard serves more than one namespace (or finds them)."""
        return self.labelled

    # -- which namespaces --------------------------------------------------------------
    def served(self) -> list[str | None]:
        """Every served namespace: the given ones in their order (the default namespace
        among them with ``all_namespaces``, except on a cluster), then the discovered ones
        by name."""
        if self.discover_all and self._scan is None:
            self.scan()
        given = set(self.explicit)
        return [*self.explicit, *(name for name in self._found if name not in given)]

    @property
    def last_scan(self) -> Scan | None:
        return self._scan

    def scan(self, *, again: bool = False) -> Scan | None:
        """Discover the namespaces (with ``all_namespaces`` only): the first call scans, a
        later one only with ``again`` and at most once per ``SCAN_EVERY`` seconds; a call
        while another scans waits for its result."""
        if not self.discover_all:
            return None
        with self._scan_lock:
            last = self._scan
            fresh = last is not None and (not again or time.time() - last.at < SCAN_EVERY)
            if not fresh:
                self._scan = discover(self.base, self.scan_limit)
                with self._lock:
                    self._found = tuple(sorted(set(self._found) | set(self._scan.found)))
            return self._scan

    def lookup(self, namespace: str | None) -> str | None:
        """``namespace`` if this dashboard serves it, else ``Missing`` (a 404). With
        ``all_namespaces`` a name the last scan did not find is served once its
        ``ql:{<name>}:queues`` key exists (one EXISTS), without scanning again."""
        if namespace in self.explicit or namespace in self._found:
            return namespace
        if self.discover_all and namespace is not None:
            self.served()  # the scan at first use
            if namespace in self._found:
                return namespace
            if _queues_exist(self.base, namespace):
                with self._lock:
                    self._found = tuple(sorted({*self._found, namespace}))
                return namespace
        raise Missing(f"namespace {short(shown(namespace))!r} is not served here")

    def from_query(self, values: Iterable[str]) -> str | None:
        """The namespace a request's ``namespace=`` values name: none is the home namespace,
        ``""`` the default one. A bad name is a ValueError (400), one not served ``Missing``
        (404); either in one line."""
        given = list(values)
        if not given:
            return self.home
        if len(given) > 1:
            raise ValueError("give namespace= once")
        return self.lookup(parse_name(given[0]))

    # -- links -------------------------------------------------------------------------
    def link_value(self, namespace: str | None) -> str | None:
        """What a link to ``namespace`` carries as ``namespace=`` (None: nothing)."""
        if namespace == self.home:
            return None
        return "" if namespace is None else namespace

    def query(self, namespace: str | None) -> str:
        """``?namespace=...`` for a path in ``namespace`` (empty for the home one)."""
        value = self.link_value(namespace)
        return "" if value is None else "?" + urlencode({PARAM: value})

    # -- clients -----------------------------------------------------------------------
    def client(self, namespace: str | None) -> Client:
        """The client of a served namespace, made on first use and kept."""
        with self._lock:
            found = self._clients.get(namespace)
            if found is None:
                assert self._client_for is not None, "no way to make another namespace's client"
                found = self._clients[namespace] = self._client_for(namespace)
                self._made.append(found)
            return found

    def close(self) -> None:
        """Close the clients made here (not the one the dashboard was given)."""
        with self._lock:
            made, self._made = self._made, []
            for client in made:
                client.close()
            self._clients = {self.base.keys.namespace: self.base}
