"""The per-runner work directory: emptied after every job, cheaply when nothing was left.

These drive ``Workdir`` directly on the real filesystem; directory mtimes are set into the
past with ``os.utime`` so the one-``stat`` path is the one under test (no sleeping).
"""

from __future__ import annotations

import os
from pathlib import Path

from qless_py.workers.workdir import Workdir


def settled(path: Path) -> Workdir:
    """A Workdir whose empty directory is old enough for its stat to be trusted."""
    path.mkdir()
    os.utime(path, (1_000_000_000, 1_000_000_000))
    workdir = Workdir(str(path), chdir=False)
    assert workdir.seen is not None
    return workdir


def test_a_file_left_in_a_settled_directory_is_removed(tmp_path: Path) -> None:
    workdir = settled(tmp_path / "w")
    (tmp_path / "w" / "left.txt").write_text("x")
    workdir.clean()
    assert os.listdir(tmp_path / "w") == []


def test_a_subdirectory_left_behind_is_removed(tmp_path: Path) -> None:
    workdir = settled(tmp_path / "w")
    (tmp_path / "w" / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "w" / "sub" / "deeper" / "f").write_text("x")
    workdir.clean()
    assert os.listdir(tmp_path / "w") == []


def test_a_directory_replaced_by_the_job_is_made_again_empty(tmp_path: Path) -> None:
    workdir = settled(tmp_path / "w")
    os.rmdir(tmp_path / "w")
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "f").write_text("x")
    os.utime(tmp_path / "w", (1_000_000_000, 1_000_000_000))  # same old mtime, new inode
    workdir.clean()
    assert os.listdir(tmp_path / "w") == []


def test_a_removed_directory_is_made_again(tmp_path: Path) -> None:
    workdir = settled(tmp_path / "w")
    os.rmdir(tmp_path / "w")
    workdir.clean()
    assert (tmp_path / "w").is_dir() and os.listdir(tmp_path / "w") == []


def test_an_untouched_settled_directory_is_trusted_without_listing(tmp_path: Path) -> None:
    workdir = settled(tmp_path / "w")
    seen = workdir.seen
    workdir.clean()
    assert workdir.seen == seen  # nothing changed: the stat matched, no reset happened


def test_a_fresh_directory_is_listed_not_trusted(tmp_path: Path) -> None:
    # Just made: its mtime may share a coarse clock tick with the next job's writes.
    workdir = Workdir(str(tmp_path / "w"), chdir=False)
    assert workdir.seen is None
    (tmp_path / "w" / "f").write_text("x")
    workdir.clean()
    assert os.listdir(tmp_path / "w") == []


def test_after_a_job_replaced_the_directory_the_next_leftover_is_still_found(
        tmp_path: Path) -> None:
    # The directory is watched through an open descriptor: once a job swapped it for an
    # empty one, the descriptor must follow the new directory, or a later job's leftovers
    # would go unseen.
    workdir = settled(tmp_path / "w")
    os.rmdir(tmp_path / "w")
    (tmp_path / "w").mkdir()
    os.utime(tmp_path / "w", (1_000_000_000, 1_000_000_000))
    workdir.clean()  # empty, but another directory: it is watched from now on
    (tmp_path / "w" / "next.txt").write_text("x")
    workdir.clean()
    assert os.listdir(tmp_path / "w") == []
