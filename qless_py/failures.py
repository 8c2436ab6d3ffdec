"""Failed jobs back to work: one job (``retry_job``), or every job of a failure group
(``client.jobs.retry_group`` / ``cancel_group``, whose logic is
:mod:`qless_py.calls.failures`)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, overload

from qless_py.calls.failures import DEFAULT_BATCH, GroupResult, NotFailedError, check_retry

if TYPE_CHECKING:
    from qless_py.aio.job import Job as AsyncJob
    from qless_py.client.job import Job

__all__ = ["DEFAULT_BATCH", "GroupResult", "NotFailedError", "retry_job"]


@overload
def retry_job(job: Job) -> str: ...
@overload
def retry_job(job: AsyncJob) -> Awaitable[str]: ...
def retry_job(job: Job | AsyncJob) -> str | Awaitable[str]:
    """Put a failed job back into the queue it failed in (:class:`NotFailedError` if it is
    not failed, before anything is sent). With an async job, await the result."""
    check_retry(job)
    return job.move(job.queue_name)
