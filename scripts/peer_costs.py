"""Where each system's Redis time per job goes, from a results file of the shared harness
(../shared/bench, ``run.py --out <file>``): for each system's lifecycle run and each phase,
the commands it sent (a script call, MULTI/EXEC or a plain command) and, under each
script call or EXEC, the commands that ran inside it, in µs per job (the median repeat
by the phase's top-level time).

    python scripts/peer_costs.py results.json [--top 6]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

PHASES = ("put", "pop", "complete")
ENCLOSING = {"evalsha", "eval", "exec", "evalsha_ro", "eval_ro", "fcall"}


def median_repeat(repeats: list[dict[str, Any]], phase: str) -> dict[str, Any]:
    """The repeat whose ``phase`` has the median top-level Redis time."""
    ordered = sorted(repeats, key=lambda rep: rep[phase]["redis_usec"])
    return ordered[len(ordered) // 2]


def phase_rows(phase: dict[str, Any], top: int) -> tuple[str, str]:
    """(the top-level commands, the commands inside scripts and EXECs), µs per job."""
    n = phase["n"]
    sent: list[tuple[float, str]] = []
    inside: list[tuple[float, str]] = []
    for name, stat in phase["commandstats"].items():
        outer = stat["top_level_calls"]
        share = outer / stat["calls"] if stat["calls"] else 0.0
        if outer:
            calls = outer / n
            sent.append((stat["usec"] * share / n, f"{name} ({calls:.2g})"))
        if stat["calls"] > outer and name not in ENCLOSING:
            calls = (stat["calls"] - outer) / n
            inside.append((stat["usec"] * (1 - share) / n, f"{name} ({calls:.2g})"))

    def listed(rows: list[tuple[float, str]]) -> str:
        rows.sort(reverse=True)
        shown = [f"{label} {usec:.1f}" for usec, label in rows[:top]]
        rest = sum(usec for usec, _ in rows[top:])
        return ", ".join(shown) + (f", others {rest:.1f}" if rest >= 0.05 else "")

    return listed(sent), listed(inside)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--top", type=int, default=6, help="commands shown per cell")
    args = parser.parse_args()
    data = json.loads(args.results.read_text())
    print("| system | phase (µs/job sent) | sent: command (calls per job) µs/job | inside "
          "scripts and EXEC: command (calls per job) µs/job |")
    print("|---|---|---|---|")
    for run in data["runs"]:
        # (a repeat that failed holds the error instead of its phases)
        repeats = [r for r in run.get("repeats", []) if all(p in r for p in PHASES)]
        if run["benchmark"] != "lifecycle" or not repeats:
            continue
        for phase in PHASES:
            rep = median_repeat(repeats, phase)
            sent, inside = phase_rows(rep[phase], args.top)
            total = statistics.median(r[phase]["redis_usec"] for r in repeats)
            print(f"| {run['system']} | {phase} ({total:.1f}) | {sent} | {inside or '-'} |")


if __name__ == "__main__":
    main()
