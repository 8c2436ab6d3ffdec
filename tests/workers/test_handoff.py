"""The hand-off race: a job completed into the next queue and popped again by another
thread of the same process (or, in the asyncio worker, by its popper) while its first
handler is still working keeps its lease.

A dropped lease shows as a ``timed-out`` entry in the job's history once its lock runs
out; the lock is 3 s here (short, yet far beyond any stall of a loaded machine), so a
dropped lease shows within the test's time.
"""

from __future__ import annotations

import threading
import time

import pytest

from qless_py import Client
from qless_py.workers import Worker
from qless_py.workers.aio import AsyncWorker
from tests.workers.conftest import Kind, wait_for


def timed_out(client: Client, jids: list[str]) -> list[str]:
    """The jids whose history shows a lock that ran out."""
    return [job.jid for job in client.jobs.get(*jids)
            if any(entry.get("what") == "timed-out" for entry in job.history)]


@pytest.mark.parametrize(("tail_ms", "gap_ms", "count"), [(0.5, 5, 100), (5, 5, 100),
                                                          (50, 20, 50)])
def test_a_job_handed_to_the_next_queue_keeps_its_lease(
        server_url: str, client: Client, tail_ms: float, gap_ms: float, count: int,
        kind: Kind) -> None:
    client.config["heartbeat"] = 3
    client.config["grace-period"] = 0
    mine = Client(server_url, worker_name="w")
    worker: Worker | AsyncWorker = (
        Worker(mine, ["a", "b"], threads=4, interval=0.5, handle_signals=False)
        if kind.name == "threads" else
        AsyncWorker(mine, ["a", "b"], concurrency=4, interval=0.5, handle_signals=False))
    handoff = kind.jobs.Handoff
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        jids = []
        for i in range(count):  # a trickle: threads are idle when the job reaches b
            jids.append(client.queues["a"].put(handoff, {"tail": tail_ms / 1000}, jid=f"j{i}"))
            time.sleep(gap_ms / 1000)
        wait_for(lambda: all(j.state == "complete" for j in client.jobs.get(*jids)),
                 timeout=30)
    finally:
        worker.stop("now")
        thread.join(10)
        worker.client.close()
    assert timed_out(client, jids) == []
    for job in client.jobs.get(*jids):
        assert [e["what"] for e in job.history].count("done") == 2
