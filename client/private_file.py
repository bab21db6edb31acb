"""Small private files in ``ddz``'s state folder: one JSON object naming its layout and its
server, written whole or not at all (0600, in a 0700 folder), and read back only when it is
one we wrote. The saved session and the player key are kept so."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

#: The files' layout: a later one can be told apart.
FORMAT = 1


def read_private(
    path: Path, server: str, field: str, most: int, plausible: Callable[[object], bool]
) -> str | None:
    """The ``field`` kept for ``server`` at ``path``; None when there is no file, or it is
    not one we wrote (another layout or server, too long, a value of the wrong shape)."""
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read(4 * most))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    value = data.get(field)
    if data.get("server") != server or not plausible(value) or not isinstance(value, str):
        return None
    return value


def make_private_folder(folder: Path) -> None:
    """The state folder, made if missing and closed to others (0700)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_mode & 0o077:
        folder.chmod(0o700)


def write_private(path: Path, server: str, field: str, value: str) -> None:
    """Keep ``value`` for ``server`` at ``path``, replacing the file whole (0600, in the
    0700 folder); OSError when it cannot be written."""
    body = json.dumps({"format": FORMAT, "server": server, field: value})
    make_private_folder(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{field}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
