"""What a client's bytes can cost the websocket layer: fragments are bounded (1009 past
``MAX_FRAGMENTS``, as websockets does), a frame arriving in tiny pieces is assembled in time
linear in its size, and a connection failed for abuse is closed cleanly (its close frame,
then the client's side read until it goes: no connection reset)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from typing import Any

from websockets.asyncio.client import connect

from server.edge import frames
from server.edge.websocket import MAX_FRAGMENTS, MAX_REQUEST, State, WebSocket, WebSocketServer
from tests.server.edge.test_websocket import (
    UPGRADE,
    Echo,
    closed_with,
    echo_server,
    masked,
    raw_socket,
)
from tests.server.wire import running_server


async def test_a_message_in_more_fragments_than_the_bound_closes_the_connection() -> None:
    async with echo_server(max_size=1 << 20) as (_, echo, url), connect(url) as ws:
        burst = masked(0x02, b"x") + masked(0x00, b"") * MAX_FRAGMENTS
        ws.transport.write(burst)
        assert await closed_with(ws) == (frames.TOO_BIG, "message in too many fragments")
        assert echo.sockets[0].state in (State.CLOSING, State.CLOSED)


async def test_a_message_within_the_bound_of_fragments_arrives_whole() -> None:
    async with echo_server(max_size=1 << 20) as (_, _, url), connect(url) as ws:
        parts = [masked(0x02, b"a")] + [masked(0x00, b"b")] * (MAX_FRAGMENTS - 2)
        ws.transport.write(b"".join(parts) + masked(0x80, b"c"))
        assert await asyncio.wait_for(ws.recv(), 10) == b"a" + b"b" * (MAX_FRAGMENTS - 2) + b"c"


class FakeTransport(asyncio.Transport):
    """Takes what a connection writes; reading is always on."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closing = False

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 1) if name == "peername" else default


async def test_a_frame_in_tiny_pieces_is_assembled_in_linear_time() -> None:
    # 1 MiB in 16-byte pieces cost 1.1 s of CPU when each piece was joined to all before it
    server = WebSocketServer(Echo(), max_size=1 << 20)
    ws = WebSocket(server)
    ws.connection_made(FakeTransport())
    ws.state = State.OPEN
    ws._handler = server.listener.opened(ws)
    payload = os.urandom(512 * 1024)
    wire = masked(0x82, b"")[:1] + bytes((0xFF,)) + (len(payload)).to_bytes(8, "big")
    key = os.urandom(4)
    body = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    wire = wire + key + body
    started = time.process_time()
    for at in range(0, len(wire), 8):
        ws.data_received(wire[at : at + 8])
    spent = time.process_time() - started
    assert ws._inbox is not None and ws._inbox[0] == payload
    assert spent < 1.0, f"{spent:.2f} s of CPU for 512 KB in 8-byte pieces"
    if ws._worker is not None:
        ws._worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ws._worker


async def _fail_and_read(url: str) -> tuple[bytes, BaseException | None]:
    """A raw client that sends a frame the server refuses and keeps sending after it; what
    it reads until the end, and the error that ended it (None: a clean end)."""
    reader, writer = await raw_socket(url)
    writer.write(UPGRADE)
    await reader.readuntil(b"\r\n\r\n")
    writer.write(masked(0x82, b"x", mask=False) + masked(0x82, b"y" * 100) * 2000)
    got = b""
    error: BaseException | None = None
    try:
        async with asyncio.timeout(5):
            while chunk := await reader.read(65536):
                got += chunk
                if got.startswith(frames.close_frame(frames.PROTOCOL_ERROR, "")[:2]):
                    writer.write(masked(0x88, frames.NORMAL.to_bytes(2, "big")))
    except (ConnectionResetError, BrokenPipeError) as exc:
        error = exc
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return got, error


async def test_a_failed_connection_gets_its_close_frame_and_no_reset() -> None:
    async with echo_server() as (_, _, url):
        results = await asyncio.gather(*(_fail_and_read(url) for _ in range(20)))
    resets = [error for _, error in results if error is not None]
    assert resets == []
    expected = frames.close_frame(frames.PROTOCOL_ERROR, "a client's frames must be masked")
    assert all(got == expected for got, _ in results)


# --- before the request is read ------------------------------------------------------------


def _silent_sockets(port: int, n: int, source: str = "127.0.0.1") -> list[socket.socket]:
    """``n`` sockets connected from ``source`` that send nothing."""
    sockets = []
    for _ in range(n):
        sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
        sockets.append(sock)
    return sockets


async def _first_answer(port: int, source: str, request: bytes = b"") -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(request)
    try:
        async with asyncio.timeout(5):
            return await reader.read()
    finally:
        writer.close()


async def test_sockets_that_send_no_request_count_against_their_address(redis_url: str) -> None:
    # 1,100 sockets from one address trickling their request held every file descriptor
    async with running_server(redis_url, max_connections_per_address=2) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        held = _silent_sockets(port, 2 * 2)
        try:  # (accepted in order: the four are counted when the fifth comes)
            answer = await _first_answer(port, "127.0.0.1")  # refused before it asks
            assert answer.startswith(b"HTTP/1.1 429")
            assert b"too many connections from your address (at most 2)" in answer
            assert (await _first_answer(port, "127.0.0.2", HEALTHZ)).startswith(OK)
        finally:
            for sock in held:
                sock.close()
        async with asyncio.timeout(5):  # their places are free again
            while not (await _first_answer(port, "127.0.0.1", HEALTHZ)).startswith(OK):
                await asyncio.sleep(0.01)


HEALTHZ = b"GET /healthz HTTP/1.1\r\n\r\n"
OK = b"HTTP/1.1 200"


async def test_a_request_head_not_whole_within_its_deadline_is_cut() -> None:
    async with echo_server(head_timeout=0.1) as (_, _, url):
        reader, writer = await raw_socket(url)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and nothing more
        started = time.monotonic()
        async with asyncio.timeout(5):
            assert await reader.read() == b""
        assert time.monotonic() - started < 2  # (the whole handshake has 10 s)
        writer.close()


async def test_a_request_head_over_the_bound_is_refused() -> None:
    async with echo_server() as (_, _, url):
        reader, writer = await raw_socket(url)
        writer.write(b"GET / HTTP/1.1\r\nX: " + b"y" * (MAX_REQUEST + 100))
        async with asyncio.timeout(5):
            answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 431")
        assert MAX_REQUEST <= 16 * 1024
