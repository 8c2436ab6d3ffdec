"""Find the current master of a Sentinel-managed service.

Each sentinel is asked in turn (``SENTINEL get-master-addr-by-name``); the first address
whose node answers ``ROLE`` with ``master`` wins. Connections that break or answer
READONLY are closed by their owners and look the master up again when they reconnect, so
clients and workers follow a failover.

Sentinels have their own credentials (``sentinel_username``/``sentinel_password``); the
data node's are used only on the master.

This module does no I/O. The search (:func:`find_master`) yields the questions to ask (an
:class:`Ask` of a sentinel, a :class:`Role` of a node); ``qless_py.connect.locate`` drives
it with a connection's own way to ask (blocking in ``qless_py.connect.resp``, asyncio in
``qless_py.connect.aio_redis_clients``), so every connection follows the same rules.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from qless_py.connect.endpoint import Endpoint
from qless_py.connect.wire import ConnectionFailed, ReplyError, SetupFailed


class Ask:
    """Question: the address sentinel ``endpoint`` gives for ``service`` (None if it does
    not know it)."""

    __slots__ = ("endpoint", "service")

    def __init__(self, endpoint: Endpoint, service: str) -> None:
        self.endpoint, self.service = endpoint, service

    def command(self) -> tuple[str, ...]:
        return ("SENTINEL", "get-master-addr-by-name", self.service)

    def read(self, reply: Any) -> tuple[str, int] | None:
        """The address the reply gives, or None; an error reply is a refusal."""
        if isinstance(reply, ReplyError):
            raise refusal(self, reply)
        return master_address(reply)


class Role:
    """Question: the role (``master``, ``slave``...) of the node at ``endpoint``."""

    __slots__ = ("endpoint",)

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    def command(self) -> tuple[str, ...]:
        return ("ROLE",)

    def read(self, reply: Any) -> str:
        if isinstance(reply, ReplyError):
            raise refusal(self, reply)
        return role_name(reply)


Search = Generator["Ask | Role", Any, Endpoint]


def sentinel_endpoint(ep: Endpoint, host: str, port: int) -> Endpoint:
    """How to reach one sentinel: ``ep``'s TLS settings, the sentinels' credentials."""
    return ep.at(host, port).replace(
        username=ep.sentinel_username, password=ep.sentinel_password,
        credential_provider=None, db=0, client_name=None,
        # a sentinel that hangs must not hold up the others for long
        timeout=ep.connect_timeout or SENTINEL_TIMEOUT,
        connect_timeout=ep.connect_timeout or SENTINEL_TIMEOUT)


def role_endpoint(master: Endpoint) -> Endpoint:
    """How to ask a named master its role: its settings, a short timeout."""
    return master.replace(timeout=master.connect_timeout or SENTINEL_TIMEOUT)


def find_master(ep: Endpoint) -> Search:
    """Ask each sentinel in turn; the first address whose node says ``master`` wins.

    Raises :class:`SetupFailed` when every sentinel that answered says it does not know
    the service, or refuses our credentials; :class:`ConnectionFailed` when no master
    can be reached now (sentinels down, a failover in progress). Each question's failure
    is thrown in as the ConnectionFailed/SetupFailed it was.
    """
    problems: list[str] = []
    refusals = 0  # sentinels that answered without an address: unknown service, or auth
    named = False  # some sentinel gave an address (if it did not work, a failover may)
    for host, port in ep.sentinels:
        try:
            address = yield Ask(sentinel_endpoint(ep, host, port), ep.service or "")
        except SetupFailed as exc:
            refusals += 1
            problems.append(str(exc))
            continue
        except ConnectionFailed as exc:
            problems.append(f"sentinel {host}:{port}: {exc}")
            continue
        if address is None:
            refusals += 1
            problems.append(f"sentinel {host}:{port} does not know service {ep.service!r}")
            continue
        named = True
        master = ep.at(*address)
        try:
            role = yield Role(role_endpoint(master))
        except SetupFailed:
            raise
        except ConnectionFailed as exc:
            problems.append(f"master {address[0]}:{address[1]} from sentinel {host}:{port}: "
                            f"{exc}")
            continue
        if role == "master":
            return master
        problems.append(f"{address[0]}:{address[1]} named by sentinel {host}:{port} is a "
                        f"{role}, not a master (a failover in progress?)")
    reason = "; ".join(problems) or "no sentinels given"
    if refusals and not named:
        raise SetupFailed(f"Sentinel service {ep.service!r}: {reason}")
    raise ConnectionFailed(f"no master for Sentinel service {ep.service!r}: {reason}")


def refusal(question: Ask | Role, exc: BaseException) -> SetupFailed:
    """The error for an error reply to ``question``: the node refused us."""
    ep = question.endpoint
    if isinstance(question, Ask):
        return SetupFailed(f"sentinel {ep.host}:{ep.port} refused the query: {exc}")
    return SetupFailed(f"{ep} refused ROLE: {exc}")


def master_address(reply: Any) -> tuple[str, int] | None:
    """The ``SENTINEL get-master-addr-by-name`` reply as ``(host, port)``, or None."""
    if not reply:
        return None
    host = reply[0]
    return (host.decode() if isinstance(host, bytes) else str(host)), int(reply[1])


def role_name(reply: Any) -> str:
    role = reply[0]
    return role.decode() if isinstance(role, bytes) else str(role)


SENTINEL_TIMEOUT = 2.0  # seconds for each sentinel and each role check, unless set
