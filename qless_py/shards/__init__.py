"""A sharded namespace: one namespace made of S shards, each a namespace of its own with its
own hash tag, so that a cluster spreads one workload over its masters (docs/cluster.md,
"Sharded namespaces").

Everything here is arithmetic on names; nothing talks to a server:

- ``Shards(name, count).names`` spells each shard's namespace, ``<name>#<i>.<salt>``. The
  salt is the smallest number that puts shard i's hash slot near the middle of the i-th of
  ``count`` equal stretches of the 16,384 slots, so a cluster whose masters hold equal runs
  of slots (as ``--cluster create`` and ``qless-py server start --cluster`` make them) gets
  an equal share of the shards: 6 shards on 3 masters are 2 on each.
- A job's shard is known from its jid alone: ``shard_of(jid)`` is the jid's CRC-32 modulo
  the count. A jid the client makes for a shard is a random one that lands there.
- ``place`` chooses the shard of a new job: its jid's when one is given, else its ordering
  key's (so that the key's jobs keep their order), else its named throttles' (each named
  throttle lives on one shard, so its maximum holds over the namespace), else beside most
  of its dependencies, else the next in turn. Dependencies on other shards are waited for
  across shards (lua/remote.lua).

The count is recorded in the base namespace (``ql:{<name>}:shards``) by the first sharded
client; ``qless_py.client.sharded`` compares every client's count with it.
"""

from __future__ import annotations

import itertools
import os
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from qless_py.connect.cluster import SLOTS, key_slot
from qless_py.keys import NAMESPACE_MAX, Keys, check_count, namespace_prefix

# "#<i>.<salt>" takes at most 10 characters (i < 64, salt < 100,000), so the base name of a
# sharded namespace is 10 shorter than a namespace's longest name.
SHARDED_NAME_MAX = NAMESPACE_MAX - 10


class ShardsMismatch(ValueError):
    """A client's shard count is not the one recorded for its namespace."""


def record_key(name: str) -> str:
    """The key that holds the shard count of namespace ``name`` (in its own slot)."""
    return Keys(name).shards


@lru_cache(maxsize=256)
def shard_names(name: str, count: int) -> tuple[str, ...]:
    """The namespaces of the ``count`` shards of ``name`` (``(name,)`` for one shard)."""
    namespace_prefix(name)  # a ValueError in one line for a bad name
    if count == 1:
        return (name,)
    if len(name) > SHARDED_NAME_MAX:
        raise ValueError(f"invalid namespace {name!r}: a sharded namespace's name is at most "
                         f"{SHARDED_NAME_MAX} characters (its shards add '#<i>.<salt>')")
    stretch = SLOTS / count
    names = []
    for i in range(count):
        middle = (i + 0.5) * stretch
        for salt in itertools.count():
            shard = f"{name}#{i}.{salt}"
            if abs(key_slot(namespace_prefix(shard)) - middle) <= stretch / 4:
                names.append(shard)
                break
    return tuple(names)


def shard_of(jid: str, count: int) -> int:
    """The shard of the job ``jid`` in a namespace of ``count`` shards."""
    return zlib.crc32(jid.encode()) % count if count > 1 else 0


def key_shard(key: str, count: int) -> int:
    """The shard of the jobs with ordering key ``key``."""
    return zlib.crc32(b"key:" + key.encode()) % count if count > 1 else 0


def throttle_shard(name: str, count: int) -> int:
    """The shard of the named throttle ``name``."""
    return zlib.crc32(b"throttle:" + name.encode()) % count if count > 1 else 0


def jid_on(shard: int, count: int) -> str:
    """A new random jid (32 hex digits, as the client makes them) on ``shard``."""
    head = os.urandom(14).hex()
    if count == 1:
        return head + os.urandom(2).hex()
    start = zlib.crc32(head.encode())  # the CRC of the head, continued by each tail
    for n in range(0x10000):
        tail = b"%04x" % n
        if zlib.crc32(tail, start) % count == shard:
            return head + tail.decode()
    raise AssertionError("no jid on the shard")  # 65,536 tries of CRC-32 mod <= 64: never


@dataclass
class Shards:
    """The shards of namespace ``name``: their namespaces and where each job goes."""

    name: str
    count: int
    names: tuple[str, ...] = field(init=False)
    _turn: itertools.count[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.count = check_count(self.count)
        self.names = shard_names(self.name, self.count)
        self._turn = itertools.count(int.from_bytes(os.urandom(2), "big"))

    def of(self, jid: str) -> int:
        return shard_of(jid, self.count)

    def throttle_shard(self, name: str) -> int:
        """The shard of named throttle ``name``, where every job that names it is put."""
        return throttle_shard(name, self.count)

    def place(self, jid: str | None = None, key: str | None = None,
              depends: Sequence[str] = (), throttles: Sequence[str] = ()) -> tuple[int, str]:
        """The shard of a new job and its jid, or a ValueError in one line when its given
        jid, its ordering key and its named throttles need different shards. Dependencies
        on other shards are waited for across shards (``clients.put_plan``)."""
        needs: list[tuple[str, int]] = []
        if jid is not None:
            needs.append((f"jid {jid!r}", self.of(jid)))
        if key is not None:
            needs.append((f"ordering key {key!r}", key_shard(key, self.count)))
        needs += [(f"throttle {name!r}", self.throttle_shard(name)) for name in throttles]
        if needs:
            what, shard = needs[0]
            for other, there in needs[1:]:
                if there != shard:
                    raise ValueError(
                        f"{what} is on shard {shard} of namespace {self.name!r} and {other} "
                        f"on shard {there}: a job lives on one shard"
                        + (" (leave the jid to the client)" if jid is not None else ""))
        elif depends:
            # beside most of its dependencies: the fewest waited for across shards
            counts: dict[int, int] = {}
            for dep in depends:
                counts[self.of(dep)] = counts.get(self.of(dep), 0) + 1
            shard = max(sorted(counts), key=lambda s: counts[s])
        else:
            shard = next(self._turn) % self.count
        return shard, jid if jid is not None else jid_on(shard, self.count)

    def by_shard(self, jids: Iterable[str]) -> dict[int, list[str]]:
        """``jids`` grouped by shard, each group in the order given."""
        groups: dict[int, list[str]] = {}
        for jid in jids:
            groups.setdefault(self.of(jid), []).append(jid)
        return groups
