"""Argument lists and pops beyond Lua's unpack ceiling (~8000 values, protocol 8.2).

The reference fails there with ``too many results to unpack``; this core loops instead."""

from __future__ import annotations

import json

from tests.core.support import T0, Core

N = 8500


def fill(core: Core) -> list[str]:
    jids = [f"j{i}" for i in range(N)]
    pipe = core.conn.pipeline(transaction=False)
    for jid in jids:
        pipe.evalsha(core.sha, 0, "put", T0, "", "q", jid, "K", "{}", 0)
    pipe.execute()
    return jids


def test_many_jids_in_one_call(core: Core) -> None:
    jids = fill(core)
    assert len(json.loads(core("multiget", T0, *jids))) == N
    popped = json.loads(core("pop", T0, "q", "w", N))
    assert len(popped) == N and core.conn.zcard("ql:q:q-work") == 0
    assert core("timeout", T0 + 1, *jids) is None
    assert core.conn.zcard("ql:q:q-work") == N
    assert core("cancel", T0 + 2, *jids) == [j.encode() for j in jids]
    assert core.conn.zcard("ql:q:q-work") == 0 and core.conn.exists("ql:j:j0") == 0


def test_many_names_in_one_call(core: Core) -> None:
    names = [f"q{i}" for i in range(N)]
    core("pause", T0, *names)
    assert core.conn.scard("ql:paused_queues") == N
    core("unpause", T0, *names)
    assert core.conn.scard("ql:paused_queues") == 0
    core.put("a")
    tags = json.loads(core("tag", T0, "add", "a", *[f"t{i}" for i in range(N)]))
    assert len(tags) == N
