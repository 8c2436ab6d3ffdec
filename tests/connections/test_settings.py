"""The one description of where and how to connect: URLs, client keywords, and redis-py
clients read back into it (every setting honoured, or refused by name)."""

from __future__ import annotations

import socket
import ssl
from typing import Any

import pytest
import redis
from redis.credentials import StreamingCredentialProvider, UsernamePasswordCredentialProvider
from redis.sentinel import Sentinel

from qless_py import Client, UnsupportedSettingError
from qless_py.connect.endpoint import Endpoint, valid_client_name


@pytest.mark.parametrize(("url", "expected"), [
    ("redis+sentinel://h1:26380,h2,[::1]:26381/svc",
     Endpoint(host="", port=0, sentinels=(("h1", 26380), ("h2", 26379), ("::1", 26381)),
              service="svc")),
    ("redis+sentinel://u:p%40w@h:1/svc/4?sentinel_password=sp&sentinel_username=su",
     Endpoint(host="", port=0, sentinels=(("h", 1),), service="svc", db=4, username="u",
              password="p@w", sentinel_username="su", sentinel_password="sp")),
    ("redis+sentinel://:pw@h/svc?db=2&socket_timeout=0.5",
     Endpoint(host="", port=0, sentinels=(("h", 26379),), service="svc", db=2, password="pw",
              timeout=0.5, connect_timeout=0.5)),
    ("rediss+sentinel://h/svc?ssl_ca_certs=/ca.pem",
     Endpoint(host="", port=0, sentinels=(("h", 26379),), service="svc", tls=True,
              ssl_ca_certs="/ca.pem")),
    ("rediss://h/0?ssl_certfile=/c&ssl_keyfile=/k&ssl_cert_reqs=optional"
     "&ssl_check_hostname=no&ssl_min_version=TLSv1_3&client_name=app",
     Endpoint(host="h", tls=True, ssl_certfile="/c", ssl_keyfile="/k",
              ssl_cert_reqs="optional", ssl_check_hostname=False,
              ssl_min_version=int(ssl.TLSVersion.TLSv1_3), client_name="app")),
    ("redis://h?wait_replicas=1&wait_timeout=0.25&socket_keepalive=false",
     Endpoint(host="h", wait_replicas=1, wait_timeout=0.25, keepalive=False)),
])
def test_urls(url: str, expected: Endpoint) -> None:
    assert Endpoint.from_url(url) == expected


@pytest.mark.parametrize(("url", "message"), [
    ("redis+sentinel://h:1", "needs a service name"),
    ("redis+sentinel://h:1/svc/0/x", "/<service>[/<db>]"),
    ("redis+sentinel://h:x/svc", "bad sentinel address"),
    ("redis://h?sentinel_password=x", "only in redis+sentinel:// URLs"),
    ("redis://h?retry_on_timeout=1", "unknown URL option 'retry_on_timeout'"),
    ("redis://h?ssl_ca_certs=/ca.pem", "ssl_ca_certs needs TLS"),
    ("rediss://h?ssl_cert_reqs=maybe", "ssl_cert_reqs must be one of"),
    ("redis://h?client_name=two%20words", "not valid for CLIENT SETNAME"),
    ("redis://h?db=x", "invalid value for 'db'"),
    ("http://h", "redis://, rediss://, unix://, redis+sentinel://"),
])
def test_bad_urls_are_refused_by_name(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("+", r"\+")):
        Endpoint.from_url(url)


def test_client_keywords_join_the_url_and_may_not_contradict_it() -> None:
    client = Client("rediss://h:7000/0?ssl_cert_reqs=required", ssl_ca_certs="/ca.pem",
                    ssl_certfile="/c", ssl_keyfile="/k", client_name="app")
    assert client.settings == Endpoint(host="h", port=7000, tls=True, ssl_ca_certs="/ca.pem",
                                       ssl_certfile="/c", ssl_keyfile="/k", client_name="app")
    with pytest.raises(ValueError, match="ssl_cert_reqs is given both"):
        Client("rediss://h/0?ssl_cert_reqs=none", ssl_cert_reqs="required")
    with pytest.raises(ValueError, match="ssl_ca_certs needs TLS"):
        Client("redis://h/0", ssl_ca_certs="/ca.pem")


def test_a_worker_names_its_connections_after_itself() -> None:
    client = Client("redis://h/0", worker_name="host-1 (blue)")
    assert client.endpoint().client_name == "qless-py:host-1_(blue)"
    assert Client("redis://h/0?client_name=app", worker_name="w").endpoint().client_name \
        == "app:w"
    assert valid_client_name("a b\nc") == "a_b_c"


def test_secrets_stay_out_of_descriptions() -> None:
    url = "rediss+sentinel://u:pw1@h/svc?sentinel_password=pw2&ssl_password=pw3"
    endpoint = Endpoint.from_url(url)
    for text in (str(endpoint), repr(endpoint), repr(Client(url))):
        assert "pw1" not in text and "pw2" not in text and "pw3" not in text


# -- redis-py clients read back --------------------------------------------------------
def _from(client: Any) -> Endpoint:
    return Client(redis_client=client).settings


def test_a_plain_redis_client_is_read_back_with_every_setting() -> None:
    provider = UsernamePasswordCredentialProvider("u", "p")
    endpoint = _from(redis.Redis(host="h", port=7001, db=3, socket_timeout=1.5,
                                 socket_connect_timeout=0.5, client_name="app",
                                 credential_provider=provider, socket_keepalive=True,
                                 socket_keepalive_options={socket.TCP_KEEPIDLE: 20},
                                 health_check_interval=10, max_connections=7))
    assert (endpoint.host, endpoint.port, endpoint.db) == ("h", 7001, 3)
    assert (endpoint.timeout, endpoint.connect_timeout) == (1.5, 0.5)
    assert endpoint.client_name == "app" and endpoint.credential_provider is provider
    assert endpoint.keepalive_options == ((socket.TCP_KEEPIDLE, 20),)
    assert (endpoint.health_check_interval, endpoint.max_connections) == (10, 7)
    unix = _from(redis.Redis(unix_socket_path="/run/r.sock", password="pw", username="u"))
    assert (unix.path, unix.password, unix.username) == ("/run/r.sock", "pw", "u")


def test_tls_settings_of_a_redis_client_are_read_back() -> None:
    endpoint = _from(redis.Redis(host="h", ssl=True, ssl_ca_certs="/ca", ssl_certfile="/c",
                                 ssl_keyfile="/k", ssl_password="kp", ssl_cert_reqs="optional",
                                 ssl_check_hostname=False, ssl_ca_path="/cadir",
                                 ssl_min_version=ssl.TLSVersion.TLSv1_2, ssl_ciphers="HIGH",
                                 ssl_include_verify_flags=[ssl.VerifyFlags.VERIFY_X509_STRICT]))
    assert endpoint.tls and endpoint.ssl_ca_certs == "/ca" and endpoint.ssl_ca_path == "/cadir"
    assert (endpoint.ssl_certfile, endpoint.ssl_keyfile, endpoint.ssl_password) == \
        ("/c", "/k", "kp")
    assert endpoint.ssl_cert_reqs == "optional" and not endpoint.ssl_check_hostname
    assert endpoint.ssl_min_version == ssl.TLSVersion.TLSv1_2 and endpoint.ssl_ciphers == "HIGH"
    assert endpoint.ssl_verify_flags_on == ssl.VerifyFlags.VERIFY_X509_STRICT
    # a client made from a URL is read back as the URL says
    assert _from(redis.Redis.from_url("rediss://h:9/2?ssl_cert_reqs=none")).ssl_cert_reqs \
        == "none"


def test_a_sentinel_client_is_read_back() -> None:
    manager = Sentinel([("s1", 26379), ("s2", 26380)], sentinel_kwargs={"password": "sp"},
                       password="dp", db=1)
    endpoint = _from(manager.master_for("svc"))
    assert endpoint.sentinels == (("s1", 26379), ("s2", 26380)) and endpoint.service == "svc"
    assert (endpoint.password, endpoint.sentinel_password, endpoint.db) == ("dp", "sp", 1)


class _Streaming(StreamingCredentialProvider):
    def get_credentials(self) -> tuple[str]:
        return ("pw",)

    async def get_credentials_async(self) -> tuple[str]:
        return ("pw",)

    def on_next(self, callback: Any) -> None:
        pass

    def on_error(self, callback: Any) -> None:
        pass

    def is_streaming(self) -> bool:
        return True


class _OwnConnection(redis.Connection):
    pass


@pytest.mark.parametrize(("make", "setting"), [
    (lambda: redis.Redis(redis_connect_func=lambda: None), "redis_connect_func"),
    (lambda: redis.Redis(ssl=True, ssl_validate_ocsp=True), "ssl_validate_ocsp"),
    (lambda: redis.Redis(credential_provider=_Streaming()), "credential_provider"),
    (lambda: redis.Redis(connection_pool=redis.ConnectionPool(connection_class=_OwnConnection)),
     "connection_class=_OwnConnection"),
    (lambda: Sentinel([("s", 1)]).slave_for("svc"), "slave_for"),
    (lambda: Sentinel([("s", 1)], min_other_sentinels=1).master_for("svc"),
     "min_other_sentinels=1"),
])
def test_settings_a_worker_cannot_reproduce_are_refused_by_name(make: Any,
                                                               setting: str) -> None:
    client = Client(redis_client=make())  # a plain client may still use it
    with pytest.raises(UnsupportedSettingError, match=f"setting {setting}"):
        client.endpoint()
