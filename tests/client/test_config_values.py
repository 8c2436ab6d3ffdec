"""Config refuses values that numeric keys cannot mean, before writing anything (each test
runs with the sync and the async client)."""

from __future__ import annotations

import pytest
import redis

from qless_py.client.config import check_setting
from tests.client.conftest import AnyClient, run

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize(("key", "value", "phrase"), [
    ("heartbeat", "-1", "heartbeat must be a finite number >= 0, not '-1'"),
    ("grace-period", float("inf"), "grace-period must be a finite number >= 0"),
    ("q-heartbeat", "nan", "q-heartbeat must be a finite number >= 0"),
    ("q-max-concurrency", "1.5", "q-max-concurrency must be a whole number, not '1.5'"),
    ("jobs-history", "soon", "jobs-history must be a number, not 'soon'"),
])
async def test_numeric_keys_refuse_bad_numbers(client: AnyClient, redis_conn: redis.Redis,
                                               key: str, value: object, phrase: str) -> None:
    with pytest.raises(ValueError, match=phrase):
        await run(client.config.set(key, value))
    with pytest.raises(ValueError, match=phrase):
        await run(client.config.update({"application": "mine", key: value}))
    assert redis_conn.hgetall(client.keys.config) == {}


async def test_good_values_pass_and_are_stored(client: AnyClient) -> None:
    assert check_setting("q-max-concurrency", "3") == "3"
    assert check_setting("heartbeat", 0) == 0
    assert check_setting("my-flag", "-1") == "-1"  # not a numeric key: any text
    await run(client.config.set("q-max-concurrency", 2))
    await run(client.config.set("heartbeat", 0.5))
    assert (await run(client.config["q-max-concurrency"]),
            await run(client.config["heartbeat"])) == (2, 0.5)
