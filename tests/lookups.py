"""Typed look-ups for tests that know what is there: a job by jid, the job a pop leases.

``client.jobs[jid]`` may be a recurring template or None, and ``queue.pop()`` may be None;
these assert the case the test expects, so the test reads job fields without a cast.
"""

from __future__ import annotations

from qless_py import Client, Job, Queue


def get_job(client: Client, jid: str) -> Job:
    """The job ``jid``, which must exist and not be a recurring template."""
    job = client.jobs[jid]
    assert isinstance(job, Job), f"expected job {jid}, found {job!r}"
    return job


def pop_job(queue: Queue) -> Job:
    """The job one pop leases, which must be there."""
    job = queue.pop()
    assert job is not None, f"queue {queue.name} had nothing to pop"
    return job
