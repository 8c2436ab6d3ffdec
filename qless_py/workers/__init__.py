"""Workers: the shared skeleton (``base``) in two modes, runner threads (``threaded``,
``Worker``) and an asyncio event loop (``aio``, ``AsyncWorker``), and the forking
supervisor (``ForkingWorker``)."""

from qless_py.workers.forking import ForkingWorker
from qless_py.workers.threaded import Worker

__all__ = ["ForkingWorker", "Worker"]
