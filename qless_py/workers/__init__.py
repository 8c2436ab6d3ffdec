"""Workers: the in-process ``Worker`` (runner threads) and the forking supervisor."""

from qless_py.workers.base import Worker
from qless_py.workers.forking import ForkingWorker

__all__ = ["ForkingWorker", "Worker"]
