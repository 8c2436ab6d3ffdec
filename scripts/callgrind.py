"""A server under valgrind's callgrind that counts instructions only inside one server
function (``collect``, the entry point of EVALSHA), for the instruction-counting scripts
(``count_instructions.py``, ``peer_server_cost.py``). Needs valgrind."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import redis


class CallgrindServer:
    """The server ``binary`` on loopback port ``port``, run under callgrind; ``zero``
    starts a count, ``dump`` ends one (the dump's file is ``last_dump``)."""

    def __init__(self, binary: str | Path, port: int, collect: str) -> None:
        if shutil.which("valgrind") is None:
            raise SystemExit("valgrind is not installed")
        self.root = Path(tempfile.mkdtemp(prefix="qlcg-", dir="/tmp"))
        self.out = self.root / "cg.out"
        self.port = port
        # the path as given: Debian's redis-server is a link to redis-check-rdb, which
        # decides what it is from the name it is run by
        self.proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out}",
             f"--toggle-collect={collect}", str(Path(binary).absolute()),
             "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.root)
        self.conn = redis.Redis(port=port, protocol=2)
        self.dumps = 0
        self.last_dump = self.out
        for _ in range(600):
            try:
                self.conn.ping()
                return
            except redis.ConnectionError:
                if self.proc.poll() is not None:
                    self.stop()
                    raise SystemExit(f"{binary} under valgrind exited with status "
                                     f"{self.proc.returncode}") from None
                time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def zero(self) -> None:
        subprocess.run(["callgrind_control", "-z", str(self.proc.pid)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    def dump(self, name: str) -> int:
        """Instructions counted since the last zero or dump."""
        self.dumps += 1
        subprocess.run(["callgrind_control", "-d", name, str(self.proc.pid)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        self.last_dump = Path(f"{self.out}.{self.dumps}")
        text = self.last_dump.read_text()
        found = re.search(r"summary: (\d+)", text)
        assert found and f"Trigger: dump {name}" in text, f"no callgrind dump for {name}"
        return int(found.group(1))

    def stop(self) -> None:
        self.conn.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)
