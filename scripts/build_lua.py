"""Build the Lua core: lua/**/*.lua into one script, qless_py/_lua/qless.lua.

    python scripts/build_lua.py            write the script
    python scripts/build_lua.py --check    exit 1 when it is stale (scripts/test runs this)

Why a build at all: Redis runs the whole script body on every EVALSHA. Each `function`
statement there makes a closure again, each top-level table is made again, and each
local a closure captures is one more allocation, on every call. The sources simply
concatenated cost 2.5 times the built script's instructions for a put, pop and complete
(scripts/count_instructions.py); docs/architecture.md gives the figures for each pass.

The sources are plain Lua, concatenated in this order: prelude.lua, the other files in
path order, api.lua. Four passes turn them into the script. Every pass reads tokens
(scripts/lua_tokens.py), so text inside a string literal or a comment is never rewritten.

1. Constants. The prelude's `key` table (the one place key names are spelled) and the
   top-level constants named in capitals (`local F_JID, F_STATE = 1, 3`) are written as
   their values where they are used: `key.job` becomes `'ql:j:'`.
2. Modules. The module tables the prelude declares (`local Job, Queue = {}, {}`) become
   one table `M`: `Job.put` is `M.Job_put`, and `Api[cmd]` is `M['Api_' .. (cmd)]`.
3. Lazy functions. Every top-level `function Module.name(...) ... end`, and every
   `Api['command'] = Module.name` line of api.lua, moves into one generated function,
   define(), which M calls (as its __index) the first time a call uses the name. A call
   creates only the functions it uses; define() finds the name's branch by its length
   first, so a lookup compares a few numbers and a few strings, not every name. define()
   declares the prelude's aliases of globals (`local rcall = redis.call`) again, so that
   it does not capture them.
4. Inlining (scripts/lua_inline.py). In the top-level code (api.lua's dispatcher) every
   call of a function marked `--@inline` (a comment line right above it) is replaced by
   a copy of the function's body, and the same is done inside each copy: the commands a
   worker sends for every job run as straight code and create no function at all.

The script holds the result twice. KEYS chooses: with no key (as every qless client calls
it) the first copy runs, with the key table folded as the literals above; with one key, a
namespace's prefix `ql:{<name>}:`, the second runs, in which every key that starts with
`ql:` is `P .. '<rest>'` (P being that key) and every `rcall('PUBLISH', ...)` sends `PUB`
(SPUBLISH where the server has it). A call of the default namespace therefore runs
exactly the code it would run without namespaces.

The script keeps every comment, and says where each line comes from: a line
`--@ lua/job/put.lua:40-52` means that the next 13 lines are lines 40 to 52 of that
file; lines outside such ranges are the build's own. qless_py.lua.source_line() and
`python -m qless_py.lua --where 'user_script:1234'` read these markers.

Rules the sources keep; the build refuses to run otherwise, naming the file and line:
- No function is created at the top level (no `local function`): module functions are
  `function Module.name(...)`, created only when used.
- A module table appears only as `Module.name` or `Module[expr]`, and `Module.name` is
  a function some file defines.
- `key.name` names a field of the key table; a constant is never assigned; a folded
  declaration ends its line.
- A `--@inline` function takes no `...`, defines no function, and does not `return`
  inside a loop; in the top-level code each call of it is a whole statement (`f(x)`,
  `a, b = f(x)`, `local a = f(x)` or `return f(x)`), and no local there hides a name
  its body uses.
- `M`, `define`, `name_len`, `P`, `PUB` and the names starting with `inl_` belong to
  the build; no top-level local is named `name` (define's parameter).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lua_inline import Body, Inliner, Line, Writer, parse_body
from lua_tokens import (
    BuildError,
    Local,
    Token,
    at,
    blocks,
    code_tokens,
    declarations,
    local_statement,
    matching,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "lua"
ARTIFACT = ROOT / "qless_py" / "_lua" / "qless.lua"
TEMPLATE = ROOT / "qless_py" / "_lua" / "namespace.lua"
HEADER = (
    "-- Built by scripts/build_lua.py from lua/**/*.lua: do not edit. A line",
    "-- `--@ lua/<file>:<a>-<b>` says that the lines after it are lines a..b of that file;",
    "-- `python -m qless_py.lua --where 'user_script:<n>'` finds the source of line n.",
)
INLINE = "--@inline"
RESERVED = {"M", "define", "name_len", "P", "PUB"}  # and every name starting with inl_
__all__ = ["BuildError", "build", "main"]


# ---- reading the sources ----

@dataclass
class Function:
    """A module function, or an api.lua command entry, as its source file has it."""
    module: str
    name: str
    path: str
    first: int  # first line, leading comments included
    last: int
    inline: bool

    @property
    def flat(self) -> str:
        return f"{self.module}_{self.name}"


@dataclass
class Source:
    path: str  # 'lua/job/put.lua'
    text: str
    toks: list[Token]
    functions: list[Function] = field(default_factory=list)
    # Top-level declarations the build folds or replaces: (first token, last token, text).
    removed: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass
class Catalogue:
    """What the passes need to know of all the sources together."""
    modules: set[str]
    aliases: list[str]  # the prelude's `local x = global.path` statements
    constants: dict[str, str]  # name (`key.name` for key fields) -> literal
    functions: dict[str, Function]  # by flat name, in source order
    publish: str = "'PUBLISH'"  # what `rcall('PUBLISH', ...)` sends: PUB in a namespace


def read_sources(root: Path) -> list[Source]:
    names = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*.lua"))}
    for needed in ("prelude.lua", "api.lua"):
        if needed not in names:
            raise BuildError(f"lua/{needed} is missing")
    order = ["prelude.lua", *(n for n in names if n not in ("prelude.lua", "api.lua")),
             "api.lua"]
    out = []
    for name in order:
        text = names[name].read_text(encoding="utf-8")
        text = text if text.endswith("\n") else text + "\n"
        out.append(Source(f"lua/{name}", text, code_tokens(text, f"lua/{name}")))
    return out


def top_level_locals(src: Source) -> Iterator[Local]:
    spans = blocks(src.toks)
    for i, t in enumerate(src.toks):
        if t.text == "local" and src.toks[i + 1].text != "function" \
                and not any(a <= i <= b for a, b in spans):
            yield local_statement(src.toks, i)


def remove(src: Source, stmt: Local, replacement: str = "") -> None:
    after = stmt.last + 1
    if after < len(src.toks) and src.toks[after].line == src.toks[stmt.last].line:
        raise at(src.path, src.toks[after].line, "a declaration the build folds must end "
                 "its line")
    src.removed.append((stmt.first, stmt.last, replacement))


def catalogue(sources: list[Source]) -> Catalogue:
    prelude = sources[0]
    modules: list[str] = []
    aliases: list[str] = []
    constants: dict[str, str] = {}
    for stmt in top_level_locals(prelude):
        values = [[t.text for t in v] for v in stmt.values]
        line = prelude.toks[stmt.first].line
        if len(values) == len(stmt.names) and values and all(v == ["{", "}"] for v in values):
            if modules:
                raise at(prelude.path, line, "the module tables are declared twice")
            modules = stmt.names
            remove(prelude, stmt, "local M = {}  -- " + ", ".join(modules) + ": see define()")
        elif stmt.names == ["key"]:
            constants.update(key_fields(prelude, stmt))
            remove(prelude, stmt)
        elif is_alias(stmt):
            toks = prelude.toks
            aliases.append(prelude.text[toks[stmt.first].start:toks[stmt.last].end])
    if not modules:
        raise at(prelude.path, 1, "no module tables declared (`local Job, Queue = {}, {}`)")
    for src in sources:
        for stmt in top_level_locals(src):
            for name in set(stmt.names) & {"name"}:
                raise at(src.path, src.toks[stmt.first].line, f"a top-level local named "
                         f"{name} would be hidden inside the generated define(M, name)")
    for src in sources:
        find_constants(src, constants)
        find_functions(src, set(modules))
    functions: dict[str, Function] = {}
    for src in sources:
        for fn in src.functions:
            if fn.flat in functions:
                other = functions[fn.flat]
                raise at(fn.path, fn.first, f"{fn.module}.{fn.name} is also defined at "
                         f"{other.path}:{other.first}")
            functions[fn.flat] = fn
    return Catalogue(set(modules), aliases, constants, functions)


def is_alias(stmt: Local) -> bool:
    """`local a, b = name.field, name`: locals that only name globals."""
    return len(stmt.values) == len(stmt.names) > 0 and all(
        len(v) % 2 == 1 and all(x.kind == "name" for x in v[::2])
        and all(x.text == "." for x in v[1::2]) for v in stmt.values)


def key_fields(src: Source, stmt: Local) -> dict[str, str]:
    """The `name = 'literal'` fields of the key table."""
    value = stmt.values[0] if len(stmt.values) == 1 else []
    inner = value[1:-1]
    out = {}
    for k in range(0, len(inner), 4):
        part = inner[k:k + 4]
        if (len(part) < 3 or part[0].kind != "name" or part[1].text != "="
                or part[2].kind != "string" or (len(part) == 4 and part[3].text != ",")):
            raise at(src.path, (part or value)[0].line if (part or value) else 1,
                     "the key table holds only `name = 'text'` fields")
        out[f"key.{part[0].text}"] = part[2].text
    return out


CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")


def find_constants(src: Source, constants: dict[str, str]) -> None:
    """Top-level `local NAME, NAME = literal, literal` in capitals: constants to fold."""
    for stmt in top_level_locals(src):
        if not all(CONSTANT.fullmatch(n) for n in stmt.names) or (
                src.path == "lua/prelude.lua" and is_alias(stmt)):
            continue
        line = src.toks[stmt.first].line
        if len(stmt.values) != len(stmt.names) or not all(
                len(v) == 1 and v[0].kind in ("number", "string") for v in stmt.values):
            raise at(src.path, line, "a constant in capitals takes one literal value")
        for name, value in zip(stmt.names, stmt.values, strict=True):
            if name in constants:
                raise at(src.path, line, f"constant {name} is defined twice")
            constants[name] = value[0].text
        remove(src, stmt)


def leading_comments(src: Source, line: int) -> tuple[int, bool]:
    """First line of the comment block right above `line`, and whether it says --@inline."""
    lines = src.text.split("\n")
    first, inline = line, False
    while first > 1 and lines[first - 2].lstrip().startswith("--"):
        first -= 1
        comment = lines[first - 1].strip()
        if comment.startswith("--@"):
            if comment != INLINE:
                raise at(src.path, first, f"unknown build directive {comment!r}")
            inline = True
    return first, inline


def find_functions(src: Source, modules: set[str]) -> None:
    toks = src.toks
    spans = blocks(toks)
    for a, b in spans:
        t = toks[a]
        if t.text != "function":
            continue
        if a > 0 and toks[a - 1].text == "local":
            raise at(src.path, t.line, "a top-level `local function` is created on every "
                     "call: make it `function Module.name(...)`")
        if not (toks[a + 1].text in modules and toks[a + 2].text == "."
                and toks[a + 4].text == "("):
            raise at(src.path, t.line, "a top-level function is `function Module.name(...)`, "
                     "for a module table declared in lua/prelude.lua")
        first, inline = leading_comments(src, t.line)
        src.functions.append(Function(toks[a + 1].text, toks[a + 3].text, src.path, first,
                                      toks[b].line, inline))
    if src.path != "lua/api.lua":
        return
    for i, t in enumerate(toks):  # Api['command'] = Module.name, a line of its own
        shape = [x.text for x in toks[i:i + 8]]
        if (t.text != "Api" or len(shape) < 8 or shape[1] != "[" or toks[i + 2].kind != "string"
                or shape[3:5] != ["]", "="] or shape[6] != "."
                or any(a <= i <= b for a, b in spans)):
            continue
        if (i > 0 and toks[i - 1].line == t.line) or (
                i + 8 < len(toks) and toks[i + 8].line == t.line):
            raise at(src.path, t.line, "a command entry `Api['name'] = Module.fn` is a line "
                     "of its own")
        first, inline = leading_comments(src, t.line)
        src.functions.append(Function("Api", toks[i + 2].text[1:-1], src.path, first, t.line,
                                      inline))


# ---- passes 1 and 2: constants and module tables, rewritten in place ----

def rewrite(src: Source, cat: Catalogue) -> str:
    """The source text with constants folded and module tables flattened; same lines."""
    toks, text = src.toks, src.text
    edits: list[tuple[int, int, str]] = []  # character ranges and their new text
    skip: dict[int, int] = {}
    for a, b, replacement in src.removed:
        skip[a] = b
        old = text[toks[a].start:toks[b].end].split("\n")
        lines = [f"-- {line}" if line.strip() else "" for line in old]  # kept, as comments
        if replacement:
            lines[0] = replacement
        edits.append((toks[a].start, toks[b].end, "\n".join(lines)))
    for n in declarations(toks):
        if toks[n].text in (cat.modules | set(cat.constants) | {"key"}) \
                and not any(a <= n <= b for a, b in skip.items()):
            raise at(src.path, toks[n].line, f"local {toks[n].text} hides a name the build "
                     "rewrites")
    i = 0
    while i < len(toks):
        if i in skip:
            i = skip[i] + 1
            continue
        t = toks[i]
        prev = toks[i - 1].text if i else ""
        nxt = toks[i + 1].text if i + 1 < len(toks) else ""
        if t.kind == "string" and t.text in ("'PUBLISH'", '"PUBLISH"') and prev == "(" \
                and i > 1 and toks[i - 2].text == "rcall":
            if cat.publish != t.text:
                edits.append((t.start, t.end, cat.publish))
            i += 1
            continue
        if t.kind != "name" or prev in (".", ":"):
            i += 1
            continue
        if t.text in RESERVED or t.text.startswith("inl_"):
            raise at(src.path, t.line, f"the name {t.text} belongs to the build")
        if t.text == "key":
            name = toks[i + 2].text if nxt == "." and i + 2 < len(toks) else ""
            literal = cat.constants.get(f"key.{name}")
            if literal is None:
                raise at(src.path, t.line, f"key.{name} is not in the key table (lua/prelude.lua)"
                         if name else "the key table is used only as `key.name`")
            after = toks[i + 3].text if i + 3 < len(toks) else ""
            if " .. " in literal and (prev in ("#", "-", "^") or after in (":", "[", ".")):
                literal = f"({literal})"  # a namespaced key is an expression: keep it whole
            edits.append((t.start, toks[i + 2].end, literal))
            i += 3
            continue
        if t.text in cat.constants:
            if nxt == "=":
                raise at(src.path, t.line, f"constant {t.text} is assigned")
            edits.append((t.start, t.end, cat.constants[t.text]))
        elif t.text in cat.modules:
            if nxt == "." and i + 2 < len(toks) and toks[i + 2].kind == "name":
                flat = f"{t.text}_{toks[i + 2].text}"
                if flat not in cat.functions:
                    raise at(src.path, t.line, f"{t.text}.{toks[i + 2].text} is not defined")
                edits.append((t.start, toks[i + 2].end, f"M.{flat}"))
                i += 3
                continue
            if nxt != "[":
                raise at(src.path, t.line, f"module table {t.text} is used only as "
                         f"`{t.text}.name` or `{t.text}[expr]`")
            close = matching(toks, i + 1)
            inner = toks[i + 2:close]
            if len(inner) == 1 and inner[0].kind == "string":
                edits.append((t.start, toks[close].end, f"M['{t.text}_{inner[0].text[1:-1]}']"))
                i = close + 1
                continue
            edits.append((t.start, toks[i + 1].end, f"M['{t.text}_' .. ("))
            edits.append((toks[close].start, toks[close].end, ")]"))
            i += 2
            continue
        i += 1
    out, pos = [], 0
    for start, end, new in sorted(edits):
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    result = "".join(out)
    assert result.count("\n") == text.count("\n"), src.path
    return result


# ---- assembling the script ----

def source_lines(path: str, text: str, first: int, last: int) -> list[Line]:
    lines = text.split("\n")
    return [(lines[n - 1], (path, n)) for n in range(first, last + 1)]


def squeezed(lines: list[Line]) -> list[Line]:
    """Without repeated blank lines, and without blank lines at either end."""
    out: list[Line] = []
    for line in lines:
        if line[0].strip() or (out and out[-1][0].strip()):
            out.append(line)
    while out and not out[-1][0].strip():
        out.pop()
    return out


def outside_functions(src: Source, text: str) -> list[Line]:
    """A file's lines that are not in a lazy function: comments, per-call state, code."""
    inside = {n for fn in src.functions for n in range(fn.first, fn.last + 1)}
    lines = text.split("\n")[:-1]
    return [("" if n in inside else line, (src.path, n)) for n, line in enumerate(lines, 1)]


def define(cat: Catalogue, texts: dict[str, str]) -> list[Line]:
    """The generated define(M, name): the name's length picks a group (a binary search of
    numeric comparisons), and the group's names are compared in source order. A chain of
    every name would compare a call's first use of a late name with some 250 strings."""
    out: list[Line] = [(t, None) for t in (
        "",
        "-- Module functions: M's __index creates each on its first use in a call.",
        "local function define(M, name)",
        *(f"  {alias}" for alias in cat.aliases),
        "  local name_len = #name")]
    groups: dict[int, list[Function]] = {}
    for fn in cat.functions.values():
        groups.setdefault(len(fn.flat), []).append(fn)

    def group(fns: list[Function], pad: str) -> None:
        for k, fn in enumerate(fns):
            out.append((f"{pad}{'if' if k == 0 else 'elseif'} name == '{fn.flat}' then", None))
            out.extend(source_lines(fn.path, texts[fn.path], fn.first, fn.last))
        out.append((f"{pad}end", None))

    def search(lengths: list[int], pad: str) -> None:
        if len(lengths) == 1:
            out.append((f"{pad}if name_len == {lengths[0]} then", None))
            group(groups[lengths[0]], pad + "  ")
            out.append((f"{pad}end", None))
            return
        half = len(lengths) // 2
        out.append((f"{pad}if name_len < {lengths[half]} then", None))
        search(lengths[:half], pad + "  ")
        out.append((f"{pad}else", None))
        search(lengths[half:], pad + "  ")
        out.append((f"{pad}end", None))

    search(sorted(groups), "  ")
    out += [(t, None) for t in ("  return rawget(M, name)", "end",
                                "M.__index = define  -- M is its own metatable: one table less",
                                "setmetatable(M, M)", "")]
    return out


def markers(lines: list[Line]) -> str:
    """The script, with `--@ path:a-b` before each run of consecutive source lines."""
    out, k = [], 0
    while k < len(lines):
        text, origin = lines[k]
        if origin is None:
            out.append(text)
            k += 1
            continue
        path, first = origin
        end = k
        while end + 1 < len(lines) and lines[end + 1][1] == (path, first + end + 1 - k):
            end += 1
        out.append(f"--@ {path}:{first}-{first + end - k}")
        out += [t for t, _ in lines[k:end + 1]]
        k = end + 1
    return "\n".join(out) + "\n"


# ---- all together ----

# The script's two bodies. KEYS selects one: none (every qless client) is the default
# namespace, whose keys the key table spells; one key is a namespace's prefix
# `ql:{<name>}:` (its hash tag puts every key of the namespace in one cluster slot). The
# body is built twice, once with the key table folded as literals and once with each key
# that starts with `ql:` written as `P .. '<rest>'`, so a call of the default namespace
# runs exactly the code it ran before namespaces existed.
NAMESPACE_MAX = 64  # characters of a namespace name (qless_py.keys.Namespace says the same)
DEFAULT_OPEN = (
    "-- The default namespace: no key, as every qless client calls it; keys are `ql:...`.",
    "if #KEYS == 0 then",
)
# The choice of publish command in both namespaced bodies.
PUB_LINES = (
    "-- Its events go by sharded pub/sub where the server has it (Redis 7.0, Valkey 7.2), so",
    "-- that on a cluster they reach the namespace's node only; PUBLISH before that.",
    "local PUB = (redis.REDIS_VERSION_NUM or 0) >= 0x070000 and 'SPUBLISH' or 'PUBLISH'",
)
NAMESPACED_OPEN = (
    "end",
    "",
    "-- A namespace: its prefix `ql:{<name>}:` is the one key; every key and channel of the",
    "-- call starts with it (P), so the call touches one slot of a cluster.",
    "local P = KEYS[1]",
    "if #KEYS ~= 1 or #P > " + str(NAMESPACE_MAX + 6) + " or not P:find('^ql:{[^{}]+}:$') then",
    "  error('No Keys should be provided (or one, a namespace prefix ql:{<name>}: of 1 to "
    + str(NAMESPACE_MAX) + " characters without braces): ' .. tostring(P))",
    "end",
    *PUB_LINES,
    "",
)


def rekeyed(constants: dict[str, str], spell: Callable[[str, str], str]) -> dict[str, str]:
    """The constants with every key that starts with `ql:` spelled ``spell(quote, rest)``,
    `rest` being what follows `ql:`."""
    out = dict(constants)
    for name, literal in constants.items():
        if name.startswith("key.") and literal[1:4] == "ql:":
            out[name] = spell(literal[:1], literal[4:-1])
    return out


def namespaced(constants: dict[str, str]) -> dict[str, str]:
    """The constants with every key that starts with `ql:` read from the prefix P."""
    return rekeyed(constants, lambda q, rest: f"P .. {q}{rest}{q}" if rest else "P")


# A namespace's own script (qless_py/_lua/namespace.lua, a template): the namespaced body
# alone, with every key a literal that spells the prefix `ql:{@NAMESPACE@}:`. The client
# writes a namespace's name in place of NAME_SLOT (qless_py.lua.namespace_script) and calls
# that script for the namespace: its keys are constants, as the default namespace's are,
# and its check of the key is one comparison, so a call costs about what a call of the
# default namespace costs (docs/performance.md, Namespaces). The shipped script above
# still serves every namespace, for clients that do not make their own.
NAME_SLOT = "@NAMESPACE@"
TEMPLATE_PREFIX = "ql:{" + NAME_SLOT + "}:"
TEMPLATE_OPEN = (
    "-- A namespace's own script: qless_py.lua.namespace_script wrote the namespace's name",
    "-- into every key below. Its one key must be that namespace's prefix.",
    "if #KEYS ~= 1 or KEYS[1] ~= '" + TEMPLATE_PREFIX + "' then",
    "  error('No Keys should be provided (or one, the prefix " + TEMPLATE_PREFIX
    + " of the namespace this script was made for): ' .. tostring(KEYS[1]))",
    "end",
    *PUB_LINES,
    "",
)


def literal_namespace(constants: dict[str, str]) -> dict[str, str]:
    """The constants with every key that starts with `ql:` under the template's prefix."""
    return rekeyed(constants, lambda q, rest: f"{q}{TEMPLATE_PREFIX}{rest}{q}")


def body(sources: list[Source], cat: Catalogue) -> list[Line]:
    """The script's body for the key spelling in ``cat.constants``."""
    texts = {src.path: rewrite(src, cat) for src in sources}
    bodies: dict[str, Body] = {}
    for name, fn in cat.functions.items():
        if fn.inline:
            chunk = "\n".join(texts[fn.path].split("\n")[fn.first - 1:fn.last])
            bodies[name] = parse_body(name, fn.path, chunk, fn.first)
    script = Writer()
    for src in sources[:-1]:
        script.add([*squeezed(outside_functions(src, texts[src.path])), ("", None)])
    script.add(define(cat, texts))
    api = sources[-1]
    code = "\n".join(line for line, _ in outside_functions(api, texts[api.path]))
    script.add(squeezed(Inliner(bodies).expand(code, api.path, 1)))
    return script.lines


def build(root: Path = SOURCES) -> str:
    """The built script for the sources under `root` (a `lua/` directory)."""
    sources = read_sources(root)
    return shipped_script(sources, catalogue(sources))


def build_all(root: Path = SOURCES) -> tuple[str, str]:
    """The shipped script and a namespace's own (the template), from one reading of the
    sources under `root`."""
    sources = read_sources(root)
    cat = catalogue(sources)
    shipped = shipped_script(sources, cat)
    return shipped, template_script(sources, cat, shipped)


def shipped_script(sources: list[Source], cat: Catalogue) -> str:
    """Both bodies: the default namespace's, then the namespaced one (see DEFAULT_OPEN)."""
    lines: list[Line] = [(t, None) for t in (*HEADER, "", *DEFAULT_OPEN)]
    lines += body(sources, cat)
    lines += [(t, None) for t in NAMESPACED_OPEN]
    lines += body(sources, dataclasses.replace(cat, constants=namespaced(cat.constants),
                                               publish="PUB"))
    return markers(lines)


def template_script(sources: list[Source], cat: Catalogue, shipped: str) -> str:
    """A namespace's own script, with NAME_SLOT where its name goes (see TEMPLATE_OPEN).

    Blank lines after its opening put its body on the lines where the namespaced body of
    `shipped` stands, so that `user_script:<n>` in an error names the same source line
    whichever of the two a call ran (an error reply does not always say which)."""
    for src in sources:
        if NAME_SLOT in src.text:
            raise BuildError(f"{src.path}: {NAME_SLOT} is the build's (the template's slot "
                             "for a namespace's name)")
    lines: list[Line] = [(t, None) for t in (*HEADER, "", *TEMPLATE_OPEN)]
    lines += body(sources, dataclasses.replace(cat, constants=literal_namespace(cat.constants),
                                               publish="PUB"))
    mine = markers(lines).split("\n")
    at = shipped.split("\n").index(PUB_LINES[-1]) + 1
    here = mine.index(PUB_LINES[-1]) + 1
    pad = ["-- (blank lines: the body below starts on the shipped script's line of it)"]
    pad += [""] * (at - here - len(pad))
    return "\n".join(mine[:here] + pad + mine[here:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build qless_py/_lua/qless.lua from lua/.")
    parser.add_argument("--check", action="store_true", help="exit 1 if the script is stale")
    args = parser.parse_args(argv)
    try:
        shipped, template = build_all()
        built = {ARTIFACT: shipped, TEMPLATE: template}
    except BuildError as exc:
        print(f"build_lua: {exc}", file=sys.stderr)
        return 2
    if args.check:
        for path, text in built.items():
            current = path.read_text(encoding="utf-8") if path.exists() else ""
            if current != text:
                print(f"{path.relative_to(ROOT)} is stale: run scripts/build_lua.py",
                      file=sys.stderr)
                return 1
        return 0
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    for path, text in built.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
