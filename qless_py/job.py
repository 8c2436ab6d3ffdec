"""A documented import path (``qless_py.job.retry``, ``qless_py.job.Job``; see
docs/workers.md and docs/client.md), kept for users: the sync job lives in
:mod:`qless_py.client.job`."""

from qless_py.client.job import Failure, Job, retry

__all__ = ["Failure", "Job", "retry"]
