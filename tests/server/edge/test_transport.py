"""The real ddz-server process: --help, /healthz, and SIGTERM closing connections with a
reason and exiting within the grace."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.messages import Snapshot, StartPractice
from tests.redis_server import RedisProcess, free_port, store_args
from tests.server.wire import WireClient, running_server, wire_client


def start_server(data_dir: Path, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", str(port), *store_args(data_dir), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start: " + proc.communicate()[0].decode())


@pytest.fixture(params=["uvloop", "asyncio"])
def server_process(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A server on each event loop it can run on (``--event-loop``)."""
    proc, port = start_server(tmp_path, "--shutdown-grace", "2", "--event-loop", request.param)
    yield proc, port
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_help_documents_every_setting() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "server", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for flag in ("--host", "--port", "--redis-url", "--bid-timeout", "--play-timeout"):
        assert flag in out
    assert "REDIS_URL" in out and "DDZ_PORT" in out


def test_healthz_answers_ok(server_process: tuple[subprocess.Popen[bytes], int]) -> None:
    _, port = server_process
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
        assert response.status == 200
        assert response.read() == b"ok\n"


def test_environment_sets_the_port(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, DDZ_PORT=str(port), DDZ_DATA_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "server"], env=env)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        pytest.fail("the server did not listen on DDZ_PORT")
    finally:
        proc.terminate()
        proc.wait(10)


async def test_sigterm_closes_connections_with_a_reason_and_exits(
    server_process: tuple[subprocess.Popen[bytes], int], request: pytest.FixtureRequest
) -> None:
    proc, port = server_process
    async with wire_client(f"ws://127.0.0.1:{port}") as (client, _):
        await client.send(StartPractice(deals=1, speed="slow"))
        await client.recv_type(Snapshot)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await client.recv(timeout=10)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1001
        assert closed.value.rcvd.reason == "server shutting down"
    code = await asyncio.to_thread(proc.wait, 10)
    assert code == 0
    assert time.monotonic() - started < 5
    assert proc.stdout is not None
    log = proc.stdout.read().decode()
    loop = request.node.callspec.params["server_process"]
    assert f"(event loop: {loop})" in log and "did not stop within" not in log


def test_an_unknown_event_loop_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server", "--event-loop", "trio"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "--event-loop must be one of uvloop, asyncio" in done.stderr


async def test_a_stopped_server_refuses_new_connections(
    server_process: tuple[subprocess.Popen[bytes], int],
) -> None:
    proc, port = server_process
    proc.send_signal(signal.SIGTERM)
    await asyncio.to_thread(proc.wait, 10)
    with pytest.raises(OSError):
        async with connect(f"ws://127.0.0.1:{port}", open_timeout=2) as ws:
            WireClient(ws)


def healthz(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


async def test_healthz_says_503_while_redis_does_not_answer(tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    try:
        async with running_server(redis.url) as srv:
            port = int(srv.url.rsplit(":", 1)[1])
            assert await asyncio.to_thread(healthz, port) == 200
            redis.stop()
            assert await asyncio.to_thread(healthz, port) == 503
            redis.start()
            # known down, /healthz answers 503 at once until the probe (four a second) finds
            # Redis back: it says 200 from then on
            deadline = time.monotonic() + 10
            while (status := await asyncio.to_thread(healthz, port)) != 200:
                assert status == 503 and time.monotonic() < deadline, status
                await asyncio.sleep(0.05)
    finally:
        redis.stop()
