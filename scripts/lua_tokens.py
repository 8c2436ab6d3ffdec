"""A Lua 5.1 lexer for scripts/build_lua.py: every build pass reads tokens, never raw text.

``tokens(text)`` yields every token of a source file, comments and strings included, with
its line. A pass that rewrites code looks only at ``name``/``keyword``/``op`` tokens, so
text inside a string literal or a comment can never be taken for code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

KEYWORDS = frozenset({
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
})

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


class LexError(Exception):
    """The text is not Lua 5.1 the lexer can read (an unclosed string, a stray byte)."""


@dataclass(frozen=True)
class Token:
    kind: str  # comment, string, number, name, keyword, op
    text: str
    line: int  # 1-based line of the token's first character
    start: int  # offsets in the source text
    end: int

    @property
    def code(self) -> bool:
        """True for tokens a program is made of (not a comment)."""
        return self.kind != "comment"


def tokens(text: str, where: str = "<lua>") -> Iterator[Token]:
    """The tokens of ``text`` in order, spaces left out; ``where`` names it in errors."""
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            snippet = text[pos:pos + 20].split("\n")[0]
            raise LexError(f"{where}:{line}: cannot read Lua at {snippet!r}")
        kind = m.lastgroup or ""
        if kind != "space":
            if kind == "name" and m.group() in KEYWORDS:
                kind = "keyword"
            yield Token(kind, m.group(), line, m.start(), m.end())
        line += m.group().count("\n")
        pos = m.end()
