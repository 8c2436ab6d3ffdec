"""The asyncio mode: ``AsyncWorker`` runs up to ``concurrency`` jobs at once in one event
loop per process (``worker.py``), with its popper (``popper.py``), one task per job
(``jobrun.py``), its heartbeat task (``heartbeat.py``) and a thread pool for plain-function
handlers (``threads.py``). Its rules are the skeleton's (``qless_py.workers.base``)."""

from qless_py.workers.aio.worker import AsyncWorker

__all__ = ["AsyncWorker"]
