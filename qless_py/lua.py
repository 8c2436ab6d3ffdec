"""The built Lua core as shipped data: its source bytes and SHA-1.

``python -m qless_py.lua`` prints the built script (for loading it from other tools).
"""

from __future__ import annotations

import os
import sys


def sha1_hex(data: bytes) -> str:
    """SHA-1 of ``data`` as EVALSHA names a script. The builtin ``_sha1`` imports in
    microseconds; ``hashlib`` loads OpenSSL (about 5 ms of a worker's start-up)."""
    try:
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:  # an interpreter built without it
        from hashlib import sha1
    return str(sha1(data).hexdigest())


def _read_source() -> bytes:
    try:  # a plain file beside this module: no importlib.resources (and zipfile) import
        with open(os.path.join(os.path.dirname(__file__), "_lua", "qless.lua"), "rb") as fh:
            return fh.read()
    except OSError:  # installed inside a zip archive
        from importlib import resources

        return resources.files("qless_py").joinpath("_lua/qless.lua").read_bytes()


SOURCE: bytes = _read_source()
SHA: str = sha1_hex(SOURCE)


def main() -> None:
    """Write the built script to stdout."""
    sys.stdout.buffer.write(SOURCE)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
