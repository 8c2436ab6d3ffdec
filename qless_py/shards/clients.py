"""What the clients of a sharded namespace (the sync ``qless_py.client.sharded`` and the
asyncio ``qless_py.aio.sharded``) share besides the merges: reading their arguments,
recording and comparing the count, and placing a batch of puts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from qless_py.calls.queue import _PUT_KEYS, PutItem
from qless_py.calls.remote import RemoteJob
from qless_py.connect.endpoint import Endpoint, resolve_url, without_option
from qless_py.keys import check_count
from qless_py.shards import Shards, ShardsMismatch, record_key


def verify_count(call: Callable[..., Any], namespace: str, count: int, *,
                 record: bool = True) -> None:
    """Record ``count`` as the shard count of ``namespace`` if none is recorded (unless
    ``record`` is false), else compare (``check_recorded``). ``call`` runs one Redis
    command on the namespace's master."""
    if record and call("SET", record_key(namespace), count, "NX") is not None:
        return
    check_recorded(namespace, count, call("GET", record_key(namespace)))


def check_recorded(namespace: str, count: int, recorded: Any) -> None:
    """A :class:`ShardsMismatch` in one line when ``recorded`` (the record's value, None
    when there is none) is another count than ``count``."""
    if recorded is not None and int(recorded) != count:
        raise ShardsMismatch(f"namespace {namespace!r} has {int(recorded)} shards "
                             f"(recorded in {record_key(namespace)}), not {count}")


def put_plan(shards: Shards, jid: str | None, key: str | None, depends: Any,
             throttles: Any) -> tuple[int, str, list[Any] | None, list[str] | None]:
    """What a put of a sharded namespace sends, and where: ``(shard, jid, depends,
    throttles)``. The jobs of its dependencies on other shards become
    :class:`~qless_py.calls.remote.RemoteJob`s of those shards' namespaces, waited for
    across shards (lua/remote.lua); other namespaces' RemoteJobs stay as they are."""
    deps = list(depends) if depends is not None else None
    named = list(throttles) if throttles is not None else None
    plain = [dep for dep in deps or () if isinstance(dep, str)]
    shard, jid = shards.place(jid, key, plain, named or ())
    if deps:
        deps = [dep if shards.of(dep) == shard else RemoteJob(shards.names[shards.of(dep)], dep)
                for dep in plain] + [dep for dep in deps if not isinstance(dep, str)]
    return shard, jid, deps, named


def whole_check(resume: str, steps: int | None) -> None:
    """A sharded namespace's check runs every shard's to its end: a ValueError in one line
    for ``resume`` or ``steps``."""
    if resume or steps is not None:
        raise ValueError("a check of a sharded namespace runs to its end: to resume one "
                         "or bound its steps, check a shard (--namespace <shard>)")


def _item(item: PutItem) -> dict[str, Any]:
    if isinstance(item, tuple):
        klass, data = item
        return {"klass": klass, "data": data}
    spec = dict(item)
    unknown = set(spec) - _PUT_KEYS
    if unknown:
        raise ValueError(f"put_many: unknown field(s) {', '.join(sorted(unknown))}")
    return spec


def shards_of_url(url: str | None, namespace: str | None,
                  shards: int | None) -> tuple[str, str, int]:
    """``(the URL without its namespace=, the namespace, its shard count)`` from a sharded
    client's arguments (the keywords or the URL's query), or a ValueError in one line."""
    given = Endpoint.from_url(resolve_url(url), namespace=namespace,
                              shards=None if shards is None else check_count(shards))
    if given.namespace is None:
        raise ValueError("a sharded namespace needs a name (namespace=NAME)")
    return without_option(resolve_url(url), "namespace"), given.namespace, given.shards


def put_spec(shards: Shards, items: Iterable[PutItem],
             options: dict[str, Any]) -> tuple[dict[int, list[tuple[int, dict[str, Any]]]], int]:
    """``put_many``'s items placed: ``({shard: [(index, item as a dict with its jid)]},
    number of items)``; a ValueError in one line (nothing written) for one that cannot
    live on one shard."""
    placed: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    count = 0
    shared_key, shared_deps = options.get("key"), list(options.get("depends") or ())
    shared_throttles = list(options.get("throttles") or ())
    for index, item in enumerate(items):
        spec = _item(item)
        shard, jid = shards.place(
            spec.get("jid"), spec.get("key", shared_key),
            list(spec.get("depends") or ()) + shared_deps,
            list(spec.get("throttles") or ()) + shared_throttles)
        away = sorted({shards.of(dep) for dep in list(spec.get("depends") or ()) + shared_deps}
                      - {shard})
        if away:
            raise ValueError(f"put_many: a job of namespace {shards.name!r} on shard {shard} "
                             f"depends on jobs of shards {', '.join(map(str, away))}: put it "
                             "with put(), which waits across shards")
        spec["jid"] = jid
        placed.setdefault(shard, []).append((index, spec))
        count = index + 1
    return placed, count


def without_shards(url: str) -> str:
    """``url`` without its ``shards=`` query option."""
    return without_option(url, "shards")
