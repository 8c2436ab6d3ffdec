"""The package's import graph, read from the sources with ast: no import cycles (imports
under ``if TYPE_CHECKING:`` do not count; imports inside functions do), and the call logic
(``qless_py.calls``) reaches no module that does I/O."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "qless_py"

# Modules whose import means I/O (sockets, TLS, a RESP parser, an event loop, a Redis
# client, processes): the call logic must reach none of them.
IO_MODULES = {"socket", "ssl", "select", "selectors", "asyncio", "hiredis", "redis", "fcntl",
              "termios", "subprocess", "urllib.request", "http"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import below ``node``, wherever it stands, except under TYPE_CHECKING."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            for other in child.orelse:
                yield from _import_nodes(other)
            continue
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        yield from _import_nodes(child)


def _base(name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imports_of(name: str) -> set[str]:
    """The modules ``name`` imports: ``from a import b`` is ``a.b`` when that is a module."""
    tree = ast.parse(MODULES[name].read_text())
    found: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = _base(name, node)
        for alias in node.names:
            full = f"{base}.{alias.name}"
            found.add(full if full in MODULES else base)
    return found


GRAPH = {name: {m for m in imports_of(name) if m in MODULES} for name in MODULES}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(GRAPH[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in GRAPH[node]:
                found.append(sorted(component))

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    return found


def test_no_import_cycles() -> None:
    assert _cycles() == []


def test_the_graph_sees_imports_inside_functions() -> None:
    # the client imports redis-py's clients only when it needs them, inside a method
    assert "qless_py.connect.redis_clients" in GRAPH["qless_py.client.client"]


def _reached(start: set[str]) -> set[str]:
    seen, todo = set(start), list(start)
    while todo:
        for other in GRAPH[todo.pop()]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def test_calls_reach_no_io() -> None:
    calls = {name for name in MODULES if name.startswith("qless_py.calls")}
    reached = _reached(calls)
    doing_io = {}
    for name in sorted(reached):
        io = {m for m in imports_of(name) if m in IO_MODULES or m.split(".")[0] in IO_MODULES}
        if io:
            doing_io[name] = sorted(io)
    assert doing_io == {}
    assert "qless_py.connect.wire" in reached  # the encoder and reply types are pure
    assert not {"qless_py.connect.resp", "qless_py.connect.dial"} & reached


# What each part of the package may not import (docs/architecture.md, "Layout"): a part
# builds only on the parts below it.
FORBIDDEN = {
    "connect": {"calls", "client", "aio", "workers", "cli", "web"},
    "calls": {"client", "aio", "workers", "cli", "web"},
    "client": {"aio", "workers", "cli", "web"},
    "aio": {"client", "workers", "cli", "web"},
    "workers": {"cli", "web"},
    "web": {"workers", "cli"},
}


def _part(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_each_part_builds_only_on_the_parts_below_it() -> None:
    wrong = sorted(f"{name} -> {other}" for name, imported in GRAPH.items()
                   for other in imported
                   if _part(other) in FORBIDDEN.get(_part(name), set()))
    assert wrong == []
