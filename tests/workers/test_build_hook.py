"""hatch_build.py: an editable install gets its bytecode at install time, as a regular one
does from pip, so worker start-up does not compile the package when bytecode writing is off."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_hook_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def source_tree(root: Path) -> Path:
    package = root / "qless_py"
    (package / "workers").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "workers" / "worker.py").write_text("X = 1\n")
    return package / "workers" / "worker.py"


def cached(source: Path) -> bool:
    return Path(importlib.util.cache_from_source(str(source))).exists()


def run_hook(root: Path, target: str, version: str) -> None:
    hook_class = load_hook_module().EditableBytecode
    hook = hook_class(str(root), {}, None, None, str(root / "dist"), target)
    hook.initialize(version, {})


def test_editable_wheel_build_compiles_every_module(tmp_path: Path) -> None:
    source = source_tree(tmp_path)
    sys.dont_write_bytecode, saved = True, sys.dont_write_bytecode
    try:
        run_hook(tmp_path, "wheel", "editable")
    finally:
        sys.dont_write_bytecode = saved
    assert cached(source)
    assert cached(tmp_path / "qless_py" / "__init__.py")


def test_regular_wheel_and_sdist_builds_leave_the_tree_alone(tmp_path: Path) -> None:
    source = source_tree(tmp_path)
    run_hook(tmp_path, "wheel", "standard")
    run_hook(tmp_path, "sdist", "standard")
    assert not cached(source)
    assert not list(tmp_path.rglob("__pycache__"))
