"""failed and unfail (3.24, 3.25)."""

from __future__ import annotations

import pytest

from tests.core.support import DAY, T0, Core

DAY0 = int(T0 // DAY * DAY)


def failed_jobs(core: Core, n: int, group: str = "g", queue: str = "q") -> None:
    for i in range(n):
        core.put(f"f{i}", T0 + i, queue, "priority", i % 2)
        assert core.pop(queue, "w", 1, now=T0 + i)[0]["jid"] == f"f{i}"
        core("fail", T0 + 100 + i, f"f{i}", "w", group, "m")


def test_failed_overview(core: Core) -> None:
    assert core("failed", T0) == b"{}"
    failed_jobs(core, 3, "g1")
    core.put("x", T0 + 50, "q")
    core.pop("q", "w", 1, now=T0 + 50)
    core("fail", T0 + 60, "x", "w", "g2", "m")
    assert core.json("failed", T0) == {"g1": 3, "g2": 1}


def test_failed_group_page(core: Core) -> None:
    failed_jobs(core, 5)
    assert core.json("failed", T0, "g") == {"total": 5, "jobs": ["f4", "f3", "f2", "f1", "f0"]}
    assert core.json("failed", T0, "g", 1, 2) == {"total": 5, "jobs": ["f3", "f2"]}
    assert core.json("failed", T0, "g", 0, 0)["jobs"] == ["f4", "f3", "f2", "f1", "f0"]
    assert core.json("failed", T0, "nope") == {"total": 0, "jobs": {}}


def test_unfail_moves_oldest(core: Core) -> None:
    failed_jobs(core, 5)
    assert core("unfail", T0 + 200, "q2", "g", 2) == 2
    assert core.conn.lrange("ql:f:g", 0, -1) == [b"f4", b"f3", b"f2"]
    for jid in ("f0", "f1"):
        job = core.job(jid)
        assert job["state"] == "waiting" and job["queue"] == "q2" and job["worker"] == ""
        assert job["remaining"] == job["retries"] and job["expires"] == 0
        assert job["history"][-1] == {"when": int(T0) + 200, "what": "put", "q": "q2"}
        assert job["failure"]["group"] == "g"  # quirk 21: failure kept
    work = dict(core.zset("ql:q:q2-work"))
    assert work["f1"] == pytest.approx(1 - (T0 + 200) / 1e10, abs=1e-9)
    assert work["f0"] == pytest.approx(-(T0 + 200) / 1e10, abs=1e-9)
    assert "q2" not in dict(core.zset("ql:queues"))  # quirk 21: not registered
    assert core.hget(f"ql:s:stats:{DAY0}:q", "failed") == "5"


def test_unfail_default_count_and_empties_group(core: Core) -> None:
    failed_jobs(core, 3)
    assert core("unfail", T0, "q", "g") == 3
    assert core.conn.exists("ql:f:g") == 0 and core.members("ql:failures") == set()
    assert core("unfail", T0, "q", "g") == 0


def test_unfail_errors(populated: Core) -> None:
    c = populated
    c.rejects("Queue(): no queue name provided", "unfail", T0)
    c.rejects('Unfail(): Arg "group" missing', "unfail", T0, "q")
    c.rejects('Unfail(): Arg "count" not a number: x', "unfail", T0, "q", "boom", "x")


def test_unfail_zero_count_changes_nothing(populated: Core) -> None:
    before = populated.digest()
    try:
        reply = populated("unfail", T0, "q", "boom", 0)
    except Exception as exc:  # the reference raised a Redis range error here
        assert "not an integer" in str(exc) or "count" in str(exc)
    else:
        assert reply == 0
    assert populated.digest() == before


def test_failed_errors(populated: Core) -> None:
    populated.rejects('Failed(): Arg "start" is not a number: x', "failed", T0, "boom", "x")
    populated.rejects('Failed(): Arg "limit" is not a number: y', "failed", T0, "boom", 0, "y")
