"""Debian packages some tests need (the browser, nginx), installed with apt when missing and
this is root, as on CI's fresh machine; else the test fails and says how to get them.

The suite's workers may ask at once: one installs while the others wait on a file lock (and
apt's own lock is waited for, not failed on), then each finds the program there."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

LOCK = Path("/tmp/ddz-tests-apt.lock")


def ensure_installed(program: str, packages: list[str]) -> str:
    """The path of ``program`` (a path, or a command on PATH); installs ``packages`` with
    apt-get when it is missing."""
    found = _find(program)
    if found is not None:
        return found
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        pytest.fail(
            f"this test needs {program}: run `sudo apt-get install -y {' '.join(packages)}`",
            pytrace=False,
        )
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (released when the file closes)
        found = _find(program)  # another worker may have installed it meanwhile
        if found is not None:
            return found
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        wait = ["-o", "DPkg::Lock::Timeout=600"]
        for args in ([apt, *wait, "update", "-q"], [apt, *wait, "install", "-y", "-q", *packages]):
            done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                pytest.fail(
                    f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}",
                    pytrace=False,
                )
    found = _find(program)
    if found is None:
        pytest.fail(
            f"apt-get installed {' '.join(packages)} but {program} is missing", pytrace=False
        )
    return found


def _find(program: str) -> str | None:
    if "/" in program:
        return program if Path(program).exists() else None
    # (/usr/sbin is not on every PATH: nginx lives there)
    return shutil.which(program) or shutil.which(program, path="/usr/sbin:/sbin")
