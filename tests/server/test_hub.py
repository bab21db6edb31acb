"""The hub over real sockets: what one change sends a connection arrives whole and in
order, written to its socket at once; a player connected elsewhere is handed over."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve

from protocol.codec import decode_server, encode
from protocol.errors import ErrorCode
from protocol.messages import PROTOCOL_VERSION, Error, Hello, Queued, Welcome
from server.flood import TokenBucket
from server.hub import Connection, Hub
from tests.server.wire import running_server


class CountedWrites:
    """Wraps a transport's ``write`` to count the calls (each one is a system call)."""

    def __init__(self, ws: ServerConnection) -> None:
        self.calls = 0
        self._write = ws.transport.write
        ws.transport.write = self  # type: ignore[method-assign]

    def __call__(self, data: Any) -> None:
        self.calls += 1
        self._write(data)


@contextlib.asynccontextmanager
async def hub_with(*players: str) -> AsyncIterator[tuple[Hub, list[ClientConnection]]]:
    """A hub whose server has one connected websocket per player, bound to it."""
    hub = Hub()
    bound: list[Connection] = []
    ready = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        conn = Connection(ws, TokenBucket(10, 10))
        hub.add(conn)
        bound.append(conn)
        if len(bound) == len(players):
            ready.set()
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        clients = [await connect(f"ws://127.0.0.1:{port}") for _ in players]
        await asyncio.wait_for(ready.wait(), 5)
        # The handlers ran in the order the clients connected.
        for conn, player in zip(bound, players, strict=True):
            hub.bind(conn, player)
        try:
            yield hub, clients
        finally:
            for client in clients:
                await client.close()


async def received(client: ClientConnection, n: int) -> list[BaseModel]:
    return [decode_server(await asyncio.wait_for(client.recv(), 5)) for _ in range(n)]


def error(text: str) -> Error:
    return Error(code=ErrorCode.NOT_YOUR_TURN, message=text)


async def test_one_changes_messages_reach_each_player_in_order_in_one_write() -> None:
    async with hub_with("ann", "bo") as (hub, (ann, bo)):
        writes = [CountedWrites(c.ws) for c in sorted(hub.all, key=lambda c: c.player_id or "")]
        everyone, only_ann, last = error("first"), error("for ann"), Queued(wait=1.0, waiting=2)
        hub.deliver([("ann", everyone), ("bo", everyone), ("ann", only_ann), ("ann", last)])
        hub.deliver([("bo", last)])
        assert await received(ann, 3) == [everyone, only_ann, last]
        assert await received(bo, 2) == [everyone, last]
        assert [w.calls for w in writes] == [1, 2]  # ann: one change; bo: two


async def test_a_player_connected_elsewhere_is_handed_the_same_frame() -> None:
    async with hub_with("ann") as (hub, (ann,)):
        message = error("to both")
        handed = hub.deliver([("ann", message), ("cy", message)])
        assert await received(ann, 1) == [message]
        assert handed == [("cy", encode(message))]


async def test_a_closing_connection_is_skipped_and_the_others_still_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with hub_with("ann", "bo") as (hub, (_, bo)):
        ann_conn = next(c for c in hub.all if c.player_id == "ann")
        await ann_conn.ws.close()
        messages = [error("one"), error("two")]
        with caplog.at_level(logging.WARNING, logger="server.hub"):
            hub.deliver([(p, m) for m in messages for p in ("ann", "bo")])
        assert await received(bo, 2) == messages
        assert not caplog.records  # skipped as closed, not a write that failed


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 200_000])
async def test_a_message_of_any_length_is_framed_whole(size: int) -> None:
    """One frame is built per message and written as is to every connection: each of the
    three header lengths of RFC 6455 (7-bit, 16-bit and 64-bit payload length)."""
    async with hub_with("ann", "bo") as (hub, (ann, bo)):
        message = error("x" * size)
        hub.deliver([("ann", message), ("bo", message)])
        assert await received(ann, 1) == [message]
        assert await received(bo, 1) == [message]


async def test_the_server_negotiates_no_extension_even_when_a_client_offers_one(
    redis_url: str,
) -> None:
    """The hub writes frames it built itself, which is right only while no extension (such
    as permessage-deflate, which sets a frame bit and compresses) is in use."""
    async with running_server(redis_url) as server:
        async with connect(server.url, compression="deflate") as ws:
            assert ws.protocol.extensions == []
            await ws.send(encode(Hello(name="ann", version=PROTOCOL_VERSION)))
            assert isinstance(decode_server(await asyncio.wait_for(ws.recv(), 5)), Welcome)
            (conn,) = server.app.hub.all
            assert conn.ws.protocol.extensions == []
