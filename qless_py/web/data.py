"""What each page shows, gathered through the client as JSON-ready values.

A page and its ``/api/`` twin call the same function here: the page renders the value with
its template, the API answers it as JSON. Where ``qless-py ... --json`` shows the same
thing, the value has the same shape (keys may be added, none is renamed).
"""

from __future__ import annotations

import json
from typing import Any

from qless_py import Client, Job, RecurringJob, clock
from qless_py.calls import client as calls
from qless_py.calls.base import Batch
from qless_py.calls.core import pack_call
from qless_py.stats import DAY, QueueStats, report

QUEUE_STATES = ("waiting", "running", "stalled", "scheduled", "depends", "throttled",
                "recurring")
PAGE_SIZE = 25
MAX_PAGE_SIZE = 500


class Missing(LookupError):
    """The page's subject (job, queue, group, worker, tag) does not exist: a 404."""


Summary = tuple[list[dict[str, Any]], dict[str, int], list[dict[str, Any]]]


def _summary_batch() -> Batch[Summary]:
    """Every queue's counts, the failure groups and the workers: three core calls in one
    round trip (what ``client.queues.counts``, ``client.jobs.failed()`` and
    ``client.workers.counts`` read one by one)."""
    counts, workers = calls.queue_counts_call(), calls.worker_counts_call()

    def parse(results: list[Any]) -> Summary:
        for result in results:
            if isinstance(result, Exception):
                raise result
        groups = json.loads(results[1])
        return (counts[2](results[0]), {str(k): int(v) for k, v in groups.items()},
                workers[2](results[2]))

    return Batch([pack_call(counts[0], counts[1]), pack_call("failed", ()),
                  pack_call(workers[0], workers[1])], parse)


def summary(client: Client) -> Summary:
    """``(queue counts, {group: failed jobs}, worker rows)`` in one round trip (three per
    shard for a sharded namespace's client, which merges them)."""
    from qless_py.client.sharded import ShardedClient

    if isinstance(client, ShardedClient):
        return client.queues.counts, client.jobs.failed(), client.workers.counts
    return client.core.send_batch(_summary_batch())


NAMESPACE_STATES = ("waiting", "running", "stalled", "scheduled", "depends")


def namespace_row(client: Client) -> dict[str, Any]:
    """One namespace's totals for the namespaces page, in one round trip: its queues and
    their jobs by state summed, its failed jobs and its workers."""
    counts, failed_groups, worker_rows = summary(client)
    row: dict[str, Any] = {"namespace": client.keys.namespace, "prefix": client.keys.prefix,
                           "queues": len(counts)}
    for state in NAMESPACE_STATES:
        row[state] = sum(int(queue.get(state, 0) or 0) for queue in counts)
    row["failed"] = sum(failed_groups.values())
    row["workers"] = len(worker_rows)
    return row


def rows_of(client: Client, jids: list[str]) -> list[dict[str, Any]]:
    """The jobs of ``jids`` in order; vanished ones as ``{"jid", "state": "expired"}``."""
    found = {job.jid: job.to_dict() for job in client.jobs.get(*jids)}
    return [found.get(jid, {"jid": jid, "state": "expired"}) for jid in jids]


def queue_today(stats: QueueStats) -> dict[str, Any]:
    """The overview's figures of one queue for today."""
    return {"completed": stats.run.count, "failures": stats.failures,
            "retries": stats.retries, "wait_p50": stats.wait.percentile(0.5),
            "run_p50": stats.run.percentile(0.5)}


def queues(client: Client) -> list[dict[str, Any]]:
    """``qless-py queues --json`` rows, each with ``today``'s figures."""
    counts = client.queues.counts
    stats = client.queues.stats([str(row["name"]) for row in counts])
    return [dict(row, today=queue_today(stats[str(row["name"])])) for row in counts]


def tracked(client: Client) -> dict[str, Any]:
    listing = client.jobs.tracked()
    return {"jobs": [job.to_dict() for job in listing["jobs"]], "expired": listing["expired"]}


def overview(client: Client) -> dict[str, Any]:
    """The front page: queues, failure groups, workers and tracked jobs."""
    return {"queues": queues(client), "failed": client.jobs.failed(),
            "workers": client.workers.counts, "tracked": tracked(client)}


def _queue_jobs(client: Client, name: str, state: str, offset: int,
                count: int) -> list[dict[str, Any]]:
    listing = client.queues[name].jobs
    if state == "recurring":
        templates = (client.jobs[jid] for jid in listing.recurring(offset, count))
        return [t.to_dict() for t in templates if isinstance(t, RecurringJob)]
    if state == "waiting":
        return rows_of(client, listing.waiting(offset, count))
    jids: list[str] = getattr(listing, state)(offset, count)
    return rows_of(client, jids)


def queue(client: Client, name: str, state: str = "waiting", offset: int = 0,
          count: int = PAGE_SIZE) -> dict[str, Any]:
    """One queue: its counts, a page of its jobs in ``state``, the failure groups named
    after it, today's and the last seven days' statistics (as ``qless-py stats --json``)."""
    if state not in QUEUE_STATES:
        raise ValueError(f"state must be one of {', '.join(QUEUE_STATES)}, not {state!r}")
    counts = client.queues[name].counts
    if name not in client.queues.names():
        raise Missing(f"no such queue: {name}")
    now = clock.now()
    week_start = now - 6 * DAY
    target = client.queues[name]
    # Workers name failure groups "<queue>-<what went wrong>", so these are the queue's.
    groups = {group: n for group, n in client.jobs.failed().items()
              if group.startswith(f"{name}-")}
    return {
        "queue": counts, "state": state, "offset": offset, "count": count,
        "total": int(counts.get(state, 0)),
        "jobs": _queue_jobs(client, name, state, offset, count),
        "failed": groups,
        "today": report(name, now, now, target.stats(now)),
        "week": report(name, week_start, now, target.stats_range(week_start, now)),
    }


def job(client: Client, jid: str) -> dict[str, Any]:
    """``qless-py job --json``: a job, or a recurring template (``state: recur``)."""
    found = client.jobs[jid]
    if found is None:
        raise Missing(f"no such job: {jid}")
    return found.to_dict()


def failed(client: Client) -> dict[str, int]:
    """``qless-py failed --json``: failure groups with their counts."""
    return client.jobs.failed()


def failed_group(client: Client, group: str, offset: int = 0,
                 count: int = PAGE_SIZE) -> dict[str, Any]:
    """``qless-py failed GROUP --json``, with the page's offset and count."""
    page = client.jobs.failed(group, offset, count)
    if page["total"] == 0:
        raise Missing(f"no failed jobs in group {group}")
    jobs: list[Job] = page["jobs"]
    return {"group": group, "total": page["total"], "offset": offset, "count": count,
            "jobs": [found.to_dict() for found in jobs]}


def workers(client: Client) -> list[dict[str, Any]]:
    """``qless-py workers --json``."""
    return client.workers.counts


def worker(client: Client, name: str) -> dict[str, Any]:
    """``qless-py workers NAME --json``."""
    detail = client.workers[name]
    known = {str(row["name"]) for row in client.workers.counts}
    if name not in known and not detail["jobs"] and not detail["stalled"]:
        raise Missing(f"no such worker: {name}")
    return {"name": name, **detail}


def tag(client: Client, name: str, offset: int = 0, count: int = PAGE_SIZE) -> dict[str, Any]:
    """``qless-py jobs --tag NAME --json``, with the tag's name."""
    tagged = client.jobs.tagged(name, offset, count)
    if tagged["total"] == 0:
        raise Missing(f"no jobs tagged {name}")
    return {"tag": name, "jobs": rows_of(client, tagged["jobs"]), "offset": offset,
            "count": count, "total": tagged["total"]}


def recurring(client: Client) -> list[dict[str, Any]]:
    """``qless-py recur list --json``."""
    return [template.to_dict() for template in client.jobs.recurring()]


def config(client: Client) -> dict[str, Any]:
    """``qless-py config list --json``."""
    return client.config.all


def search(client: Client, text: str) -> tuple[str, str] | None:
    """Where a search leads: ``("jobs", jid)``, ``("tags", tag)``, or None."""
    text = text.strip()
    if not text:
        return None
    if client.jobs[text] is not None:
        return "jobs", text
    if client.jobs.tagged(text, 0, 1)["total"] > 0:
        return "tags", text
    return None
