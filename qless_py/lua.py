"""The built Lua core as shipped data: its source bytes and SHA-1, and where its lines come from.

``python -m qless_py.lua`` prints the built script (for loading it from other tools);
``--namespace NAME`` prints that namespace's own script instead.
``python -m qless_py.lua --where 'ERR user_script:1234: ...'`` prints the source line
(``lua/<file>:<line>``) of the line an error reply names.
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


def _read_source(name: str = "qless.lua") -> bytes:
    try:  # a plain file beside this module: no importlib.resources (and zipfile) import
        with open(os.path.join(os.path.dirname(__file__), "_lua", name), "rb") as fh:
            return fh.read()
    except OSError:  # installed inside a zip archive
        from importlib import resources

        return resources.files("qless_py").joinpath(f"_lua/{name}").read_bytes()


SOURCE: bytes = _read_source()
SHA: str = sha1_hex(SOURCE)

# A namespace's own script is made from a template (scripts/build_lua.py, TEMPLATE_OPEN)
# whose every key spells the prefix `ql:{@NAMESPACE@}:`; read on first use.
_NAME_SLOT = b"@NAMESPACE@"
_template: list[bytes] = []
_namespace_scripts: dict[str, tuple[bytes, str]] = {}
_by_sha: dict[str, bytes] = {SHA: SOURCE}


def _lua_text(text: str) -> bytes:
    """``text`` as it may stand inside a Lua string literal: letters, digits and ``_.:-``
    as they are, every other byte (quotes, backslashes, line ends, UTF-8) as ``\\ddd``."""
    keep = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-"
    return b"".join(bytes([c]) if c in keep else b"\\%03d" % c for c in text.encode())


def script_for(namespace: str | None) -> tuple[bytes, str]:
    """The script a client calls for ``namespace`` (None: the default namespace, the
    shipped script) and its SHA-1."""
    return (SOURCE, SHA) if namespace is None else namespace_script(namespace)


def namespace_script(namespace: str) -> tuple[bytes, str]:
    """The script a client calls for ``namespace`` (a valid name: qless_py.keys checks
    it), and its SHA-1. It runs the same code as the shipped script does for that
    namespace's key, with every key a constant, so a call costs fewer instructions
    (docs/performance.md, Namespaces). Called with any other key, it refuses the call and
    writes nothing."""
    made = _namespace_scripts.get(namespace)
    if made is None:
        if not _template:
            _template.append(_read_source("namespace.lua"))
        source = _template[0].replace(_NAME_SLOT, _lua_text(namespace))
        made = _namespace_scripts[namespace] = (source, sha1_hex(source))
        _by_sha[made[1]] = source
    return made


# scripts/build_lua.py writes `--@ <path>:<a>-<b>` before lines a..b of a source file; the
# script's other lines are the build's own.
_MARKER = rb"^--@ (\S+):(\d+)-(\d+)$"
# Redis 7 and Valkey: `user_script:<n>: <message> script: <sha>, on @user_script:<m>.`;
# Redis 6.2: `Error running script (call to f_<sha>): @user_script:<m>: user_script:<n>: ...`.
# <n> is where the error was raised, <m> the line Redis was running (the same line for the
# core's own errors). (Imported on first use: a worker never needs `re` for this.)
_LINE = r"(@?)user_script:(\d+)"
_SHA = r"(?<![0-9a-f])(?:f_)?([0-9a-f]{40})(?![0-9a-f])"
_maps: dict[str, tuple[list[int], list[tuple[str, int, int]]]] = {}


def _line_map(script: bytes) -> tuple[list[int], list[tuple[str, int, int]]]:
    """Script line of each range's first line, and each range (path, first, last)."""
    import re

    digest = sha1_hex(script)
    if digest not in _maps:
        starts, ranges = [], []
        for m in re.finditer(_MARKER, script, re.M):
            starts.append(script.count(b"\n", 0, m.end()) + 2)  # the line after the marker
            ranges.append((m.group(1).decode(), int(m.group(2)), int(m.group(3))))
        _maps[digest] = (starts, ranges)
    return _maps[digest]


def source_line(line: int, script: bytes = SOURCE) -> str | None:
    """``lua/<file>:<line>`` for line ``line`` of the built script, or None for a line the
    build wrote itself (or one past the end)."""
    import bisect

    starts, ranges = _line_map(script)
    k = bisect.bisect_right(starts, line) - 1
    if k < 0:
        return None
    path, first, last = ranges[k]
    n = first + line - starts[k]
    return f"{path}:{n}" if n <= last else None


def where(reply: str, script: bytes | None = None) -> str | None:
    """The source line (``lua/<file>:<line>``) of the error an error reply of ``script``
    names, or None: no ``user_script:<n>`` in it, a line the build wrote, or a reply that
    names another script's SHA. Without ``script``: the script the reply names, the
    shipped one or a namespace's made in this process (the shipped one if it names none)."""
    import re

    sha = re.search(_SHA, reply)
    if sha is not None:
        named = sha.group(1)
        if script is None:  # a script this process knows by its SHA: no hashing again
            script = _by_sha.get(named)
        elif named != sha1_hex(script):
            script = None
        if script is None:
            return None
    elif script is None:
        script = SOURCE
    found = re.findall(_LINE, reply)
    raised = [int(n) for at, n in found if not at] or [int(n) for _, n in found]
    return source_line(raised[0], script) if raised else None


def main(argv: list[str] | None = None) -> int:
    """Write the built script to stdout, or with --where the source of a script line."""
    import argparse
    import re

    parser = argparse.ArgumentParser(prog="python -m qless_py.lua", description=__doc__)
    parser.add_argument("--where", metavar="REPLY",
                        help="an error reply, `user_script:<n>`, or a line number")
    parser.add_argument("--script", metavar="FILE",
                        help="the built script the reply came from (default: this package's)")
    parser.add_argument("--namespace", metavar="NAME",
                        help="that namespace's own script (the one qless_py's clients call "
                             "for it) instead of the shipped one")
    args = parser.parse_args(argv)
    script = SOURCE
    if args.namespace is not None:
        from qless_py.keys import namespace_prefix

        try:
            namespace_prefix(args.namespace)
        except ValueError as exc:
            print(f"qless_py.lua: {exc}", file=sys.stderr)
            return 2
        script = namespace_script(args.namespace)[0]
    if args.script:
        with open(args.script, "rb") as fh:
            script = fh.read()
    if args.where is None:
        sys.stdout.buffer.write(script)
        sys.stdout.buffer.flush()
        return 0
    text = args.where.strip()
    found = source_line(int(text), script) if text.isdigit() else where(text, script)
    if found is None:
        sha = re.search(_SHA, text)
        why = (f"the reply names script {sha.group(1)}, not {sha1_hex(script)} (--script)"
               if sha and sha.group(1) != sha1_hex(script)
               else "no source line: the build wrote that line, or none is named")
        print(f"qless_py.lua: {why}", file=sys.stderr)
        return 1
    print(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
