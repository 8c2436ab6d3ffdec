"""Pass 4 of scripts/build_lua.py: copy --@inline functions into the calls that use them.

A call is copied when it is a whole statement of one of these forms (`M.F` being an
--@inline function, after pass 2 has flattened the module tables):

    M.F(args)                 results dropped
    local a, b = M.F(args)    new locals
    a, b = M.F(args)          existing variables
    return M.F(args)          the caller returns what F returns

The copy is a `repeat ... until true` block. The parameters are its locals, bound to the
arguments (evaluated first, as a call would); each `return x, y` of the body assigns fresh
temporaries and leaves the block with `break`; after `until true` the temporaries go to
the call's targets. Every line of the copy keeps the origin of the body line it comes
from, so the script's markers still lead to the source.

Refused, with the file and line, because the copy would not do what the call did: a
`return` inside a loop of the body (`break` would leave that loop), `...`, a function
defined in the body, a call of an --@inline function inside an expression (it cannot be
copied there, and would silently stay a call), and a local of the caller that would hide
a name the body takes from the script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import count

from lua_tokens import (
    CLOSE,
    Token,
    at,
    block_end,
    code_tokens,
    declarations,
    matching,
    return_values,
    used_names,
)

Origin = tuple[str, int] | None  # (path, line), or None for a line the build writes
Line = tuple[str, Origin]
# After these a new statement may begin: a call right after one is not in an expression.
ENDS_STATEMENT = {")", "]", "}", ";", "then", "do", "else", "repeat", "end", "break", "true",
                  "false", "nil"}
# These may follow a whole statement; any other token continues an expression.
STARTS_STATEMENT = {";", "end", "else", "elseif", "until", "return", "local", "if", "for",
                    "while", "do", "repeat", "function", "break"}


class Writer:
    """Script lines with their origins; text() continues the last line (a copy does)."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.open = False

    def text(self, chunk: str, path: str, line: int) -> None:
        """Append `chunk`, whose first character is on line `line` of `path`."""
        parts = chunk.split("\n")
        if self.open:
            self.lines[-1] = (self.lines[-1][0] + parts[0], self.lines[-1][1])
        else:
            self.lines.append((parts[0], (path, line)))
        self.lines += [(part, (path, line + k)) for k, part in enumerate(parts[1:], 1)]
        self.open = True

    def add(self, lines: list[Line]) -> None:
        self.lines += lines
        self.open = False


@dataclass
class Body:
    """An --@inline function, ready to copy."""
    name: str  # M's name for it: Job_put
    path: str
    params: list[str]
    text: str  # from the line after its header (or the header's rest) to before its `end`
    line: int  # the source line `text` starts on
    free: set[str]  # the names it takes from outside itself


def parse_body(name: str, path: str, text: str, line: int) -> Body:
    """The function `function M.name(...) ... end` that `text` holds (line `line` first)."""
    toks = code_tokens(text, path, line)
    head = next(i for i, t in enumerate(toks) if t.text == "function")
    close = matching(toks, head + 4)
    params = [t.text for t in toks[head + 5:close] if t.text != ","]
    if "..." in params:
        raise at(path, toks[head].line, f"--@inline {name} takes `...`")
    body = text[toks[close].end:toks[block_end(toks, head)].start]
    first = toks[close].line
    if "\n" in body and not body[:body.index("\n")].strip():
        body, first = body[body.index("\n") + 1:], first + 1
    body = body.rstrip(" \t")
    body = body[:-1] if body.endswith("\n") else body
    btoks = code_tokens(body, path, first)
    check_body(name, path, btoks)
    declared = set(params) | {btoks[n].text for n in declarations(btoks)}
    return Body(name, path, params, body, first, used_names(btoks) - declared)


def check_body(name: str, path: str, toks: list[Token]) -> None:
    """Refuse what a copy would not do as the call did: `...`, closures, loop returns."""
    stack: list[str] = []
    loop_heads = 0
    for t in toks:
        if t.text == "...":
            raise at(path, t.line, f"--@inline {name} uses `...`")
        if t.kind != "keyword":
            continue
        if t.text == "function":
            raise at(path, t.line, f"--@inline {name} defines a function")
        if t.text in ("while", "for"):
            stack.append("loop")
            loop_heads += 1
        elif t.text == "do" and loop_heads:
            loop_heads -= 1
        elif t.text in ("do", "if"):
            stack.append(t.text)
        elif t.text == "repeat":
            stack.append("loop")
        elif t.text in CLOSE:
            stack.pop()
        elif t.text == "return" and "loop" in stack:
            raise at(path, t.line, f"--@inline {name} returns from inside a loop (its copy "
                     "would only leave the loop)")


@dataclass
class Call:
    """A whole-statement call of an --@inline function, in its caller's tokens."""
    start: int  # first token of the statement
    paren: int  # the call's `(`
    close: int  # its `)`
    body: Body
    form: str  # call | assign | local | return
    targets: list[str]  # the assigned names (assign, local)


class Inliner:
    def __init__(self, bodies: dict[str, Body]):
        self.bodies = bodies
        self.fresh = count(1)

    def expand(self, text: str, path: str, line: int, chain: tuple[str, ...] = (),
               outer: frozenset[str] = frozenset()) -> list[Line]:
        """The lines of `text` (line `line` of `path` first), its inline calls copied in.
        `outer` holds the locals of the code around `text`."""
        toks = code_tokens(text, path, line)
        declared = outer | {toks[n].text for n in declarations(toks)}
        out, pos, pos_line = Writer(), 0, line
        for call in self.calls(toks, path):
            body, where = call.body, toks[call.start].line
            if body.name in chain:
                raise at(path, where, f"{body.name} would be copied into itself")
            hidden = body.free & declared
            if hidden:
                raise at(path, where, f"a copy of {body.name} here would see this code's "
                         f"local {', '.join(sorted(hidden))} instead of its own")
            out.text(text[pos:toks[call.start].start], path, pos_line)
            indent = re.match(r"[ \t]*", out.lines[-1][0]).group()  # type: ignore[union-attr]
            args = text[toks[call.paren].end:toks[call.close].start].lstrip(" \t")
            results = self.arity(body) if call.form == "return" else len(call.targets)
            temps = [f"inl_{next(self.fresh)}" for _ in range(results)]
            head = f"local {', '.join(temps)} repeat" if temps else "repeat"
            if body.params:
                head += f" local {', '.join(body.params)} = {args or 'nil'}"
            elif args:
                head += f" local _ = {args}"
            out.text(head, path, where)
            copy = self.expand(breaks(body, temps), body.path, body.line, (*chain, body.name),
                               frozenset(declared | set(temps) | set(body.params)))
            out.add([(indent + t if t.strip() else t, o) for t, o in copy])
            tail = f"{indent}until true"
            if call.form == "local":
                tail += f" local {', '.join(call.targets)} = {', '.join(temps)}"
            elif call.form == "assign":
                tail += f" {', '.join(call.targets)} = {', '.join(temps)}"
            elif call.form == "return":
                tail += f" return {', '.join(temps)}"
            pos, pos_line = toks[call.close].end, toks[call.close].line
            out.text(tail, path, pos_line)
        out.text(text[pos:], path, pos_line)
        return out.lines

    def calls(self, toks: list[Token], path: str) -> list[Call]:
        """The calls of --@inline functions in `toks`; a call that cannot be copied is refused."""
        out = []
        for i, t in enumerate(toks):
            body = self.bodies.get(toks[i + 2].text) if (
                t.text == "M" and i + 2 < len(toks) and toks[i + 1].text == ".") else None
            if body is None:
                continue
            name = body.name.replace("_", ".", 1)
            if i + 3 >= len(toks) or toks[i + 3].text != "(":
                raise at(path, t.line, f"{name} is --@inline: call it as {name}(...)")
            close = matching(toks, i + 3)
            nxt = toks[close + 1] if close + 1 < len(toks) else None
            prev = toks[i - 1] if i else None
            if nxt is not None and nxt.kind != "name" and nxt.text not in STARTS_STATEMENT:
                raise at(path, t.line, f"{name} is --@inline: its call must be a statement "
                         "of its own, not part of an expression")
            if prev is not None and prev.text == "return":
                out.append(Call(i - 1, i + 3, close, body, "return", []))
            elif prev is not None and prev.text == "=":
                k, targets = i - 2, list[str]()
                while k >= 0 and toks[k].kind == "name":
                    targets.insert(0, toks[k].text)
                    if k > 0 and toks[k - 1].text == ",":
                        k -= 2
                    else:
                        break
                if targets and k > 0 and toks[k - 1].text == "local":
                    out.append(Call(k - 1, i + 3, close, body, "local", targets))
                elif targets and (k == 0 or starts_statement(toks[k - 1])):
                    out.append(Call(k, i + 3, close, body, "assign", targets))
                else:
                    raise at(path, t.line, f"{name} is --@inline: assign its results to "
                             "local names (`local a, b = f(x)` or `a, b = f(x)`)")
            elif prev is None or starts_statement(prev):
                out.append(Call(i, i + 3, close, body, "call", []))
            else:
                raise at(path, t.line, f"{name} is --@inline: its call must be a statement "
                         "of its own, not part of an expression")
        return out

    def arity(self, body: Body) -> int:
        """How many values `return f(...)` gives (a tail call adds its callee's)."""
        most = 1
        toks = code_tokens(body.text, body.path, body.line)
        for i, t in enumerate(toks):
            if t.text != "return":
                continue
            values = return_values(toks, i)
            n = len(values)
            last = values[-1] if values else []
            if last and last[-1].text == ")":  # a call, or a parenthesized expression
                paren = opening(last, len(last) - 1)
                if paren > 0 and (last[paren - 1].kind == "name" or last[paren - 1].text in ")]"):
                    callee = self.bodies.get(last[2].text) if (
                        paren == 3 and last[0].text == "M") else None
                    if callee is None:
                        raise at(body.path, t.line, "`return f(...)` where f is not --@inline:"
                                 f" how many values {body.name} returns is not known")
                    n += self.arity(callee) - 1
            most = max(most, n)
        return most


def opening(toks: list[Token], close: int) -> int:
    """Index of the bracket that the one at toks[close] closes."""
    depth = 0
    for k in range(close, -1, -1):
        depth += (toks[k].text in (")", "]", "}")) - (toks[k].text in ("(", "[", "{"))
        if depth == 0:
            return k
    raise AssertionError("code_tokens checked that brackets close")


def starts_statement(prev: Token) -> bool:
    """Whether a statement may begin right after token `prev`."""
    return prev.kind in ("name", "string", "number") or prev.text in ENDS_STATEMENT


def breaks(body: Body, temps: list[str]) -> str:
    """The body with each `return a, b` made `do t1, t2 = a, b break end`."""
    toks = code_tokens(body.text, body.path)
    out, pos = [], 0
    for i, t in enumerate(toks):
        if t.text != "return":
            continue
        values = return_values(toks, i)
        end = values[-1][-1].end if values else t.end
        expr = body.text[values[0][0].start:end] if values else ""
        out.append(body.text[pos:t.start])
        if expr:
            out.append(f"do {', '.join(temps) if temps else 'local _'} = {expr} break end")
        else:
            out.append("do break end")
        pos = end
    out.append(body.text[pos:])
    return "".join(out)
