"""The processes a chaos run breaks: a Redis primary with one replica and three Sentinels,
and ``ddz-server`` processes on them, all real binaries on 127.0.0.1.

Every process is started to die with this one (``server.children.die_with_parent``), so a
chaos run killed half-way leaves nothing behind. Each node keeps an append-only file
(``appendfsync`` as asked); a killed primary's node is started again as a replica of the new
primary once the Sentinels have failed over.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from redis import Redis
from redis import exceptions as redis_errors

from server.store.embedded import redis_server_binary

SERVICE = "ddz"
#: How long the primary may not answer before the Sentinels think it down (ms): longer than
#: the pauses a chaos run makes, so a pause is a pause and a kill a failover.
DOWN_AFTER_MS = 4000
FAILOVER_TIMEOUT_MS = 6000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


#: Run a program so that it dies with this process: the death signal is asked for in a
#: small Python first, which then becomes the program (the signal is kept across exec).
#: (Not ``preexec_fn``: Python code between fork and exec may hang in a process with
#: threads, and the run uses threads for its blocking Redis faults.)
_DIE_WITH_PARENT = (
    "import os, sys; from server.children import die_with_parent;"
    " die_with_parent(int(sys.argv[1])); os.execvp(sys.argv[2], sys.argv[2:])"
)


def dying_with_us(args: list[str]) -> list[str]:
    """``args`` as a command that dies with this process (Linux)."""
    return [sys.executable, "-c", _DIE_WITH_PARENT, str(os.getpid()), *args]


def spawn(args: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """A child that dies with this process; its output goes to ``log``."""
    with log.open("ab") as out:
        return subprocess.Popen(
            dying_with_us(args), stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env
        )


def wait_until(test: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisGroup:
    """Two data nodes (the first starts as the primary) and three Sentinels (quorum 2)."""

    def __init__(self, root: Path, appendfsync: str) -> None:
        self.root = root
        self.appendfsync = appendfsync
        self.ports = [free_port(), free_port()]
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.nodes: dict[int, subprocess.Popen[bytes]] = {}
        self.sentinels: list[subprocess.Popen[bytes]] = []
        #: Every process ever started here (the run checks that none is left).
        self.started: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{SERVICE}/0"

    def client(self, port: int) -> Redis:
        return Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=2)

    def start_node(self, port: int, replica_of: int | None) -> None:
        node_dir = self.root / f"redis-{port}"
        node_dir.mkdir(parents=True, exist_ok=True)
        # fmt: off
        args = [
            redis_server_binary(),
            "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_dir),
            "--save", "", "--appendonly", "yes", "--appendfsync", self.appendfsync,
        ]
        # fmt: on
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        process = spawn(args, node_dir / "out.log")
        self.nodes[port] = process
        self.started.append(process)
        wait_until(lambda: answers(port) or process.poll() is not None, 60, f"redis {port}")
        if process.poll() is not None:
            raise RuntimeError(f"redis-server on {port} did not start: see {node_dir}")

    def start(self) -> None:
        primary, replica = self.ports
        self.start_node(primary, None)
        self.start_node(replica, primary)
        self.wait_in_sync(timeout=20)
        for port in self.sentinel_ports:
            conf_dir = self.root / f"sentinel-{port}"
            conf_dir.mkdir(parents=True, exist_ok=True)
            conf = conf_dir / "sentinel.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {conf_dir}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {primary} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
            )
            process = spawn([redis_server_binary(), str(conf), "--sentinel"], conf_dir / "out.log")
            self.sentinels.append(process)
            self.started.append(process)
        wait_until(self.sentinels_agree, 30, "the Sentinels to know each other")

    def named_primary(self, sentinel: int) -> int | None:
        try:
            with contextlib.closing(self.client(sentinel)) as s:
                reply: Any = s.sentinel_get_master_addr_by_name(SERVICE)
            return int(reply[1])
        except (redis_errors.RedisError, TypeError, ValueError):
            return None

    def primary(self) -> int | None:
        """The primary every Sentinel names, or None while they disagree."""
        named = {self.named_primary(port) for port in self.sentinel_ports}
        return named.pop() if len(named) == 1 else None

    def replica(self) -> int:
        primary = self.primary() or self.ports[0]
        return next(port for port in self.ports if port != primary)

    def sentinels_agree(self) -> bool:
        try:
            for port in self.sentinel_ports:
                with contextlib.closing(self.client(port)) as s:
                    master = cast(dict[str, Any], s.sentinel_master(SERVICE))
                if int(master["num-other-sentinels"]) != len(self.sentinel_ports) - 1:
                    return False
                if int(master["num-slaves"]) < 1:
                    return False
        except redis_errors.RedisError:
            return False
        return self.primary() is not None

    def in_sync(self) -> bool:
        """The replica follows the primary, link up, nothing left to copy."""
        primary = self.primary() if self.sentinels else self.ports[0]
        if primary is None:
            return False
        replica = next(port for port in self.ports if port != primary)
        try:
            with (
                contextlib.closing(self.client(primary)) as p,
                contextlib.closing(self.client(replica)) as r,
            ):
                lead: dict[str, Any] = p.info("replication")
                follow: dict[str, Any] = r.info("replication")
        except redis_errors.RedisError:
            return False
        return (
            lead.get("role") == "master"
            and follow.get("role") == "slave"
            and int(follow.get("master_port", 0)) == primary
            and follow.get("master_link_status") == "up"
        )

    def wait_in_sync(self, timeout: float) -> None:
        wait_until(self.in_sync, timeout, "the replica to sync")

    def kill_primary(self, timeout: float = 60.0) -> float:
        """Kill the primary (-9), wait for the Sentinels to fail over, start the old node
        again as a replica of the new primary, and wait until it is in sync. Returns the
        seconds from the kill to the failover."""
        old = self.primary()
        if old is None:
            raise RuntimeError("the Sentinels do not agree on a primary")
        new = next(port for port in self.ports if port != old)
        killed = time.monotonic()
        self.nodes[old].kill()
        self.nodes[old].wait()
        wait_until(lambda: self.primary() == new, timeout, "the failover")
        took = time.monotonic() - killed
        self.start_node(old, new)
        self.wait_in_sync(timeout)
        return took

    def pause(self, port: int, seconds: float) -> None:
        """Stop the node with SIGSTOP for ``seconds``, then let it go on."""
        process = self.nodes[port]
        process.send_signal(signal.SIGSTOP)
        try:
            time.sleep(seconds)
        finally:
            process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        for process in [*self.sentinels, *self.nodes.values()]:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.terminate()
        for process in self.started:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class ServerGroup:
    """``ddz-server`` processes on one store, each to kill and start again on its port."""

    def __init__(self, root: Path, count: int, store_args: list[str], extra: list[str]) -> None:
        self.root = root
        self.ports = [free_port() for _ in range(count)]
        self.store_args = store_args
        self.extra = extra
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.started: list[subprocess.Popen[bytes]] = []
        #: The pids of the servers this run killed.
        self.killed: set[int] = set()
        #: Each server started, and its port.
        self.started_on: dict[subprocess.Popen[bytes], int] = {}

    def url(self, index: int) -> str:
        return f"ws://127.0.0.1:{self.ports[index % len(self.ports)]}"

    def start(self, port: int) -> None:
        args = [sys.executable, "-m", "server", "--port", str(port), *self.store_args]
        process = spawn([*args, *self.extra], self.root / f"server-{port}.log")
        self.processes[port] = process
        self.started.append(process)
        self.started_on[process] = port

    def healthy(self, port: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return s.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def start_all(self) -> None:
        for port in self.ports:
            self.start(port)
        for port in self.ports:
            wait_until(lambda p=port: self.healthy(p), 60, f"ddz-server on {port}")  # type: ignore[misc]

    def kill(self, port: int) -> None:
        self.killed.add(self.processes[port].pid)
        self.processes[port].kill()
        self.processes[port].wait()

    def died(self) -> list[str]:
        """The servers that ended on their own (not killed by the run), said with their
        port and exit status: none should."""
        return [
            f"the server on {port} ended by itself ({process.returncode})"
            for process, port in self.started_on.items()
            if process.poll() is not None and process.pid not in self.killed
        ]

    def descendants(self) -> list[Process]:
        """The live servers' children (bot workers, resource tracker), as processes."""
        parents = {p.pid for p in self.processes.values() if p.poll() is None}
        found: list[int] = []
        changed = True
        while changed:
            changed = False
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit() or int(entry.name) in found:
                    continue
                with contextlib.suppress(OSError, ValueError, IndexError):
                    stat = (entry / "stat").read_text()
                    ppid = int(stat.rsplit(")", 1)[1].split()[1])
                    if ppid in parents or ppid in found:
                        found.append(int(entry.name))
                        changed = True
        return [p for p in map(identity, found) if p is not None]

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.started:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


Process = tuple[int, int]
"""A process as (pid, start time in clock ticks since boot): a pid alone may be reused."""


def identity(pid: int) -> Process | None:
    """``pid`` with its start time, or None when no such process runs (a zombie has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else (pid, int(fields[19]))


def alive(process: Process) -> bool:
    """Whether this very process has not ended."""
    return identity(process[0]) == process
