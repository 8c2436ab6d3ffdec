"""Redis key and channel names are spelled in one Python module, ``qless_py.keys``.

Every other module under ``qless_py/`` builds them through it. The check reads the
modules' syntax trees, so docstrings and comments may name keys: only string literals and
f-strings that begin with a ``ql:`` or ``qlpy:`` name count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import qless_py

PACKAGE = Path(qless_py.__file__).resolve().parent
PREFIXES = ("ql:", "qlpy:")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the constant nodes that are docstrings."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def spellings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal or f-string in ``source`` that starts a key name."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            first = node.values[0] if node.values else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                skip.add(id(first))
                if first.value.startswith(PREFIXES):
                    out.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in skip and node.value.startswith(PREFIXES)):
            out.append((node.lineno, node.value))
    return sorted(out)


def test_the_check_finds_literals_and_f_strings_but_not_docstrings() -> None:
    source = ('"""ql:config is named here."""\n'
              'def f(q):\n    """ql:q:<q>-work"""\n    return f"ql:q:{q}-work", "qlpy:x"\n'
              'A = "ql:config"  # ql:config\nB = "see ql:config"\n')
    assert sorted(line for line, _ in spellings(source)) == [4, 4, 5]


def test_no_module_but_keys_spells_a_key_name() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "keys.py":
            continue
        found += [f"{path.relative_to(PACKAGE)}:{line}: {text}"
                  for line, text in spellings(path.read_text())]
    assert not found, "key names spelled outside qless_py/keys.py:\n" + "\n".join(found)
