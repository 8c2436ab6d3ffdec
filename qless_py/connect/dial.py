"""Open a socket to a direct :class:`Endpoint` (TCP or unix, with TLS when asked) for
``qless_py.connect.resp`` and for the redis-py clients built in
``qless_py.connect.redis_clients``; the TLS rules here serve the asyncio dialer
(``qless_py.connect.aio_dial``) too.

Failures are sorted into the two kinds of ``qless_py.connect.wire``. :class:`ConnectionFailed`:
the server could not be reached now. :class:`SetupFailed`: the server was reached but
refused us for a reason waiting cannot mend (its certificate did not verify, it wants a
client certificate we lack, a TLS file is missing).
"""

from __future__ import annotations

import socket
import struct
import sys
from typing import TYPE_CHECKING, Any

from qless_py.connect.endpoint import Endpoint
from qless_py.connect.wire import ConnectionFailed, SetupFailed

if TYPE_CHECKING:
    import ssl


def open_socket(ep: Endpoint, *, kernel_timeouts: bool = True) -> socket.socket:
    """A connected socket to ``ep`` (a direct endpoint: host/port or path).

    ``kernel_timeouts``: plain sockets stay blocking and the kernel enforces
    ``ep.timeout`` (``SO_RCVTIMEO``/``SO_SNDTIMEO``), so a read is one ``recv`` with no
    poll before it; otherwise (and always with TLS) the socket has a Python timeout, as
    redis-py expects.
    """
    sock: socket.socket | None = None
    try:
        if ep.path:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(ep.connect_timeout)
            sock.connect(ep.path)
        else:
            sock = socket.create_connection((ep.host, ep.port), timeout=ep.connect_timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if ep.keepalive:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
                for option, value in ep.keepalive_options:
                    sock.setsockopt(socket.IPPROTO_TCP, option, value)
        if ep.tls:
            sock = _wrap_tls(sock, ep)
            sock.settimeout(ep.timeout)  # TLS reads and writes poll; correctness first
        elif kernel_timeouts:
            sock.settimeout(None)
            if ep.timeout:
                whole = int(ep.timeout)
                limit = struct.pack("ll", whole, int((ep.timeout - whole) * 1e6))
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)
        else:
            sock.settimeout(ep.timeout)
        return sock
    except SetupFailed:
        _close(sock)
        raise
    except OSError as exc:
        _close(sock)
        if tls_refusal(exc):
            raise SetupFailed(f"TLS handshake with {ep} failed: {exc}") from exc
        raise ConnectionFailed(f"Error connecting to {ep}: {exc}") from exc


def _close(sock: socket.socket | None) -> None:
    if sock is not None:
        sock.close()


def tls_refusal(exc: BaseException) -> bool:
    """A TLS error that retrying cannot mend (verification failed, an alert from the
    server such as "certificate required"), as opposed to a connection cut mid-way."""
    ssl = sys.modules.get("ssl")  # not imported: no TLS connection, so no TLS error
    return ssl is not None and isinstance(exc, ssl.SSLError) and not isinstance(
        exc, (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLWantReadError,
              ssl.SSLWantWriteError, ssl.SSLSyscallError))


def closed_at_once(ep: Endpoint, exc: BaseException) -> SetupFailed | None:
    """The refusal a connection that the server closed during its opening exchange means.

    A server that refuses a TLS client (no client certificate, or one it does not trust)
    closes the connection after the handshake; a client that writes first sees only the
    close, not the server's alert. A TLS port that receives plain commands closes too.
    Redis answers other refusals (maxclients, protected mode) with an error reply first.
    """
    ssl = sys.modules.get("ssl")  # not imported: no TLS connection (a worker's plain
    # connections never import it: tests/client/test_resp.py)
    closed = (ConnectionResetError, BrokenPipeError) if ssl is None else (
        ssl.SSLEOFError, ConnectionResetError, BrokenPipeError)
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, closed) or \
                "closed by server" in str(seen):
            hint = ("does it require a client certificate (ssl_certfile, ssl_keyfile) or "
                    "refuse this one?" if ep.tls else "is it a TLS port (rediss://)?")
            return SetupFailed(f"{ep} closed the connection before answering: {hint}")
        seen = seen.__cause__ or seen.__context__
    return None


def _wrap_tls(sock: socket.socket, ep: Endpoint) -> socket.socket:
    context = tls_context(ep)
    server_name = None if ep.path else ep.host
    return context.wrap_socket(sock, server_hostname=server_name)


def tls_context(ep: Endpoint) -> ssl.SSLContext:
    """The TLS settings of ``ep`` as an SSLContext, made the way redis-py makes its own.

    Built for every connection (connections are few), so renewed certificate files are
    picked up. A file that cannot be read is a :class:`SetupFailed` naming the setting.
    """
    import ssl  # only TLS users pay for the import

    reqs = {"none": ssl.CERT_NONE, "optional": ssl.CERT_OPTIONAL,
            "required": ssl.CERT_REQUIRED}[ep.ssl_cert_reqs]
    context = ssl.create_default_context()
    # hostname checking as redis-py does it: on unless turned off or nothing is verified
    context.check_hostname = ep.ssl_check_hostname and reqs != ssl.CERT_NONE
    context.verify_mode = reqs
    context.verify_flags |= ssl.VerifyFlags(ep.ssl_verify_flags_on)
    context.verify_flags &= ~ssl.VerifyFlags(ep.ssl_verify_flags_off)
    _load(context.load_cert_chain, "ssl_certfile/ssl_keyfile", ep.ssl_certfile or ep.ssl_keyfile,
          certfile=ep.ssl_certfile, keyfile=ep.ssl_keyfile, password=ep.ssl_password)
    _load(context.load_verify_locations, "ssl_ca_certs/ssl_ca_path/ssl_ca_data",
          ep.ssl_ca_certs or ep.ssl_ca_path or ep.ssl_ca_data,
          cafile=ep.ssl_ca_certs, capath=ep.ssl_ca_path, cadata=ep.ssl_ca_data)
    if ep.ssl_min_version is not None:
        context.minimum_version = ssl.TLSVersion(ep.ssl_min_version)
    if ep.ssl_ciphers:
        _load(context.set_ciphers, "ssl_ciphers", True, ep.ssl_ciphers)
    return context


def _load(method: Any, setting: str, given: object, *args: Any, **kwargs: Any) -> None:
    if not given:
        return
    try:
        method(*args, **kwargs)
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        raise SetupFailed(f"{setting}: {exc}") from exc
