"""``qless-py worker``: run jobs from queues with a forking supervisor (or in this process)."""

from __future__ import annotations

import importlib
import logging
import os
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from qless_py.workers.forking import ChildWorker

from qless_py.cli.common import CliError, shard_count, target_url, url_option, with_namespace
from qless_py.reservers import ORDERS


def _child_name(name: str | None, processes: int, index: int) -> str | None:
    if name is None:
        return None  # hostname-pid of the child
    return name if processes <= 1 else f"{name}-{index + 1}"


@click.command("worker")
@click.option("-q", "--queue", "queues", multiple=True, required=True, metavar="QUEUE",
              help="Queue to take jobs from (repeat for several; see --order).")
@click.option("--processes", type=click.IntRange(min=0), default=None,
              help="Worker processes to fork (default: number of CPUs). 0 runs the "
              "worker in this process, without a supervisor.")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="Job threads in each process (default 1). With --async: the threads "
              "that run plain-function handlers (default: the smaller of --concurrency "
              "and 8).")
@click.option("--async", "use_async", is_flag=True,
              help="Run jobs in an asyncio event loop in each process: async def handlers "
              "are awaited there, plain functions run in a pool of threads.")
@click.option("--concurrency", type=click.IntRange(min=1), default=None,
              help="With --async: jobs run at once in each process (default 10).")
@click.option("--order", type=click.Choice(ORDERS), default=None,
              help="Queue order: the first queue with work, round-robin, or shuffled "
              "round-robin. Default: ordered; round-robin with --shards, so that every "
              "shard is served evenly.")
@url_option
@click.option("--namespace", "namespaces", multiple=True, metavar="NAME",
              help="Serve the queues in this namespace (repeat for several, in --order's "
              "order; docs/workers.md), besides the URL's namespace= if it names one. "
              "Default: $QLESS_NAMESPACE, else the URL's namespace=, else the default "
              "namespace.")
@click.option("--shards", type=click.IntRange(min=1), default=None, envvar="QLESS_SHARDS",
              help="Each namespace has this many shards, and every shard is served "
              "(docs/cluster.md, sharded namespaces). Default: $QLESS_SHARDS, else the "
              "URL's shards=, else 1.")
@click.option("--import", "imports", multiple=True, metavar="MODULE",
              help="Import MODULE before forking (repeatable).")
@click.option("--path", "paths", multiple=True, metavar="DIR",
              help="Add DIR to sys.path for job classes (repeatable).")
@click.option("--workdir", default=None, metavar="DIR",
              help="Parent of the jobs' working directories (default: a temporary dir).")
@click.option("--max-jobs", type=click.IntRange(min=0), default=0,
              help="Restart a worker process after this many jobs (0: never).")
@click.option("--resume", is_flag=True,
              help="On start, take back the jobs this worker name still holds.")
@click.option("--burst", is_flag=True, help="Drain the queues, then exit.")
@click.option("--name", default=None,
              help="Stable worker name (processes are NAME-1..NAME-N when N > 1). "
              "Default: hostname-pid of each process.")
@click.option("--interval", type=click.FloatRange(min=0.01), default=5.0, show_default=True,
              help="Longest idle wait (seconds) between safety checks of the queues.")
@click.option("--lost-grace", type=click.FloatRange(min=0), default=5.0, show_default=True,
              help="Seconds a job whose lock was lost may keep running before its worker "
              "process ends itself (and is restarted).")
@click.option("--socket-timeout", type=click.FloatRange(min=0.1), default=5.0,
              show_default=True,
              help="Seconds to wait for a server reply before treating it as a connection "
              "error (then the worker logs, backs off and retries).")
@click.option("--spin-us", type=click.IntRange(min=0, max=100_000), default=0,
              show_default=True,
              help="Microseconds a thread waits awake for each server reply before it "
              "sleeps (0: sleep at once). May save the wake-up from a sleep, at the "
              "price of that CPU time; measure before turning it on.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
              default="info", show_default=True,
              help="info logs one line per job start and end.")
@click.pass_context
def worker(ctx: click.Context, queues: tuple[str, ...], processes: int | None,
           threads: int | None, use_async: bool, concurrency: int | None, order: str | None,
           url: str | None, namespaces: tuple[str, ...], shards: int | None,
           imports: tuple[str, ...],
           paths: tuple[str, ...],
           workdir: str | None, max_jobs: int, resume: bool, burst: bool, name: str | None,
           interval: float, lost_grace: float, socket_timeout: float, spin_us: int,
           log_level: str) -> None:
    """Run jobs from the given queues until stopped.

    Signals: TERM/INT stop now and give running jobs back to their queue; QUIT finishes
    the current jobs and exits; USR1 logs every thread's (and task's) stack; USR2 pauses
    taking new jobs and CONT resumes.
    """
    from qless_py.workers.logs import setup_logging

    if concurrency is not None and not use_async:
        raise click.UsageError("--concurrency needs --async")

    targets, sharded = _targets(ctx, url, namespaces, shards)
    if order is None:
        order = "round-robin" if sharded else "ordered"
    target = targets[0]
    setup_logging(getattr(logging, log_level.upper()))
    for each in targets:
        _probe(each, socket_timeout)
    _verify_shards(sharded, socket_timeout)
    _preload(paths, imports)
    count = (os.cpu_count() or 1) if processes is None else processes
    settings: dict[str, Any] = {"threads": threads, "order": order, "interval": interval,
                                "max_jobs": max_jobs, "resume": resume, "burst": burst,
                                "lost_grace": lost_grace, "spin": spin_us / 1e6}
    if len(targets) > 1:
        from qless_py.client.siblings import url_namespace

        settings["namespaces"] = [url_namespace(each) for each in targets]
    if use_async:
        settings["concurrency"] = concurrency or 10
    elif threads is None:
        settings["threads"] = 1
    if count == 0:
        code = _make_worker(target, name, 1, 0, socket_timeout, queues, workdir, settings).run()
        if code not in (0, 3):  # 3: returned after --max-jobs
            ctx.exit(code)
        return
    _supervise(target, name, count, socket_timeout, queues, workdir, settings)


def _targets(ctx: click.Context, url: str | None, namespaces: tuple[str, ...],
             shards: int | None) -> tuple[list[str], list[tuple[str, int]]]:
    """The URL of each namespace to serve: the URL's own namespace= (if it names one)
    first, then each ``--namespace``; the URL itself when none is given. With more than one
    shard (``--shards``, else the URL's ``shards=``), each namespace stands for its shards'
    namespaces; the second value lists the sharded namespaces and their counts (to be
    checked against the recorded ones)."""
    from qless_py.client.siblings import url_namespace, without_namespace
    from qless_py.shards import shard_names
    from qless_py.shards.clients import without_shards

    base = target_url(ctx, url)
    try:
        count = shard_count(ctx, base, shards)
    except CliError as exc:  # a usage error here, as the URL's other faults are
        raise click.BadParameter(exc.message, param_hint="--url") from None
    base = without_shards(base)
    named = url_namespace(base)
    wanted = list(dict.fromkeys([*([named] if named is not None else []), *namespaces]))
    if count > 1:
        if not wanted:
            raise click.BadParameter("shards need a namespace (--namespace NAME): the "
                                     "default namespace cannot be sharded",
                                     param_hint="--shards")
        try:
            expanded = [shard for name in wanted for shard in shard_names(name, count)]
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--shards") from None
        plain = without_namespace(base)
        return ([_check_url(with_namespace(plain, name)) for name in expanded],
                [(_check_url(with_namespace(plain, name)), count) for name in wanted])
    if len(wanted) <= 1:
        return [_check_url(with_namespace(base, wanted[0] if wanted else None))], []
    plain = without_namespace(base)
    return [_check_url(with_namespace(plain, name)) for name in wanted], []


def _verify_shards(sharded: list[tuple[str, int]], socket_timeout: float) -> None:
    """Record each sharded namespace's count, or stop in one line if another is recorded."""
    from qless_py import Client
    from qless_py.shards import ShardsMismatch
    from qless_py.shards.clients import verify_count

    for target, count in sharded:
        client = Client(target, socket_timeout=socket_timeout)
        try:
            client.core.go_direct(client.endpoint())
            assert client.core.transport is not None
            verify_count(client.core.transport.call, str(client.keys.namespace), count)
        except ShardsMismatch as exc:
            raise click.ClickException(f"cannot start the workers: {exc}") from None
        except Exception as exc:  # the server is down now: the workers keep trying
            logging.getLogger("qless_py.worker").warning(
                "the shard count of namespace %r cannot be checked yet (%s)",
                client.keys.namespace, exc)
        finally:
            client.close()


def _check_url(target: str) -> str:
    """A bad URL is a usage error now, not a crash loop of children later."""
    from qless_py.connect.endpoint import Endpoint

    try:
        Endpoint.from_url(target)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--url") from exc
    return target


def _probe(target: str, socket_timeout: float) -> None:
    """Connect once, as the workers will, before forking any.

    A reason that retrying cannot mend (certificate, authentication, ACL, unknown Sentinel
    service) stops the command with one line; a server that is down now is only logged,
    and the workers retry with backoff as they do after any outage.
    """
    from qless_py import Client
    from qless_py.errors import ConnectionSetupError

    client = Client(target, socket_timeout=socket_timeout)
    try:
        client.core.go_direct(client.endpoint())
        problem = client.core.check()
    except ConnectionSetupError as exc:
        raise click.ClickException(f"cannot start the workers: {exc}") from exc
    finally:
        client.close()
    if problem is not None:
        logging.getLogger("qless_py.worker").warning(
            "the server cannot be reached yet (%s); the workers keep trying", problem)


def _preload(paths: tuple[str, ...], imports: tuple[str, ...]) -> None:
    """``--path`` onto sys.path, then ``--import`` modules (before any fork)."""
    for path in paths:
        sys.path.insert(0, os.path.abspath(path))
    for module in imports:
        try:
            importlib.import_module(module)
        except Exception as exc:
            raise click.ClickException(f"--import {module}: {type(exc).__name__}: {exc}") \
                from exc


def _make_worker(target: str, name: str | None, count: int, index: int,
                 socket_timeout: float, queues: tuple[str, ...], workdir: str | None,
                 settings: dict[str, Any]) -> ChildWorker:
    """The worker of one process, with its own client (called after the fork)."""
    from qless_py import Client

    # A timeout so that a frozen server shows up as a connection error the worker logs and
    # backs off from. The threaded worker's client never imports redis-py (see
    # qless_py.connect.resp); the asyncio worker's loop talks through redis.asyncio.
    client = Client(target, worker_name=_child_name(name, count, index),
                    socket_timeout=socket_timeout)
    if "concurrency" in settings:
        from qless_py.workers.aio import AsyncWorker

        return AsyncWorker(client, list(queues), workdir=workdir, **settings)
    from qless_py.workers import Worker

    return Worker(client, list(queues), workdir=workdir, **settings)


def _warm_up(use_async: bool) -> None:
    """Import, once and before the fork, what every child would import on its first steps.

    Children then reach their first pop sooner: the built script, and the idna codec that
    ``getaddrinfo`` uses for host names (with stringprep and unicodedata); for --async,
    the asyncio worker and redis.asyncio.
    """
    import encodings.idna  # noqa: F401

    import qless_py.lua

    if use_async:
        import qless_py.workers.aio  # noqa: F401  # (the import is the point)


def _supervise(target: str, name: str | None, count: int, socket_timeout: float,
               queues: tuple[str, ...], workdir: str | None, settings: dict[str, Any]) -> None:
    from qless_py.workers import ForkingWorker

    _warm_up("concurrency" in settings)

    if workdir:
        os.makedirs(workdir, exist_ok=True)
    # children killed with -9 cannot clean up after themselves: their directories live
    # under one root that the supervisor removes when it exits
    root = workdir or tempfile.mkdtemp(prefix="qless-py-")
    try:
        ForkingWorker(lambda index: _make_worker(target, name, count, index, socket_timeout,
                                                 queues, root, settings),
                      count, burst=bool(settings["burst"])).run()
    finally:
        if workdir is None:
            shutil.rmtree(root, ignore_errors=True)


def register(group: click.Group) -> None:
    """Add the ``worker`` command to the ``qless-py`` group."""
    group.add_command(worker)
