"""``qless-py check``: nothing to say on a healthy database, one line per finding and exit
1 on a damaged one, ``--repair`` mends it, ``--json``, and a bad ``--resume`` token is one
readable line that writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis

from qless_py import Client
from tests.cli.conftest import Run


def _damaged(client: Client, conn: redis.Redis) -> None:
    client.queues["q"].put("tests.jobs.Noop", {}, jid="a", tags=["t"])
    client.queues["q"].put("tests.jobs.Noop", {}, jid="b")
    conn.delete("ql:t:t")


def test_a_healthy_database_checks_clean(run: Run, client: Client) -> None:
    client.queues["q"].put("tests.jobs.Noop", {}, jid="a")
    out = run("check").stdout
    assert out.strip().endswith("0 finding(s)")


def test_findings_are_one_line_each_and_exit_1(run: Run, client: Client,
                                              redis_conn: redis.Redis) -> None:
    _damaged(client, redis_conn)
    result = run("check", code=1)
    lines = result.stdout.strip().splitlines()
    assert lines[0] == ("tag-unindexed: ql:j:a [t]: tagged t but not in ql:t:t; "
                        "repair: add it to ql:t:t")
    assert lines[-1].endswith("1 finding(s)")


def test_repair_mends_and_json_reports(run: Run, client: Client,
                                       redis_conn: redis.Redis) -> None:
    _damaged(client, redis_conn)
    out = run.json("check", "--repair")
    assert out["repaired"] == 1 and out["counts"] == {"tag-unindexed": 1}
    assert out["findings"][0]["key"] == "ql:j:a"
    assert run.json("check")["findings"] == []


def test_a_bad_resume_token_is_one_line_and_writes_nothing(
        run: Run, client: Client, snapshot: Callable[[], dict[bytes, Any]]) -> None:
    client.queues["q"].put("tests.jobs.Noop", {}, jid="a")
    before = snapshot()
    assert "not a check token" in run.error("check", "--resume", "!!nope!!")
    assert "not a check token" in run.error("check", "--resume", "e30")  # '{}' in base64
    assert snapshot() == before
