"""The hub over real sockets: what one change sends a connection arrives whole and in
order, written to its socket at once; a player connected elsewhere is handed over."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator
from http import HTTPStatus

import pytest
from pydantic import BaseModel
from websockets.asyncio.client import ClientConnection, connect
from websockets.http11 import Request, Response

from protocol.codec import decode_server, encode
from protocol.errors import ErrorCode
from protocol.messages import PROTOCOL_VERSION, Error, Hello, Queued, Welcome
from server.edge.flood import TokenBucket
from server.edge.hub import Connection, Hub
from server.edge.websocket import Handler, WebSocket, WebSocketServer
from tests.server.wire import running_server


class CountedWrites:
    """Counts each connection's socket writes (each one is a system call)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: Counter[WebSocket] = Counter()
        write = WebSocket.write

        def counted(ws: WebSocket, wire: bytes) -> None:
            self.calls[ws] += 1
            write(ws, wire)

        monkeypatch.setattr(WebSocket, "write", counted)


class HubListener:
    """Binds each websocket opened to a ``Connection`` in ``hub``."""

    def __init__(self, hub: Hub, expected: int) -> None:
        self.hub = hub
        self.bound: list[Connection] = []
        self.expected = expected
        self.ready = asyncio.Event()

    def arrived(self, ws: WebSocket) -> tuple[HTTPStatus, str] | None:
        return None

    async def answer(self, ws: WebSocket, request: Request) -> Response | None:
        return None

    def opened(self, ws: WebSocket) -> Handler:
        conn = Connection(ws, TokenBucket(10, 10))
        self.hub.add(conn)
        self.bound.append(conn)
        if len(self.bound) == self.expected:
            self.ready.set()
        return Quiet()

    def lost(self, ws: WebSocket) -> None:
        pass


class Quiet:
    async def message(self, data: bytes | str) -> None:
        pass

    async def closed(self) -> None:
        pass


@contextlib.asynccontextmanager
async def hub_with(*players: str) -> AsyncIterator[tuple[Hub, list[ClientConnection]]]:
    """A hub whose server has one connected websocket per player, bound to it."""
    hub = Hub()
    listener = HubListener(hub, len(players))
    server = WebSocketServer(listener, max_size=1 << 20)
    await server.start("127.0.0.1", 0)
    port = server.port
    clients = [await connect(f"ws://127.0.0.1:{port}") for _ in players]
    await asyncio.wait_for(listener.ready.wait(), 5)
    # The connections opened in the order the clients connected.
    for conn, player in zip(listener.bound, players, strict=True):
        hub.bind(conn, player)
    try:
        yield hub, clients
    finally:
        for client in clients:
            await client.close()
        server.stop_accepting()
        await asyncio.wait_for(server.wait_closed(), 5)


async def received(client: ClientConnection, n: int) -> list[BaseModel]:
    return [decode_server(await asyncio.wait_for(client.recv(), 5)) for _ in range(n)]


def error(text: str) -> Error:
    return Error(code=ErrorCode.NOT_YOUR_TURN, message=text)


async def test_one_changes_messages_reach_each_player_in_order_in_one_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with hub_with("ann", "bo") as (hub, (ann, bo)):
        writes = CountedWrites(monkeypatch)
        by_player = {c.player_id: c.ws for c in hub.all}
        everyone, only_ann, last = error("first"), error("for ann"), Queued(wait=1.0, waiting=2)
        hub.deliver([("ann", everyone), ("bo", everyone), ("ann", only_ann), ("ann", last)])
        hub.deliver([("bo", last)])
        assert await received(ann, 3) == [everyone, only_ann, last]
        assert await received(bo, 2) == [everyone, last]
        # ann: one change; bo: two
        assert [writes.calls[by_player[p]] for p in ("ann", "bo")] == [1, 2]


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
        ann_conn.ws.close()
        messages = [error("one"), error("two")]
        with caplog.at_level(logging.WARNING, logger="server.edge.hub"):
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
