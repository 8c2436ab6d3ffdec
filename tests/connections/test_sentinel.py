"""Sentinel against real servers: a master, a replica and one sentinel. Clients, commands
and workers find the master through the sentinel and follow it across a failover."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest
import redis

from qless_py import Client, ConnectionSetupError, QlessConnectionError
from qless_py.server import ServerProcess, free_port
from tests.connections.conftest import (
    ROOT,
    SERVICE,
    SentinelProcess,
    Servers,
    admin,
    cli_env,
    error_lines,
    run_cli,
    wait_for,
)


@dataclass
class Setup:
    master: ServerProcess
    replica: ServerProcess
    sentinel: SentinelProcess

    @property
    def url(self) -> str:
        return f"redis+sentinel://127.0.0.1:{self.sentinel.port}/{SERVICE}"


def _replicating(replica: ServerProcess) -> bool:
    return admin(replica).info("replication").get("master_link_status") == "up"


@pytest.fixture
def setup(servers: Servers) -> Iterator[Setup]:
    master = servers.redis(port=free_port())
    replica = servers.redis("--replicaof", "127.0.0.1", str(master.port), port=free_port())
    wait_for(lambda: _replicating(replica))
    yield Setup(master, replica, servers.sentinel(master.port))


def test_clients_and_commands_find_the_master_through_sentinel(setup: Setup) -> None:
    for direct in (False, True):
        client = Client(setup.url, worker_name="w")
        if direct:  # the worker's path
            client.core.go_direct(client.endpoint())
        jid = client.queues["q"].put("tests.jobs.Noop", {}, jid=f"job-{direct}")
        assert admin(setup.master).exists(f"ql:j:{jid}")  # written on the master
        client.close()
    events = Client(setup.url)
    events.events.start()  # pub/sub (redis-py) through Sentinel too
    assert events.events.listening()
    events.close()
    listed = run_cli("queues", "--url", setup.url, "--json")
    assert listed.returncode == 0, listed.stderr
    assert '"waiting": 2' in listed.stdout


def test_the_database_in_the_url_is_used(setup: Setup) -> None:
    client = Client(f"{setup.url}/3")
    client.queues["q"].put("tests.jobs.Noop", {}, jid="in-3")
    master = admin(setup.master)
    assert not master.exists("ql:j:in-3")
    master.select(3)
    assert master.exists("ql:j:in-3")
    client.close()


def test_an_unknown_service_is_refused_with_one_line(setup: Setup) -> None:
    url = f"redis+sentinel://127.0.0.1:{setup.sentinel.port}/nosuch"
    with pytest.raises(ConnectionSetupError, match="does not know service 'nosuch'"):
        Client(url).jobs["x"]
    done = run_cli("worker", "--url", url, "-q", "q", "--processes", "2")
    assert done.returncode == 1
    [line] = error_lines(done.stderr)
    assert line.startswith("Error: cannot start the workers: Sentinel service 'nosuch'")


def test_no_sentinel_reachable_is_a_connection_error(setup: Setup) -> None:
    url = f"redis+sentinel://127.0.0.1:{free_port()}/{SERVICE}"
    client = Client(url)
    with pytest.raises(QlessConnectionError) as info:
        client.jobs["x"]
    assert not isinstance(info.value, ConnectionSetupError)  # may mend: retried by workers
    # the second sentinel in the list answers
    both = Client(f"redis+sentinel://127.0.0.1:{free_port()},127.0.0.1:{setup.sentinel.port}"
                  f"/{SERVICE}")
    assert both.jobs["x"] is None


def test_sentinel_and_data_node_credentials_are_separate(servers: Servers) -> None:
    master = servers.redis(port=free_port())
    admin(master).config_set("requirepass", "data-pw")
    sentinel = servers.sentinel(master.port, f"sentinel auth-pass {SERVICE} data-pw",
                                password="sentinel-pw")
    where = f"127.0.0.1:{sentinel.port}/{SERVICE}"
    good = f"redis+sentinel://:data-pw@{where}?sentinel_password=sentinel-pw"
    for direct in (False, True):
        client = Client(good)
        if direct:
            client.core.go_direct(client.endpoint())
        client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
        client.close()
    refusals = {
        "sentinel password": f"redis+sentinel://:data-pw@{where}?sentinel_password=wrong",
        "no sentinel password": f"redis+sentinel://:data-pw@{where}",
        "data password": f"redis+sentinel://:wrong@{where}?sentinel_password=sentinel-pw",
    }
    for what, url in refusals.items():
        done = run_cli("worker", "--url", url, "-q", "q", "--processes", "1")
        assert done.returncode == 1, what
        [line] = error_lines(done.stderr)
        assert line.startswith("Error: cannot start the workers:"), what
        assert ("WRONGPASS" in line or "NOAUTH" in line), (what, line)


def _start_workers(url: str, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "qless_py", "worker", "--url", url, "-q", "one", "-q", "two",
             "--processes", "2", "--name", "fo", "--socket-timeout", "2", "--interval", "0.5",
             "--log-level", "warning"],
            cwd=ROOT, env=cli_env(), stdout=out, stderr=subprocess.STDOUT)


def _states(client: Client, jids: list[str]) -> dict[str, str] | None:
    try:
        return {job.jid: job.state for job in client.jobs.get(*jids)}
    except QlessConnectionError:
        return None  # during the failover


def _all_complete(client: Client, jids: list[str]) -> bool:
    states = _states(client, jids)
    return states is not None and len(states) == len(jids) and \
        set(states.values()) == {"complete"}


def _completed(client: Client) -> int:
    try:
        return len(client.jobs.complete(0, 1000))
    except QlessConnectionError:
        return 0  # during the failover


@pytest.mark.slow
def test_workers_follow_a_failover_and_every_job_completes(servers: Servers,
                                                           tmp_path: Path) -> None:
    # A master with two replicas, as in production: after the failover one replica is
    # left to confirm writes. Every write waits for one replica (wait_replicas=1), so no
    # write a worker was told succeeded is lost when the master dies.
    master = servers.redis(port=free_port())
    replicas = [servers.redis("--replicaof", "127.0.0.1", str(master.port), port=free_port())
                for _ in range(2)]
    for replica in replicas:
        wait_for(partial(_replicating, replica))
    sentinel = servers.sentinel(master.port)
    url = f"redis+sentinel://127.0.0.1:{sentinel.port}/{SERVICE}?wait_replicas=1&wait_timeout=2"
    count = 200
    client = Client(url, worker_name="producer")
    client.queues["one"].put_many([
        {"klass": "tests.connections.jobs.Stage", "data": {"seconds": 0.01}, "jid": f"j{i:03d}"}
        for i in range(count)])
    jids = [f"j{i:03d}" for i in range(count)] + [f"j{i:03d}-2" for i in range(count)]
    log = tmp_path / "workers.log"
    workers = _start_workers(url, log)
    watcher = Client(url)
    try:
        wait_for(lambda: _completed(client) >= count // 2, timeout=60)
        done_before = _completed(client)
        killed = time.monotonic()
        master.kill()
        ports = {r.port: r for r in replicas}
        wait_for(lambda: sentinel.master_port_now() in ports, timeout=30)
        promoted = time.monotonic()
        wait_for(lambda: _completed(watcher) > done_before, timeout=30)
        resumed = time.monotonic()
        wait_for(lambda: _all_complete(watcher, jids), timeout=90)
        ended = time.monotonic()
        assert watcher.jobs.failed() == {}

        def named(server: ServerProcess) -> set[str]:
            return {str(c.get("name")) for c in admin(server).client_list()}

        def on_master() -> set[str]:
            # the master now: a promotion that took too long makes Sentinel try the other
            # replica, so the first one it named may not be the master any more
            port = sentinel.master_port_now()
            return named(ports[port]) if port in ports else set()

        try:  # both workers' connections are on the master
            wait_for(lambda: {"qless-py:fo-1", "qless-py:fo-2"} <= on_master(), timeout=60)
        except AssertionError:
            print(f"master now: {sentinel.master_port_now()}; connections on each: "
                  f"{ {port: sorted(named(r)) for port, r in ports.items()} }")
            raise
        print(f"\nfailover: replica promoted {promoted - killed:.2f}s after the kill, workers "
              f"completed jobs again after {resumed - killed:.2f}s, all {2 * count} jobs "
              f"complete after {ended - killed:.2f}s")
        workers.send_signal(signal.SIGTERM)
        assert workers.wait(30) == 0
        assert "Traceback" not in log.read_text()
    except BaseException:
        print(log.read_text())
        raise
    finally:
        if workers.poll() is None:
            workers.kill()
            workers.wait(10)
        client.close()
        watcher.close()


def test_a_redis_py_sentinel_client_is_reproduced_by_workers(setup: Setup) -> None:
    from redis.sentinel import Sentinel

    from qless_py.workers import Worker

    manager = Sentinel([("127.0.0.1", setup.sentinel.port)], socket_timeout=2)
    client = Client(redis_client=manager.master_for(SERVICE, socket_timeout=2),
                    worker_name="w")
    client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    assert Worker(client, ["q"], burst=True, handle_signals=False).run() == 0
    endpoint = client.endpoint()
    assert endpoint.sentinels == (("127.0.0.1", setup.sentinel.port),)
    assert endpoint.service == SERVICE
    state = redis.Redis(unix_socket_path=str(setup.master.socket_path)).hget("ql:j:j", "state")
    assert state == b"complete"
    client.close()


@pytest.mark.parametrize("direct", [False, True])
def test_a_demoted_master_is_left_for_the_new_one(setup: Setup, direct: bool) -> None:
    client = Client(setup.url, worker_name="w")
    if direct:
        client.core.go_direct(client.endpoint())
    client.queues["q"].put("tests.jobs.Noop", {}, jid="before")  # connected to the master
    wait_for(lambda: setup.sentinel.usable_replicas() == 1)
    setup.sentinel.client().execute_command("SENTINEL", "FAILOVER", SERVICE)
    wait_for(lambda: setup.sentinel.master_port_now() == setup.replica.port)
    # what the sentinel does to the old master when it next looks at it (within 10 s)
    admin(setup.master).replicaof("127.0.0.1", setup.replica.port)
    # the old connection is closed or answers READONLY: either way the put goes to the
    # new master, found through the sentinel
    client.queues["q"].put("tests.jobs.Noop", {}, jid="after")
    assert admin(setup.replica).exists("ql:j:after")
    client.close()


@pytest.mark.parametrize("direct", [False, True])
def test_readonly_closes_the_connection_and_the_call_is_sent_once_more(
        servers: Servers, direct: bool) -> None:
    master = servers.redis(port=free_port())
    replica = servers.redis("--replicaof", "127.0.0.1", str(master.port), port=free_port())
    wait_for(lambda: _replicating(replica))
    client = Client(f"redis://127.0.0.1:{replica.port}/0", worker_name="w")
    if direct:
        client.core.go_direct(client.endpoint())
    assert client.core.check() is None  # connected; the script is loaded
    watch = admin(replica)
    before = int(watch.info("stats")["total_connections_received"])
    with pytest.raises(QlessConnectionError, match=r"^READONLY"):
        client.queues["q"].put("tests.jobs.Noop", {}, jid="j")
    # refused, then sent again on a new connection (a URL pointing at a replica stays
    # wrong; through Sentinel, the new connection finds the master)
    assert int(watch.info("stats")["total_connections_received"]) == before + 1
    client.close()
