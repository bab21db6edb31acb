"""Shared fixtures of the client's tests: a real ``ddz-server`` process."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from collections.abc import Iterator

import pytest

from tests.client.procs import DDZ_SERVER, free_port
from tests.redis_server import store_args


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server on a free port; yields its websocket URL."""
    tmp = tmp_path_factory.mktemp("server")
    port = free_port()
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [*DDZ_SERVER, "--port", str(port), *store_args(tmp / "data")],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(
                        "the server did not start: " + (tmp / "server.log").read_text()
                    ) from None
                time.sleep(0.1)
        yield f"ws://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
