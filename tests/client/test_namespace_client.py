"""Namespaces from the client's side: how one is chosen, what it writes, what it refuses.

The rest of the client suite runs in a namespace too (``namespace`` in conftest.py); these
tests are about the namespace itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import redis

from qless_py import Client
from qless_py.aio import AsyncClient


def _keys(conn: redis.Redis) -> set[str]:
    return {k.decode() if isinstance(k, bytes) else k for k in conn.keys("*")}


def test_a_namespace_comes_from_the_keyword_or_the_url(server_url: str,
                                                       redis_conn: redis.Redis) -> None:
    sep = "&" if "?" in server_url else "?"
    by_url = Client(f"{server_url}{sep}namespace=billing")
    by_keyword = Client(server_url, namespace="billing")
    default = Client(server_url)
    try:
        assert by_url.keys.namespace == by_keyword.keys.namespace == "billing"
        assert default.keys.namespace is None
        by_url.queues["q"].put("a.Job", {}, jid="a")
        assert by_keyword.jobs["a"] is not None  # the same namespace
        assert default.jobs["a"] is None  # the default namespace does not see it
        assert _keys(redis_conn) >= {"ql:{billing}:j:a", "ql:{billing}:q:q-work"}
        assert not {k for k in _keys(redis_conn) if not k.startswith("ql:{billing}:")}
        # the worker's own connections carry it too
        assert by_url.endpoint().namespace == by_keyword.endpoint().namespace == "billing"
    finally:
        for client in (by_url, by_keyword, default):
            client.close()


def test_a_namespace_in_both_places_must_agree(server_url: str) -> None:
    sep = "&" if "?" in server_url else "?"
    with pytest.raises(ValueError, match="namespace is given both"):
        Client(f"{server_url}{sep}namespace=a", namespace="b")
    same = Client(f"{server_url}{sep}namespace=a", namespace="a")
    assert same.keys.namespace == "a"
    same.close()


@pytest.mark.parametrize("name", ["", "a{b", "a}b", "n" * 65])
def test_a_bad_namespace_is_refused_before_anything_is_written(
        server_url: str, redis_conn: redis.Redis, name: str) -> None:
    for make in (Client, AsyncClient):
        with pytest.raises(ValueError, match="invalid namespace") as info:
            make(server_url, namespace=name)
        assert "\n" not in str(info.value)
    sep = "&" if "?" in server_url else "?"
    with pytest.raises(ValueError, match="invalid namespace"):
        Client(f"{server_url}{sep}namespace={name}")
    assert _keys(redis_conn) == set()


def test_events_of_a_namespace_reach_its_listeners_only(server_url: str) -> None:
    billing = Client(server_url, namespace="billing", worker_name="w")
    default = Client(server_url, worker_name="w")
    seen: dict[str, list[str]] = {"billing": [], "default": []}
    done = threading.Event()

    def heard(where: str) -> Callable[[object], None]:
        def callback(event: object) -> None:
            seen[where].append(str(event))
            if where == "billing":
                done.set()
        return callback

    billing.events.on("log", heard("billing"))
    default.events.on("log", heard("default"))
    billing.events.start()
    default.events.start()
    try:
        billing.queues["q"].put("a.Job", {}, jid="a")
        assert done.wait(5)
        default.queues["q"].put("a.Job", {}, jid="b")  # a marker in the default namespace
        billing.events.stop()
        default.events.stop()
        assert any("'a'" in text for text in seen["billing"])
        assert not any("'b'" in text for text in seen["billing"])
        assert not any("'a'" in text for text in seen["default"])
    finally:
        billing.events.stop()
        default.events.stop()
        billing.close()
        default.close()
