"""The threaded mode: ``Worker`` runs T runner threads in one process (``worker.py``), each
popping and running jobs (``runner.py``), with a heartbeat thread (``heartbeat.py``). Its
rules are the skeleton's (``qless_py.workers.base``)."""

from qless_py.workers.threaded.worker import Worker

__all__ = ["Worker"]
