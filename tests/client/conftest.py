"""Shared fixtures of the client's tests: real ``ddz-server`` processes."""

from __future__ import annotations

import contextlib
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.client.procs import DDZ_SERVER, free_port
from tests.redis_server import store_args

#: Seconds a lone player waits in the quick-match queue of ``quick_server`` before bots fill
#: the seats: long enough that three ``ddz`` processes started together always meet (they
#: take a few tenths of a second each to start), short enough for the lone-player tests.
QUICK_MATCH_WAIT = 2.0


@contextlib.contextmanager
def running_server(
    tmp: Path, extra: Sequence[str] = (), command: Sequence[str] = DDZ_SERVER
) -> Iterator[str]:
    """A server process on a free port, its data under ``tmp``; yields its websocket URL."""
    port = free_port()
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [*command, "--port", str(port), *store_args(tmp / "data"), *extra],
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


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder of the test's own (``XDG_STATE_HOME``), for any session a client keeps:
    never the real home's, and never another test's."""
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    monkeypatch.delenv("DDZ_NO_SESSION", raising=False)
    return home


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    """Typed input for the interactive client, with its output thrown away."""
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server on a free port; yields its websocket URL."""
    with running_server(tmp_path_factory.mktemp("server")) as url:
        yield url


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server for quick matches: a short queue wait, short clocks, instant bots."""
    extra = [
        "--quick-match-wait", str(QUICK_MATCH_WAIT),
        "--bot-speed", "instant",
        "--bid-timeout", "5",
        "--play-timeout", "5",
        "--ready-timeout", "1",
    ]  # fmt: skip
    with running_server(tmp_path_factory.mktemp("quick-server"), extra) as url:
        yield url
