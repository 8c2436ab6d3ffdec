"""Open an asyncio stream to a direct :class:`~qless_py.connect.endpoint.Endpoint` (TCP
or unix, with TLS when asked), the async twin of :func:`qless_py.connect.dial.open_socket`.

The same settings mean the same thing on both: the TLS context comes from
:func:`qless_py.connect.dial.tls_context` (built in a worker thread, since it reads
certificate files), and failures are sorted into :class:`ConnectionFailed` (waiting may
mend it) and :class:`SetupFailed` (it will not) by :func:`qless_py.connect.dial.tls_refusal`.
"""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING

from qless_py.connect.dial import tls_context, tls_refusal
from qless_py.connect.endpoint import Endpoint
from qless_py.connect.wire import ConnectionFailed, SetupFailed

if TYPE_CHECKING:
    import ssl


async def open_stream(ep: Endpoint) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connected stream to ``ep`` (a direct endpoint: host/port or path), TLS done.

    Raises :class:`SetupFailed` when TLS refuses us for good (the server's certificate
    does not verify, a certificate file cannot be read), :class:`ConnectionFailed` when
    the server cannot be reached now (refused, reset, timed out).
    """
    context: ssl.SSLContext | None = None
    if ep.tls:
        context = await asyncio.to_thread(tls_context, ep)
    try:
        async with asyncio.timeout(ep.connect_timeout):
            if ep.path:
                reader, writer = await asyncio.open_unix_connection(
                    ep.path, ssl=context, server_hostname=None if context is None else "")
            else:
                reader, writer = await asyncio.open_connection(
                    ep.host, ep.port, ssl=context,
                    server_hostname=None if context is None else ep.host)
    except TimeoutError as exc:
        raise ConnectionFailed(f"Timeout connecting to {ep}") from exc
    except OSError as exc:
        if tls_refusal(exc):
            raise SetupFailed(f"TLS handshake with {ep} failed: {exc}") from exc
        raise ConnectionFailed(f"Error connecting to {ep}: {exc}") from exc
    sock = writer.get_extra_info("socket")
    if sock is not None and not ep.path:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if ep.keepalive:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
                for option, value in ep.keepalive_options:
                    sock.setsockopt(socket.IPPROTO_TCP, option, value)
        except OSError as exc:
            writer.close()
            raise ConnectionFailed(f"Error setting socket options for {ep}: {exc}") from exc
    return reader, writer
