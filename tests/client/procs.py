"""How the client's tests start real processes: the console scripts, and a free port
(``free_port``, from ``tests/ports.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.ports import free_port

BIN = Path(sys.executable).parent


def command(script: str, module: str) -> list[str]:
    """The console script next to this interpreter, or ``python -m`` when not installed."""
    path = BIN / script
    return [str(path)] if path.exists() else [sys.executable, "-m", module]


#: ``ddz`` as the tests run it: keeping no session on disk, so that no test resumes another's
#: seat and nothing is written into the home of whoever runs the tests.
DDZ = [*command("ddz", "client.cli"), "--no-save-session"]
#: ``ddz`` keeping its session (in ``$XDG_STATE_HOME/ddz``: point it at a temporary folder).
DDZ_KEEPING = command("ddz", "client.cli")
DDZ_SERVER = command("ddz-server", "server")

__all__ = ["DDZ", "DDZ_KEEPING", "DDZ_SERVER", "command", "free_port"]
