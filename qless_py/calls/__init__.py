"""The logic of every client call, free of I/O.

Each module here holds, for one kind of object, what its calls send to the core (arguments
built and checked) and what the replies mean (typed objects, typed errors, updated
snapshots). The sync client (``qless_py.client``) and the async client
(``qless_py.aio``) subclass these and differ only in how they send: see
docs/architecture.md, "The client". The few reads of the data layout that no core command
makes are in ``reads``.
"""

from qless_py.calls.base import Batch, Call, Steps

__all__ = ["Batch", "Call", "Steps"]
