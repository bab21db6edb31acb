"""The websocket transport (``server.edge.websocket``): the protocol as RFC 6455 has it (pings
answered, the closing handshake both ways, a frame the protocol forbids closes its
connection with the code it calls for), a dead or silent client closed, and reading paced: a
burst in one write is parsed in slices of ``READ_SLICE`` bytes, every frame in it still
handled, in order. Whole messages (fragmented ones too) go to the app one at a time, in order;
nothing waits between them; a full inbox pauses the socket."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import Protocol

from protocol.codec import encode
from protocol.messages import Ping, Pong
from server.edge import frames
from server.edge.hub import Connection
from server.edge.websocket import INBOX_HIGH, READ_SLICE, Handler, WebSocket, WebSocketServer
from tests.server.wire import WireClient, running_server, wire_client

#: Settings that let a test send bursts: no flood limit in the way.
NO_RATE_LIMIT: dict[str, Any] = {"rate_limit": 1e6, "rate_burst": 1_000_000}


#: An empty pong as a client sends it: two bytes of header and the four of its mask.
PONG_BYTES = 6


@contextlib.asynccontextmanager
async def unlimited_client(redis_url: str) -> AsyncIterator[tuple[Any, WireClient, WebSocket]]:
    """A server with no flood limit in the way of a burst, a client that said hello, and the
    server's side of its connection."""
    async with (
        running_server(redis_url, **NO_RATE_LIMIT) as srv,
        wire_client(srv.url) as (client, welcome),
    ):
        yield srv, client, server_side(srv, welcome.player_id)


def server_side(srv: Any, player_id: str) -> WebSocket:
    """The server's side of a player's connection."""
    ws = srv.app.hub.connections(player_id)[0].ws
    assert isinstance(ws, WebSocket)
    return ws


class Echo:
    """Answers each message with itself; remembers how each connection ended."""

    def __init__(self) -> None:
        self.sockets: list[WebSocket] = []
        self.ended: list[WebSocket] = []

    def arrived(self, ws: WebSocket) -> tuple[HTTPStatus, str] | None:
        return None

    async def answer(self, ws: WebSocket, request: Request) -> Response | None:
        if request.path == "/hello":
            return ws.respond(HTTP_OK, "hello\n")
        return None

    def opened(self, ws: WebSocket) -> Handler:
        self.sockets.append(ws)
        return EchoClient(self, ws)

    def lost(self, ws: WebSocket) -> None:
        pass


class EchoClient:
    def __init__(self, echo: Echo, ws: WebSocket) -> None:
        self.echo, self.ws = echo, ws

    async def message(self, data: bytes | str) -> None:
        payload = data.encode() if isinstance(data, str) else data
        self.ws.write(frames.binary_frame(payload))

    async def closed(self) -> None:
        self.echo.ended.append(self.ws)


HTTP_OK = HTTPStatus.OK


@contextlib.asynccontextmanager
async def echo_server(**options: Any) -> AsyncIterator[tuple[WebSocketServer, Echo, str]]:
    echo = Echo()
    server = WebSocketServer(echo, **{"max_size": 1024, **options})
    await server.start("127.0.0.1", 0)
    try:
        yield server, echo, f"ws://127.0.0.1:{server.port}"
    finally:
        server.stop_accepting()
        server.close_all(frames.GOING_AWAY, "bye", 1)
        await asyncio.wait_for(server.wait_closed(), 5)


async def raw_socket(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A plain TCP connection to the server at ``url``: the test speaks HTTP itself."""
    return await asyncio.open_connection("127.0.0.1", int(url.rsplit(":", 1)[1]))


#: A websocket opening request, by hand.
UPGRADE = (
    b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def masked(first: int, payload: bytes, *, mask: bool = True) -> bytes:
    """A client frame built by hand: ``first`` is its first byte (FIN, RSV, opcode)."""
    key = os.urandom(4)
    size = len(payload)
    if size < 126:
        header = bytes((first, (0x80 if mask else 0) | size))
    else:
        header = bytes((first, (0x80 if mask else 0) | 126)) + size.to_bytes(2, "big")
    if not mask:
        return header + payload
    return header + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


async def closed_with(ws: ClientConnection) -> tuple[int | None, str | None]:
    """The close code and reason the server sent ``ws``."""
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(5):
            while True:
                await ws.recv()
    received = ws.protocol.close_rcvd
    return (received.code, received.reason) if received else (None, None)


async def test_messages_are_answered_in_order_and_a_text_message_arrives_as_text() -> None:
    async with echo_server() as (_, _, url), connect(url) as ws:
        for n in range(20):
            await ws.send(bytes([n]))
        await ws.send("déjà")
        assert [await ws.recv() for _ in range(20)] == [bytes([n]) for n in range(20)]
        assert await ws.recv() == "déjà".encode()


async def test_a_ping_is_answered_with_a_pong() -> None:
    async with echo_server() as (_, _, url), connect(url) as ws:
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 5)


async def test_a_client_close_is_answered_with_its_code_and_the_end_handled() -> None:
    async with echo_server() as (server, echo, url):
        async with connect(url) as ws:
            await ws.send(b"x")
            assert await ws.recv() == b"x"
            await ws.close(4000, "done")
            assert ws.protocol.close_rcvd is not None
            assert ws.protocol.close_rcvd.code == 4000
        await asyncio.wait_for(server.wait_closed(), 5)
        assert echo.ended == echo.sockets


async def test_the_server_closes_with_a_code_and_a_reason() -> None:
    async with echo_server() as (_, echo, url), connect(url) as ws:
        await ws.send(b"x")
        await ws.recv()
        echo.sockets[0].close(frames.POLICY, "go away")
        assert await closed_with(ws) == (frames.POLICY, "go away")


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (masked(0x82, b"x" * 1025), frames.TOO_BIG),  # over max_size
        (masked(0x82, b"x", mask=False), frames.PROTOCOL_ERROR),  # a client must mask
        (masked(0xC2, b"x"), frames.PROTOCOL_ERROR),  # a reserved bit
        (masked(0x83, b"x"), frames.PROTOCOL_ERROR),  # an unknown opcode
        (masked(0x80, b"x"), frames.PROTOCOL_ERROR),  # a continuation of nothing
        (masked(0x09, b"x"), frames.PROTOCOL_ERROR),  # a fragmented ping
        (masked(0x81, b"\xff\xfe"), frames.INVALID_DATA),  # text that is not UTF-8
        (masked(0x88, b"\x03\xed"), frames.PROTOCOL_ERROR),  # close code 1005 is not sendable
    ],
    # named, not shown: a frame's mask is random, and parallel workers must collect alike
    ids=[
        "over-max-size",
        "unmasked",
        "reserved-bit",
        "unknown-opcode",
        "continuation-of-nothing",
        "fragmented-ping",
        "text-not-utf8",
        "close-code-1005",
    ],
)
async def test_a_frame_the_protocol_forbids_closes_the_connection(frame: bytes, code: int) -> None:
    async with echo_server() as (_, echo, url), connect(url) as ws:
        ws.transport.write(frame)
        assert (await closed_with(ws))[0] == code
        assert echo.sockets[0].state.name in ("CLOSING", "CLOSED")


async def test_a_message_over_the_limit_in_fragments_closes_the_connection() -> None:
    async with echo_server() as (_, _, url), connect(url) as ws:
        ws.transport.write(masked(0x02, b"x" * 600) + masked(0x80, b"x" * 600))
        assert (await closed_with(ws))[0] == frames.TOO_BIG


async def test_a_client_that_answers_no_ping_is_closed() -> None:
    async with echo_server(keepalive=0.05) as (_, _, url):
        async with connect(url, ping_interval=None) as alive:
            reader, writer = await raw_socket(url)
            writer.write(UPGRADE)
            async with asyncio.timeout(5):
                assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
                rest = await reader.read()  # pings, then the close frame and the end
            writer.close()
            assert rest.endswith(
                frames.close_frame(frames.INTERNAL_ERROR, "keepalive ping timeout")
            )
            await alive.send(b"still here")  # the websockets client answered every ping
            assert await alive.recv() == b"still here"


async def test_a_socket_that_never_completes_its_handshake_is_closed() -> None:
    async with echo_server(open_timeout=0.05) as (_, _, url):
        reader, writer = await raw_socket(url)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and nothing more
        async with asyncio.timeout(5):
            assert await reader.read() == b""
        writer.close()


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", b"200"),  # the listener's own answer
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"426"),  # no upgrade asked
        (b"nonsense\r\n\r\n", b"400"),
        (b"GET / HTTP/1.1\r\nX: " + b"y" * 70_000, b"431"),
    ],
)
async def test_plain_http_is_answered_and_closed(request_bytes: bytes, status: bytes) -> None:
    async with echo_server() as (_, _, url):
        reader, writer = await raw_socket(url)
        writer.write(request_bytes)
        async with asyncio.timeout(5):
            answer = await reader.read()
        writer.close()
        assert answer.split(b" ")[1] == status


async def test_a_burst_in_one_write_is_parsed_in_slices_and_answered_in_order(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One read of 256 KB of 1-byte frames was 350 ms of parsing with every other player
    # waiting.
    async with unlimited_client(redis_url) as (_, client, _):
        parsed: list[int] = []
        parse = WebSocket._parse

        def spy(self: WebSocket) -> None:
            before = len(self._data)
            parse(self)
            parsed.append(before - len(self._data))

        monkeypatch.setattr(WebSocket, "_parse", spy)
        ids = range(1000, 3000)
        protocol: Protocol = client.ws.protocol
        for rid in ids:
            protocol.send_binary(encode(Ping(id=rid)))
        burst = b"".join(protocol.data_to_send())
        client.ws.transport.write(burst)  # one write of about 30 KB
        answered = [(await client.recv_type(Pong)).request_id for _ in ids]
        assert answered == list(ids)
        # every byte of the burst parsed; and at most the client's pong to a keepalive ping
        # of the server's besides (an empty masked control frame, 6 bytes): a loaded run
        # lasted long enough for one
        assert sum(parsed) - len(burst) in (0, PONG_BYTES), (sum(parsed), len(burst))
        longest_frame = max(len(frames.binary_frame(encode(Ping(id=rid)))) + 4 for rid in ids)
        # a slice ends with the frame that crosses READ_SLICE
        assert max(parsed) < READ_SLICE + longest_frame < len(burst)


async def test_a_fragmented_message_is_handled_whole_and_in_its_place(redis_url: str) -> None:
    async with running_server(redis_url) as srv, wire_client(srv.url) as (client, _):
        protocol: Protocol = client.ws.protocol
        whole = encode(Ping(id=7))
        protocol.send_binary(encode(Ping(id=6)))
        protocol.send_binary(whole[:3], fin=False)
        protocol.send_continuation(whole[3:], fin=True)
        protocol.send_binary(encode(Ping(id=8)))
        client.ws.transport.write(b"".join(protocol.data_to_send()))
        assert [(await client.recv_type(Pong)).request_id for _ in range(3)] == [6, 7, 8]


async def test_no_task_waits_on_a_connection_between_its_messages(redis_url: str) -> None:
    # (websockets' recv kept a coroutine chain waiting per connection, which the garbage
    # collector walked at every young collection)
    async with running_server(redis_url) as srv, wire_client(srv.url) as (client, welcome):
        ws = server_side(srv, welcome.player_id)
        await client.send(Ping(id=1))
        await client.recv_type(Pong)
        assert ws._worker is None  # the message is handled: nothing left running


async def test_a_connection_with_its_inbox_full_is_read_no_more_until_it_drains(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with unlimited_client(redis_url) as (srv, client, ws):
        gate = asyncio.Event()
        receive = srv.app.receive
        paused: list[bool] = []

        async def slow(conn: Connection, message: bytes | str) -> None:
            await gate.wait()
            paused.append(not ws.transport.is_reading())
            await receive(conn, message)

        monkeypatch.setattr(srv.app, "receive", slow)
        protocol: Protocol = client.ws.protocol
        for rid in range(1, INBOX_HIGH + 6):
            protocol.send_binary(encode(Ping(id=rid)))
        client.ws.transport.write(b"".join(protocol.data_to_send()))
        async with asyncio.timeout(10):
            while ws.transport.is_reading():
                await asyncio.sleep(0.01)
        gate.set()
        answered = [(await client.recv_type(Pong)).request_id for _ in range(1, INBOX_HIGH + 6)]
        assert answered == list(range(1, INBOX_HIGH + 6))
        assert paused[0] and ws.transport.is_reading()


class Counting(Echo):
    """Counts a connection in when its answer is given (as the caps do), out when lost;
    answers only once ``gate`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.answered = asyncio.Event()
        self.counted: set[WebSocket] = set()

    async def answer(self, ws: WebSocket, request: Request) -> Response | None:
        await self.gate.wait()
        self.counted.add(ws)
        self.answered.set()
        return None

    def lost(self, ws: WebSocket) -> None:
        self.counted.discard(ws)


async def test_a_socket_cut_while_its_answer_waits_is_counted_out_once_answered() -> None:
    # (a slow answer, such as /healthz with Redis slow, and the opening handshake's timeout)
    counting = Counting()
    server = WebSocketServer(counting, max_size=1024, open_timeout=0.1)
    await server.start("127.0.0.1", 0)
    try:
        _, writer = await raw_socket(f"ws://127.0.0.1:{server.port}")
        writer.write(UPGRADE)
        async with asyncio.timeout(5):
            while not server.connections:
                await asyncio.sleep(0.01)
            while server.connections:  # cut by the timeout while its answer waits
                await asyncio.sleep(0.01)
        counting.gate.set()
        await asyncio.wait_for(counting.answered.wait(), 5)
        await asyncio.sleep(0)  # (the rest of the answer's task)
        assert counting.counted == set()
        assert counting.sockets == []  # never opened
        writer.close()
    finally:
        server.stop_accepting()
        await asyncio.wait_for(server.wait_closed(), 5)
