"""Throttles for the sync client: ``client.throttles[name]`` and ``queue.throttle``. What
each call sends is in :mod:`qless_py.calls.throttles`, shared with the async client."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qless_py.calls import reads
from qless_py.calls.throttles import ThrottleBase

if TYPE_CHECKING:
    from qless_py.client.client import Client


class Throttle(ThrottleBase):
    """A throttle: at most ``maximum`` of the jobs that name it run at once (0: no limit).

    Setting the maximum lets waiting jobs start at once when it leaves them room; lowering
    it takes no lock away from a running job.
    """

    client: Client

    @property
    def maximum(self) -> int | float:
        return self.client.core.send(self._maximum_call())

    @maximum.setter
    def maximum(self, value: int) -> None:
        self.client.core.send(self._set_call(value))

    def set_maximum(self, value: int) -> None:
        """``throttle.maximum = value`` (the spelling both clients share)."""
        self.client.core.send(self._set_call(value))

    def set(self, maximum: int, ttl: float | None = None) -> None:
        """Set the maximum; with ``ttl``, the setting expires after that many seconds (the
        throttle is then unlimited again)."""
        self.client.core.send(self._set_call(maximum, ttl))

    @property
    def ttl(self) -> int:
        """Seconds until the setting expires: -1 never, -2 not set."""
        return self.client.core.send(self._ttl_call())

    def locks(self) -> list[str]:
        """The jids holding one of its locks (running jobs)."""
        return self.client.core.send(self._locks_call())

    def pending(self) -> list[str]:
        """The jids waiting for it, oldest first."""
        return self.client.core.send(self._pending_call())

    def release(self, *jids: str) -> None:
        """Take the jobs' locks (or their places in the wait) away, and let waiting jobs
        start: for jobs that stopped without telling the core."""
        if jids:
            self.client.core.send(self._release_call(jids))

    def delete(self) -> None:
        """Forget the maximum: the throttle is unlimited, and its waiting jobs start."""
        self.client.core.send(self._delete_call())


class Throttles:
    """``client.throttles[name]`` gives a Throttle; ``names()`` lists the throttles that are
    set or in use (a SCAN: the dialect keeps no index of them)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def __getitem__(self, name: str) -> Throttle:
        return Throttle(self._client, name)

    def names(self) -> list[str]:
        return self._client._read(reads.throttle_names(self._client.keys))
