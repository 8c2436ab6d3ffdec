"""config.get, config.set, config.unset (3.33-3.35, section 7)."""

from __future__ import annotations

import json

import pytest

from tests.core.support import T0, Core

DEFAULTS = {
    "application": "qless",
    "heartbeat": 60,
    "grace-period": 10,
    "stats-history": 30,
    "histogram-history": 7,
    "jobs-history": 604800,
    "jobs-history-count": 50000,
}


@pytest.mark.parametrize(("key", "value"), sorted(DEFAULTS.items()))
def test_listed_default_types(core: Core, key: str, value: object) -> None:
    reply = core("config.get", T0, key)
    if isinstance(value, str):
        assert reply == value.encode()
    else:
        assert reply == value and isinstance(reply, int)


@pytest.mark.parametrize(
    "key", ["max-worker-age", "max-job-history", "q-heartbeat", "q-max-concurrency", "nonsense"]
)
def test_internal_fallbacks_are_nil(core: Core, key: str) -> None:
    assert core("config.get", T0, key) is None


def test_all_defaults(core: Core) -> None:
    assert core.json("config.get", T0) == DEFAULTS


def test_set_get_unset(core: Core) -> None:
    assert core("config.set", T0, "heartbeat", 30) is None
    assert core("config.get", T0, "heartbeat") == b"30"
    core("config.set", T0, "custom", "x/y")
    everything = core.json("config.get", T0)
    assert everything["heartbeat"] == "30" and everything["custom"] == "x/y"
    assert everything["grace-period"] == 10
    assert b'"custom":"x\\/y"' in core("config.get", T0)
    assert core.conn.hgetall("ql:config") == {b"heartbeat": b"30", b"custom": b"x/y"}
    assert core("config.unset", T0, "heartbeat") is None
    assert core("config.get", T0, "heartbeat") == 60
    assert json.loads(core("config.get", T0))["heartbeat"] == 60


def test_set_empty_value_is_present(core: Core) -> None:
    core("config.set", T0, "application", "")
    assert core("config.get", T0, "application") == b""


def test_config_errors(populated: Core) -> None:
    populated.rejects('config.set(): Arg "option" missing', "config.set", T0)
    populated.rejects('config.set(): Arg "value" missing', "config.set", T0, "heartbeat")
    populated.rejects('config.unset(): Arg "option" missing', "config.unset", T0)
