"""Build the Lua core: lua/*.lua, in a fixed order, into qless_py/_lua/qless.lua.

``python scripts/build_lua.py`` writes the artifact; ``--check`` exits 1 when it is stale.

Redis runs the whole script body on every EVALSHA, and creating a closure there costs as
much as a Redis call. So the build makes every module function lazy: each top-level block

    function Module.name(args)      -- column 0
      ...
    end                             -- column 0

(and each ``Api['command'] = Module.fn`` line of api.lua) becomes one branch of a single
generated ``define(table, name)`` function, installed as the ``__index`` metamethod of one
table ``M`` that holds every module: ``Job.put`` in the sources is ``M.Job_put`` in the
artifact. Code outside the module functions (the inlined paths, the dispatcher) looks
them up as ``define(nil, 'Job_put')``, and the first such lookup of a call makes ``M``, so
a call that needs nothing lazy makes neither the table nor its metatable. A call creates
only the closures it actually uses, and the hot ones are found first. Comments are kept
(they travel with the function they precede), so server-side errors stay readable.

The busiest commands (``INLINED_COMMANDS`` below) skip even that for their common path:
their functions, and the ``INLINE`` functions their common path calls as statements, are
copied into the script body by scripts/lua_inline.py, as straight code before the
dispatcher. Only their rarer paths reach ``define``.

Everything else at the top level of a source file (locals, comments) is copied verbatim
before ``define``; the part of api.lua after the command table (the dispatcher) comes last.
The prelude's helpers (``local function name(...)`` in prelude.lua) are made lazy the same
way: each becomes ``M.P_name`` and every bare call ``name(`` in the sources is rewritten to
``M.P_name(``, so a call creates only the helpers it uses, and ``define`` itself (created
on every call) captures a dozen fewer upvalues. A helper name must therefore not be used
as a variable anywhere. A top-level ``local function`` outside api.lua is refused
elsewhere: it would be created on every call.

Constants are folded at build time so that they cost nothing per call: the prelude's
``local key = { name = 'text', ... }`` table (the only place key names are spelled) and
top-level numeric constants such as ``local F_JID, F_STATE = 1, 3`` are replaced by their
literal values wherever code uses them (``key.job`` becomes ``'ql:j:'``).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from lua_inline import InlineError, Inliner, parse_function

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

# Module functions emitted first in define(): the per-job lifecycle path (put, pop,
# complete) finds them after the fewest comparisons.
HOT = [
    "Api.put", "Api.pop", "Api.complete", "P.num", "Api.heartbeat", "Api.get",
    "P.time_text", "P.whole_text", "P.score_arg", "P.num_json", "P.wake_queue", "P.jlist",
    "P.jstr", "P.day_of", "P.stats_key", "P.work_score", "P.config_number", "P.config_raw",
    "P.string_list",
    "Job.put", "Job.hist", "Job.notify", "Job.is_tracked", "Job.enqueue", "Job.complete",
    "Job.left_running", "Job.expire_completed", "Job.release_dependents", "Job.options",
    "Job.render", "Job.render_entry", "Job.stored_list", "Job.encoded_members", "Job.fetch",
    "Job.tag_list", "Job.heartbeat", "Job.get",
    "Queue.pop", "Queue.reclaim", "Queue.promote", "Queue.take_out", "Queue.whole",
    "Stats.sample", "Stats.bin", "Stats.expire", "Stats.ttl",
    "Recur.spawn",
]

# Commands whose common path runs as straight code in the script body: before dispatch, the
# build copies the command's function into the body, and into that copy every statement
# call of a function in INLINE (see scripts/lua_inline.py). Those paths then create no
# closure and no lazy definition at all; what the copies leave as calls (rarer paths, calls
# inside expressions) still goes through define().
# tests/core/test_impl_build.py runs these paths on a build that records lazy definitions,
# so a call that falls out of INLINE, or a path that stops being inlined, fails a test.
INLINED_COMMANDS = ["put", "pop", "complete", "heartbeat", "fail", "retry"]
INLINE = [
    "P.num", "P.time_text", "P.whole_text", "P.score_arg", "P.num_json", "P.wake_queue",
    "P.work_score", "P.day_of", "P.stats_key", "P.config_number", "P.config_raw",
    "P.config_heartbeat", "P.jstr", "P.jlist", "P.wake_workers", "P.wake_one",
    "Job.put", "Job.complete", "Job.heartbeat", "Job.fail", "Job.retry", "Queue.pop",
    "Job.options", "Job.hist", "Job.render", "Job.stored_list", "Job.enqueue",
    "Job.expire_completed", "Job.notify", "Job.is_tracked", "Job.left_running",
    "Job.park_failed", "Queue.hand_out", "Queue.unlist", "Stats.sample", "Stats.bin",
    "Stats.step", "Stats.count", "Stats.samples", "Queue.call_list", "Queue.take",
]

ALIAS = re.compile(r"^local \w+(?:, \w+)* = [A-Za-z]+(?:\.\w+)?(?:, [A-Za-z]+(?:\.\w+)?)*$",
                   re.M)
KEY_TABLE = re.compile(r"^local key = \{\n(.*?)\n\}\n", re.S | re.M)
KEY_FIELD = re.compile(r"(\w+) = ('[^'\\]*')")
NUM_CONSTANTS = re.compile(
    r"^local ((?:[A-Z][A-Z0-9_]*)(?:, [A-Z][A-Z0-9_]*)*) =\s*([\d, \n]+)$", re.M)
KEY_USE = re.compile(r"(?<![\w.])key\.(\w+)\b(?!\s*\()")

FUNCTION = re.compile(r"^function (\w+)\.(\w+)\((.*)\)\s*$")
ONE_LINER = re.compile(r"^function (\w+)\.(\w+)\(([^)]*)\)\s+(.*\S)\s+end\s*$")
COMMAND = re.compile(r"^Api\['([\w.]+)'\] = (.+?)\s*$")
HELPER = re.compile(r"^local function (\w+)\((.*?)\)(.*)$")


class BuildError(Exception):
    """The sources break a rule the build relies on."""


@dataclass
class Module:
    name: str
    entries: list[tuple[str, list[str]]] = field(default_factory=list)


def split(name: str, text: str, modules: dict[str, Module]) -> tuple[list[str], list[str]]:
    """Separate a file into verbatim top-level lines and lazy entries (added to modules)."""
    verbatim: list[str] = []
    tail: list[str] = []
    comments: list[str] = []
    lines = text.splitlines()
    i = 0
    after_table = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("--"):
            comments.append(line)
            i += 1
            continue
        short = ONE_LINER.match(line)
        if short:
            module, fname, params, body_text = short.groups()
            modules.setdefault(module, Module(module)).entries.append(
                (fname, [*comments, f"lazy_f = function({params}) {body_text} end"]))
            comments = []
            i += 1
            continue
        helper = HELPER.match(line) if name == "prelude.lua" else None
        if helper:
            fname, params, rest = helper.groups()
            if rest.rstrip().endswith(" end"):
                body = [*comments, f"lazy_f = function({params}){rest}"]
                i += 1
            else:
                end = i + 1
                while end < len(lines) and lines[end] != "end":
                    end += 1
                if end == len(lines):
                    raise BuildError(f"{name}:{i + 1}: no column-0 'end' closes {line!r}")
                body = [*comments, f"lazy_f = function({params}){rest}", *lines[i + 1:end + 1]]
                i = end + 1
            modules.setdefault("P", Module("P")).entries.append((fname, body))
            comments = []
            continue
        head = FUNCTION.match(line)
        command = COMMAND.match(line) if name == "api.lua" else None
        if head:
            end = i + 1
            while end < len(lines) and lines[end] != "end":
                end += 1
            if end == len(lines):
                raise BuildError(f"{name}:{i + 1}: no column-0 'end' closes {line!r}")
            module, fname, params = head.groups()
            body = [*comments, f"lazy_f = function({params})", *lines[i + 1:end + 1]]
            modules.setdefault(module, Module(module)).entries.append((fname, body))
            comments = []
            i = end + 1
            continue
        if command:
            cname, expr = command.groups()
            modules.setdefault("Api", Module("Api")).entries.append(
                (cname, [*comments, f"lazy_f = {expr}"]))
            comments = []
            after_table = True
            i += 1
            continue
        if line.startswith("function "):
            raise BuildError(f"{name}:{i + 1}: unrecognised top-level function {line!r}")
        if line.startswith("local function") and name != "api.lua":
            raise BuildError(f"{name}:{i + 1}: top-level local function (make it Module.fn)")
        target = tail if after_table else verbatim
        target.extend(comments)
        target.append(line)
        comments = []
        i += 1
    (tail if after_table else verbatim).extend(comments)
    return verbatim, tail


def indent(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line if line else line for line in lines]


def define(modules: dict[str, Module], aliases: list[str], inliner: Inliner) -> list[str]:
    """The generated define(): one flat chain over every module function, hot ones first.

    ``aliases`` are the prelude's locals that only name globals (``local rcall =
    redis.call``). define() declares them again: the closures it makes then capture
    define's own locals, made only when something is defined, and define itself captures
    just the per-call tables (``cfg``, ``wake``) instead of a dozen upvalues that every
    call would pay for. ``M`` is define's first argument, and its own metatable.

    Code outside the module functions (the inlined paths, the dispatcher) looks functions
    up with ``define(nil, name)``: the first such lookup of a call makes the table ``M``.
    A call whose path needs nothing lazy, the common case, makes neither table nor
    metatable.
    """
    rank = {name: i for i, name in enumerate(HOT)}
    entries = [(f"{m.name}_{fname}", f"{m.name}.{fname}", body)
               for m in modules.values() for fname, body in m.entries]
    entries.sort(key=lambda e: rank.get(e[1], len(rank)))
    out = [
        "",
        "-- ==== lazy module functions (generated by scripts/build_lua.py) ====",
        "-- Module.name in the sources is M.Module_name here; define() creates it on its first",
        "-- use in this call.",
        "local function define(lazy_t, lazy_k)",
        "  if lazy_t == nil then",
        "    if not M then",
        "      M = {}",
        "      M.__index = define",
        "      setmetatable(M, M)",
        "    end",
        "    return M[lazy_k]",
        "  end",
        *indent(aliases, "  "),
        "  local M = lazy_t",
        "  local lazy_f",
    ]
    for n, (flat, _, body) in enumerate(entries):
        out.append(f"  {'if' if n == 0 else 'elseif'} lazy_k == '{flat}' then")
        out.extend(indent(body, "    "))
    out += [
        "  end",
        "  if lazy_f ~= nil then lazy_t[lazy_k] = lazy_f end",
        "  return lazy_f",
        "end",
        *outside(inlined(modules, inliner)),
    ]
    return out


OUTSIDE_REF = re.compile(r"(?<![\w.])M\.(\w+)")
OUTSIDE_API = re.compile(r"(?<![\w.])M\['Api_' \.\. (\w+)\]")


def outside(lines: list[str]) -> list[str]:
    """Module lookups outside define(), ``M.name``, become ``define(nil, 'name')``."""
    out = []
    for line in "\n".join(lines).split("\n"):
        if not line.lstrip().startswith("--"):
            line = OUTSIDE_REF.sub(r"define(nil, '\1')", line)
            line = OUTSIDE_API.sub(r"define(nil, 'Api_' .. \1)", line)
        out.append(line)
    return out


def make_inliner(modules: dict[str, Module]) -> Inliner:
    """An Inliner that knows the INLINE functions, in their flattened form."""
    bodies = {f"{m.name}_{fname}": body for m in modules.values() for fname, body in m.entries}
    functions = {}
    for dotted in INLINE:
        flat = dotted.replace(".", "_")
        if flat not in bodies:
            raise BuildError(f"INLINE names unknown function {dotted}")
        code = flatten(call_helpers("\n".join(bodies[flat]), modules), list(modules))
        try:
            functions[flat] = parse_function(flat, code.split("\n"))
        except InlineError as exc:
            raise BuildError(str(exc)) from exc
    return Inliner(functions)


def inlined(modules: dict[str, Module], inliner: Inliner) -> list[str]:
    """INLINED_COMMANDS' common paths, as straight code before the dispatcher."""
    bodies = {f"{m.name}_{fname}": body for m in modules.values() for fname, body in m.entries}
    out = [
        "",
        "-- ==== inlined common paths (generated by scripts/build_lua.py) ====",
        "-- The busiest commands run here as straight code: their functions, and the functions",
        "-- their common path calls, copied in by scripts/lua_inline.py. Anything else, and",
        "-- every error, goes through main() below or through define().",
    ]
    for command in INLINED_COMMANDS:
        api = bodies.get(f"Api_{command}")
        target = re.fullmatch(r"lazy_f = (\w+)\.(\w+)", api[-1]) if api else None
        if target is None or f"{target.group(1)}_{target.group(2)}" not in inliner.functions:
            raise BuildError(f"the function of command {command!r} is not in INLINE")
        fn = f"{target.group(1)}_{target.group(2)}"
        code = "\n".join([
            f"if A[1] == '{command}' and #KEYS == 0 and #A >= 2 then",
            "  local now = M.P_num(A[2])",
            "  if now ~= nil then",
            f"    local result = M.{fn}(now)",
            "    M.P_wake_workers()",
            "    return result",
            "  end",
            "end",
        ])
        try:
            out.append(inliner.expand(code))
        except InlineError as exc:
            raise BuildError(f"inlining {command!r}: {exc}") from exc
    return out


MODULE_DECL = re.compile(r"^local ((?:[A-Z]\w*, )*[A-Z]\w*) = \{\}(?:, \{\})*\s*$", re.M)


def flatten(text: str, names: list[str]) -> str:
    """Module.fn -> M.Module_fn, Api[x] -> M['Api_' .. x], one module table M."""
    text = MODULE_DECL.sub("local M  -- every module function, created on demand by define()", text)
    pattern = re.compile(rf"(?<![\w.])({'|'.join(names)})\.([A-Za-z_]\w*)")
    text = pattern.sub(lambda m: f"M.{m.group(1)}_{m.group(2)}", text)
    return re.sub(r"(?<![\w.])Api\[(\w+)\]", r"M['Api_' .. \1]", text)


def fold_constants(text: str) -> tuple[str, dict[str, str]]:
    """Remove the key table and numeric constants from ``text``; return their values."""
    values: dict[str, str] = {}
    table = KEY_TABLE.search(text)
    if table:
        for name, literal in KEY_FIELD.findall(table.group(1)):
            values[f"key.{name}"] = literal
        listing = "\n".join(f"--   {line.strip()}" for line in table.group(1).splitlines())
        text = text[:table.start()] + (
            "-- (key table folded into literals by scripts/build_lua.py)\n" + listing + "\n"
        ) + text[table.end():]
    for match in list(NUM_CONSTANTS.finditer(text)):
        names = [n.strip() for n in match.group(1).split(",")]
        numbers = [v.strip() for v in match.group(2).replace("\n", " ").split(",") if v.strip()]
        if len(names) != len(numbers):
            raise BuildError(f"constant list {match.group(0)!r} does not pair up")
        values.update(zip(names, numbers, strict=True))
    text = NUM_CONSTANTS.sub(lambda m: "-- (folded by scripts/build_lua.py) " +
                             " ".join(m.group(0).split()).replace("local ", "", 1), text)
    return text, values


def substitute(line: str, values: dict[str, str]) -> str:
    """Replace folded names in the code part of one line (comment lines are left alone)."""
    if line.lstrip().startswith("--"):
        return line

    def key_literal(m: re.Match[str]) -> str:
        name = f"key.{m.group(1)}"
        if name not in values:
            raise BuildError(f"unknown key name {name} in {line.strip()!r}")
        return values[name]

    line = KEY_USE.sub(key_literal, line)
    for name, value in values.items():
        if not name.startswith("key."):
            line = re.sub(rf"(?<![\w.]){name}(?!\w)", value, line)
    return line


def build() -> str:
    present = {p.name for p in SOURCES.glob("*.lua")}
    missing = [name for name in ORDER if name not in present]
    extra = sorted(present - set(ORDER))
    if missing or extra:
        raise BuildError(
            f"lua/ does not match the build order: missing {missing}, unlisted {extra}")
    modules: dict[str, Module] = {}
    head: list[str] = [HEADER.rstrip("\n")]
    tail: list[str] = []
    values: dict[str, str] = {}
    texts = {}
    for name in ORDER:
        text, found = fold_constants((SOURCES / name).read_text(encoding="utf-8"))
        values.update(found)
        texts[name] = text
    for name in ORDER:
        text = "\n".join(substitute(line, values) for line in texts[name].splitlines())
        verbatim, after = split(name, text, modules)
        head += ["", f"-- ==== {name} ====", *verbatim]
        tail += after
    seen: set[tuple[str, str]] = set()
    for module in modules.values():
        for fname, _ in module.entries:
            if (module.name, fname) in seen:
                raise BuildError(f"{module.name}.{fname} is defined twice")
            seen.add((module.name, fname))
    aliases = ALIAS.findall(texts["prelude.lua"])
    if not aliases:
        raise BuildError("prelude.lua declares no aliases of globals")
    inliner = make_inliner(modules)  # the commands' paths and the dispatcher share it
    lines = [*head, *define(modules, aliases, inliner)]
    text = flatten(call_helpers("\n".join(lines) + "\n", modules), list(modules))
    # The dispatcher's own helper calls (the number check, the wake-up) are inlined too.
    dispatcher = flatten(call_helpers("\n".join(tail) + "\n", modules), list(modules))
    try:
        dispatcher = "\n".join(outside([inliner.expand(dispatcher)]))
    except InlineError as exc:
        raise BuildError(f"inlining the dispatcher: {exc}") from exc
    return text + "\n-- ==== api.lua (dispatcher) ====\n" + dispatcher


def call_helpers(text: str, modules: dict[str, Module]) -> str:
    """Bare calls of prelude helpers, ``name(``, become ``P.name(`` (outside comments)."""
    helpers = [fname for fname, _ in modules["P"].entries] if "P" in modules else []
    if not helpers:
        return text
    pattern = re.compile(rf"(?<![\w.'\"])({'|'.join(helpers)})\(")
    return "\n".join(line if line.lstrip().startswith("--") else pattern.sub(r"P.\1(", line)
                     for line in text.split("\n"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build qless_py/_lua/qless.lua from lua/.")
    parser.add_argument("--check", action="store_true", help="exit 1 if the artifact is stale")
    args = parser.parse_args(argv)
    try:
        built = build()
    except BuildError as exc:
        print(f"build_lua: {exc}", file=sys.stderr)
        return 2
    if args.check:
        current = ARTIFACT.read_text(encoding="utf-8") if ARTIFACT.exists() else ""
        if current != built:
            print(f"{ARTIFACT.relative_to(ROOT)} is stale: run scripts/build_lua.py",
                  file=sys.stderr)
            return 1
        return 0
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(built, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
