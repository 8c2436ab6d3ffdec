"""qless_py for asyncio: :class:`AsyncClient` and the objects it returns.

They have the attributes and pure methods of the sync client's objects; every method that
talks to the server is a coroutine. See docs/asyncio.md.
"""

from qless_py.aio.client import AsyncClient
from qless_py.aio.config import Config
from qless_py.aio.events import Events, EventStream
from qless_py.aio.job import Job
from qless_py.aio.queue import Queue
from qless_py.aio.recurring import RecurringJob
from qless_py.aio.sharded import AsyncShardedClient
from qless_py.calls.events import Event

__all__ = ["AsyncClient", "AsyncShardedClient", "Config", "Event", "EventStream", "Events",
           "Job", "Queue", "RecurringJob"]
