"""Redis replies as the tests read them.

redis-py types a reply as ``bytes | str`` (``str`` when a client decodes responses). The
connections in these tests never do, so a reply is bytes; these helpers check that and hand
the type checker the narrow type.
"""

from __future__ import annotations


def bulk(reply: object) -> bytes:
    """A reply that must be a bulk string."""
    assert isinstance(reply, bytes), f"expected bytes, got {reply!r}"
    return reply


def text(reply: object) -> str:
    """A bulk string reply, decoded."""
    return bulk(reply).decode()


def scored(reply: object) -> list[tuple[bytes, float]]:
    """A ``ZRANGE ... WITHSCORES`` reply as (member, score) pairs."""
    assert isinstance(reply, list), f"expected a list, got {reply!r}"
    pairs: list[tuple[bytes, float]] = []
    for member, score in reply:
        assert isinstance(score, float), f"expected a float score, got {score!r}"
        pairs.append((bulk(member), score))
    return pairs
