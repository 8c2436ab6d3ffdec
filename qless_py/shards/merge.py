"""How the answers of a sharded namespace's shards become one answer (pure: the sync and
the asyncio client share them).

A listing in time order (completed, tagged, failed) takes the first ``offset + count`` of
every shard and orders them by the time each shard recorded; a queue's listing by state
interleaves the shards one by one, which is the order in which a worker popping the shards
in turn meets their jobs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from qless_py.calls.check import CheckReport
from qless_py.calls.failures import GroupResult

T = TypeVar("T")


def interleaved(lists: Sequence[Sequence[T]], offset: int, count: int) -> list[T]:
    """The page ``[offset, offset + count)`` of the lists taken one item of each in turn
    (a negative ``count``: to the end, as the core's listings take it)."""
    merged: list[T] = []
    longest = max((len(each) for each in lists), default=0)
    for i in range(longest):
        merged.extend(each[i] for each in lists if i < len(each))
    return merged[offset:] if count < 0 else merged[offset:offset + count]


def _put_time(job: Any) -> float:
    return float(job.history[0]["when"]) if job.history else 0.0


# -- merges of the shards' answers (pure: the sync and the asyncio client share them) ------
SUMMED_COUNTS = ("waiting", "stalled", "running", "scheduled", "depends", "recurring",
                 "throttled")


def merged_counts(counts: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Queue counts of several shards summed by queue name, in name order (``paused``:
    on every shard)."""
    merged: dict[str, dict[str, Any]] = {}
    for entry in counts:
        into = merged.get(entry["name"])
        if into is None:
            merged[entry["name"]] = dict(entry)
            continue
        for name in SUMMED_COUNTS:
            if name in entry:
                into[name] = into.get(name, 0) + entry[name]
        into["paused"] = bool(into.get("paused")) and bool(entry.get("paused"))
    return [merged[name] for name in sorted(merged)]


def merged_completed(raws: Iterable[list[Any]], offset: int, count: int) -> list[str]:
    """Completed jids, most recent first, from each shard's ``ZREVRANGE ... WITHSCORES``."""
    entries: list[tuple[float, str]] = []
    for raw in raws:
        for jid, score in raw:
            entries.append((float(score), jid.decode() if isinstance(jid, bytes) else jid))
    entries.sort(key=lambda entry: (-entry[0], entry[1]))
    return [jid for _, jid in entries[offset:offset + count]]


def merged_tracked(found: Iterable[dict[str, list[Any]]]) -> dict[str, list[Any]]:
    merged: dict[str, list[Any]] = {"jobs": [], "expired": []}
    for each in found:
        merged["jobs"] += each["jobs"]
        merged["expired"] += each["expired"]
    return merged


def tagged_page(jobs: Iterable[Any], total: int, offset: int, count: int) -> dict[str, Any]:
    """The tag's page from the jobs of every shard's first ``offset + count``, oldest
    first."""
    ordered = sorted(jobs, key=lambda job: (_put_time(job), job.jid))
    return {"total": total, "jobs": [job.jid for job in ordered][offset:offset + count]}


def merged_failed_counts(found: Iterable[dict[str, int]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for each in found:
        for name, n in each.items():
            counts[name] = counts.get(name, 0) + n
    return counts


def failed_page(pages: Iterable[dict[str, Any]], start: int, limit: int) -> dict[str, Any]:
    """A failure group's page from every shard's first ``start + limit``, the most recent
    failures first."""
    total, jobs = 0, []
    for page in pages:
        total += page["total"]
        jobs += page["jobs"]
    jobs.sort(key=lambda job: (-(job.failure.when if job.failure else 0), job.jid))
    return {"total": total, "jobs": jobs[start:start + limit]}


def merged_workers(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Worker rows of every shard, one per worker name (jobs and stalled summed), in the
    order the first shard that knows each lists it."""
    merged: dict[str, dict[str, Any]] = {}
    for row in rows:
        into = merged.setdefault(row["name"], {"name": row["name"], "jobs": 0, "stalled": 0})
        into["jobs"] += row["jobs"]
        into["stalled"] += row["stalled"]
    return list(merged.values())


def merged_worker(found: Iterable[dict[str, list[str]]]) -> dict[str, list[str]]:
    merged: dict[str, list[str]] = {"jobs": [], "stalled": []}
    for each in found:
        merged["jobs"] += each["jobs"]
        merged["stalled"] += each["stalled"]
    return merged


def summed(results: Iterable[GroupResult]) -> GroupResult:
    total = GroupResult()
    for result in results:
        total.done += result.done
        total.refused += result.refused
        total.errors += result.errors[:5 - len(total.errors)]
    return total


def merged_tags(lists: Sequence[Sequence[str]], offset: int, count: int) -> list[str]:
    return list(dict.fromkeys(interleaved(lists, 0, sum(map(len, lists)))))[
        offset:offset + count]


def merged_reports(parts: Iterable[CheckReport]) -> CheckReport:
    """The shards' check reports as one (a shard's findings name its keys)."""
    report = CheckReport()
    for part in parts:
        report.findings += part.findings
        report.repaired += part.repaired
        report.keys += part.keys
    return report
