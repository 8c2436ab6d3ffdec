"""Build-time inlining of Lua functions, for scripts/build_lua.py.

Redis runs the whole script body on every EVALSHA, so every function a call uses is a
closure made again on every call, with its upvalues, and later collected. On the busiest
commands that allocation is a large share of the server's time. This module copies a
function's body into its caller instead, so those commands' common paths run as straight
code in the script body and create no closure at all. The sources keep one definition
per function; only the artifact has the copies.

A call is inlined when it is a whole statement of one of these forms (``M.F`` is a
flattened module function, see build_lua.py)::

    M.F(args)                 -- results dropped
    local a, b = M.F(args)    -- new locals
    a, b = M.F(args)          -- existing variables
    return M.F(args)          -- the caller returns what F returns

It becomes a ``repeat ... until true`` block: the parameters are locals bound to the
arguments (evaluated first, in the caller's scope, as a call would), and each ``return``
of the body assigns the results and leaves the block with ``break``. Other calls of F
(inside an expression, say) stay calls, made through define() when reached.

What the build refuses, because the copy would not mean what the call meant:
- a ``return`` inside a loop of the body (``break`` would leave that loop instead);
- a nested ``function`` or ``...`` in the body;
- a name the body uses from outside itself that an enclosing copy declares as a local
  (the copy would see the caller's variable instead of the script-level one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count


class InlineError(Exception):
    """A function cannot be inlined as asked."""


KEYWORDS = {
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}
TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>--\[(?P<ceq>=*)\[.*?\](?P=ceq)\]|--[^\n]*)
  | (?P<long>\[(?P<leq>=*)\[.*?\](?P=leq)\])
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<number>0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|\.\.|==|~=|<=|>=|[-+*/%^\#<>=(){}\[\];:,.])
""", re.S | re.X)


@dataclass(frozen=True)
class Tok:
    kind: str  # name, keyword, string, number, op
    text: str
    start: int
    end: int


def tokens(text: str) -> list[Tok]:
    """Lua tokens of ``text`` without spaces and comments."""
    return list(tokens_from(text, 0))


def tokens_from(text: str, pos: int) -> Iterator[Tok]:
    """Tokens of ``text`` from ``pos`` on, read lazily (a call's extent is usually short)."""
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if m is None:
            raise InlineError(f"cannot read Lua at {text[pos:pos + 30]!r}")
        kind = m.lastgroup or ""
        if kind not in ("space", "comment"):
            if kind == "long":
                kind = "string"
            elif kind == "name" and m.group() in KEYWORDS:
                kind = "keyword"
            yield Tok(kind, m.group(), m.start(), m.end())
        pos = m.end()


@dataclass
class Function:
    """An inlinable function: its parameters, its body text and its returns."""
    name: str
    params: list[str]
    body: str
    declared: set[str]
    free: set[str]


def parse_function(name: str, lines: list[str]) -> Function:
    """``lines`` is a define() entry: comments, ``lazy_f = function(params)``, body, ``end``."""
    code = [line for line in lines if not line.lstrip().startswith("--")]
    head = re.fullmatch(r"lazy_f = function\(([^)]*)\)(.*)", code[0])
    if head is None:
        raise InlineError(f"{name} is not a function")
    params = [p.strip() for p in head.group(1).split(",") if p.strip()]
    if "..." in params:
        raise InlineError(f"{name} takes ... and cannot be inlined")
    if head.group(2).strip():  # a one-line function: `lazy_f = function(x) return x end`
        body_line = head.group(2).strip()
        if not body_line.endswith(" end"):
            raise InlineError(f"{name}: cannot read its one-line body")
        body = body_line[:-len(" end")].strip() + "\n"
    else:
        if code[-1].strip() != "end":
            raise InlineError(f"{name}: body does not end with 'end'")
        body = "\n".join(code[1:-1]) + "\n"
    toks = tokens(body)
    returns(name, body, toks)  # refuses what cannot be copied
    declared = set(params) | declared_names(toks)
    return Function(name, params, body, declared, used_names(toks) - declared)


def used_names(toks: list[Tok]) -> set[str]:
    """Variable names in a token list: not field names (``t.x``, ``t:x``, ``{ x = 1 }``)."""
    out: set[str] = set()
    brackets: list[str] = []
    for i, t in enumerate(toks):
        if t.text in ("(", "[", "{"):
            brackets.append(t.text)
        elif t.text in (")", "]", "}"):
            if brackets:
                brackets.pop()
        elif t.kind == "name":
            field = i > 0 and toks[i - 1].text in (".", ":")
            key = (bool(brackets) and brackets[-1] == "{" and i + 1 < len(toks)
                   and toks[i + 1].text == "=")
            if not field and not key:
                out.add(t.text)
    return out


def declared_names(toks: list[Tok]) -> set[str]:
    """Names declared by ``local`` and ``for`` in a token list."""
    out: set[str] = set()
    for i, t in enumerate(toks):
        if t.text in ("local", "for"):
            j = i + 1
            while j < len(toks) and toks[j].kind == "name":
                out.add(toks[j].text)
                if j + 1 < len(toks) and toks[j + 1].text == ",":
                    j += 2
                else:
                    break
    return out


def returns(name: str, body: str, toks: list[Tok]) -> list[tuple[int, int, int]]:
    """(start of ``return``, start, end of its expression list) for each return in a body."""
    out = []
    stack: list[str] = []
    swallow_do = 0
    for i, t in enumerate(toks):
        if t.kind == "keyword":
            if t.text == "function":
                raise InlineError(f"{name}: a nested function cannot be inlined")
            if t.text in ("for", "while"):
                stack.append("loop")
                swallow_do += 1
            elif t.text == "do":
                if swallow_do:
                    swallow_do -= 1
                else:
                    stack.append("do")
            elif t.text in ("if",):
                stack.append("if")
            elif t.text == "repeat":
                stack.append("loop")
            elif t.text in ("end", "until"):
                if not stack:
                    raise InlineError(f"{name}: unbalanced {t.text!r}")
                stack.pop()
            elif t.text == "return":
                if "loop" in stack:
                    raise InlineError(f"{name}: 'return' inside a loop cannot be inlined")
                end = expression_end(toks, i + 1, len(body))
                out.append((t.start, t.end, end))
        elif t.text == "...":
            raise InlineError(f"{name}: ... cannot be inlined")
    return out


def expression_end(toks: list[Tok], i: int, limit: int) -> int:
    """Offset where the expression list starting at token i ends (a block keyword or EOF)."""
    depth = 0
    while i < len(toks):
        t = toks[i]
        if t.text in ("(", "{", "["):
            depth += 1
        elif t.text in (")", "}", "]"):
            depth -= 1
        elif depth == 0 and t.text in ("end", "else", "elseif", "until", ";"):
            return toks[i - 1].end if i > 0 else t.start
        i += 1
    return toks[-1].end if toks else limit


def split_top(text: str) -> list[str]:
    """Split an expression list at its top-level commas; [] for an empty one."""
    toks = tokens(text)
    if not toks:
        return []
    parts, depth, start = [], 0, 0
    for t in toks:
        if t.text in ("(", "{", "["):
            depth += 1
        elif t.text in (")", "}", "]"):
            depth -= 1
        elif t.text == "," and depth == 0:
            parts.append(text[start:t.start].strip())
            start = t.end
    parts.append(text[start:].strip())
    return parts


CALL_SITE = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?P<local>local[ \t]+)?(?P<targets>[A-Za-z_]\w*(?:[ \t]*,[ \t]*"
    r"[A-Za-z_]\w*)*)[ \t]*=[ \t]*|(?P<ret>return[ \t]+))?M\.(?P<fn>\w+)\(", re.M)
CONTINUES = {"or", "and", "..", "+", "-", "*", "/", "%", "^", "==", "~=", "<", ">", "<=", ">=",
             "(", "[", ".", ":", "{"}


class Inliner:
    """Expands calls of ``functions`` (by flattened name) inside a code text."""

    def __init__(self, functions: dict[str, Function]):
        self.functions = functions
        self.fresh = count(1)

    def expand(self, text: str, chain: tuple[str, ...] = (), outer: frozenset[str] = frozenset()
               ) -> str:
        """``text`` with every inlinable call site replaced by the callee's body."""
        declared = outer | declared_names(tokens(text))
        pos = 0
        out = []
        while True:
            site = self.next_site(text, pos)
            if site is None:
                out.append(text[pos:])
                return "".join(out)
            m, close, fn = site
            out.append(text[pos:m.start()])
            args = text[m.end():close]
            indent = m.group("indent")
            if m.group("ret"):
                names = [f"inl_{next(self.fresh)}" for _ in range(self.arity(fn))]
                if names:
                    out.append(f"{indent}local {', '.join(names)}\n")
                out.append(self.block(fn, args, names, indent, chain, declared | set(names)))
                out.append(f"\n{indent}return {', '.join(names)}")
            else:
                targets = [t.strip() for t in (m.group("targets") or "").split(",") if t.strip()]
                if m.group("local"):
                    out.append(f"{indent}local {', '.join(targets)}\n")
                out.append(self.block(fn, args, targets, indent, chain, declared | set(targets)))
            pos = close + 1

    def next_site(self, text: str, pos: int) -> tuple[re.Match[str], int, Function] | None:
        for m in CALL_SITE.finditer(text, pos):
            fn = self.functions.get(m.group("fn"))
            if fn is None:
                continue
            close = matching_paren(text, m.end() - 1)
            after = next(tokens_from(text, close + 1), None)
            line_end = text.find("\n", close)
            if after is not None and (after.text in CONTINUES
                                      or (line_end >= 0 and after.start < line_end)):
                continue  # the call is part of a larger expression or statement
            if m.group("local") is None and m.group("targets") in KEYWORDS:
                continue
            return m, close, fn
        return None

    def block(self, fn: Function, args: str, targets: list[str], indent: str,
              chain: tuple[str, ...], declared: frozenset[str] | set[str]) -> str:
        """The copy of ``fn``'s body for one call site; its results land in ``targets``."""
        if fn.name in chain:
            raise InlineError(f"{fn.name} would be inlined into itself")
        if len(targets) > self.arity(fn):
            raise InlineError(f"{fn.name} returns {self.arity(fn)} values; a call takes "
                              f"{len(targets)}")
        clash = fn.free & (set(declared) - fn.declared)
        if clash:
            raise InlineError(f"inlining {fn.name}: the caller declares {sorted(clash)}, "
                              "which the body uses from the script level")
        # Results go through fresh names: the body may declare locals named like the
        # caller's targets, and `return f` must not assign the body's own `f`.
        temps = [f"inl_{next(self.fresh)}" for _ in targets]
        body = self.expand(fn.body, (*chain, fn.name), frozenset(declared) | fn.declared)
        body = rewrite_returns(fn.name, body, temps)
        inner = indent + "  "
        lines = [f"{indent}local {', '.join(temps)}"] if temps else []
        lines.append(f"{indent}repeat  -- inlined {fn.name}")
        values = split_top(args)
        if fn.params:
            lines.append(f"{inner}local {', '.join(fn.params)}"
                         + (f" = {', '.join(values)}" if values else ""))
        elif values:
            lines.append(f"{inner}local _ = {', '.join(values)}")
        lines += [inner + line if line.strip() else line
                  for line in body.rstrip("\n").split("\n")]
        lines.append(f"{indent}until true")
        if temps:
            lines.append(f"{indent}{', '.join(targets)} = {', '.join(temps)}")
        return "\n".join(lines)

    def arity(self, fn: Function) -> int:
        """How many values ``fn`` returns at most (a tail call adds its callee's)."""
        most = 0
        toks = tokens(fn.body)
        for _, start, end in returns(fn.name, fn.body, toks):
            values = split_top(fn.body[start:end])
            n = len(values)
            last = re.fullmatch(r"M\.(\w+)\((.*)\)", values[-1], re.S) if values else None
            if last and last.group(1) in self.functions and last.group(1) != fn.name:
                n += self.arity(self.functions[last.group(1)]) - 1
            most = max(most, n)
        return most


def rewrite_returns(name: str, body: str, temps: list[str]) -> str:
    """Each ``return x, y`` of a copied body becomes an assignment to ``temps`` and a break."""
    out, pos = [], 0
    for start, expr_start, expr_end in returns(name, body, tokens(body)):
        out.append(body[pos:start])
        values = body[expr_start:expr_end].strip()
        if temps:
            assign = f"{', '.join(temps)} = {values or 'nil'} "
        elif values:
            assign = f"local _ = {values} "
        else:
            assign = ""
        out.append(f"do {assign}break end")
        pos = expr_end
    out.append(body[pos:])
    return "".join(out)


def matching_paren(text: str, open_at: int) -> int:
    """Offset of the ``)`` that closes the ``(`` at ``open_at``."""
    depth = 0
    for t in tokens_from(text, open_at):
        if t.text in ("(", "{", "["):
            depth += 1
        elif t.text in (")", "}", "]"):
            depth -= 1
            if depth == 0:
                return t.start
    raise InlineError(f"unclosed call at {text[open_at - 20:open_at + 20]!r}")
