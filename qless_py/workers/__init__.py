"""Workers: the in-process ``Worker`` (runner threads) and the forking supervisor."""

from qless_py.workers.forking import ForkingWorker
from qless_py.workers.worker import Worker

__all__ = ["ForkingWorker", "Worker"]
