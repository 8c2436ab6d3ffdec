"""Statistics (section 5) and the stats-key expiry deviation."""

from __future__ import annotations

import math
import statistics

import pytest

from tests.core.support import DAY, T0, Core
from tests.replies import scored

DAY0 = int(T0 // DAY * DAY)


def pop_after_wait(core: Core, jid: str, wait: float, start: float = T0) -> None:
    core.put(jid, start, "q")
    assert core.pop("q", "w", 1, now=start + wait)[0]["jid"] == jid


def test_stats_empty_shape(core: Core) -> None:
    got = core.json("stats", T0, "q", T0)
    assert got == {
        "retries": 0,
        "failed": 0,
        "failures": 0,
        "wait": {"count": 0, "mean": 0, "std": 0, "histogram": [0] * 148},
        "run": {"count": 0, "mean": 0, "std": 0, "histogram": [0] * 148},
    }


def test_wait_histogram_bins_and_welford(core: Core) -> None:
    waits = [
        0.5,
        3.2,
        59.9,
        60,
        125,
        3599,
        3600,
        7300,
        86399,
        86400,
        2 * 86400 + 5,
        6 * 86400,
        9 * 86400,
    ]
    for i, wait in enumerate(waits):
        pop_after_wait(core, f"j{i}", wait, start=T0 + 1000 - wait)
    got = core.json("stats", T0 + 1000, "q", T0 + 5)
    wait = got["wait"]
    assert wait["count"] == len(waits)
    assert wait["mean"] == pytest.approx(statistics.mean(waits), rel=1e-9)
    assert wait["std"] == pytest.approx(statistics.stdev(waits), rel=1e-9)
    hist = wait["histogram"]
    assert len(hist) == 148
    expected = [0] * 148
    for idx in (0, 3, 59, 60, 61, 60 + 58, 119, 120, 119 + 22, 142, 143, 147):
        expected[idx] += 1
    assert hist == expected
    # d9 is stored though not reported
    assert core.hget(f"ql:s:wait:{DAY0}:q", "d9") == "1"
    assert core.hget(f"ql:s:wait:{DAY0}:q", "m2") == "1"


def test_single_sample_has_zero_std(core: Core) -> None:
    pop_after_wait(core, "a", 4.25)
    wait = core.json("stats", T0, "q", T0)["wait"]
    assert wait == {"count": 1, "mean": 4.25, "std": 0, "histogram": [0] * 4 + [1] + [0] * 143}


def test_run_stats_by_completion_day(core: Core) -> None:
    core.put("a", T0 + DAY - 10, "q")
    core.pop("q", "w", 1, now=T0 + DAY - 10)
    core("complete", T0 + DAY + 20, "a", "w", "q", "{}")
    assert core.json("stats", T0, "q", T0 + DAY + 1)["run"]["count"] == 1
    assert core.json("stats", T0, "q", T0 + DAY + 1)["run"]["mean"] == 30
    assert core.json("stats", T0, "q", T0 + 1)["run"]["count"] == 0
    assert core.json("stats", T0, "q", T0 + 1)["wait"]["count"] == 1


def test_failure_counters(core: Core) -> None:
    for jid in ("a", "b"):
        pop_after_wait(core, jid, 0)
        core("fail", T0 + 1, jid, "w", "g", "m")
    core.put("a", T0 + 2, "q")
    got = core.json("stats", T0, "q", T0)
    assert (got["failures"], got["failed"], got["retries"]) == (2, 1, 0)


def test_welford_values_stored(core: Core) -> None:
    for i, wait in enumerate((2, 4, 9)):
        pop_after_wait(core, f"j{i}", wait)
    h = core.conn.hgetall(f"ql:s:wait:{DAY0}:q")
    assert float(h[b"total"]) == 3
    assert float(h[b"mean"]) == pytest.approx(5)
    assert float(h[b"vk"]) == pytest.approx(26)
    got = core.json("stats", T0, "q", T0)["wait"]
    assert got["std"] == pytest.approx(math.sqrt(13))


def test_negative_sample_goes_to_unreported_bin(core: Core) -> None:
    core.put("a", T0 + 10, "q")
    core.pop("q", "w", 1, now=T0 + 7)
    assert core.hget(f"ql:s:wait:{DAY0}:q", "s-3") == "1"
    assert sum(core.json("stats", T0, "q", T0)["wait"]["histogram"]) == 0


def assert_ttl(core: Core, key: str, now: float, days: int) -> None:
    """The TTL is relative to the caller's ``now`` (the core never reads the server clock):
    ``stats-history`` days after the day bin, counted from its start or from its end."""
    ttl = core.conn.ttl(key)
    choices = [DAY0 + (days + extra) * DAY - now for extra in (0, 1)]
    assert any(abs(ttl - c) <= 2 for c in choices), (ttl, choices)


@pytest.mark.parametrize("kind", ["wait", "run", "stats"])
def test_stats_keys_expire_after_stats_history(core: Core, kind: str) -> None:
    pop_after_wait(core, "a", 1)
    if kind == "run":
        core("complete", T0 + 5, "a", "w", "q", "{}")
    if kind == "stats":
        core("fail", T0 + 5, "a", "w", "g", "m")
    assert_ttl(core, f"ql:s:{kind}:{DAY0}:q", T0 + 5 if kind != "wait" else T0 + 1, 30)


def test_stats_expiry_follows_config(core: Core) -> None:
    core("config.set", T0, "stats-history", 2)
    pop_after_wait(core, "a", 1)
    assert_ttl(core, f"ql:s:wait:{DAY0}:q", T0 + 1, 2)


def test_stats_ttl_relative_to_callers_clock(core: Core) -> None:
    # a caller whose clock is years behind the server still keeps its stats
    old = 1500000000.0
    core.put("a", old, "q")
    core.pop("q", "w", 1, now=old + 3)
    day = int(old // DAY * DAY)
    assert core.conn.exists(f"ql:s:wait:{day}:q") == 1
    assert core.json("stats", old, "q", old)["wait"]["count"] == 1


def test_stats_errors(populated: Core) -> None:
    populated.rejects("Queue(): no queue name provided", "stats", T0)
    populated.rejects('Stats(): Arg "date" missing or not a number: nil', "stats", T0, "q")
    populated.rejects(
        'Stats(): Arg "date" missing or not a number: today', "stats", T0, "q", "today"
    )


def test_only_stats_keys_carry_a_ttl(populated: Core) -> None:
    populated.pop("q", "w", 5, now=T0 + 5)
    for key in populated.conn.scan_iter(count=1000):
        ttl = populated.conn.ttl(key)
        if key.startswith((b"ql:s:", b"ql:fine:")):
            assert ttl > 0, key
        else:
            assert ttl == -1, key


def test_reclaimed_job_wait_measured_from_previous_pop(core: Core) -> None:
    core("config.set", T0, "grace-period", 0)
    core.put("a", T0)
    core.pop("q", "w1", 1, now=T0 + 10)  # wait 10
    core.pop("q", "w2", 1, now=T0 + 100)  # reclaimed: wait 90 since the previous pop
    wait = core.json("stats", T0, "q", T0)["wait"]
    assert wait["count"] == 2 and wait["mean"] == 50
    assert wait["histogram"][10] == 1 and wait["histogram"][60] == 1



def test_popping_many_at_once_stores_what_popping_one_by_one_stores(core: Core) -> None:
    # pop(count) writes the wait statistics and both lock sets once per batch; the stored
    # values must be those of the same pops made one at a time (same samples, same order).
    waits = [0.25, 3.7, 3.2, 61.5, 0.125, 4000.0, 3.9, 1e-7, 90000.5, 0.3]
    popped_at = T0 + 100000
    for i, wait in enumerate(waits):
        for queue in ("batch", "single"):
            core.put(f"{queue}-{i}", popped_at - wait, queue)
    batch = core.pop("batch", "w", len(waits), now=popped_at)
    singles = [core.pop("single", "w", 1, now=popped_at)[0] for _ in waits]
    assert [j["jid"].split("-")[1] for j in batch] == [j["jid"].split("-")[1] for j in singles]
    day = int(popped_at // DAY * DAY)
    assert core.conn.hgetall(f"ql:s:wait:{day}:batch") == \
        core.conn.hgetall(f"ql:s:wait:{day}:single")
    got = {m.split(b"-")[1]: s for m, s in
           scored(core.conn.zrange("ql:q:batch-locks", 0, -1, withscores=True))}
    want = {m.split(b"-")[1]: s for m, s in
            scored(core.conn.zrange("ql:q:single-locks", 0, -1, withscores=True))}
    assert got == want and len(got) == len(waits)
    held = scored(core.conn.zrange("ql:w:w:jobs", 0, -1, withscores=True))
    assert {m for m, _ in held} == {f"{q}-{i}".encode() for q in ("batch", "single")
                                    for i in range(len(waits))}
    assert {s for _, s in held} == {popped_at + 60}
    assert core.conn.ttl(f"ql:s:wait:{day}:batch") > 0


@pytest.mark.parametrize("count", [1, 2])
def test_unreadable_stats_fields_restart_the_sample_and_lose_no_job(core: Core, count: int) -> None:
    # Redis does not roll a script back, and pop reads the wait statistics after the job has
    # left the work set and before its lock is written: a stored value that is not a number
    # must not raise there (the job would be in no set at all). It is read as missing, and
    # the day's statistics start again from this sample.
    key = f"ql:s:wait:{DAY0}:q"
    core.conn.hset(key, mapping={"total": "many", "mean": "x", "vk": "?", "s5": "five"})
    for i in range(count):
        core.put(f"j{i}", T0, "q")
    popped = core.pop("q", "w", count, now=T0 + 5)
    assert sorted(job["jid"] for job in popped) == [f"j{i}" for i in range(count)]
    for i in range(count):
        assert core.conn.zscore("ql:q:q-locks", f"j{i}") == T0 + 65
        assert core.conn.zscore("ql:w:w:jobs", f"j{i}") == T0 + 65
    h = core.conn.hgetall(key)
    assert (float(h[b"total"]), float(h[b"mean"]), float(h[b"vk"])) == (count, 5, 0)
    assert h[b"s5"] == str(count).encode()
    # The same for the run statistics that complete reads.
    run = f"ql:s:run:{DAY0}:q"
    core.conn.hset(run, mapping={"total": "many", "mean": "x", "vk": "?", "s3": "three"})
    assert core("complete", T0 + 8, "j0", "w", "q", "{}") == b"complete"
    assert core.conn.zscore("ql:completed", "j0") == T0 + 8
    h = core.conn.hgetall(run)
    assert (float(h[b"total"]), float(h[b"mean"]), h[b"s3"]) == (1, 3, b"1")
