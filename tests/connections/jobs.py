"""Job classes for the connection tests (importable as ``tests.connections.jobs.<Class>``)."""

from __future__ import annotations

import time
from typing import Any

from qless_py import QlessConnectionError


class Stage:
    """A two-stage pipeline: a job in queue ``one`` puts its follow-up (its jid plus
    ``-2``) into queue ``two``. The put is repeated through a failover, as a job that
    must not lose its follow-up would do; with a fixed jid, a repeat changes nothing."""

    @staticmethod
    def process(job: Any) -> None:
        time.sleep(float(job.data.get("seconds", 0)))
        if job.queue_name != "one":
            return
        while True:
            try:
                job.client.queues["two"].put("tests.connections.jobs.Stage", job.data,
                                             jid=f"{job.jid}-2")
                return
            except QlessConnectionError:
                if job.stop_event.wait(0.1):
                    raise
