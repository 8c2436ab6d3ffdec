"""How job data is stored: JSON by default, msgpack inside a JSON envelope on request.

The core insists that ``data`` is JSON text, and every qless client reads it as JSON. A
msgpack payload is therefore wrapped as ``{"_qless_codec": "msgpack", "b64": "<base64>"}``.
Reading recognises the envelope whatever codec the reading client was created with.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from qless_py.errors import CodecError

# msgpack and base64 are imported on first use: most data is JSON, and a worker's
# start-up pays for every import before its first job.

CodecName = Literal["json", "msgpack"]
ENVELOPE_KEY = "_qless_codec"
CODECS: tuple[str, ...] = ("json", "msgpack")

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def check_codec(name: str) -> CodecName:
    """Validate a codec name given by a caller."""
    if name == "json":
        return "json"
    if name == "msgpack":
        return "msgpack"
    raise CodecError(f"unknown codec {name!r}; use one of {', '.join(CODECS)}")


def encode(data: Any, codec: str = "json") -> str:
    """Job data as the JSON text the core stores."""
    if codec == "json":
        try:
            return _dumps(data)
        except (TypeError, ValueError) as exc:
            raise CodecError(
                f"job data is not JSON-serialisable ({exc}); use codec='msgpack' for bytes"
            ) from exc
    if codec == "msgpack":
        import base64

        import msgpack

        try:
            packed = msgpack.packb(data, use_bin_type=True)
        except (TypeError, ValueError, OverflowError) as exc:
            raise CodecError(f"job data cannot be packed with msgpack: {exc}") from exc
        b64 = base64.b64encode(packed).decode("ascii")
        return '{"' + ENVELOPE_KEY + '":"msgpack","b64":"' + b64 + '"}'
    raise CodecError(f"unknown codec {codec!r}; use one of {', '.join(CODECS)}")


def decode(text: str | bytes) -> tuple[Any, CodecName]:
    """Decode stored job data; returns the value and the codec it was stored with."""
    if text == "{}" or text == b"{}":  # the most common payload, skip the parser
        return {}, "json"
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CodecError(f"job data is not valid JSON: {exc}") from exc
    if (
        type(value) is dict
        and len(value) == 2
        and value.get(ENVELOPE_KEY) == "msgpack"
        and isinstance(value.get("b64"), str)
    ):
        import base64

        import msgpack

        try:
            raw = base64.b64decode(value["b64"], validate=True)
            return msgpack.unpackb(raw, raw=False, strict_map_key=False), "msgpack"
        except (ValueError, msgpack.UnpackException) as exc:
            raise CodecError(f"job data has a broken msgpack envelope: {exc}") from exc
    return value, "json"
