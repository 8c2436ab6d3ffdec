"""A database in every state the core knows, built through the core (EVALSHA with
explicit ``now``), the check's findings as sets, and a pipeline that runs what is left to
its end."""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from qless_py import Client

Seen = set[tuple[str, str, str]]


class Db:
    """The core on a test server, and the client whose check is under test."""

    def __init__(self, conn: redis.Redis, source: bytes, client: Client) -> None:
        self.conn, self.client = conn, client
        self.sha = conn.script_load(source)
        # the check and its repairs run on the client's clock (real time): build near it
        self.now = time.time()

    def __call__(self, command: str, *args: Any, now: float | None = None) -> Any:
        return self.conn.evalsha(self.sha, 0, command, self.now if now is None else now, *args)

    def put(self, queue: str, jid: str, *opts: Any, delay: float = 0) -> None:
        self("put", "w0", queue, jid, "tests.jobs.Noop", "{}", delay, *opts)

    def pop(self, queue: str, worker: str = "w1", count: int = 1) -> list[str]:
        reply = json.loads(self("pop", queue, worker, count))
        return [job["jid"] for job in reply] if isinstance(reply, list) else []

    def build(self) -> None:
        """Jobs in every state, with tags, tracking, dependencies, a throttle, an ordering
        key, a ttl and a recurring template."""
        self.put("q", "a1", "tags", '["t1"]')
        self.put("q", "a2", "tags", '["t1", "t2"]')
        self("track", "track", "a1")
        self.put("q", "s1", delay=100)
        self.put("q", "d1", "depends", '["a1"]')
        self.put("r", "r1")
        assert self.pop("r") == ["r1"]
        self("throttle.set", "T", 1)
        self.put("tq", "t1", "throttles", '["T"]')
        self.put("tq", "t2", "throttles", '["T"]')
        assert self.pop("tq") == ["t1"]
        self.put("kq", "k1", "key", "K")
        self.put("kq", "k2", "key", "K")
        self.put("fq", "f1")
        assert self.pop("fq") == ["f1"]
        self("fail", "f1", "w1", "g", "boom")
        self.put("cq", "c1")
        assert self.pop("cq") == ["c1"]
        self("complete", "c1", "w1", "cq", "{}")
        self.put("eq", "e1", "ttl", 100000)
        self.put("sq", "x1")
        assert self.pop("sq") == ["x1"]
        self("timeout", "x1")
        self("recur", "rq", "rt", "tests.jobs.Noop", "{}", "interval", 3600, 0)

    def findings(self) -> Seen:
        report = self.client.check(budget=7)
        return {(f.invariant, f.key, f.member) for f in report.findings}

    def state(self, jid: str) -> str | None:
        value = self.conn.hget(f"ql:j:{jid}", "state")
        return value.decode() if isinstance(value, bytes) else value

    def finish(self) -> None:
        """Run every job there is to its end: failed groups put back, time moved on past
        delays, lock expiries and grace periods, each queue popped and completed."""
        for group in json.loads(self("failed")):
            self("unfail", "q", group, 1000)
        self("throttle.set", "T", 0)
        now = self.now
        for _ in range(30):
            now += 100
            moved = 0
            for row in json.loads(self("queues", now=now)):
                queue = row["name"]
                reply = json.loads(self("pop", queue, "fin", 100, now=now))
                for job in reply if isinstance(reply, list) else []:
                    self("complete", job["jid"], "fin", job["queue"], "{}", now=now)
                    moved += 1
            if not moved and all(self.state(j) in ("complete", None) for j in self.jids()):
                return
        raise AssertionError(f"jobs left unfinished: {self.unfinished()}")

    def jids(self) -> list[str]:
        return [k.decode()[5:] for k in self.conn.scan_iter("ql:j:*")
                if self.conn.type(k) == b"hash"]

    def unfinished(self) -> dict[str, str | None]:
        return {j: self.state(j) for j in self.jids() if self.state(j) != "complete"}
