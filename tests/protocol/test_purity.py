"""The protocol package is pure: importing it pulls in no I/O library (PRACTICES: python-chess)."""

from __future__ import annotations

import subprocess
import sys

# Not "socket": pydantic's own imports pull it in (via importlib.metadata), without any I/O.
FORBIDDEN = ("asyncio", "redis", "websockets", "ssl", "http.client", "server", "client")


def test_protocol_imports_no_io_library() -> None:
    code = (
        "import sys, protocol, protocol.cards, protocol.plays, protocol.legal\n"
        "import pkgutil, importlib\n"
        "for m in pkgutil.iter_modules(protocol.__path__):\n"
        "    importlib.import_module('protocol.' + m.name)\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"protocol imported {out}"
