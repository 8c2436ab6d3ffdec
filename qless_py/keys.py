"""Redis key and channel names, the only place Python code spells them.

The Lua core spells the same names in ``lua/prelude.lua``; everything here follows the
qless protocol's key catalogue (``docs/protocol.md``). Code outside the core should change
state only through core commands; these names are for the few reads that have no command
(a worker's due times, key tracking prefixes, pub/sub channels).

A namespace (docs/protocol.md, "Namespaces") is the same catalogue under the prefix
``ql:{<name>}:`` instead of ``ql:``: ``Keys(namespace)`` spells its names, and the
module-level names below are those of the default namespace (``DEFAULT``).
"""

from __future__ import annotations

NAMESPACE_MAX = 64  # characters of a namespace's name (scripts/build_lua.py says the same)
SHARDS_MAX = 64  # shards of a sharded namespace (qless_py.shards)

# Queue sets: queue(name) + one of these suffixes.
WORK, LOCKS, SCHEDULED, DEPENDS, RECUR = "-work", "-locks", "-scheduled", "-depends", "-recur"
# A throttle's sets: throttle(tid) + one of these suffixes.
THROTTLE_SETS = ("-locks", "-pending", "-ready")
THROTTLE_MAXIMUM = "maximum"  # the field of a throttle's hash that holds its maximum


def namespace_prefix(namespace: str | None) -> str:
    """The key prefix of ``namespace`` (``ql:`` for None, the default namespace), or a
    ValueError in one line saying what a namespace's name may be."""
    if namespace is None:
        return "ql:"
    if not isinstance(namespace, str) or not namespace or len(namespace) > NAMESPACE_MAX \
            or "{" in namespace or "}" in namespace:
        raise ValueError(f"invalid namespace {namespace!r}: a namespace is 1 to "
                         f"{NAMESPACE_MAX} characters without '{{' or '}}'")
    return f"ql:{{{namespace}}}:"


def check_count(count: object) -> int:
    """``count`` as a shard count, or a ValueError in one line."""
    if isinstance(count, str) and count.strip().isdigit():
        count = int(count)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= SHARDS_MAX:
        raise ValueError(f"invalid shard count {count!r}: a namespace has 1 to {SHARDS_MAX} "
                         "shards")
    return count


def namespace_of(key: str) -> str | None:
    """The namespace whose key ``key`` is (None: the default namespace's, or not ours)."""
    if key.startswith("ql:{") and "}:" in key:
        return key[4:key.index("}:")]
    return None


class Keys:
    """The key and channel names of one namespace (None: the default namespace)."""

    def __init__(self, namespace: str | None = None) -> None:
        self.namespace = namespace
        p = self.prefix = namespace_prefix(namespace)
        self.config = p + "config"
        self.queues = p + "queues"
        self.paused = p + "paused_queues"
        self.workers = p + "workers"
        self.tracked = p + "tracked"
        self.tags = p + "tags"
        self.failures = p + "failures"
        self.completed = p + "completed"
        self.throttle_prefix = p + "th:"
        self.check_summary = p + "check"  # qless_py's own: the last finished check's summary
        self.shards = p + "shards"  # qless_py's own: a sharded namespace's count of shards
        self.outbox = p + "outbox"  # qless_py's own: messages for other namespaces
        # The one key a core call declares: the namespace's prefix (none by default).
        self.core_keys: tuple[str, ...] = () if namespace is None else (p,)

    def __repr__(self) -> str:
        return f"Keys({self.namespace!r})"

    def job(self, jid: str) -> str:
        """The job's hash."""
        return f"{self.prefix}j:{jid}"

    def job_of(self, key: str) -> str | None:
        """The jid whose hash ``key`` is (``job(jid)``), or None for any other key."""
        start = self.prefix + "j:"
        return key[len(start):] if key.startswith(start) else None

    def queue(self, name: str, suffix: str) -> str:
        """One of a queue's sorted sets, e.g. ``queue("q", WORK)``."""
        return f"{self.prefix}q:{name}{suffix}"

    def worker_jobs(self, worker: str) -> str:
        """The sorted set of jids leased to ``worker``."""
        return f"{self.prefix}w:{worker}:jobs"

    def recurring(self, jid: str) -> str:
        """A recurring template's hash."""
        return f"{self.prefix}r:{jid}"

    def channel(self, name: str) -> str:
        """A core pub/sub channel: ``log``, ``put``, ``popped``, ... (``<prefix><name>``)."""
        return f"{self.prefix}{name}"

    def worker_channel(self, worker: str) -> str:
        """The channel of ``lock_lost``/``canceled`` notices for one worker's jobs."""
        return f"{self.prefix}w:{worker}"

    def queue_tid(self, name: str) -> str:
        """The tid of a queue's own throttle (``<prefix>q:<queue>``)."""
        return f"{self.prefix}q:{name}"

    def tid_queue(self, tid: str) -> str | None:
        """The queue whose own throttle ``tid`` is, or None for a named throttle."""
        start = self.prefix + "q:"
        return tid[len(start):] if tid.startswith(start) else None

    def throttle(self, tid: str) -> str:
        """A throttle's hash (``id``, ``maximum``)."""
        return f"{self.throttle_prefix}{tid}"


def concurrency_cap(queue: str) -> str:
    """The field of ``CONFIG`` that caps a queue's running jobs (``<queue>-max-concurrency``)."""
    return f"{queue}-max-concurrency"


DEFAULT = Keys()
"""The default namespace's names (the qless protocol's), also the module's names below."""

PREFIX = DEFAULT.prefix
CONFIG = DEFAULT.config
QUEUES = DEFAULT.queues
PAUSED = DEFAULT.paused
WORKERS = DEFAULT.workers
TRACKED = DEFAULT.tracked
TAGS = DEFAULT.tags
FAILURES = DEFAULT.failures
COMPLETED = DEFAULT.completed
THROTTLE_PREFIX = DEFAULT.throttle_prefix
CHECK_SUMMARY = DEFAULT.check_summary
"""The last finished check's summary (hash: started, finished, keys, findings as JSON)."""
SHARDS = DEFAULT.shards
"""A sharded namespace's count of shards (a string, in its base namespace; qless_py.shards)."""
OUTBOX = DEFAULT.outbox
"""What the namespace owes others (a list of JSON messages; lua/remote.lua, qless_py.relay)."""

job = DEFAULT.job
job_of = DEFAULT.job_of
queue = DEFAULT.queue
worker_jobs = DEFAULT.worker_jobs
recurring = DEFAULT.recurring
channel = DEFAULT.channel
worker_channel = DEFAULT.worker_channel
queue_tid = DEFAULT.queue_tid
tid_queue = DEFAULT.tid_queue
throttle = DEFAULT.throttle
