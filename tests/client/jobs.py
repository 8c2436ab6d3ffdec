"""Job classes used by client tests (imported by dotted name through ``job.klass``)."""

from __future__ import annotations

from typing import Any

from qless_py import retry


class Noop:
    """Completes at once."""

    @staticmethod
    def process(job: Any) -> None:
        job.complete()


class Mark:
    """Writes into the job data before completing; ``stage2`` advances queues."""

    @staticmethod
    def process(job: Any) -> None:
        job["seen"] = True
        job.complete()

    @staticmethod
    def stage1(job: Any) -> None:
        job["stage1"] = True
        job.complete(next="stage2")


class Boom:
    """Always raises."""

    @staticmethod
    def process(job: Any) -> None:
        raise RuntimeError("boom")


class Flaky:
    """ValueError retries, anything else fails."""

    @staticmethod
    @retry(ValueError)
    def process(job: Any) -> None:
        if "transient" in job.tags:
            raise ValueError("try again")
        raise KeyError("broken")


class NoMethod:
    """Has neither ``process`` nor a queue-named method."""
