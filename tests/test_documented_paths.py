"""Every import path the README and docs/ show keeps working: ``from qless_py.x import y``
lines, and dotted names in backticks (``qless_py.job.retry``), resolve to something."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FROM_IMPORT = re.compile(r"^\s*from (qless_py[\w.]*) import ([\w, ]+)$", re.MULTILINE)
DOTTED = re.compile(r"`(qless_py(?:\.\w+)+)")


def _paths() -> list[str]:
    found: set[str] = set()
    for doc in DOCS:
        text = doc.read_text()
        for module, names in FROM_IMPORT.findall(text):
            found.update(f"{module}.{name.strip()}" for name in names.split(","))
        found.update(path for path in DOTTED.findall(text) if "/" not in path)
    return sorted(found)


def _resolve(path: str) -> object:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name)
        return target
    raise ModuleNotFoundError(path)


@pytest.mark.parametrize("path", _paths())
def test_a_documented_path_resolves(path: str) -> None:
    assert _resolve(path) is not None
