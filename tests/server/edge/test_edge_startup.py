"""Starting ``ddz-server`` as a newcomer would: a busy port is said in one line that names
``--port`` and ``DDZ_PORT`` (no traceback), the log says which http:// address to open, and
the default settings log no warning."""

from __future__ import annotations

import logging
import resource
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from server.edge.admission import connection_cap
from server.settings import Settings
from tests.redis_server import store_args
from tests.server.edge.test_transport import start_server


def test_a_busy_port_is_said_in_one_line_naming_the_setting(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "server", "--port", str(port), *store_args(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert f"port {port}" in last and "in use" in last
    assert "--port" in last and "DDZ_PORT" in last


def test_the_log_names_the_page_to_open_and_the_defaults_warn_of_nothing(
    tmp_path: Path,
) -> None:
    proc, port = start_server(tmp_path)
    try:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = out.decode()
    assert f"http://127.0.0.1:{port}/" in log
    assert " WARNING " not in log, log


def test_the_default_connection_cap_lowered_to_the_open_files_is_no_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 1024))
    default = Settings().max_connections
    with caplog.at_level(logging.INFO, logger="server.edge.admission"):
        assert connection_cap(default, explicit=False) == 768
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="server.edge.admission"):
        assert connection_cap(5000, explicit=True) == 768  # asked for: worth a warning
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
