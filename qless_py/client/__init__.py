"""The blocking client: :class:`Client` and the objects it returns (``Queue``, ``Job``,
``RecurringJob``, ``Config``, ``Events``, throttles), each a thin sender over the logic in
``qless_py.calls``, and ``LuaCore`` (``core``), which sends core calls. The asyncio client
is its twin in ``qless_py.aio``. Public names are exported by ``qless_py`` itself.
"""

from qless_py.client.client import DEFAULT_URL, Client, Jobs, Queues, Workers, resolve_url

__all__ = ["DEFAULT_URL", "Client", "Jobs", "Queues", "Workers", "resolve_url"]
