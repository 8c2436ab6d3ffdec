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

A server that cannot answer yet (restarting and loading its data, failing over, out of
memory, out of reach) does not end it: ``Settlement`` tries again with backoff, from
0.1 s up to 2 s, until the server answers, for at most ``PATIENCE`` seconds (the core's
default lock length: after that the locks have run out and lock expiry has done the same
work). It logs one WARNING when it first has to wait, and one INFO line when the jobs are
finally settled. Meanwhile the supervisor does not restart the dead child's slot, so a
replacement that takes the same ``--name`` cannot adopt jobs that are about to be retried.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from qless_py.workers.outage import reason

if TYPE_CHECKING:  # the supervisor imports the client only when a child was killed
    from qless_py import Client
    from qless_py.client.job import Job
    from qless_py.workers.forking import ChildWorker

log = logging.getLogger("qless_py.worker")

TIMEOUT = 2.0  # seconds per reply at most: the supervisor must get back to its children


def report(worker: ChildWorker) -> bytes:
    """What a child tells its supervisor about itself: its name, and each namespace's
    server (``parts``; the first one's also as ``url`` and ``endpoint``)."""
    parts = [{"url": part.client.url, "endpoint": dataclasses.asdict(part.transport.endpoint)}
             for part in worker.parts]
    return json.dumps({"name": worker.name, **parts[0], "parts": parts}).encode()


PATIENCE = 60.0  # seconds a settlement waits for the server at most (the default lock)


class Settlement:
    """The settling of one killed child's jobs: ``attempt()`` until it returns True.

    ``info`` is ``report``'s content, ``pid`` the dead process, ``how`` what happened to
    it; ``spend_retry`` False gives the jobs back instead of retrying them."""

    def __init__(self, info: dict[str, Any], pid: int, how: str, *, spend_retry: bool,
                 patience: float = PATIENCE) -> None:
        self.info, self.pid, self.how, self.spend_retry = info, pid, how, spend_retry
        self.name = str(info["name"])
        # each namespace's server, until its jobs are settled there
        self.left: list[dict[str, Any]] = list(info.get("parts") or [info])
        self.several = len(self.left) > 1
        self.started = time.monotonic()
        self.deadline = self.started + patience
        self.next_at = self.started  # when to attempt next (monotonic)
        self.backoff = 0.0
        self.waited = False  # an attempt failed because the server could not answer

    def attempt(self) -> bool:
        """Settle the jobs now if the server answers: True when done (settled, refused,
        or given up at the deadline), False to be attempted again at ``next_at``. A worker
        of several namespaces has its jobs settled and its name deregistered in each, one
        after the other; a namespace done is not attempted again."""
        while self.left:
            part = self.left[0]
            what = f"worker {self.name} (process {self.pid}, {self.how})"
            if self.several:
                what += f" in namespace {part['endpoint'].get('namespace')}"
            if not self._attempt(part, what):
                return False
            self.left.pop(0)
        return True

    def _attempt(self, part: dict[str, Any], what: str) -> bool:
        """Settle the jobs in one namespace (``part``: its server): see ``attempt``."""
        from qless_py import QlessConnectionError, QlessError

        try:
            done = _settle({"name": self.name, **part}, self.pid, self.how, self.spend_retry)
        except QlessConnectionError as exc:
            now = time.monotonic()
            if now >= self.deadline:
                log.error("supervisor: could not settle the jobs of %s: %s; they wait for their "
                          "locks to expire", what, reason(exc))
                return True
            if not self.waited:
                log.warning("supervisor: cannot settle the jobs of %s yet: %s; retrying "
                            "with backoff until the server answers (for up to %.0fs)", what,
                            reason(exc), self.deadline - now)
                self.waited = True
            self.backoff = min(max(self.backoff * 2, 0.1), 2.0)
            self.next_at = min(now + self.backoff, self.deadline)
            return False
        except QlessError as exc:
            log.error("supervisor: could not settle the jobs of %s: %s; they wait for their "
                      "locks to expire", what, reason(exc))
            return True
        after = (f" (after {time.monotonic() - self.started:.1f}s, once the server answered)"
                 if self.waited else "")
        log.info("supervisor: %s deregistered%s; its jobs: %s", what, after,
                 ", ".join(done) if done else "none")
        return True


def settle(info: dict[str, Any], pid: int, how: str, *, spend_retry: bool) -> None:
    """Settle the jobs of the killed child ``pid`` now, in one attempt (a server that
    cannot answer leaves them to their locks); the supervisor uses ``Settlement``."""
    Settlement(info, pid, how, spend_retry=spend_retry, patience=0.0).attempt()


def _settle(info: dict[str, Any], pid: int, how: str, spend_retry: bool) -> list[str]:
    """Retry or give back the jobs still leased to the dead worker, then deregister its
    name: a word on each job. Raises what the client raises."""
    from qless_py import Client
    from qless_py.connect.resp import Endpoint

    name = str(info["name"])
    endpoint = Endpoint(**info["endpoint"])
    limit = min(endpoint.timeout or TIMEOUT, TIMEOUT)
    endpoint = dataclasses.replace(endpoint, timeout=limit, connect_timeout=limit)
    client = Client(info["url"], worker_name=name, namespace=endpoint.namespace)
    client.core.go_direct(endpoint)
    try:
        why = f"worker {name} (process {pid}) was {how} while it held this job"
        done = [_settle_one(client, name, job, why, spend_retry)
                for job in _leased(client, name)]
        client.workers.deregister(name)
        return done
    finally:
        client.close()


def _leased(client: Client, name: str) -> list[Job]:
    from qless_py.calls.worker import listed_steps
    from qless_py.job import Job

    return [Job(client, raw) for raw in client.core.run(listed_steps(name))]


def _settle_one(client: Client, name: str, job: Job, why: str, spend_retry: bool) -> str:
    """Retry or give back one job of the dead worker; a word on what became of it."""
    from qless_py import CoreError
    from qless_py.calls.worker import giveback_call

    if not spend_retry:
        return f"{job.jid} given back" if client.core.send(giveback_call(job.jid, name)) \
            else f"{job.jid} no longer its own"
    try:
        left = client.core.send(job._retry_call(0, f"failed-retries-{job.queue_name}", why))
    except CoreError:  # taken meanwhile (its lock ran out, say): not the dead worker's
        return f"{job.jid} no longer its own"
    return f"{job.jid} retried" if left >= 0 else f"{job.jid} failed (no retries left)"
