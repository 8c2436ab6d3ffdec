"""A database the core alone wrote has nothing to report."""

from __future__ import annotations

from tests.check.support import Db


def test_a_database_in_every_state_has_no_findings(db: Db) -> None:
    db.build()
    assert db.findings() == set()
    summary = db.client.last_check()
    assert summary is not None and summary.counts == {} and summary.keys > 20


def test_the_built_database_runs_to_its_end(db: Db) -> None:
    db.build()
    db.finish()
    assert db.findings() == set()
