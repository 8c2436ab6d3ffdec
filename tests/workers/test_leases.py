"""The lease registry (Leases): one entry per jid, what a second lease of a jid does;
and the heartbeat thread renewing them.

The registry decisions need no server: the Job objects here are built from job replies
and never send anything. The heartbeat tests use a real server.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from qless_py import Client, clock
from qless_py.client.job import Job
from qless_py.workers.leases import NEVER, Leases
from qless_py.workers.threaded.heartbeat import Heartbeat
from tests import jobs
from tests.workers.conftest import wait_for


def leased(jid: str = "j", queue: str = "a", expires: float | None = None) -> Job:
    """A job as a pop by worker ``w`` returns it (never used to send anything)."""
    raw = {"jid": jid, "klass": "tests.jobs.Noop", "queue": queue, "state": "running",
           "worker": "w", "expires": clock.now() + 60 if expires is None else expires}
    return Job(None, raw, worker="w")


def test_a_pop_of_a_job_whose_run_here_completed_it_into_the_next_queue_is_held() -> None:
    held: Leases[Job] = Leases()
    first = leased(queue="a")
    assert held.add(first)
    held.started(first)
    first._done("waiting")  # the handler completed it into b and goes on working
    second = leased(queue="b")
    assert held.add(second)
    entry = held.get("j")
    assert entry is not None and entry.job is second
    assert not first.stop_event.is_set()  # the earlier run finishes in peace
    assert not held.ended(first)  # its end leaves the new lease alone
    entry = held.get("j")
    assert entry is not None and entry.job is second


def test_a_pop_while_the_earlier_runs_complete_is_in_flight_or_in_doubt_is_held() -> None:
    held: Leases[Job] = Leases()
    first = leased(queue="a")
    held.add(first)
    first.settling = "complete"  # sent; no reply yet (or the connection dropped)
    second = leased(queue="a")  # a retry(delay=0) puts it back into the same queue
    assert held.add(second)
    entry = held.get("j")
    assert entry is not None and entry.job is second


def test_a_run_holding_the_job_in_the_same_queue_carries_a_lease_its_process_popped_again(
        caplog: pytest.LogCaptureFixture) -> None:
    held: Leases[Job] = Leases()
    first = leased(queue="a")
    held.add(first)
    held.started(first)
    with caplog.at_level(logging.WARNING, logger="qless_py.worker"):
        assert not held.add(leased(queue="a"))
    entry = held.get("j")
    assert entry is not None and entry.job is first
    assert "the run holding it carries the lease" in caplog.text
    assert not first.stop_event.is_set()


def test_a_pop_from_another_queue_replaces_a_run_whose_job_was_moved(
        caplog: pytest.LogCaptureFixture) -> None:
    lost: list[Any] = []
    held = Leases(on_lost=lost.append)
    first = leased(queue="a")
    held.add(first)
    held.started(first)
    second = leased(queue="elsewhere")
    with caplog.at_level(logging.WARNING, logger="qless_py.worker"):
        assert held.add(second)
    entry = held.get("j")
    assert entry is not None and entry.job is second
    assert first.stop_event.is_set() and not second.stop_event.is_set()
    assert "moved to queue 'elsewhere'" in caplog.text
    assert [h.job for h in lost] == [first]
    # the moved run is still watched: it must stop, or an isolated process ends itself
    assert [h.job for h in held.stuck_lost(0)] == [first]
    held.ended(first)
    assert held.stuck_lost(0) == []


def test_a_pop_replaces_a_lost_entry() -> None:
    held: Leases[Job] = Leases()
    first = leased()
    held.add(first)
    held.lose("j", "lock_lost")
    second = leased()
    assert held.add(second)
    entry = held.get("j")
    assert entry is not None and entry.job is second


def test_adoption_never_replaces_a_run_in_progress() -> None:
    held: Leases[Job] = Leases()
    first = leased()
    held.add(first)
    held.started(first)
    since = held.open_adoption()
    assert not held.wants("j", since)
    assert held.adopt(leased(), since) is None
    entry = held.get("j")
    assert entry is not None and entry.job is first
    assert not held.ended(first)  # nothing to look at again: that run held the lease


def test_adoption_refuses_a_job_a_run_here_settled_while_it_read_the_core() -> None:
    held: Leases[Job] = Leases()
    since = held.open_adoption()
    # the read lists the job as leased here, from before its run's complete...
    first = leased()
    held.add(first)  # ...(a pop registered after the listing was read)...
    held.started(first)
    first._done("complete")
    held.ended(first)  # ...which completed it before adoption got to it
    assert held.wants("j", since)
    assert held.adopt(leased(), since) is None
    assert held.close_adoption()  # so adoption reads the core again
    assert not held.close_adoption()
    since = held.open_adoption()
    assert held.adopt(leased(), since) is not None  # a fresh read may adopt it
    assert not held.close_adoption()


def test_adoption_looks_again_once_a_run_that_ended_its_lease_returns() -> None:
    held: Leases[Job] = Leases()
    first = leased(queue="a")
    held.add(first)
    held.started(first)
    first._done("waiting")  # completed into b; its tail is still running
    since = held.open_adoption()
    # the core lists the job under this worker again: a pop of b whose reply was lost,
    # or a read from before the complete; which one cannot be told yet
    assert held.adopt(leased(queue="b"), since) is None
    assert held.ended(first)  # so the run's end asks for another look at the core
    assert held.get("j") is None
    assert held.adopt(leased(queue="b"), held.open_adoption()) is not None


def test_an_unsettled_run_stays_held_until_adoption_read_the_core_after_it() -> None:
    held: Leases[Job] = Leases()
    first = leased()
    held.add(first)
    held.started(first)
    first.settling = "complete"
    before = held.open_adoption()
    assert held.ended(first, unsettled=True)  # adoption must look at the core
    entry = held.get("j")
    assert entry is not None and entry.unsettled_seq is not None and entry.unsettled_runs == 1
    assert entry.running_since is None
    # a listing read before the run ended is too early to decide anything
    assert not held.wants("j", before)
    assert held.adopt(leased(), before) is None
    assert held.forget_unsettled(set(), before) == []
    since = held.open_adoption()
    assert held.wants("j", since)
    again = leased()
    adopted = held.adopt(again, since)
    assert adopted is not None and adopted.job is again and adopted.unsettled_runs == 1


def test_an_unsettled_run_the_core_no_longer_lists_is_forgotten() -> None:
    held: Leases[Job] = Leases()
    first = leased()
    held.add(first)
    held.ended(first, unsettled=True)
    since = held.open_adoption()
    assert [h.job for h in held.forget_unsettled({"other"}, since)] == [first]
    assert held.get("j") is None


def test_a_pop_replaces_an_unsettled_entry_without_stopping_anything() -> None:
    held: Leases[Job] = Leases()
    first = leased(queue="a")
    held.add(first)
    held.ended(first, unsettled=True)  # a read failed on the connection: lease still open
    second = leased(queue="a")
    assert held.add(second)
    entry = held.get("j")
    assert entry is not None and entry.job is second and entry.unsettled_seq is None
    assert not first.stop_event.is_set()


def test_a_notice_for_an_unsettled_entry_drops_it_quietly() -> None:
    held: Leases[Job] = Leases()
    first = leased()
    held.add(first)
    held.ended(first, unsettled=True)
    assert held.lose("j", "canceled") is None
    assert held.get("j") is None and not first.stop_event.is_set()


# -- heartbeats, on a real server ----------------------------------------------------------
def popped(client: Client, queue: str = "q") -> Job:
    job = client.queues[queue].pop(worker="w")
    assert job is not None
    job.expires_at = clock.now()  # beat within MIN_BEAT
    return job


def test_a_refused_heartbeat_does_not_stop_a_handler_whose_complete_is_in_doubt(
        client: Client) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="j")
    job = popped(client)
    # the handler's complete ran but its reply was lost: the job is no longer leased
    assert Job(client, {"jid": "j", "klass": "x", "queue": "q"}, worker="w").complete()
    job.settling = "complete"
    held: Leases[Job] = Leases()
    held.add(job)
    held.started(job)
    beats = Heartbeat(held)
    beats.start()
    try:
        entry = held.get("j")
        assert entry is not None
        wait_for(lambda: entry.next_beat == NEVER)
        assert not job.stop_event.is_set() and entry.lost_at is None
    finally:
        beats.stop()


def test_a_refused_heartbeat_of_a_held_job_stops_it(client: Client) -> None:
    client.queues["q"].put(jobs.Noop, {}, jid="j")
    job = popped(client)
    client.core.call("timeout", "j")
    lost: list[Any] = []
    held = Leases(on_lost=lost.append)
    held.add(job)
    beats = Heartbeat(held)
    beats.start()
    try:
        # the job is told to stop first, then the callback runs: wait for the callback
        wait_for(lambda: bool(lost))
        assert job.stop_event.is_set()
        assert [h.job for h in lost] == [job]
    finally:
        beats.stop()


def test_an_unsettled_entry_is_heartbeated_and_dropped_once_the_core_refuses(
        client: Client) -> None:
    client.config["heartbeat"] = 1  # a beat every third of a second
    client.queues["q"].put(jobs.Noop, {}, jid="j")
    job = popped(client)
    stale = job.expires_at
    held: Leases[Job] = Leases()
    held.add(job)
    held.ended(job, unsettled=True)
    beats = Heartbeat(held)
    beats.start()
    try:
        wait_for(lambda: job.expires_at > stale)  # beaten: the lease lives on meanwhile
        assert held.get("j") is not None
        client.core.call("timeout", "j")  # now the core says it is not this worker's
        wait_for(lambda: held.get("j") is None)
        assert not job.stop_event.is_set()
    finally:
        beats.stop()
