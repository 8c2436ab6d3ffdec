"""The contract of qless_py.calls.reads, without a server: plain read-only commands on
``ql:`` keys, and replies read the same whether raw (bytes) or parsed by redis-py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from qless_py.calls import reads

READ_ONLY = {"ZREVRANGE", "ZSCORE", "SCAN"}


def _run(read: reads.Reads[Any], replies: Iterator[Any]) -> tuple[Any, list[tuple[Any, ...]]]:
    sent: list[tuple[Any, ...]] = []
    try:
        command = next(read)
        while True:
            sent.append(command)
            command = read.send(next(replies))
    except StopIteration as done:
        return done.value, sent


def _check(sent: list[tuple[Any, ...]]) -> None:
    for command in sent:
        assert command[0] in READ_ONLY
        named = [arg for arg in command[1:] if isinstance(arg, str) and ":" in arg]
        assert named and all(name.startswith("ql:") for name in named)


def test_waiting_is_a_page_of_the_work_set() -> None:
    value, sent = _run(reads.queue_waiting("q", 5, 3), iter([[b"a", "b"]]))
    assert value == ["a", "b"]
    assert sent == [("ZREVRANGE", "ql:q:q-work", 5, 7)]
    _check(sent)
    assert _run(reads.queue_waiting("q", 0, 0), iter([])) == ([], [])
    with pytest.raises(ValueError, match=">= 0"):
        _run(reads.queue_waiting("q", -1, 3), iter([]))


@pytest.mark.parametrize("score", [b"1700000000.5", 1700000000.5])
def test_next_spawn_reads_raw_and_parsed_scores(score: Any) -> None:
    value, sent = _run(reads.recurring_next("q", "r"), iter([score]))
    assert value == 1700000000.5 and sent == [("ZSCORE", "ql:q:q-recur", "r")]
    _check(sent)
    assert _run(reads.recurring_next("q", "r"), iter([None]))[0] is None


def test_throttle_names_follow_the_scan_cursor() -> None:
    replies = iter([[b"7", [b"ql:th:a"]], (0, ["ql:th:b"]),  # hashes: two steps
                    [b"0", [b"ql:th:c-locks", b"ql:th:a-pending", b"ql:th:x-other"]]])
    value, sent = _run(reads.throttle_names(), replies)
    assert value == ["a", "b", "c"]
    assert [command[1] for command in sent] == [0, b"7", 0]
    assert [command[-1] for command in sent] == ["hash", "hash", "zset"]
    _check(sent)
