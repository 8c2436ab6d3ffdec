"""qless_py: a qless-compatible job engine for Python on current Redis and Valkey."""

from qless_py import clock
from qless_py.calls.check import CheckReport, Finding
from qless_py.calls.remote import RemoteJob
from qless_py.client.client import Client
from qless_py.client.config import Config
from qless_py.client.events import Events
from qless_py.client.job import Failure, Job, retry
from qless_py.client.queue import Queue
from qless_py.client.recurring import RecurringJob
from qless_py.client.sharded import ShardedClient
from qless_py.client.throttles import Throttle
from qless_py.errors import (
    CodecError,
    ConnectionSetupError,
    CoreError,
    DependencyError,
    JobGoneError,
    JobNotFoundError,
    LockLostError,
    OutOfMemoryError,
    PutManyError,
    QlessConnectionError,
    QlessError,
    UnsupportedSettingError,
)
from qless_py.log import logger
from qless_py.stats import QueueStats, TimingStats, merge_stats

__version__ = "0.1.0"

__all__ = [
    "CheckReport",
    "Client",
    "CodecError",
    "Config",
    "ConnectionSetupError",
    "CoreError",
    "DependencyError",
    "Events",
    "Failure",
    "Finding",
    "Job",
    "JobGoneError",
    "JobNotFoundError",
    "LockLostError",
    "OutOfMemoryError",
    "PutManyError",
    "QlessConnectionError",
    "QlessError",
    "Queue",
    "QueueStats",
    "RecurringJob",
    "RemoteJob",
    "ShardedClient",
    "Throttle",
    "TimingStats",
    "UnsupportedSettingError",
    "clock",
    "logger",
    "merge_stats",
    "retry",
]
