"""Failed jobs back to work: one job, or every job of a failure group in bounded batches.

Each batch is one round trip of at most ``batch`` core calls, so neither a huge group nor a
slow server makes one script run long. Both stop after as many jobs as the group held
when they started, so jobs that fail meanwhile are left for the next call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qless_py.errors import QlessError

if TYPE_CHECKING:
    from qless_py.client import Client
    from qless_py.job import Job

DEFAULT_BATCH = 100


@dataclass(slots=True)
class GroupResult:
    """What a whole-group action did: jobs done, jobs the core refused, the first refusal."""

    done: int = 0
    refused: int = 0
    errors: list[str] = field(default_factory=list)

    def refuse(self, error: QlessError) -> None:
        self.refused += 1
        if len(self.errors) < 5:
            self.errors.append(str(error))


class NotFailedError(QlessError, ValueError):
    """A retry asked for a job that is not failed (or has no queue to go back to)."""


def retry_job(job: Job) -> None:
    """Put a failed job back into the queue it failed in (``qless-py retry``)."""
    if job.state != "failed":
        raise NotFailedError(f"job {job.jid} is not failed (state: {job.state})")
    if not job.queue_name:
        raise NotFailedError(f"job {job.jid} has no queue to go back to")
    job.move(job.queue_name)


def _check_batch(batch: int) -> None:
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError("batch must be a positive whole number")


def _page(client: Client, group: str, offset: int, count: int) -> list[Job]:
    found: list[Job] = client.jobs.failed(group, offset, count)["jobs"]
    return found


def retry_group(client: Client, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
    """Put every job of failure ``group`` back into the queue it failed in, oldest first,
    ``batch`` jobs per round trip: a batch whose jobs all failed in one queue goes back
    with one ``unfail``; a mixed batch job by job, as ``qless-py retry`` does for one."""
    _check_batch(batch)
    total = client.jobs.failed().get(group, 0)
    result = GroupResult()
    while result.done + result.refused < total:
        count = min(batch, total - result.done - result.refused)
        length = client.jobs.failed().get(group, 0)
        # The oldest jobs, less the refused ones, which stay at the old end.
        start = max(0, length - result.refused - count)
        jobs = _page(client, group, start, count)
        if not jobs:
            break
        queues = {job.queue_name for job in jobs}
        if result.refused == 0 and start == length - count and len(queues) == 1 \
                and "" not in queues:
            moved = client.unfail(group, queues.pop(), count)
            result.done += moved
            total -= count - moved  # jids whose job was gone: unfail drops them
            continue
        calls = [("put", job.acting_worker, job.queue_name, job.jid, job.klass_name,
                  job.encoded_data(), 0) for job in jobs]
        for reply in client.core.call_many(calls):
            if isinstance(reply, QlessError):
                result.refuse(reply)  # it stays in the group: later pages skip past it
            else:
                result.done += 1
    return result


def cancel_group(client: Client, group: str, batch: int = DEFAULT_BATCH) -> GroupResult:
    """Cancel every job of failure ``group``, ``batch`` jobs per core call.

    The core refuses to cancel a job whose dependents are not cancelled with it; when it
    refuses a batch, that batch's jobs are cancelled one by one and the refused ones stay.
    """
    _check_batch(batch)
    total = client.jobs.failed().get(group, 0)
    result = GroupResult()
    while result.done + result.refused < total:
        jobs = _page(client, group, result.refused, min(batch, total - result.done))
        if not jobs:
            break
        jids = [job.jid for job in jobs]
        try:
            client.jobs.cancel(*jids)
            result.done += len(jids)
            continue
        except QlessError:
            pass
        for reply in client.core.call_many([("cancel", jid) for jid in jids]):
            if isinstance(reply, QlessError):
                result.refuse(reply)
            else:
                result.done += 1
    return result
