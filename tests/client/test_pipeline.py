"""The multi-stage pipeline of docs/client.md: fetch -> parse, and a fan-in report job."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from qless_py import Client, Job
from tests.lookups import get_job, pop_job


@pytest.fixture
def client(sync_client: Client) -> Client:
    """Job.process() is the sync client's."""
    return sync_client


@pytest.fixture
def other(server_url: str) -> Iterator[Client]:
    c = Client(server_url, worker_name="other")
    yield c
    c.close()


class Page:
    """One class, one method per queue the job passes through."""

    @staticmethod
    def fetch(job: Any) -> None:
        job["body"] = f"page {job['url']} has words"
        job.complete(next="parse")

    @staticmethod
    def parse(job: Any) -> None:
        job["words"] = len(job["body"].split())
        job.complete()


class Report:
    @staticmethod
    def process(job: Any) -> None:
        pages = job.client.jobs.get(*job["pages"])
        job["total"] = sum(page["words"] for page in pages)
        job.complete()


def test_two_stages_and_a_fan_in(client: Client) -> None:
    fetch = client.queues["fetch"]
    pages = [fetch.put(f"{__name__}.Page", {"url": u}) for u in ("a", "b", "c")]
    report = client.queues["report"].put(f"{__name__}.Report", {"pages": pages},
                                         depends=pages)
    assert get_job(client, report).state == "depends"
    assert client.queues["report"].pop() is None

    for _ in pages:
        pop_job(client.queues["fetch"]).process()
    # Advanced, not completed: the report still waits.
    assert get_job(client, report).state == "depends"
    assert sorted(j.jid for j in client.queues["parse"].peek(10)) == sorted(pages)

    pop_job(client.queues["parse"]).process()
    pop_job(client.queues["parse"]).process()
    assert client.queues["report"].pop() is None  # one page left
    pop_job(client.queues["parse"]).process()

    job = client.queues["report"].pop()
    assert job is not None and job.jid == report
    job.process()
    done = client.jobs[report]
    assert isinstance(done, Job) and done.state == "complete"
    assert done.data["total"] == 3 * 4
