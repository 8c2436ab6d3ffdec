"""Find the current master of a Sentinel-managed service.

Each sentinel is asked in turn (``SENTINEL get-master-addr-by-name``); the first address
whose node answers ``ROLE`` with ``master`` wins. Connections that break or answer
READONLY are closed by their owners and look the master up again when they reconnect, so
clients and workers follow a failover.

Sentinels have their own credentials (``sentinel_username``/``sentinel_password``); the
data node's are used only on the master.
"""

from __future__ import annotations

from qless_py.dial import ConnectionFailed, SetupFailed
from qless_py.endpoint import Endpoint
from qless_py.resp import Connection, ReplyError


def master_endpoint(ep: Endpoint) -> Endpoint:
    """The direct endpoint of ``ep.service``'s master, with ``ep``'s settings.

    Raises :class:`SetupFailed` when every sentinel that answered says it does not know
    the service, or refuses our credentials; :class:`ConnectionFailed` when no master
    can be reached now (sentinels down, a failover in progress).
    """
    problems: list[str] = []
    refusals = 0  # sentinels that answered without an address: unknown service, or auth
    named = False  # some sentinel gave an address (if it did not work, a failover may)
    for host, port in ep.sentinels:
        try:
            address = _ask(ep, host, port)
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
            role = _role(master)
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


def _ask(ep: Endpoint, host: str, port: int) -> tuple[str, int] | None:
    """The address sentinel ``host:port`` gives for the service, or None if unknown."""
    sentinel = ep.at(host, port).replace(
        username=ep.sentinel_username, password=ep.sentinel_password,
        credential_provider=None, db=0, client_name=None,
        # a sentinel that hangs must not hold up the others for long
        timeout=ep.connect_timeout or SENTINEL_TIMEOUT,
        connect_timeout=ep.connect_timeout or SENTINEL_TIMEOUT)
    conn = Connection(sentinel)
    try:
        reply = conn.call("SENTINEL", "get-master-addr-by-name", ep.service or "")
    except ReplyError as exc:
        raise SetupFailed(f"sentinel {host}:{port} refused the query: {exc}") from exc
    finally:
        conn.close()
    if not reply:
        return None
    return reply[0].decode(), int(reply[1])


def _role(master: Endpoint) -> str:
    conn = Connection(master.replace(timeout=master.connect_timeout or SENTINEL_TIMEOUT))
    try:
        reply = conn.call("ROLE")
    except ReplyError as exc:
        raise SetupFailed(f"{master} refused ROLE: {exc}") from exc
    finally:
        conn.close()
    role = reply[0]
    return role.decode() if isinstance(role, bytes) else str(role)


SENTINEL_TIMEOUT = 2.0  # seconds for each sentinel and each role check, unless set
