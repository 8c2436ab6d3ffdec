"""Codecs: JSON by default, msgpack in a JSON envelope, auto-detected on read."""

from __future__ import annotations

import base64
import json

import msgpack
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from qless_py import CodecError, codecs
from tests.client.conftest import AnyClient, MakeClient, run
from tests.replies import bulk

NOOP = "tests.client.jobs.Noop"


@pytest.mark.asyncio
async def test_json_is_stored_as_plain_json(client: AnyClient, redis_conn: redis.Redis) -> None:
    await run(client.queues["q"].put(NOOP, {"a": [1, "é"]}, jid="a"))
    assert json.loads(bulk(redis_conn.hget(client.keys.job("a"), "data"))) == {"a": [1, "é"]}


@pytest.mark.asyncio
async def test_msgpack_envelope_round_trip(server_url: str, client: AnyClient,
                                           make_client: MakeClient,
                                           redis_conn: redis.Redis) -> None:
    packer = make_client(server_url, worker_name="worker", codec="msgpack")
    payload = {"blob": b"\x00\xff" * 10, "n": 3, "nested": [b"x", {"k": None}]}
    await run(packer.queues["q"].put(NOOP, payload, jid="a"))
    stored = json.loads(bulk(redis_conn.hget(client.keys.job("a"), "data")))
    assert set(stored) == {"_qless_codec", "b64"} and stored["_qless_codec"] == "msgpack"
    assert msgpack.unpackb(base64.b64decode(stored["b64"]), raw=False) == payload
    # A JSON client reads it too, and writes it back in the same format.
    job = await run(client.queues["q"].pop())
    assert job is not None and job.data == payload and job.codec == "msgpack"
    job["n"] = 4
    await run(job.complete())
    done = await run(packer.jobs["a"])
    assert done.data == {**payload, "n": 4}
    stored = json.loads(bulk(redis_conn.hget(client.keys.job("a"), "data")))
    assert stored["_qless_codec"] == "msgpack"


@pytest.mark.asyncio
async def test_plain_json_read_by_msgpack_client_stays_json(
        server_url: str, client: AnyClient, make_client: MakeClient,
        redis_conn: redis.Redis) -> None:
    await run(client.queues["q"].put(NOOP, {"x": 1}, jid="a"))
    packer = make_client(server_url, worker_name="worker", codec="msgpack")
    job = await run(packer.queues["q"].pop())
    assert job is not None and job.data == {"x": 1} and job.codec == "json"
    await run(job.complete())
    assert redis_conn.hget(client.keys.job("a"), "data") == b'{"x":1}'


@pytest.mark.asyncio
async def test_bytes_need_msgpack(client: AnyClient, redis_conn: redis.Redis) -> None:
    with pytest.raises(CodecError, match="msgpack"):
        await run(client.queues["q"].put(NOOP, {"blob": b"\x00"}))
    assert redis_conn.keys(client.keys.prefix + "*") == []


@pytest.mark.asyncio
async def test_unknown_codec_is_refused(server_url: str, make_client: MakeClient) -> None:
    with pytest.raises(CodecError):
        make_client(server_url, codec="pickle")


def test_envelope_detection_is_exact() -> None:
    # A user dict that merely has the marker key among others is left alone.
    text = json.dumps({"_qless_codec": "msgpack", "b64": "AA==", "other": 1})
    assert codecs.decode(text) == (json.loads(text), "json")
    with pytest.raises(CodecError):
        codecs.decode('{"_qless_codec":"msgpack","b64":"!!notbase64"}')
    assert codecs.decode(codecs.encode([1, b"2"], "msgpack")) == ([1, b"2"], "msgpack")


_scalars = (st.none() | st.booleans() | st.integers(-(2**53), 2**53)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text())
_json_values = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
_packable = st.recursive(
    _scalars | st.binary(max_size=32), lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(_json_values)
def test_json_round_trip(value: object) -> None:
    assert codecs.decode(codecs.encode(value, "json")) == (value, "json")


@settings(max_examples=60, deadline=None)
@given(_packable)
def test_msgpack_round_trip(value: object) -> None:
    text = codecs.encode(value, "msgpack")
    assert json.loads(text)["_qless_codec"] == "msgpack"
    assert codecs.decode(text) == (value, "msgpack")
