"""The built Lua core as shipped data: its source bytes and SHA-1.

``python -m qless_py.lua`` prints the built script (for loading it from other tools).
"""

from __future__ import annotations

import hashlib
import sys
from importlib import resources

SOURCE: bytes = resources.files("qless_py").joinpath("_lua/qless.lua").read_bytes()
SHA: str = hashlib.sha1(SOURCE).hexdigest()


def main() -> None:
    """Write the built script to stdout."""
    sys.stdout.buffer.write(SOURCE)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
