"""The commands on a sharded namespace (``--shards``, ``$QLESS_SHARDS`` or the URL's
``shards=``): they see the shards as one namespace, and a count that disagrees with the
recorded one is one line before anything is written."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from qless_py import ShardedClient
from qless_py.shards import jid_on
from tests.cli.conftest import Run

SHARDED = ("--namespace", "billing", "--shards", "4")


@pytest.fixture
def sharded(server_url: str) -> Iterator[ShardedClient]:
    client = ShardedClient(server_url, namespace="billing", shards=4, worker_name="w1")
    yield client
    client.close()


def test_commands_see_the_shards_as_one_namespace(run: Run, sharded: ShardedClient) -> None:
    jids = [run(*SHARDED, "put", "q", "a.Job", '{"n": 1}', "--tag", "blue").stdout.strip()
            for _ in range(8)]
    assert all(sharded.jobs[jid] is not None for jid in jids)  # each found on its shard
    assert [row["waiting"] for row in run.json(*SHARDED, "queues")] == [8]
    tagged = run.json(*SHARDED, "jobs", "--tag", "blue", "--count", "20")
    assert tagged["total"] == 8 and {row["jid"] for row in tagged["jobs"]} == set(jids)
    shown = run.json(*SHARDED, "job", jids[5])
    assert shown["jid"] == jids[5] and shown["data"] == {"n": 1}
    run(*SHARDED, "config", "set", "heartbeat", "90")
    assert [client.config["heartbeat"] for client in sharded.clients] == [90] * 4
    for job in sharded.queues["q"].pop(8):
        job.fail("boom", "it broke")
    assert run.json(*SHARDED, "failed") == {"boom": 8}
    run(*SHARDED, "unfail", "boom", "--count", "8")
    assert run.json(*SHARDED, "failed") == {}
    assert "0 finding(s)" in run(*SHARDED, "check").stdout


def test_the_url_and_the_environment_name_the_count_too(run: Run, server_url: str,
                                                        sharded: ShardedClient) -> None:
    sep = "&" if "?" in server_url else "?"
    jid = jid_on(3, 4)
    Run(f"{server_url}{sep}namespace=billing&shards=4", run.runner)(
        "put", "q", "a.Job", "{}", "--jid", jid)
    assert sharded.jobs[jid] is not None
    found = run("--namespace", "billing", "job", jid, "--json",
                env={"QLESS_SHARDS": "4"}).stdout
    assert json.loads(found)["jid"] == jid


@pytest.mark.parametrize("args", [
    ("put", "q", "a.Job", "{}"), ("queues",), ("job", "x"), ("config", "set", "heartbeat", "5"),
])
def test_a_count_that_disagrees_is_one_line_and_writes_nothing(
        run: Run, sharded: ShardedClient, snapshot: Callable[[], dict[bytes, Any]],
        args: tuple[str, ...]) -> None:
    sharded.queues["q"].put("a.Job", {})
    before = snapshot()
    line = run.error("--namespace", "billing", "--shards", "3", *args)
    assert line == "Error: namespace 'billing' has 4 shards (recorded in " \
                   "ql:{billing}:shards), not 3"
    assert snapshot() == before


def test_bad_shard_settings_are_usage_errors(run: Run) -> None:
    assert "default namespace cannot be sharded" in run.error("--shards", "2", "queues")
    assert "invalid shard count 65" in run.error("--namespace", "b", "--shards", "65",
                                                 "queues")
    run("--namespace", "b", "--shards", "0", "queues", code=2)


def test_a_job_waiting_on_another_shard_says_which(run: Run, sharded: ShardedClient) -> None:
    first = sharded.queues["q"].put("a.Job", {}, jid=jid_on(0, 4))
    second = sharded.queues["q"].put("a.Job", {}, jid=jid_on(1, 4), depends=[first])
    shown = run(*SHARDED, "job", second).stdout
    assert f"{first} in namespace {sharded.shards.names[0]}" in shown
    assert f"{second} in namespace {sharded.shards.names[1]}" in run(*SHARDED, "job",
                                                                      first).stdout
