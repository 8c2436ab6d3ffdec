"""``qless_py.keys`` and the core's key table (``lua/prelude.lua``) spell the same keys.

Each name in ``keys.py`` has a twin here: the fields of prelude's ``key`` table whose
concatenation it must equal. Every public name of ``keys.py`` needs a twin, and every field
of the key table is either some name's twin or listed as the core's own (Python never
reads it), so a key added or renamed on one side only fails here. The table is read with
the build's own parser (``scripts/build_lua.py``), which refuses anything but
``name = 'text'`` fields.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from qless_py import keys

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_lua  # noqa: E402

# keys.py constant -> the key-table fields it spells, in order.
CONSTANTS: dict[str, tuple[str, ...]] = {
    "PREFIX": ("channel",),
    "CONFIG": ("config",),
    "QUEUES": ("queues",),
    "PAUSED": ("paused",),
    "WORKERS": ("workers",),
    "TRACKED": ("tracked",),
    "TAGS": ("tags",),
    "FAILURES": ("failures",),
    "COMPLETED": ("completed",),
    "WORK": ("work",),
    "LOCKS": ("locks",),
    "SCHEDULED": ("scheduled",),
    "DEPENDS": ("depends",),
    "RECUR": ("recurring",),
    "THROTTLE_PREFIX": ("throttle",),
    "CHECK_SUMMARY": ("check",),
    "SHARDS": ("shards",),
    "OUTBOX": ("outbox",),
}
# keys.THROTTLE_SETS, one field per suffix.
THROTTLE_SETS = ("locks", "pending", "ready")

# keys.py builder -> (a call with sample arguments, the fields and arguments it joins:
# "key.x" is a field of the key table, anything else the sample argument itself).
Builder = tuple[Callable[[], str], tuple[str, ...]]
BUILDERS: dict[str, Builder] = {
    "job": (lambda: keys.job("J"), ("key.job", "J")),
    "queue": (lambda: keys.queue("Q", keys.WORK), ("key.queue", "Q", "key.work")),
    "worker_jobs": (lambda: keys.worker_jobs("W"), ("key.worker", "W", "key.jobs")),
    "recurring": (lambda: keys.recurring("J"), ("key.recur", "J")),
    "channel": (lambda: keys.channel("log"), ("key.channel", "log")),
    "worker_channel": (lambda: keys.worker_channel("W"), ("key.worker", "W")),
    "queue_tid": (lambda: keys.queue_tid("Q"), ("key.queue", "Q")),
    "throttle": (lambda: keys.throttle("T"), ("key.throttle", "T")),
}
INVERSES = {"tid_queue", "job_of"}  # reads a name rather than spelling one: checked on its own
# Names that spell no key: a hash field, a config field, and the namespace machinery.
NOT_KEYS = {"THROTTLE_MAXIMUM", "concurrency_cap", "NAMESPACE_MAX", "namespace_prefix",
            "namespace_of", "Keys", "DEFAULT", "SHARDS_MAX", "check_count"}

# Fields only the core reads and writes: no Python code names these keys.
CORE_ONLY = {"history", "dependencies", "dependents", "tag", "failure_group", "stats",
             "fine", "throttled", "order", "expiring", "outbox_taken", "outbox_seq", "applied",
             "released"}


def key_table() -> dict[str, str]:
    """Field -> text of prelude's ``key`` table."""
    prelude = build_lua.read_sources(ROOT / "lua")[0]
    assert prelude.path == "lua/prelude.lua"
    for stmt in build_lua.top_level_locals(prelude):
        if stmt.names == ["key"]:
            fields = build_lua.key_fields(prelude, stmt)
            return {name.removeprefix("key."): ast.literal_eval(text)
                    for name, text in fields.items()}
    raise AssertionError("lua/prelude.lua declares no `local key = {...}`")


def public_names() -> set[str]:
    return {name for name, value in vars(keys).items()
            if not name.startswith("_") and name != "annotations"
            and getattr(value, "__module__", keys.__name__) == keys.__name__}


def spelled(table: dict[str, str], parts: tuple[str, ...]) -> str:
    return "".join(table[p.removeprefix("key.")] if p.startswith("key.") else p
                   for p in parts)


def test_the_key_table_is_read() -> None:
    table = key_table()
    assert table["config"] == "ql:config" and table["job"] == "ql:j:"


def test_every_name_in_keys_py_has_a_twin() -> None:
    twinned = {*CONSTANTS, "THROTTLE_SETS", *BUILDERS, *INVERSES, *NOT_KEYS}
    assert public_names() - twinned == set(), "give each new name in keys.py a twin here"
    assert twinned - public_names() == set(), "a twin here names nothing in keys.py"


def test_constants_spell_their_twins() -> None:
    table = key_table()
    pairs: dict[str, tuple[object, object]] = {
        name: (getattr(keys, name), "".join(table[f] for f in fields))
        for name, fields in CONSTANTS.items()}
    pairs["THROTTLE_SETS"] = (keys.THROTTLE_SETS, tuple(table[f] for f in THROTTLE_SETS))
    wrong = {name: pair for name, pair in pairs.items() if pair[0] != pair[1]}
    assert wrong == {}, "keys.py (left) and lua/prelude.lua (right) disagree"


def test_builders_spell_their_twins() -> None:
    table = key_table()
    wrong = {name: (build(), spelled(table, parts))
             for name, (build, parts) in BUILDERS.items() if build() != spelled(table, parts)}
    assert wrong == {}, "keys.py (left) and lua/prelude.lua (right) disagree"


def test_tid_queue_reads_what_queue_tid_spells() -> None:
    assert keys.tid_queue(keys.queue_tid("q")) == "q"
    assert keys.tid_queue("named") is None


def test_every_field_of_the_key_table_is_twinned_or_the_cores_own() -> None:
    used = {f for fields in CONSTANTS.values() for f in fields} | set(THROTTLE_SETS) | {
        p.removeprefix("key.") for _, parts in BUILDERS.values() for p in parts
        if p.startswith("key.")}
    table = set(key_table())
    assert table - used - CORE_ONLY == set(), (
        "a new field of the key table: give it a twin in keys.py or list it in CORE_ONLY")
    assert (used | CORE_ONLY) - table == set(), "a twin names a field the key table lacks"
    assert used & CORE_ONLY == set()


def test_job_of_reads_what_job_spells() -> None:
    assert keys.job_of(keys.job("J")) == "J"
    assert keys.job_of(keys.queue("q", keys.WORK)) is None


def test_a_namespace_spells_the_default_names_under_its_prefix() -> None:
    spaced = keys.Keys("billing")
    assert spaced.prefix == "ql:{billing}:" and spaced.core_keys == ("ql:{billing}:",)
    assert keys.DEFAULT.core_keys == ()
    for name in CONSTANTS:
        default = getattr(keys, name)
        if not default.startswith("ql:"):
            continue  # a suffix, the same in every namespace
        assert getattr(spaced, name.lower()) == "ql:{billing}:" + default[3:], name
    for name, (build, _) in BUILDERS.items():
        default = build()
        method = getattr(spaced, name)
        args = {"job": ("J",), "queue": ("Q", keys.WORK), "worker_jobs": ("W",),
                "recurring": ("J",), "channel": ("log",), "worker_channel": ("W",),
                "queue_tid": ("Q",), "throttle": ("T",)}[name]
        assert method(*args) == "ql:{billing}:" + default[3:], name
    assert spaced.tid_queue(spaced.queue_tid("q")) == "q"
    assert spaced.tid_queue(keys.queue_tid("q")) is None
    assert spaced.job_of(spaced.job("J")) == "J" and spaced.job_of(keys.job("J")) is None


@pytest.mark.parametrize("name", ["", "a{b", "a}b", "x" * (keys.NAMESPACE_MAX + 1)])
def test_a_bad_namespace_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(ValueError, match="invalid namespace") as info:
        keys.Keys(name)
    assert "\n" not in str(info.value)


def test_the_longest_namespace_is_taken() -> None:
    assert keys.Keys("n" * keys.NAMESPACE_MAX).prefix == "ql:{" + "n" * 64 + "}:"


def test_namespace_of_reads_what_a_namespace_spells() -> None:
    assert keys.namespace_of(keys.Keys("billing").job("J")) == "billing"
    assert keys.namespace_of(keys.job("J")) is None
