"""The processes a test run started, found through /proc (Linux): each child of the run
inherits the marker ``DDZ_TEST_SESSION`` in its environment, so processes left by this run
are told from anyone else's (other test runs, servers on the same machine), even after they
were re-parented to init when their parent died.

Run in parallel (pytest-xdist), each worker's marker is the controller's followed by the
worker's id, so the controller finds at the end what any worker left, even a worker that
died."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

MARKER = "DDZ_TEST_SESSION"
#: Set by pytest-xdist in each of its workers: ``gw0``, ``gw1``...
WORKER = "PYTEST_XDIST_WORKER"
PROC = Path("/proc")


def mark_session() -> str:
    """Give this process (and so every process it starts from now on) a marker of its own:
    in a parallel run's worker, its controller's marker with the worker's id after it."""
    inherited, worker = os.environ.get(MARKER), os.environ.get(WORKER)
    if inherited and worker:
        os.environ[MARKER] = f"{inherited}-{worker}"
    else:
        os.environ[MARKER] = uuid.uuid4().hex
    return os.environ[MARKER]


def _read(pid: int, name: str) -> bytes:
    try:
        return (PROC / str(pid) / name).read_bytes()
    except OSError:
        return b""


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie (dead, waiting to be reaped)."""
    stat = _read(pid, "stat")
    if not stat:
        return False
    state = stat.rsplit(b")", 1)[-1].split()[0]
    return state not in (b"Z", b"X")


def parent(pid: int) -> int:
    stat = _read(pid, "stat")
    return int(stat.rsplit(b")", 1)[-1].split()[1]) if stat else 0


def command_line(pid: int) -> str:
    return _read(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace").strip()


def pids() -> list[int]:
    return [int(p.name) for p in PROC.iterdir() if p.name.isdigit()]


def descendants(root: int) -> list[int]:
    """Every living process below ``root`` (children, their children...)."""
    children: dict[int, list[int]] = {}
    for pid in pids():
        children.setdefault(parent(pid), []).append(pid)
    found: list[int] = []
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if alive(pid):
            found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _holds(environ: bytes, marker: str, family: bool) -> bool:
    needle = f"{MARKER}={marker}".encode()
    for entry in environ.split(b"\0"):
        if entry == needle or (family and entry.startswith(needle + b"-")):
            return True
    return False


def marked(marker: str, family: bool = False) -> list[int]:
    """Living processes, other than this one, whose environment holds ``marker``; with
    ``family``, also those of the parallel workers under it (``marker-gw0``...)."""
    me = os.getpid()
    return [
        pid
        for pid in pids()
        if pid != me and alive(pid) and _holds(_read(pid, "environ"), marker, family)
    ]


def wait_gone(candidates: list[int], timeout: float) -> list[int]:
    """Wait up to ``timeout`` seconds for these processes to end; those still alive."""
    deadline = time.monotonic() + timeout
    left = [p for p in candidates if alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if alive(p)]
    return left
