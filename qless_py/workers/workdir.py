"""A runner thread's work directory: private, and emptied after every job.

With one runner thread the process ``chdir``s into it for each job; with several the cwd is
shared, so jobs use ``job.workdir``. Checking that a job left nothing behind usually costs
one ``fstat`` of the directory, which stays open.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time


def _signature(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What changes when an entry is added to or removed from a directory."""
    return (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_nlink, st.st_size)


class Workdir:
    """A private, emptied-after-use directory for the jobs of one runner thread.

    After a job, one ``stat`` usually proves the directory still empty: adding or removing
    an entry changes its mtime/ctime, so an unchanged stat since it was last seen empty
    means nothing happened in it. Timestamps may be coarse (a clock tick), so the stat is
    trusted only when the directory's mtime was already 50 ms old when it was seen empty;
    otherwise (and whenever anything differs) the directory is listed.
    """

    SETTLED = 0.05  # seconds: older than any filesystem timestamp granularity

    def __init__(self, path: str, chdir: bool) -> None:
        self.path, self.chdir = path, chdir
        os.makedirs(path, exist_ok=True)
        self.seen: tuple[int, int, int, int, int] | None = None
        self._fd = -1  # the directory, open: fstat skips the path lookup stat would do
        self._reopen()
        self._remember(self._stat())

    def enter(self) -> None:
        if self.chdir:
            try:
                os.chdir(self.path)
            except FileNotFoundError:  # a job removed it
                os.makedirs(self.path, exist_ok=True)
                os.chdir(self.path)

    def clean(self) -> None:
        """Empty the directory; one ``stat`` when the job left nothing behind."""
        st = self._stat()
        if st is not None and self.seen == _signature(st):
            return
        try:
            with os.scandir(self.path) as entries:
                dirty = next(entries, None) is not None
        except FileNotFoundError:
            dirty = True
        if dirty:
            shutil.rmtree(self.path, ignore_errors=True)
            os.makedirs(self.path, exist_ok=True)
        if dirty or st is None or st.st_nlink == 0:
            # the directory at the path is another one now (made here, or by the job)
            self._reopen()
            st = self._stat()
        self._remember(st)

    def _reopen(self) -> None:
        self._close()
        with contextlib.suppress(OSError):  # no fd: the next clean lists the directory
            self._fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    def _stat(self) -> os.stat_result | None:
        """The open directory's stat. One a job removed has ``st_nlink`` 0, so it never
        matches the signature of the directory last seen empty."""
        if self._fd < 0:
            return None
        try:
            return os.stat(self._fd)
        except OSError:
            return None

    def _remember(self, st: os.stat_result | None) -> None:
        """Note the empty directory's stat, if it is old enough to be trusted later."""
        if st is not None and time.time() - st.st_mtime_ns / 1e9 > self.SETTLED:
            self.seen = _signature(st)
        else:
            self.seen = None

    def _close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def remove(self) -> None:
        self._close()
        shutil.rmtree(self.path, ignore_errors=True)
