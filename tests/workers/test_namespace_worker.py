"""A worker in a namespace (``--namespace``, or ``namespace=`` in the URL): it pops only
its namespace's jobs, wakes on their puts through key tracking (not at its interval), and
hears the cancel of a job it runs on its namespace's channel (sharded pub/sub where the
server has it)."""

from __future__ import annotations

import signal
from collections.abc import Callable

from qless_py import Client
from tests import jobs
from tests.workers.conftest import CliWorker, Kind, wait_for

Start = Callable[..., CliWorker]


def test_a_worker_serves_its_namespace_only_and_wakes_on_its_work(
        server_url: str, cli_worker: Start, kind: Kind) -> None:
    billing = Client(server_url, namespace="billing", worker_name="producer")
    default = Client(server_url, worker_name="producer")
    other = default.queues["q"].put(kind.jobs.Noop, {}, jid="default-job")
    worker = cli_worker("-q", "q", "--processes", "1", "--url", server_url, "--namespace",
                        "billing", "--interval", "30", *kind.args)
    wait_for(lambda: billing.workers.counts != [])  # registered: it popped once, idle now
    # the put wakes the idle worker at once (its interval is 30 s)
    jid = billing.queues["q"].put(kind.jobs.Noop, {}, jid="billing-job")
    wait_for(lambda: (job := billing.jobs[jid]) is not None and job.state == "complete",
             timeout=10)
    left = default.jobs[other]
    assert left is not None and left.state == "waiting"
    # a cancel reaches the handler of a job it runs, through the namespace's channel
    sleeper = billing.queues["q"].put(kind.jobs.Sleeper, {"seconds": 60}, jid="sleeper")
    wait_for(lambda: (job := billing.jobs[sleeper]) is not None and job.state == "running")
    wait_for(lambda: billing.redis.hget(jobs.STARTED, sleeper) is not None)
    billing.jobs.cancel(sleeper)
    wait_for(lambda: billing.redis.hget(jobs.RECORD, sleeper) == b"stopped", timeout=10)
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    assert " ERROR " not in worker.log and "Traceback" not in worker.log
    billing.close()
    default.close()
