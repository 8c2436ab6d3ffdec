"""Job classes of the demo pipeline (run by any qless_py worker).

Stage one (``ParseFile``) counts the names in one source file; stage two
(``MergePackage``) depends on the stage-one jobs of one package and adds their counts;
the ``Report`` job depends on every stage-two job and keeps the most common names.
Each stage leaves its result in its own job data, which the next stage reads.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import Any

TOP_NAMES = 25


def count_names(source: str, filename: str = "<source>") -> Counter[str]:
    """How often each name (variables, functions, attributes, arguments) occurs."""
    tree = ast.parse(source, filename=filename)
    counts: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            counts[node.id] += 1
        elif isinstance(node, ast.Attribute):
            counts[node.attr] += 1
        elif isinstance(node, ast.arg):
            counts[node.arg] += 1
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            counts[node.name] += 1
    return counts


def _merge(client: Any, jids: list[str]) -> tuple[Counter[str], int, int]:
    """Add up the ``names`` of finished jobs; also their ``files`` and ``lines``."""
    total: Counter[str] = Counter()
    files = lines = 0
    for done in client.jobs.get(*jids):
        total.update(done.data.get("names", {}))
        files += int(done.data.get("files", 1))
        lines += int(done.data.get("lines", 0))
    return total, files, lines


class ParseFile:
    """Stage one: one source file."""

    @staticmethod
    def process(job: Any) -> None:
        path = job.data["path"]
        with open(path, "rb") as handle:
            raw = handle.read()
        source = raw.decode("utf-8", errors="replace")
        job.data["names"] = dict(count_names(source, path))
        job.data["lines"] = source.count("\n")
        job.data["files"] = 1
        job.complete()


class MergePackage:
    """Stage two: every file of one package (its stage-one jobs are its dependencies)."""

    @staticmethod
    def process(job: Any) -> None:
        names, files, lines = _merge(job.client, list(job.data["parts"]))
        job.data["names"] = dict(names)
        job.data["files"] = files
        job.data["lines"] = lines
        job.complete()


class Report:
    """Final stage: the most common names over all packages."""

    @staticmethod
    def process(job: Any) -> None:
        names, files, lines = _merge(job.client, list(job.data["parts"]))
        job.data["top"] = names.most_common(int(job.data.get("top_n", TOP_NAMES)))
        job.data["files"] = files
        job.data["lines"] = lines
        job.data["distinct"] = len(names)
        job.data["total"] = sum(names.values())
        job.complete()
