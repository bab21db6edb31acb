"""A client's bytes are parsed a slice at a time: a burst in one write is parsed in slices of
``READ_SLICE`` bytes, every frame in it still handled, in order. Whole messages (fragmented
ones too) go to the app one at a time, in order; nothing waits between them; a full inbox
pauses the socket."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.protocol import Protocol

from protocol.codec import encode
from protocol.messages import Ping, Pong
from server.hub import Connection
from server.reading import INBOX_HIGH, READ_SLICE, PacedConnection
from tests.server.wire import running_server, wire_client

#: Settings that let a test send bursts: no flood limit in the way.
NO_RATE_LIMIT: dict[str, Any] = {"rate_limit": 1e6, "rate_burst": 1_000_000}


def paced(srv: Any, player_id: str) -> PacedConnection:
    """The server's side of a player's connection."""
    ws = srv.app.hub.connections(player_id)[0].ws
    assert isinstance(ws, PacedConnection)
    return ws


async def test_a_burst_in_one_write_is_parsed_in_slices_and_answered_in_order(
    redis_url: str,
) -> None:
    # One read of 256 KB of 1-byte frames was 350 ms of parsing with every other player
    # waiting.
    async with (
        running_server(redis_url, **NO_RATE_LIMIT) as srv,
        wire_client(srv.url) as (client, welcome),
    ):
        server_side = paced(srv, welcome.player_id)
        parsed: list[int] = []
        receive = server_side.protocol.receive_data

        def spy(data: bytes) -> None:
            parsed.append(len(data))
            receive(data)

        server_side.protocol.receive_data = spy  # type: ignore[method-assign]
        ids = range(1000, 3000)
        protocol: Protocol = client.ws.protocol
        for rid in ids:
            protocol.send_binary(encode(Ping(id=rid)))
        burst = b"".join(protocol.data_to_send())
        client.ws.transport.write(burst)  # one write of about 30 KB
        answered = [(await client.recv_type(Pong)).request_id for _ in ids]
        assert answered == list(ids)
        assert sum(parsed) == len(burst)
        assert max(parsed) <= READ_SLICE < len(burst)


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
        server_side = paced(srv, welcome.player_id)
        await client.send(Ping(id=1))
        await client.recv_type(Pong)
        assert server_side._worker is None  # the message is handled: nothing left running


async def test_a_connection_with_its_inbox_full_is_read_no_more_until_it_drains(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with (
        running_server(redis_url, **NO_RATE_LIMIT) as srv,
        wire_client(srv.url) as (client, welcome),
    ):
        server_side = paced(srv, welcome.player_id)
        gate = asyncio.Event()
        receive = srv.app.receive
        paused: list[bool] = []

        async def slow(conn: Connection, message: bytes | str) -> None:
            await gate.wait()
            paused.append(not server_side.transport.is_reading())
            await receive(conn, message)

        monkeypatch.setattr(srv.app, "receive", slow)
        protocol: Protocol = client.ws.protocol
        for rid in range(1, INBOX_HIGH + 6):
            protocol.send_binary(encode(Ping(id=rid)))
        client.ws.transport.write(b"".join(protocol.data_to_send()))
        async with asyncio.timeout(10):
            while server_side.transport.is_reading():
                await asyncio.sleep(0.01)
        gate.set()
        answered = [(await client.recv_type(Pong)).request_id for _ in range(1, INBOX_HIGH + 6)]
        assert answered == list(range(1, INBOX_HIGH + 6))
        assert paused[0] and server_side.transport.is_reading()
