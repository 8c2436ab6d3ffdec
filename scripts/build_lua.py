"""Build the Lua core: concatenate lua/*.lua in a fixed order into qless_py/_lua/qless.lua.

``python scripts/build_lua.py`` writes the artifact; ``--check`` exits 1 when it is stale.
Comments are kept so that server-side errors stay readable.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "lua"
ARTIFACT = ROOT / "qless_py" / "_lua" / "qless.lua"

# prelude first (locals, module tables, keys), api last (command table + dispatcher).
ORDER = [
    "prelude.lua",
    "config.lua",
    "stats.lua",
    "job.lua",
    "queue.lua",
    "failure.lua",
    "recurring.lua",
    "worker.lua",
    "tags.lua",
    "track.lua",
    "api.lua",
]

HEADER = "-- built by scripts/build_lua.py from lua/*.lua; do not edit\n"


def build() -> str:
    present = {p.name for p in SOURCES.glob("*.lua")}
    missing = [name for name in ORDER if name not in present]
    extra = sorted(present - set(ORDER))
    if missing or extra:
        raise SystemExit(f"lua/ does not match the build order: missing {missing}, unlisted {extra}")
    parts = [HEADER]
    for name in ORDER:
        text = (SOURCES / name).read_text(encoding="utf-8")
        parts.append(f"\n-- ==== {name} ====\n")
        parts.append(text if text.endswith("\n") else text + "\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the artifact is stale")
    args = parser.parse_args(argv)
    built = build()
    if args.check:
        current = ARTIFACT.read_text(encoding="utf-8") if ARTIFACT.exists() else ""
        if current != built:
            print(f"{ARTIFACT.relative_to(ROOT)} is stale: run scripts/build_lua.py", file=sys.stderr)
            return 1
        return 0
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(built, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
