"""Lua 5.1 tokens, and the few questions of syntax scripts/build_lua.py asks of them.

``tokens(text)`` yields every token of a source, comments and strings included, with its
line. The build's passes look only at names, keywords and operators, so text inside a
string literal or a comment can never be taken for code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

KEYWORDS = frozenset({
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
})
OPEN = {"function", "if", "do", "repeat"}  # `while` and `for` open their block with `do`
CLOSE = {"end", "until"}
BINARY = {"+", "-", "*", "/", "%", "^", "..", "==", "~=", "<", "<=", ">", ">=", "and", "or"}

# Order matters: a long comment before a line comment, a long string before `[`.
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n\f\v]+)
  | (?P<comment>--\[(?P<ceq>=*)\[.*?\](?P=ceq)\]|--[^\n]*)
  | (?P<string>\[(?P<seq>=*)\[.*?\](?P=seq)\]
      |"(?:\\(?:\r\n|.)|[^"\\\n])*"
      |'(?:\\(?:\r\n|.)|[^'\\\n])*')
  | (?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.\.|\.\.|==|~=|<=|>=|[-+*/%^\#<>=(){}\[\];:,.])
""", re.S | re.X)


class BuildError(Exception):
    """The sources break a rule of the build; the message names the file and line."""


def at(path: str, line: int, message: str) -> BuildError:
    return BuildError(f"{path}:{line}: {message}")


@dataclass(frozen=True)
class Token:
    kind: str  # comment, string, number, name, keyword, op
    text: str
    line: int
    start: int  # offsets in the text it was read from
    end: int

    @property
    def code(self) -> bool:
        """True for the tokens a program is made of (not a comment)."""
        return self.kind != "comment"


def tokens(text: str, path: str = "<lua>", line: int = 1) -> Iterator[Token]:
    """The tokens of ``text``, spaces left out; the first line of ``text`` is ``line``."""
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            snippet = text[pos:pos + 20].split("\n")[0]
            raise at(path, line, f"cannot read Lua at {snippet!r}")
        kind = m.lastgroup or ""
        if kind != "space":
            if kind == "name" and m.group() in KEYWORDS:
                kind = "keyword"
            yield Token(kind, m.group(), line, m.start(), m.end())
        line += m.group().count("\n")
        pos = m.end()


def code_tokens(text: str, path: str, line: int = 1) -> list[Token]:
    """The tokens of ``text`` without comments, refused unless blocks and brackets close."""
    toks = [t for t in tokens(text, path, line) if t.code]
    stack: list[Token] = []
    loop_heads = 0  # `while`/`for` seen whose `do` is still to come
    for t in toks:
        if t.kind == "keyword" and t.text in ("while", "for"):
            loop_heads += 1
        elif t.kind == "keyword" and t.text == "do" and loop_heads:
            loop_heads -= 1
            stack.append(t)
        elif (t.kind == "keyword" and t.text in OPEN) or t.text in ("(", "[", "{"):
            stack.append(t)
        elif (t.kind == "keyword" and t.text in CLOSE) or t.text in (")", "]", "}"):
            opener = stack.pop() if stack else None
            want = {"(": ")", "[": "]", "{": "}", "repeat": "until"}.get(
                opener.text if opener else "", "end")
            if opener is None or t.text != want:
                raise at(path, t.line, f"{t.text!r} closes nothing open")
    if stack:
        raise at(path, stack[-1].line, f"nothing closes this {stack[-1].text!r}")
    return toks


def block_end(toks: list[Token], i: int) -> int:
    """Index of the `end`/`until` closing the block that the keyword toks[i] opens."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].kind == "keyword" and toks[j].text in OPEN:
            depth += 1
        elif toks[j].kind == "keyword" and toks[j].text in CLOSE:
            depth -= 1
            if depth == 0:
                return j
    raise AssertionError("code_tokens checked that blocks close")


def matching(toks: list[Token], i: int) -> int:
    """Index of the bracket closing the one at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        depth += (toks[j].text in ("(", "[", "{")) - (toks[j].text in (")", "]", "}"))
        if depth == 0:
            return j
    raise AssertionError("code_tokens checked that brackets close")


def expression_end(toks: list[Token], j: int) -> int:
    """Index of the last token of the expression that starts at toks[j]."""
    while True:
        while toks[j].text in ("-", "not", "#"):
            j += 1
        if toks[j].text in ("(", "{"):
            j = matching(toks, j)
        elif toks[j].text == "function":
            j = block_end(toks, j)
        while j + 1 < len(toks):  # suffixes: .name :name(...) [...] (...) {...} 'text'
            nxt = toks[j + 1]
            if nxt.text in (".", ":"):
                j += 2
            elif nxt.text in ("(", "[", "{"):
                j = matching(toks, j + 1)
            elif nxt.kind == "string":
                j += 1
            else:
                break
        if j + 1 < len(toks) and toks[j + 1].text in BINARY:
            j += 2
            continue
        return j


@dataclass
class Local:
    """A `local` statement: its token span, its names, its values (token lists)."""
    first: int
    last: int
    names: list[str]
    values: list[list[Token]]


def local_statement(toks: list[Token], i: int) -> Local:
    names, j = [], i + 1
    while toks[j].kind == "name":
        names.append(toks[j].text)
        if j + 1 < len(toks) and toks[j + 1].text == ",":
            j += 2
        else:
            break
    values: list[list[Token]] = []
    while j + 1 < len(toks) and toks[j + 1].text in ("=", ","):  # `=` first, then `,`s
        end = expression_end(toks, j + 2)
        values.append(toks[j + 2:end + 1])
        j = end
    return Local(i, j, names, values)


def blocks(toks: list[Token]) -> list[tuple[int, int]]:
    """Token spans of the top-level statements that open a block (functions, ifs, loops)."""
    spans, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "keyword" and t.text in ("while", "for"):
            do = next(j for j in range(i, len(toks)) if toks[j].text == "do")
            spans.append((i, block_end(toks, do)))
        elif t.kind == "keyword" and t.text in OPEN:
            spans.append((i, block_end(toks, i)))
        else:
            i += 1
            continue
        i = spans[-1][1] + 1
    return spans


def declarations(toks: list[Token]) -> Iterator[int]:
    """Indexes of the names declared by `local`, `local function` and `for`."""
    for i, t in enumerate(toks):
        if t.text in ("local", "for"):
            j = i + 2 if toks[i + 1].text == "function" else i + 1
            while j < len(toks) and toks[j].kind == "name":
                yield j
                if j + 1 < len(toks) and toks[j + 1].text == ",":
                    j += 2
                else:
                    break


def used_names(toks: list[Token]) -> set[str]:
    """Variables a token list reads or writes; not fields (`t.x`, `t:x`, `{ x = 1 }`)."""
    out, brackets = set(), []
    for i, t in enumerate(toks):
        if t.text in ("(", "[", "{"):
            brackets.append(t.text)
        elif t.text in (")", "]", "}"):
            brackets.pop()
        elif t.kind == "name":
            is_field = i > 0 and toks[i - 1].text in (".", ":")
            is_key = brackets[-1:] == ["{"] and i + 1 < len(toks) and toks[i + 1].text == "="
            if not is_field and not is_key:
                out.add(t.text)
    return out


def return_values(toks: list[Token], i: int) -> list[list[Token]]:
    """The expressions of the `return` at toks[i]."""
    values: list[list[Token]] = [[]]
    depth = 0
    for t in toks[i + 1:]:
        if depth == 0 and t.text in ("end", "else", "elseif", "until", ";"):
            break
        depth += (t.text in ("(", "[", "{")) - (t.text in (")", "]", "}"))
        if t.text == "," and depth == 0:
            values.append([])
        else:
            values[-1].append(t)
    return [v for v in values if v]
