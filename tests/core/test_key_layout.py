"""Key layout (2.2): after a busy session every key belongs to the protocol's catalogue,
with the documented Redis type; nothing else is written."""

from __future__ import annotations

import re

from tests.core.support import T0, Core

CATALOGUE = [
    (r"ql:j:[^:]+", b"hash"),
    (r"ql:j:.+-history", b"list"),
    (r"ql:j:.+-dependencies", b"set"),
    (r"ql:j:.+-dependents", b"set"),
    (r"ql:q:.+-(work|locks|scheduled|depends|recur)", b"zset"),
    (r"ql:queues", b"zset"),
    (r"ql:paused_queues", b"set"),
    (r"ql:workers", b"zset"),
    (r"ql:w:.+:jobs", b"zset"),
    (r"ql:tracked", b"zset"),
    (r"ql:t:.+", b"zset"),
    (r"ql:tags", b"zset"),
    (r"ql:failures", b"set"),
    (r"ql:f:.+", b"list"),
    (r"ql:completed", b"zset"),
    (r"ql:config", b"hash"),
    (r"ql:s:(wait|run|stats):\d+:.+", b"hash"),
    (r"ql:fine:ql:s:(wait|run):\d+:.+", b"hash"),  # extension: the fine histograms
    (r"ql:r:.+", b"hash"),
]


def test_every_key_is_in_the_catalogue(populated: Core) -> None:
    c = populated
    c.pop("q", "w", 5, now=T0 + 4000)
    c("retry", T0 + 4001, "wait1", "q", "w")
    c("depends", T0, "dep1", "on", "sched1")
    c("tag", T0, "add", "run1", "x")
    c("workers", T0)
    c("stats", T0, "q", T0)
    c("queues", T0)
    kinds = {}
    for key in c.conn.scan_iter(count=1000):
        kinds[key] = c.conn.type(key)
    assert len(kinds) > 20
    for key, kind in kinds.items():
        name = key.decode()
        matches = [k for pattern, k in CATALOGUE if re.fullmatch(pattern, name)]
        assert matches, f"{name} is not a protocol key"
        assert kind in matches, (name, kind)


def test_day_bins_are_plain_integers(core: Core) -> None:
    core.put("a", T0 + 0.5)
    core.pop("q", "w", 1, now=T0 + 7.25)
    names = {k.decode() for k in core.conn.scan_iter("ql:s:*")}
    assert names == {f"ql:s:wait:{int(T0)}:q"}
    assert {k.decode() for k in core.conn.scan_iter("ql:fine:*")} == {
        f"ql:fine:ql:s:wait:{int(T0)}:q"}
