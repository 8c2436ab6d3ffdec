"""A killed worker process: settling its jobs at once and deregistering its name.

A child killed by a signal (kill -9, the OOM killer, a segfault) can neither give its jobs
back nor deregister. Each child tells the supervisor, once its worker is built, its worker
name and where its server is (``report``, written to a pipe); when one is found killed, the
supervisor connects (only then: it makes no connection otherwise, and never imports
redis-py) and ``settle`` does what the child could not:

* every job still leased to that name spends one retry (the core's ``retry`` under the
  dead name), which is what the lock's expiry would do a lock length later: the job may be
  what killed the process (memory, a crash in native code), so it must not run for ever;
  with no retries left it fails into ``failed-retries-<queue>``. The failure message says
  which process died of what.
* a child the supervisor SIGKILLed itself, because it did not stop within the grace after
  TERM, gets its jobs given back without spending a retry: nothing says the job was at
  fault, the process was asked to stop.
* the name is deregistered, so ``qless-py workers`` no longer lists it.

A failure on the way (the server unreachable, say) is logged and leaves the remaining jobs
to their locks' expiry.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the supervisor imports the client only when a child was killed
    from qless_py import Client
    from qless_py.job import Job
    from qless_py.workers.forking import ChildWorker

log = logging.getLogger("qless_py.worker")

TIMEOUT = 2.0  # seconds per reply at most: the supervisor must get back to its children


def report(worker: ChildWorker) -> bytes:
    """What a child tells its supervisor about itself (its name, its server)."""
    endpoint = dataclasses.asdict(worker.transport.endpoint)
    return json.dumps({"name": worker.name, "url": worker.client.url,
                       "endpoint": endpoint}).encode()


def settle(info: dict[str, Any], pid: int, how: str, *, spend_retry: bool) -> None:
    """Settle the jobs of the killed child ``pid`` described by ``info`` (``report``'s
    content), then deregister its name. ``how`` says what happened to it."""
    from qless_py import Client, QlessError
    from qless_py.resp import Endpoint

    name = str(info["name"])
    endpoint = Endpoint(**info["endpoint"])
    limit = min(endpoint.timeout or TIMEOUT, TIMEOUT)
    endpoint = dataclasses.replace(endpoint, timeout=limit, connect_timeout=limit)
    client = Client(info["url"], worker_name=name)
    client.core.go_direct(endpoint)
    try:
        why = f"worker {name} (process {pid}) was {how} while it held this job"
        done = [_settle_one(client, name, job, why, spend_retry)
                for job in _leased(client, name)]
        client.workers.deregister(name)
        log.info("supervisor: worker %s (process %d, %s) deregistered; its jobs: %s", name,
                 pid, how, ", ".join(done) if done else "none")
    except QlessError as exc:
        log.error("supervisor: could not settle the jobs of worker %s (process %d, %s): %s;"
                  " they wait for their locks to expire", name, pid, how, exc)
    finally:
        client.close()


def _leased(client: Client, name: str) -> list[Job]:
    mine = client.workers[name]
    jids = [*mine.get("jobs", []), *mine.get("stalled", [])]
    jobs = client.jobs.get(*jids) if jids else []
    return [job for job in jobs if job.state == "running" and job.worker_name == name]


def _settle_one(client: Client, name: str, job: Job, why: str, spend_retry: bool) -> str:
    """Retry or give back one job of the dead worker; a word on what became of it."""
    from qless_py import CoreError
    from qless_py.workers.giveback import give_back

    if not spend_retry:
        return f"{job.jid} given back" if give_back(client, job.jid, name) \
            else f"{job.jid} no longer its own"
    try:
        left = int(client.core.call("retry", job.jid, job.queue_name, name, 0,
                                    f"failed-retries-{job.queue_name}", why))
    except CoreError:  # taken meanwhile (its lock ran out, say): not the dead worker's
        return f"{job.jid} no longer its own"
    return f"{job.jid} retried" if left >= 0 else f"{job.jid} failed (no retries left)"
