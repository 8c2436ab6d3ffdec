"""Failure groups back to work, without the sending: every job of a group retried or
canceled in bounded batches, as :data:`~qless_py.calls.Steps` that both clients drive
(``client.jobs.retry_group`` / ``cancel_group``).

Each batch is one round trip of at most ``batch`` core calls, so neither a huge group nor a
slow server makes one script run long. Both stop after as many jobs as the group held
when they started, so jobs that fail meanwhile are left for the next call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qless_py.calls.base import Batch, Call, Steps
from qless_py.calls.client import unfail_call
from qless_py.calls.core import pack_call
from qless_py.errors import QlessError

if TYPE_CHECKING:
    from qless_py.calls.client import JobsBase
    from qless_py.calls.job import JobBase

DEFAULT_BATCH = 100


@dataclass(slots=True)
class GroupResult:
    """What a whole-group action did: jobs done, jobs the core refused, the first refusals."""

    done: int = 0
    refused: int = 0
    errors: list[str] = field(default_factory=list)

    def refuse(self, error: QlessError) -> None:
        self.refused += 1
        if len(self.errors) < 5:
            self.errors.append(str(error))

    def count(self, results: list[Any]) -> None:
        """Count a batch's results: a refused command's result is its error."""
        for result in results:
            if isinstance(result, QlessError):
                self.refuse(result)  # its job stays in the group
            else:
                self.done += 1


class NotFailedError(QlessError, ValueError):
    """A retry asked for a job that is not failed (or has no queue to go back to)."""


def check_retry(job: JobBase) -> None:
    """Refuse to retry a job that is not failed or has no queue to go back to."""
    if job.state != "failed":
        raise NotFailedError(f"job {job.jid} is not failed (state: {job.state})")
    if not job.queue_name:
        raise NotFailedError(f"job {job.jid} has no queue to go back to")


def _check_batch(batch: int) -> None:
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError("batch must be a positive whole number")


def _group_size(group: str) -> Call[int]:
    """How many jobs failure ``group`` holds now."""
    return ("failed", (), lambda reply: int(json.loads(reply).get(group, 0)))


def _results(results: list[Any]) -> list[Any]:
    return results


def retry_group_steps(jobs: JobsBase[Any, Any], group: str, batch: int) -> Steps[GroupResult]:
    """Put every job of failure ``group`` back into the queue it failed in, oldest first,
    ``batch`` jobs per round trip: a batch whose jobs all failed in one queue goes back
    with one ``unfail``; a mixed batch job by job, as a retry of one job does."""
    _check_batch(batch)
    total = yield _group_size(group)
    result = GroupResult()
    while result.done + result.refused < total:
        count = min(batch, total - result.done - result.refused)
        length = yield _group_size(group)
        # The oldest jobs (the group lists the newest first), less the refused ones, which
        # stay at the old end.
        start = max(0, length - result.refused - count)
        page = yield from jobs._failed_steps(group, start, count)
        found: list[JobBase] = page["jobs"]
        if not found:
            break
        queues = {job.queue_name for job in found}
        if result.refused == 0 and start == length - count and len(queues) == 1 \
                and "" not in queues:
            moved: int = yield unfail_call(group, queues.pop(), count)
            result.done += moved
            total -= count - moved  # jids whose job was gone: unfail drops them
            continue
        puts = [pack_call("put", (job.acting_worker, job.queue_name, job.jid, job.klass_name,
                                  job.encoded_data(), 0)) for job in found]
        result.count((yield Batch(puts, _results)))
    return result


def cancel_group_steps(jobs: JobsBase[Any, Any], group: str, batch: int) -> Steps[GroupResult]:
    """Cancel every job of failure ``group``, ``batch`` jobs per core call.

    The core refuses to cancel a job whose dependents are not canceled with it; when it
    refuses a batch, that batch's jobs are canceled one by one and the refused ones stay.
    """
    _check_batch(batch)
    total = yield _group_size(group)
    result = GroupResult()
    while result.done + result.refused < total:
        page = yield from jobs._failed_steps(group, result.refused,
                                             min(batch, total - result.done))
        jids = [job.jid for job in page["jobs"]]
        if not jids:
            break
        # a batch of one call: a refusal comes back as a result instead of being raised
        (whole,) = yield Batch([pack_call("cancel", jids)], _results)
        if not isinstance(whole, QlessError):
            result.done += len(jids)
            continue
        result.count((yield Batch([pack_call("cancel", (jid,)) for jid in jids], _results)))
    return result
