"""Clients like a given one (same server, settings, codec and worker name) in other
namespaces: the dashboard's clients of the namespaces it serves, and a worker's of the
namespaces it serves besides its client's own."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

from qless_py.client.client import Client
from qless_py.connect.endpoint import without_option

PARAM = "namespace"  # the URL query option that names a namespace
# Client keywords that live in a client's settings, so a namespace's client repeats them.
KEYWORDS = ("client_name", "ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs",
            "ssl_check_hostname")

ClientFor = Callable[[str | None], Client]


def without_namespace(url: str) -> str:
    """``url`` without its ``namespace=`` query option (the rest as it was)."""
    return without_option(url, PARAM)


def url_namespace(url: str) -> str | None:
    """The namespace a URL's query names (the last ``namespace=``), or None."""
    given = [value for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True)
             if key == PARAM]
    return given[-1] if given else None


def sibling_maker(base: Client, refused: str) -> ClientFor:
    """Clients like ``base`` in another namespace: ``Client(url, namespace=ns)`` from
    ``base``'s URL without its namespace.

    A client whose settings its URL does not say (made from a ``redis_client``) cannot be
    repeated that way: a ValueError with the text ``refused`` says so, at once, instead
    of talking to another server.
    """
    from qless_py.connect.endpoint import Endpoint

    url = without_namespace(base.url)
    try:
        # (compared in the client's own namespace: a cluster URL needs one)
        wanted = base.settings
        plain = Endpoint.from_url(url, timeout=base.socket_timeout, namespace=wanted.namespace)
        extra = {name: getattr(wanted, name) for name in KEYWORDS
                 if getattr(wanted, name) != getattr(plain, name)}
        same = Endpoint.from_url(url, timeout=base.socket_timeout, namespace=wanted.namespace,
                                 **extra) == wanted
    except Exception:
        same = False
    if not same:
        raise ValueError(refused)

    def make(namespace: str | None) -> Client:
        return Client(url, namespace=namespace, worker_name=base.worker_name,
                      codec=base.codec, socket_timeout=base.socket_timeout, **extra)

    return make
