"""The fine wait/run histograms (extension): buckets of 1/20 decade beside qless's stats
hashes, the ``qlpy.stats`` command, their expiry, and what they leave untouched."""

from __future__ import annotations

import math

import pytest

from tests.core.support import DAY, T0, Core
from tests.replies import text

DAY0 = int(T0 // DAY * DAY)
QLESS_FIELDS = {b"total", b"mean", b"vk"}


def bucket(seconds: float) -> int:
    """The bucket the core files a sample of ``seconds`` under (floor of 20 * log10)."""
    return -81 if seconds < 1e-4 else min(199, math.floor(20 * math.log10(seconds)))


def test_the_client_names_the_buckets_the_core_fills(core: Core) -> None:
    # Samples from 10 us to a day, each a put and a pop whose times differ by it; the
    # client's fine_bucket (qless_py.stats) must name the bucket the core counted it in
    # (both take the same C log10 of the same double).
    from qless_py.stats import fine_bucket

    start = T0 + 0.25
    samples = [10 ** (e / 37) for e in range(-185, 183)]
    for i, wait in enumerate(samples):
        core.put(f"j{i}", start, "q")
        core.pop("q", "w", 1, now=start + wait)
    want: dict[int, int] = {}
    for wait in samples:
        b = fine_bucket((start + wait) - start)
        want[b] = want.get(b, 0) + 1
    assert fine(core, date=start)["wait"] == want


def pop_after(core: Core, jid: str, wait: float, queue: str = "q") -> None:
    core.put(jid, T0, queue)
    assert core.pop(queue, "w", 1, now=T0 + wait)[0]["jid"] == jid


def fine(core: Core, queue: str = "q", date: float = T0) -> dict[str, dict[int, int]]:
    got = core.json("qlpy.stats", T0, queue, date)
    return {kind: {int(b): n for b, n in got[kind]["fine"].items()} for kind in ("wait", "run")}


def test_sub_second_samples_land_in_distinct_buckets(core: Core) -> None:
    samples = [0.0003, 0.007, 0.12, 2.5]
    for i, wait in enumerate(samples):
        pop_after(core, f"j{i}", wait)
    got = fine(core)
    assert got["wait"] == {bucket(s): 1 for s in samples}
    assert len(got["wait"]) == 4 and got["run"] == {}
    # Each sample lies inside the bounds its bucket stands for.
    for s in samples:
        b = bucket(s)
        assert 10 ** (b / 20) <= s < 10 ** ((b + 1) / 20)
    # qless's own histogram cannot tell them apart: all but 2.5 s are in s0.
    qless = core.json("stats", T0, "q", T0)["wait"]["histogram"]
    assert qless[0] == 3 and qless[2] == 1


def test_run_samples_are_counted_at_complete(core: Core) -> None:
    pop_after(core, "a", 1)
    core("complete", T0 + 1.014, "a", "w", "q", "{}")
    assert fine(core)["run"] == {bucket(0.014): 1}
    assert fine(core)["wait"] == {0: 1}


def test_tiny_zero_and_negative_samples_share_the_lowest_bucket(core: Core) -> None:
    core.put("a", T0, "q")
    core.put("b", T0 + 5, "q")  # put "later" than the pop: a clock running behind
    core.put("c", T0 - 0.00005, "q")
    core.pop("q", "w", 3, now=T0)
    assert fine(core)["wait"] == {-81: 3}


def test_long_samples_keep_counting_past_a_week(core: Core) -> None:
    pop_after(core, "a", 30 * DAY)
    assert fine(core, date=T0 + 30 * DAY)["wait"] == {bucket(30 * DAY): 1}
    pop_after(core, "b", 1e12)  # 31,700 years: the last bucket holds all from 10^10 s on
    assert fine(core, date=T0 + 1e12)["wait"] == {199: 1}


def test_fields_are_bucket_numbers_padded_to_three_characters(core: Core) -> None:
    for i, wait in enumerate((0.0003, 0.007, 0.5, 1, 2.5, 200)):
        pop_after(core, f"j{i}", wait)
    fields = {text(f) for f in core.conn.hkeys(f"ql:fine:ql:s:wait:{DAY0}:q")}
    assert fields == {"-71", "-44", "-07", "000", "007", "046"}


def test_the_day_is_the_day_of_the_sample(core: Core) -> None:
    pop_after(core, "a", DAY + 0.5)
    assert fine(core, date=T0)["wait"] == {}
    assert fine(core, date=T0 + DAY + 3)["wait"] == {bucket(DAY + 0.5): 1}


def test_a_batch_pop_stores_what_single_pops_store(core: Core) -> None:
    waits = [0.25, 0.0003, 0.26, 3.2, 0.25, 4000.0, 1e-7]
    popped_at = T0 + 100000
    for i, wait in enumerate(waits):
        for queue in ("batch", "single"):
            core.put(f"{queue}-{i}", popped_at - wait, queue)
    core.pop("batch", "w", len(waits), now=popped_at)
    for _ in waits:
        core.pop("single", "w", 1, now=popped_at)
    day = int(popped_at // DAY * DAY)
    batch = core.conn.hgetall(f"ql:fine:ql:s:wait:{day}:batch")
    assert batch == core.conn.hgetall(f"ql:fine:ql:s:wait:{day}:single")
    assert sum(int(n) for n in batch.values()) == len(waits)
    assert core.conn.ttl(f"ql:fine:ql:s:wait:{day}:batch") == core.conn.ttl(
        f"ql:s:wait:{day}:batch")


def test_qless_hashes_keep_exactly_their_fields(core: Core) -> None:
    pop_after(core, "a", 0.007)
    core("complete", T0 + 1, "a", "w", "q", "{}")
    assert set(core.conn.hgetall(f"ql:s:wait:{DAY0}:q")) == QLESS_FIELDS | {b"s0"}
    assert set(core.conn.hgetall(f"ql:s:run:{DAY0}:q")) == QLESS_FIELDS | {b"s0"}
    assert core.json("stats", T0, "q", T0)["wait"]["count"] == 1
    names = {k.decode() for k in core.conn.scan_iter("ql:s:*")}
    assert names == {f"ql:s:{kind}:{DAY0}:q" for kind in ("wait", "run")}
    fine_names = {k.decode() for k in core.conn.scan_iter("ql:fine:*")}
    assert fine_names == {f"ql:fine:ql:s:{kind}:{DAY0}:q" for kind in ("wait", "run")}


def test_fine_hash_expires_with_its_qless_twin(core: Core) -> None:
    core("config.set", T0, "stats-history", 3)
    pop_after(core, "a", 0.5)
    pop_after(core, "b", 2)  # a second bucket: its first sample copies the TTL again
    wait_ttl = core.conn.ttl(f"ql:s:wait:{DAY0}:q")
    assert 0 < wait_ttl <= 3 * DAY
    assert abs(core.conn.ttl(f"ql:fine:ql:s:wait:{DAY0}:q") - wait_ttl) <= 1


def test_a_hash_made_without_expiry_keeps_its_twin_without_one(core: Core) -> None:
    # A day begun by a core that set no TTL (the reference never does): neither expires.
    core.conn.hset(f"ql:s:wait:{DAY0}:q", mapping={"total": 1, "mean": 4, "vk": 0, "s4": 1})
    pop_after(core, "a", 0.02)
    assert core.conn.ttl(f"ql:s:wait:{DAY0}:q") == -1
    assert core.conn.ttl(f"ql:fine:ql:s:wait:{DAY0}:q") == -1
    assert fine(core)["wait"] == {bucket(0.02): 1}


@pytest.mark.parametrize("count", [1, 2])
def test_a_corrupt_fine_field_loses_no_job(core: Core, count: int) -> None:
    # As with qless's hash (tests/core/test_stats.py): pop writes the sample after the job
    # left the work set, so a stored value that is not a number must not raise there.
    key = f"ql:fine:ql:s:wait:{DAY0}:q"
    core.conn.hset(key, str(bucket(5)), "five")
    for i in range(count):
        core.put(f"j{i}", T0, "q")
    popped = core.pop("q", "w", count, now=T0 + 5)
    assert len(popped) == count
    for i in range(count):
        assert core.conn.zscore("ql:q:q-locks", f"j{i}") == T0 + 65
    assert fine(core)["wait"] == {bucket(5): count}


def test_a_fine_key_of_another_type_loses_no_job(core: Core) -> None:
    core.conn.set(f"ql:fine:ql:s:wait:{DAY0}:q", "not a hash")
    pop_after(core, "a", 1)
    assert core.conn.zscore("ql:q:q-locks", "a") == T0 + 61
    assert core.json("stats", T0, "q", T0)["wait"]["count"] == 1


def test_empty_reply_shape(core: Core) -> None:
    empty = {"count": 0, "mean": 0, "std": 0, "fine": {}}
    assert core.json("qlpy.stats", T0, "nothing-here", T0) == {
        "retries": 0, "failed": 0, "failures": 0, "wait": empty, "run": empty}


def test_it_reports_what_stats_reports_but_the_bins(core: Core) -> None:
    for i, wait in enumerate((0.2, 3.5, 7.25)):
        pop_after(core, f"j{i}", wait)
        core("complete", T0 + wait + i + 1, f"j{i}", "w", "q", "{}")
    core.put("f", T0, "q")
    core.pop("q", "w", 1, now=T0 + 20)
    core("fail", T0 + 21, "f", "w", "g", "m")
    qless = core.json("stats", T0, "q", T0)
    ours = core.json("qlpy.stats", T0, "q", T0)
    for key in ("retries", "failed", "failures"):
        assert ours[key] == qless[key]
    for kind in ("wait", "run"):
        for key in ("count", "mean", "std"):
            assert ours[kind][key] == qless[kind][key], (kind, key)
        assert sum(ours[kind]["fine"].values()) == qless[kind]["count"]


def test_errors_change_nothing(populated: Core) -> None:
    populated.rejects("Queue(): no queue name provided", "qlpy.stats", T0)
    populated.rejects('Stats(): Arg "date" missing or not a number: nil', "qlpy.stats", T0, "q")
    populated.rejects('Stats(): Arg "date" missing or not a number: today', "qlpy.stats", T0,
                      "q", "today")


def test_every_qless_bin_keeps_its_field_name(core: Core) -> None:
    # Stats.bin cuts qless's field names from constants: each must read as qless writes it.
    waits = ([s + 0.5 for s in range(60)] + [m * 60 + 1 for m in range(1, 60)]
             + [h * 3600 + 1 for h in range(1, 24)])
    for i, wait in enumerate(waits):
        pop_after(core, f"j{i}", wait)
        core("complete", T0 + wait, f"j{i}", "w", "q", "{}")  # no lease left to reclaim
    core.put("days", T0 - 2 * 86400, "q")  # two days' wait, popped on the same day
    assert core.pop("q", "w", 1, now=T0 + 1)[0]["jid"] == "days"
    fields = {text(f) for f in core.conn.hkeys(f"ql:s:wait:{DAY0}:q")} - {
        "total", "mean", "vk"}
    expected = ({f"s{s}" for s in range(60)} | {f"m{m}" for m in range(1, 60)}
                | {f"h{h}" for h in range(1, 24)} | {"d2"})
    assert fields == expected
    assert core.json("stats", T0, "q", T0)["wait"]["histogram"] == [1] * 142 + [0, 1, 0, 0, 0, 0]
