"""Write the builds that docs/performance.md (Namespaces) counts to find where a namespaced
call's extra instructions go. Each leaves one part of the namespaced call out:

- ``keyed-default.lua``: the default namespace's body runs for a call with one key too;
- ``no-check.lua``: the namespaced body without the check of the key's shape;
- ``prefix-ql.lua``: that, with ``P`` set to ``'ql:'`` (keys as short as the default's);
- ``literal-keys.lua``: that, with every ``P .. '<rest>'`` the literal ``'ql:<rest>'``.

Count each with ``count_instructions.py --namespace billing --script <file>``. They are
for counting only: the last two write the default namespace's keys.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from qless_py import lua

CHECK = re.compile(r"^if #KEYS ~= 1 or .* then$", re.M)


def variants(script: str) -> dict[str, str]:
    """The variants of ``script`` (the built core), by file name."""
    if script.count("if #KEYS == 0 then") != 1 or len(CHECK.findall(script)) != 1:
        raise SystemExit("namespace_variants: the script's layout is not the one expected")
    split = script.index("local P = KEYS[1]")
    head, body = script[:split], script[split:]
    no_check = CHECK.sub("if false then", body)
    short = no_check.replace("if false then", "P = 'ql:' if false then", 1)
    literal = re.sub(r"\bP \.\. '([^']*)'", r"'ql:\1'", short)
    return {
        "keyed-default.lua": script.replace("if #KEYS == 0 then", "if #KEYS <= 1 then"),
        "no-check.lua": head + no_check,
        "prefix-ql.lua": head + short,
        "literal-keys.lua": head + literal,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="where to write the variants")
    args = parser.parse_args()
    args.directory.mkdir(parents=True, exist_ok=True)
    for name, text in variants(lua.SOURCE.decode()).items():
        (args.directory / name).write_text(text, encoding="utf-8")
        print(args.directory / name)


if __name__ == "__main__":
    main()
