"""scripts/peer_costs.py: where a system's Redis time per job goes, from harness results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _phase(top_usec: float, stats: dict[str, tuple[int, float, int]]) -> dict[str, object]:
    return {"n": 100, "redis_usec": top_usec,
            "commandstats": {name: {"calls": c, "usec": u, "top_level_calls": t}
                             for name, (c, u, t) in stats.items()}}


def test_it_splits_sent_commands_from_the_ones_inside_scripts(tmp_path: Path) -> None:
    # 100 jobs: one EVALSHA each (3,000 µs in all), inside it two HSETs (800 µs) and one
    # ZADD per job; a GET sent on its own (100 calls, 200 µs) and 100 more inside.
    put = _phase(32.0, {"evalsha": (100, 3000.0, 100), "hset": (200, 800.0, 0),
                        "zadd": (100, 300.0, 0), "get": (200, 400.0, 100)})
    runs = [{"benchmark": "lifecycle", "system": "x",
             "repeats": [{"put": put, "pop": put, "complete": put}]},
            {"benchmark": "lifecycle", "system": "failed", "repeats": [{"error": "x"}]},
            {"benchmark": "e2e", "system": "x", "repeats": []}]
    results = tmp_path / "r.json"
    results.write_text(json.dumps({"runs": runs}))
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "peer_costs.py"), str(results),
                          "--top", "2"], capture_output=True, text=True, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("| x |")]
    assert "| failed |" not in out  # a repeat that failed has no phases to show
    assert len(rows) == 3
    assert rows[0] == ("| x | put (32.0) | evalsha (1) 30.0, get (1) 2.0 | "
                       "hset (2) 8.0, zadd (1) 3.0, others 2.0 |")
