"""A server process's children live and die with it: a ``kill -9`` of the server leaves
none of them (embedded Redis, bot-pool workers, multiprocessing's resource tracker)
running; Ctrl-C at its terminal is a clean shutdown, like SIGTERM. Real processes, read
through /proc (Linux)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from protocol.messages import CreateRoom, ListRooms, RoomList, Snapshot
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import RedisStore
from tests import processes
from tests.redis_server import free_port
from tests.server.wire import wire_client

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

#: Seconds the children get to go once the server is gone (they are waited for, not slept).
GONE_WITHIN = 10.0


async def start_server(
    data_dir: Path, log: Path, own_group: bool = False
) -> tuple[asyncio.subprocess.Process, int]:
    """A ddz-server on an embedded Redis, once its bot pool is warm (``/healthz`` answers
    after the start, which warms the pool)."""
    port = free_port()
    args = [sys.executable, "-m", "server", "--port", str(port), "--data-dir", str(data_dir)]
    args += ["--bot-pool-start", "warm"]  # (the tests' default is lazy: tests/conftest.py)
    with log.open("ab") as out:
        proc = await asyncio.create_subprocess_exec(
            *args, stdout=out, stderr=out, start_new_session=own_group
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = await reader.read()
            writer.close()
            if answer.startswith(b"HTTP/1.1 200") and "listening" in log.read_text():
                break
        except OSError:
            pass
        await asyncio.sleep(0.1)
    else:
        proc.kill()
        await proc.wait()
        raise AssertionError("the server did not start: " + log.read_text())
    return proc, port


async def children_up(server: int) -> dict[int, str]:
    """The server's descendants once its two workers, their resource tracker and Redis
    are all up: pid to command line."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = {pid: processes.command_line(pid) for pid in processes.descendants(server)}
        lines = list(found.values())
        if (
            sum("multiprocessing.spawn" in c for c in lines) >= 2
            and any("resource_tracker" in c for c in lines)
            and any("redis-server" in c for c in lines)
        ):
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"the server's children did not all start: {found}")


async def test_kill_9_of_the_server_leaves_no_child_running(tmp_path: Path) -> None:
    """Regression (issue 11, item 8): each kill -9 of the server left its two bot workers
    and multiprocessing's helper (about 110 MB) running for ever."""
    server, _ = await start_server(tmp_path / "data", tmp_path / "server.log")
    try:
        children = await children_up(server.pid)
    finally:
        server.kill()  # SIGKILL
        await server.wait()
    left = await asyncio.to_thread(processes.wait_gone, list(children), GONE_WITHIN)
    assert not left, {pid: children[pid] for pid in left}


def server_code_in(pid: int) -> bool:
    """Whether process ``pid`` has loaded the server's code (pydantic's compiled core, which
    the protocol's messages import and ``server.children`` does not)."""
    try:
        return "pydantic_core" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


async def test_a_server_killed_while_its_workers_start_leaves_none_running_on(
    tmp_path: Path,
) -> None:
    """Regression (issue 35): a kill -9 soon after the start left the two bot workers and
    the resource tracker running for 7-16 s: a worker imported the whole server (the
    main module, then the pool's module) before its first own line asked to die with its
    parent, and went on importing, orphaned. Now it asks first: killed as the workers
    appear, no child goes on to load the server's code, and all are gone at once."""
    port = free_port()
    log = tmp_path / "server.log"
    args = [sys.executable, "-m", "server", "--port", str(port), "--data-dir", str(tmp_path)]
    args += ["--bot-pool-start", "warm"]
    with log.open("ab") as out:
        server = await asyncio.create_subprocess_exec(*args, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 60
        while not any(
            "multiprocessing.spawn" in processes.command_line(pid)
            for pid in processes.descendants(server.pid)
        ):
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.005)
        children = {pid: processes.command_line(pid) for pid in processes.descendants(server.pid)}
    finally:
        server.kill()  # SIGKILL
        await server.wait()
    killed = time.monotonic()
    left = [pid for pid in children if processes.alive(pid)]
    # (a worker that had loaded it already asked to die with the server: it is dying)
    loaded = {pid for pid in left if server_code_in(pid)}
    went_on: set[int] = set()  # orphans that loaded the server's code after the kill
    while left and time.monotonic() < killed + GONE_WITHIN:
        went_on |= {pid for pid in left if pid not in loaded and server_code_in(pid)}
        await asyncio.sleep(0.005)
        left = [pid for pid in left if processes.alive(pid)]
    assert not left, {pid: children[pid] for pid in left}
    assert not went_on, {pid: children[pid] for pid in went_on}


async def test_ctrl_c_is_a_clean_shutdown_that_gives_the_leases_up(tmp_path: Path) -> None:
    """Regression (issue 11, item 8): Ctrl-C at the terminal also reached the embedded
    Redis and the workers: two KeyboardInterrupt tracebacks, then "could not release room
    leases". SIGINT goes to the whole process group here, as a terminal sends it."""
    data_dir = tmp_path / "data"
    log = tmp_path / "server.log"
    server, port = await start_server(data_dir, log, own_group=True)
    try:
        children = await children_up(server.pid)
        async with wire_client(f"ws://127.0.0.1:{port}") as (client, _):
            await client.send(CreateRoom(deals=3))
            code = (await client.recv_type(Snapshot)).room.code
        os.killpg(server.pid, signal.SIGINT)  # its group: the server is the group leader
        returncode = await asyncio.wait_for(server.wait(), 30)
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    text = log.read_text()
    assert returncode == 0, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert "could not release" not in text, text
    left = await asyncio.to_thread(processes.wait_gone, list(children), GONE_WITHIN)
    assert not left, {pid: children[pid] for pid in left}
    # the room's lease was given up, so another process could take it at once
    embedded = EmbeddedRedis(data_dir)
    store = RedisStore.from_url(embedded.start(), 60, 60)
    try:
        assert await store.lease_holder(code) is None
        assert code in await store.active_rooms()  # still to be played
    finally:
        await store.close()
        embedded.stop()


async def test_ctrl_c_while_the_server_waits_for_redis_ends_it_cleanly(tmp_path: Path) -> None:
    """SIGINT before the server serves (it waits for a Redis that does not answer) is the
    same clean stop: no KeyboardInterrupt traceback, exit status 0, at once."""
    log = tmp_path / "server.log"
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    args = [sys.executable, "-m", "server", "--port", str(free_port()), "--redis-url", nowhere]
    with log.open("ab") as out:
        server = await asyncio.create_subprocess_exec(*args, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 30
        while "waiting for Redis" not in log.read_text() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        server.send_signal(signal.SIGINT)
        returncode = await asyncio.wait_for(server.wait(), 10)
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    text = log.read_text()
    assert "waiting for Redis" in text and returncode == 0, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text


async def healthz(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    answer = await reader.read()
    writer.close()
    return answer


async def test_the_embedded_redis_killed_is_started_again_and_still_dies_with_the_server(
    tmp_path: Path,
) -> None:
    """``kill -9`` of the embedded Redis left a zombie and a server answering 503 for good.
    Now it is started again on its file (one log line for the death, one for the return),
    the server answers again, the room is still there, and the new Redis, started from the
    supervisor's thread, still ends with a server killed with -9."""
    log = tmp_path / "server.log"
    server, port = await start_server(tmp_path / "data", log)
    try:
        children = await children_up(server.pid)
        async with wire_client(f"ws://127.0.0.1:{port}") as (client, _):
            await client.send(CreateRoom(deals=3, public=True))
            code = (await client.recv_type(Snapshot)).room.code
        (redis,) = [pid for pid, line in children.items() if "redis-server" in line]
        os.kill(redis, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while "embedded Redis is back" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.05)
        assert not Path(f"/proc/{redis}").exists()  # reaped, not a zombie
        while not (await healthz(port)).startswith(b"HTTP/1.1 200"):
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.05)
        async with wire_client(f"ws://127.0.0.1:{port}") as (client, _):
            # (written back, with its place in the list, when the rooms go on after the
            # answer comes: the last second's writes may be gone from the file)
            while True:
                await client.send(ListRooms())
                if code in [r.code for r in (await client.recv_type(RoomList)).rooms]:
                    break
                assert time.monotonic() < deadline, log.read_text()
                await asyncio.sleep(0.2)
        text = log.read_text()
        assert text.count("embedded Redis died") == 1, text
        assert text.count("embedded Redis is back") == 1, text
        (again,) = [
            pid
            for pid in processes.descendants(server.pid)
            if "redis-server" in processes.command_line(pid)
        ]
    finally:
        server.kill()  # SIGKILL
        await server.wait()
    left = await asyncio.to_thread(processes.wait_gone, [again], GONE_WITHIN)
    assert not left, "the restarted Redis outlived the server"
