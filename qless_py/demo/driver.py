"""Run the demo pipeline end to end: put the jobs, run a forking worker, watch, report.

Each run uses its own three queues (``demo-<run>-parse``, ``-merge``, ``-report``), so
counts, progress and statistics belong to that run alone; the queues are forgotten from
the queue index at the end (their statistics stay readable with ``qless-py stats``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from qless_py import clock

SKIP_DIRS = {"test", "tests", "site-packages", "dist-packages", "idlelib", "__pycache__",
             "lib2to3", "turtledemo", "tkinter", "ensurepip"}
TOP_LEVEL = "(top level)"
STAGES = ("parse", "merge", "report")


class DemoError(RuntimeError):
    """The pipeline could not run to its end (a job failed, the worker died, timeout)."""


def stdlib_files(limit: int | None = None) -> list[Path]:
    """The standard library's source files, sorted; with ``limit``, an even sample."""
    root = Path(sysconfig.get_paths()["stdlib"])
    found: list[Path] = []
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        found.extend(Path(base) / f for f in sorted(files) if f.endswith(".py"))
    found.sort()
    if limit is not None and limit < len(found):
        step = len(found) / limit
        found = [found[int(i * step)] for i in range(limit)]
    return found


def package_of(path: Path) -> str:
    """The top-level package of a standard library file; files elsewhere: their directory."""
    try:
        relative = path.relative_to(Path(sysconfig.get_paths()["stdlib"]))
    except ValueError:
        return path.parent.name or TOP_LEVEL
    return relative.parts[0] if len(relative.parts) > 1 else TOP_LEVEL


@dataclass
class Pipeline:
    """The jobs of one run, by stage."""

    run: str
    jids: dict[str, list[str]] = field(default_factory=dict)

    def queue(self, stage: str) -> str:
        return f"demo-{self.run}-{stage}"

    @property
    def queues(self) -> list[str]:
        return [self.queue(stage) for stage in STAGES]

    @property
    def report_jid(self) -> str:
        return self.jids["report"][0]


def put_pipeline(client: Any, files: list[Path], top_n: int) -> Pipeline:
    """Stage one jobs first, then the jobs that depend on them (a dependency must exist)."""
    pipeline = Pipeline(run=uuid.uuid4().hex[:8])
    tag = f"demo-{pipeline.run}"
    parse = client.queues[pipeline.queue("parse")]
    pipeline.jids["parse"] = parse.put_many(
        [{"klass": "qless_py.demo.jobs.ParseFile", "data": {"path": str(p)}} for p in files],
        tags=[tag], retries=2)
    by_package: dict[str, list[str]] = defaultdict(list)
    for path, jid in zip(files, pipeline.jids["parse"], strict=True):
        by_package[package_of(path)].append(jid)
    merge = client.queues[pipeline.queue("merge")]
    pipeline.jids["merge"] = merge.put_many(
        [{"klass": "qless_py.demo.jobs.MergePackage",
          "data": {"package": name, "parts": jids}, "depends": jids}
         for name, jids in sorted(by_package.items())],
        tags=[tag], retries=2)
    report = client.queues[pipeline.queue("report")]
    pipeline.jids["report"] = [report.put(
        "qless_py.demo.jobs.Report",
        {"parts": pipeline.jids["merge"], "top_n": top_n},
        tags=[tag], retries=2, depends=pipeline.jids["merge"])]
    return pipeline


def start_worker(url: str, pipeline: Pipeline, processes: int) -> subprocess.Popen[bytes]:
    """The forking worker as a separate process: ``qless-py worker``."""
    argv = [sys.executable, "-m", "qless_py", "--url", url, "worker",
            "--processes", str(processes), "--import", "qless_py.demo.jobs",
            "--log-level", "warning"]
    for queue in reversed(pipeline.queues):  # later stages first: finish what can finish
        argv += ["--queue", queue]
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def stop_worker(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> str:
    """TERM the worker (it passes TERM to its children), KILL if it hangs; return stderr."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=5)
    return err.decode(errors="replace")


def failures(client: Any, pipeline: Pipeline) -> list[str]:
    """Failure messages of this run's jobs (their groups are named after the queue)."""
    found: list[str] = []
    for group in client.jobs.failed():
        if pipeline.run in group:
            for job in client.jobs.failed(group, 0, 1)["jobs"]:
                lines = job.failure.message.strip().splitlines() if job.failure else []
                found.append(f"{job.jid} in {group}: {lines[-1] if lines else ''}")
    return found


def remaining(client: Any, queue: str) -> int:
    counts = client.queues[queue].counts
    return sum(int(counts.get(k, 0)) for k in ("waiting", "running", "stalled", "scheduled",
                                                "depends"))


@dataclass
class Part:
    """One namespace's share of a run: its client, its jobs and its worker."""

    client: Any
    pipeline: Pipeline
    worker: subprocess.Popen[bytes]
    namespace: str | None = None


def watch(parts: list[Part], console: Console, timeout: float) -> None:
    """Progress bars per stage (over every part) until each part's report is complete."""
    columns = (TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    deadline = time.monotonic() + timeout
    with Progress(*columns, console=console, transient=False) as progress:
        tasks = {stage: progress.add_task(
            stage, total=sum(len(part.pipeline.jids[stage]) for part in parts))
            for stage in STAGES}
        while True:
            for stage in STAGES:
                done = sum(len(part.pipeline.jids[stage])
                           - remaining(part.client, part.pipeline.queue(stage))
                           for part in parts)
                progress.update(tasks[stage], completed=done)
            reports = [part.client.jobs[part.pipeline.report_jid] for part in parts]
            if all(report is not None and report.state == "complete" for report in reports):
                return
            for part in parts:
                problems = failures(part.client, part.pipeline)
                if problems:
                    raise DemoError(f"a job failed: {problems[0]}")
                if part.worker.poll() is not None:
                    raise DemoError(f"the worker exited with status {part.worker.returncode}")
            if time.monotonic() > deadline:
                raise DemoError(f"the pipeline did not finish within {timeout:.0f}s")
            time.sleep(0.2)


def report_view(report: Any, elapsed: float) -> Group:
    data = report.data
    head = Text(f"most common names in {data['files']} files ({data['lines']} lines, "
                f"{data['distinct']} distinct names, {data['total']} uses) in {elapsed:.1f}s",
                style="bold")
    table = Table()
    table.add_column("#", justify="right")
    table.add_column("name")
    table.add_column("uses", justify="right")
    for rank, (name, uses) in enumerate(data["top"], start=1):
        table.add_row(str(rank), name, str(uses))
    return Group(head, table)


def run_demo(client: Any, url: str, console: Console, *, limit: int | None = None,
             processes: int = 2, top_n: int = 25, timeout: float = 600.0,
             files: list[Path] | None = None) -> dict[str, Any]:
    """Run the whole pipeline; return the report data and each stage's statistics.

    ``files`` replaces the standard library sample (tests use it to make a job fail).
    """
    from qless_py.cli.queues import queue_stats, stats_view

    files = stdlib_files(limit) if files is None else files
    if not files:
        raise DemoError("no standard library source files found")
    started = time.monotonic()
    pipeline = put_pipeline(client, files, top_n)
    console.print(f"run {pipeline.run}: {len(files)} files, "
                  f"{len(pipeline.jids['merge'])} packages, queues demo-{pipeline.run}-*; "
                  f"forking worker with {processes} processes")
    worker = start_worker(url, pipeline, processes)
    try:
        watch([Part(client, pipeline, worker)], console, timeout)
    except BaseException:
        err = stop_worker(worker)
        if err.strip():
            console.print(f"[dim]worker stderr (last lines):\n{_tail(err)}[/dim]")
        cleanup(client, pipeline)
        console.print(f"the run's unfinished jobs were canceled; queues demo-{pipeline.run}-* "
                      "forgotten")
        raise
    stop_worker(worker)
    elapsed = time.monotonic() - started
    report = client.jobs[pipeline.report_jid]
    console.print(report_view(report, elapsed))
    stats = {}
    for stage in STAGES:
        stats[stage] = queue_stats(client, pipeline.queue(stage), clock.now(), 1)
        console.rule(f"stage {stage}")
        console.print(stats_view(stats[stage]))
    client("queue.forget", *pipeline.queues)
    return {"run": pipeline.run, "elapsed": elapsed, "report": report.data, "stats": stats}


def cleanup(client: Any, pipeline: Pipeline) -> None:
    """Cancel what is left of an interrupted run (complete jobs are skipped by the core)."""
    every = [jid for stage in STAGES for jid in pipeline.jids.get(stage, [])]
    if every:
        client("cancel", *every)
    client("queue.forget", *pipeline.queues)


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


# -- the demo on a cluster: one pipeline per namespace, the namespaces on different masters
def cluster_ranges(url: str) -> list[tuple[int, int, tuple[str, int]]]:
    """``(first slot, last slot, master address)`` of a cluster URL's slot ranges."""
    from qless_py.connect.endpoint import Endpoint
    from qless_py.connect.resp import ConnectionFailed, cluster_slots

    try:
        return cluster_slots(Endpoint.from_url(url, namespace="demo"))
    except ConnectionFailed as exc:
        raise DemoError(f"{url}: {exc}") from exc


def split_files(files: list[Path], parts: int) -> list[list[Path]]:
    """The files in ``parts`` groups of whole packages, as even in files as it goes."""
    by_package: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        by_package[package_of(path)].append(path)
    groups: list[list[Path]] = [[] for _ in range(parts)]
    for _, members in sorted(by_package.items(), key=lambda item: (-len(item[1]), item[0])):
        min(groups, key=len).extend(members)
    return [group for group in groups if group]


def run_cluster_demo(url: str, console: Console, *, namespaces: int = 3,
                     limit: int | None = None, processes: int = 1, top_n: int = 25,
                     timeout: float = 600.0) -> dict[str, Any]:
    """The demo over ``namespaces`` namespaces whose slots are on different masters of the
    cluster at ``url``: the packages are split between them, each namespace runs its own
    three-stage pipeline with its own forking worker (``processes`` each), and the report
    adds up every namespace's packages."""
    from collections import Counter

    from qless_py import Client
    from qless_py.cli.common import with_namespace
    from qless_py.client.siblings import without_namespace
    from qless_py.connect.cluster import key_slot, spread
    from qless_py.demo.jobs import _merge
    from qless_py.keys import namespace_prefix

    url = without_namespace(url)

    ranges = cluster_ranges(url)
    names = spread(ranges, namespaces, prefix="demo-")
    groups = split_files(stdlib_files(limit), len(names))
    if not groups:
        raise DemoError("no standard library source files found")
    started = time.monotonic()
    parts: list[Part] = []
    try:
        for name, group in zip(names, groups, strict=False):
            client = Client(with_namespace(url, name))
            pipeline = put_pipeline(client, group, top_n)
            master = next(m for low, high, m in ranges
                          if low <= key_slot(namespace_prefix(name)) <= high)
            console.print(f"namespace {name} (master {master[0]}:{master[1]}): "
                          f"{len(group)} files, {len(pipeline.jids['merge'])} packages, "
                          f"queues demo-{pipeline.run}-*; forking worker with {processes} "
                          "process(es)")
            worker = start_worker(with_namespace(url, name), pipeline, processes)
            parts.append(Part(client, pipeline, worker, name))
        watch(parts, console, timeout)
    except BaseException:
        for part in parts:
            stop_worker(part.worker)
            cleanup(part.client, part.pipeline)
            part.client.close()
        console.print("the run's unfinished jobs were canceled")
        raise
    for part in parts:
        stop_worker(part.worker)
    elapsed = time.monotonic() - started
    names_total: Counter[str] = Counter()
    files = lines = 0
    per_namespace = {}
    for part in parts:
        counted, part_files, part_lines = _merge(part.client, part.pipeline.jids["merge"])
        names_total.update(counted)
        files, lines = files + part_files, lines + part_lines
        per_namespace[part.namespace] = {"run": part.pipeline.run, "files": part_files}
        part.client("queue.forget", *part.pipeline.queues)
        part.client.close()
    report = {"top": names_total.most_common(top_n), "files": files, "lines": lines,
              "distinct": len(names_total), "total": sum(names_total.values())}
    console.print(report_view(_Data(report), elapsed))
    return {"elapsed": elapsed, "namespaces": per_namespace, "report": report}


class _Data:
    """A report's data where ``report_view`` expects a job."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

