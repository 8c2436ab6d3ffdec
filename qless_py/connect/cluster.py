"""Find the master that serves a namespace in a Redis or Valkey cluster.

A namespace's keys all carry one hash tag (``ql:{name}:``), so the whole namespace lives on
one slot and so on one master: a cluster endpoint resolves to that master, as a Sentinel
endpoint resolves to its service's master, and every connection is then a plain one to it.
No call is ever split over nodes, and a call costs what it costs on a standalone server.

The search asks each seed in turn for ``CLUSTER SLOTS`` and takes the master it names for
the namespace's slot, then asks that master ``EXISTS <prefix>`` (a key that never exists):

- a number: the node serves the slot; connect to it;
- ``MOVED``: the seed's view was stale (a failover or a move just finished); ask again;
- ``ASK``: the slot is being migrated. A core call reads and writes many keys of the slot,
  and while some have moved and some have not, no node can run it whole; so the search
  waits (short pauses, up to ``MIGRATION_WAIT`` seconds) until the move is finished and
  the new master serves the slot. During a move the namespace's calls pause; nothing runs
  on half-moved data.

Connections that get ``MOVED`` or ``ASK`` (or ``READONLY``) close themselves, and the next
connection searches again, so clients and workers follow failovers and moves.

This module does no I/O: :func:`find_master` yields its questions (:class:`Slots`,
:class:`Probe`, :class:`Pause`), which ``qless_py.connect.locate`` has answered, as it does
the Sentinel search's.
"""

from __future__ import annotations

from collections.abc import Generator, Hashable, Sequence
from typing import Any

from qless_py.connect.endpoint import Endpoint
from qless_py.connect.wire import ConnectionFailed, ReplyError, SetupFailed
from qless_py.keys import namespace_prefix

SLOTS = 16384
MIGRATION_WAIT = 10.0  # seconds a search waits for a slot's move to finish
CLUSTER_TIMEOUT = 2.0  # seconds for each seed and probe, unless the endpoint sets less


class Slots:
    """Question: the node at ``endpoint``'s ``CLUSTER SLOTS`` (its view of who serves what)."""

    __slots__ = ("endpoint",)

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    def command(self) -> tuple[str, ...]:
        return ("CLUSTER", "SLOTS")

    def read(self, reply: Any) -> Any:
        if isinstance(reply, ReplyError):
            if reply.unavailable:
                raise ConnectionFailed(f"{self.endpoint}: {reply}")
            raise SetupFailed(f"{self.endpoint} refused CLUSTER SLOTS (is it a cluster "
                              f"node?): {reply}")
        return reply


class Probe:
    """Question: does the node at ``endpoint`` serve ``key``'s slot now? Its reply to
    ``EXISTS key``: a number when it does, else the ``MOVED``/``ASK`` error reply."""

    __slots__ = ("endpoint", "key")

    def __init__(self, endpoint: Endpoint, key: str) -> None:
        self.endpoint, self.key = endpoint, key

    def command(self) -> tuple[str, ...]:
        return ("EXISTS", self.key)

    def read(self, reply: Any) -> Any:
        if isinstance(reply, ReplyError) and not reply.redirected and not reply.unavailable:
            raise SetupFailed(f"{self.endpoint} refused EXISTS: {reply}")
        return reply


class Pause:
    """Question: wait ``seconds`` (a move is in progress), then answer None."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


Question = Slots | Probe | Pause
Search = Generator[Question, Any, Endpoint]


def crc16(data: bytes) -> int:
    """CRC-16/XMODEM, the checksum Redis Cluster hashes keys with."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc


def key_slot(key: str | bytes) -> int:
    """The cluster slot of ``key``: of its hash tag (the text between the first ``{`` and
    the next ``}``, when not empty), else of the whole key."""
    data = key.encode() if isinstance(key, str) else key
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1:end]
    return crc16(data) % SLOTS


def node_endpoint(ep: Endpoint, host: str, port: int) -> Endpoint:
    """How to ask one node of ``ep``'s cluster: its settings, a short timeout."""
    limit = min(ep.connect_timeout or CLUSTER_TIMEOUT, CLUSTER_TIMEOUT)
    return ep.at(host, port).replace(timeout=limit, connect_timeout=limit, client_name=None)


def ranges(reply: Any, asked: str) -> list[tuple[int, int, tuple[str, int]]]:
    """``(first slot, last slot, master address)`` of each range ``CLUSTER SLOTS``'s
    ``reply`` lists. A master with no address of its own is the node that was ``asked``."""
    out = []
    for entry in reply or ():
        low, high, master = entry[0], entry[1], entry[2]
        host = master[0].decode() if isinstance(master[0], bytes) else str(master[0])
        out.append((int(low), int(high), (host if host and host != "?" else asked,
                                          int(master[1]))))
    return out


def owner(reply: Any, slot: int, asked: str) -> tuple[str, int] | None:
    """The master ``CLUSTER SLOTS``'s ``reply`` names for ``slot`` (None: nobody serves
    it)."""
    return next((address for low, high, address in ranges(reply, asked)
                 if low <= slot <= high), None)


def redirect_address(reply: ReplyError) -> tuple[str, int] | None:
    """The node a ``MOVED <slot> <host>:<port>`` reply names (None for anything else)."""
    words = str(reply).split()
    if len(words) == 3 and words[0] == "MOVED" and ":" in words[2]:
        host, _, port = words[2].rpartition(":")
        if port.isdigit():
            return host, int(port)
    return None


def find_master(ep: Endpoint) -> Search:
    """Ask each seed in turn for the master of the namespace's slot and check it serves
    the slot; wait while the slot is being moved (see the module's text).

    Raises :class:`SetupFailed` when every seed that answered refused us (credentials,
    not a cluster); :class:`ConnectionFailed` when no master serves the slot now (seeds
    down, a failover in progress, a move that takes longer than ``MIGRATION_WAIT``).
    """
    prefix = namespace_prefix(ep.namespace)
    slot = key_slot(prefix)
    waited, pause = 0.0, 0.05
    while True:
        problems: list[str] = []
        refusals = answered = 0
        moving: str | None = None
        for host, port in ep.cluster:
            try:
                reply = yield Slots(node_endpoint(ep, host, port))
            except SetupFailed as exc:
                refusals += 1
                problems.append(str(exc))
                continue
            except ConnectionFailed as exc:
                problems.append(f"seed {host}:{port}: {exc}")
                continue
            answered += 1
            address = owner(reply, slot, host)
            if address is None:
                problems.append(f"seed {host}:{port} knows no master for slot {slot}")
                continue
            for _ in range(2):  # the named master, and the one its MOVED names
                try:
                    probe = yield Probe(node_endpoint(ep, *address), prefix)
                except SetupFailed:
                    raise  # the credentials are the same on every node
                except ConnectionFailed as exc:
                    problems.append(f"master {address[0]}:{address[1]} of slot {slot}: {exc}")
                    break
                if not isinstance(probe, ReplyError):
                    return ep.at(*address)
                if probe.moving:
                    moving = f"{address[0]}:{address[1]} is moving slot {slot} ({probe})"
                    break
                problems.append(f"{address[0]}:{address[1]} named by seed {host}:{port}: "
                                f"{probe}")
                address = redirect_address(probe) or address
            if moving:
                break
        if refusals and not answered:
            raise SetupFailed(f"cluster {_seeds(ep)}: " + "; ".join(problems))
        if moving is None or waited >= MIGRATION_WAIT:
            reason = moving or "; ".join(problems) or "no seeds given"
            raise ConnectionFailed(f"no master serves namespace {ep.namespace!r} (slot "
                                   f"{slot}) of cluster {_seeds(ep)} now: {reason}")
        yield Pause(pause)
        waited += pause
        pause = min(pause * 2, 0.5)


def _seeds(ep: Endpoint) -> str:
    return ",".join(f"{host}:{port}" for host, port in ep.cluster)


def spread(ranges: Sequence[tuple[int, int, Hashable]], count: int,
           prefix: str = "ns") -> list[str]:
    """``count`` namespace names ``<prefix><i>`` whose slots fall on the masters of
    ``ranges`` (``(first slot, last slot, master)``, as ``CLUSTER SLOTS`` lists them) in
    turn, so each master gets its share (docs/cluster.md, "Spreading namespaces")."""
    masters = sorted({master for _, _, master in ranges}, key=str)
    if not masters or count < 1:
        return []

    def master_of(name: str) -> Hashable | None:
        slot = key_slot(namespace_prefix(name))
        return next((m for low, high, m in ranges if low <= slot <= high), None)

    names: list[str] = []
    for i in range(count * 10_000):
        name = f"{prefix}{i}"
        if master_of(name) == masters[len(names) % len(masters)]:
            names.append(name)
            if len(names) == count:
                break
    return names
