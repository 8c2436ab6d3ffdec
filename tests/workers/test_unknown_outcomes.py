"""A core call that a handler makes and the connection loses never fails its job.

Each case loses exactly one call of the handler's first run (tests/workers/fault_jobs.py:
its reply never comes, or the server drops it unrun) and checks the job's fate against the
table in docs/workers.md: what ran took effect once, what did not run is run again, and
nothing is failed that the handler did not fail itself. Each runs in the threaded worker
and in the asyncio worker (whose thread pool runs these plain-function handlers, while
its loop heartbeats, settles and adopts).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest

from qless_py import Client, Job
from qless_py.workers import Worker
from qless_py.workers.aio import AsyncWorker
from tests.replies import text
from tests.workers.fault_jobs import LEFT, RUNS

WORKERS = {"threads": Worker, "async": AsyncWorker}


@dataclass(frozen=True)
class Case:
    fault: str  # reply-lost: the call ran; not-run: it did not
    call: str
    then: str  # what the handler did with the error
    state: str | None  # the job's final state (None: it no longer exists)
    runs_a: int  # handler runs in queue a (1: not run again)
    runs_b: int = 0
    retry_spent: bool = False  # the second run in a started with one retry fewer
    group: str | None = None  # failure group, if the handler chose to fail it
    log: str = "may or may not have run"
    dones: int = 1  # "done" entries in the job's history: one per stage completed

    @property
    def id(self) -> str:
        return f"{self.call}-{self.fault}-{self.then}"


AGAIN = "after a core call failed on the connection"
CASES = [
    Case("reply-lost", "complete", "raise", "complete", 1),
    Case("not-run", "complete", "raise", "complete", 2),
    Case("not-run", "complete", "wrap", "complete", 2),
    Case("reply-lost", "complete-next", "raise", "complete", 1, 1, dones=2),
    Case("not-run", "complete-next", "raise", "complete", 2, 1, dones=2),
    Case("reply-lost", "complete-next", "swallow", "complete", 1, 1, dones=2),
    Case("reply-lost", "fail", "raise", "failed", 1, group="chosen", dones=0),
    Case("not-run", "fail", "raise", "complete", 2),  # the rerun returns
    Case("reply-lost", "retry", "raise", "complete", 2, retry_spent=True),
    Case("not-run", "retry", "raise", "complete", 2),
    Case("reply-lost", "move", "raise", "complete", 1, 1),
    Case("not-run", "move", "raise", "complete", 2),
    Case("reply-lost", "timeout", "raise", "complete", 2),  # stalled, then popped again
    Case("not-run", "timeout", "raise", "complete", 2),
    Case("reply-lost", "cancel", "raise", None, 1),
    Case("not-run", "cancel", "raise", "complete", 2),
    Case("reply-lost", "heartbeat", "raise", "complete", 2, log=AGAIN),
    Case("not-run", "heartbeat", "raise", "complete", 2, log=AGAIN),
    Case("reply-lost", "put-other", "raise", "complete", 2, log=AGAIN),
    Case("not-run", "put-other", "raise", "complete", 2, log=AGAIN),
    Case("reply-lost", "tag", "raise", "complete", 2, log=AGAIN),
    Case("reply-lost", "log", "swallow", "complete", 2, log=AGAIN),
    Case("not-run", "read", "raise", "complete", 2, log=AGAIN),
]


@pytest.mark.parametrize("kind", list(WORKERS))
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_call_lost_to_the_connection_never_fails_the_job(
        server_url: str, client: Client, case: Case, caplog: pytest.LogCaptureFixture,
        kind: str) -> None:
    jid = client.queues["a"].put("tests.workers.fault_jobs.Faulty",
                                 {"fault": case.fault, "call": case.call, "then": case.then},
                                 jid="j", retries=3)
    # a short timeout: the lost reply shows as an error at once
    worker = WORKERS[kind](Client(server_url, worker_name="w", socket_timeout=0.3),
                           ["a", "b"], burst=True, handle_signals=False, interval=0.2)
    with caplog.at_level(logging.INFO, logger="qless_py.worker"):
        assert worker.run() == Worker.EXIT_DONE
    worker.client.close()
    runs = {text(k): int(v) for k, v in client.redis.hgetall(RUNS).items()}
    assert runs.get("j:a", 0) == case.runs_a, runs
    assert runs.get("j:b", 0) == case.runs_b, runs
    left = {text(k): int(v) for k, v in client.redis.hgetall(LEFT).items()}
    assert left["j:a:1"] == 3
    if case.runs_a > 1:
        assert left["j:a:2"] == (2 if case.retry_spent else 3)  # adoption spends none
    job = client.jobs[jid]
    if case.state is None:
        assert job is None
    else:
        assert isinstance(job, Job) and job.state == case.state
        failures = client.jobs.failed()
        assert failures == ({case.group: 1} if case.group else {})
        stages = sum(1 for entry in job.history if entry.get("what") == "done")
        assert stages == case.dones
    assert case.log in caplog.text
    if case.call == "put-other":  # the rerun does not put it again
        child = client.jobs[f"{jid}-child"]
        assert (child is not None) == (case.fault == "reply-lost")
    assert client.queues["a"].counts["running"] == 0


def test_a_handler_that_raises_after_finishing_its_job_leaves_it_as_it_is(
        server_url: str, client: Client, caplog: pytest.LogCaptureFixture) -> None:
    jid = client.queues["a"].put("tests.workers.fault_jobs.CompletesThenRaises", {}, jid="j")
    worker = Worker(Client(server_url, worker_name="w"), ["a", "b"], threads=2, burst=True,
                    handle_signals=False)
    with caplog.at_level(logging.INFO, logger="qless_py.worker"):
        assert worker.run() == Worker.EXIT_DONE
    worker.client.close()
    job = client.jobs[jid]
    assert isinstance(job, Job) and job.state == "complete"
    assert client.jobs.failed() == {}
    assert sum(1 for entry in job.history if entry.get("what") == "done") == 2
    assert "after its handler had made it waiting; it stays waiting" in caplog.text
