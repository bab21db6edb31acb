"""Test helpers that speak the real protocol over real sockets to a real server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel
from websockets.asyncio.client import ClientConnection, connect

from client.auto import AutoPlayer
from client.table import TableState
from protocol.codec import decode_server, encode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    Error,
    Hello,
    Request,
    ServerMessage,
    Snapshot,
    Welcome,
)
from server.app import App
from server.edge.transport import open_store, serve_app
from server.game.deal import RandomSource
from server.settings import Settings
from server.store.addresses import AddressStore
from tests.redis_server import free_port, unique_prefix


@dataclass
class RunningServer:
    app: App
    url: str
    stop: asyncio.Event
    task: asyncio.Task[None]


@contextlib.asynccontextmanager
async def running_server(
    redis_url: str, rng: RandomSource | None = None, **overrides: Any
) -> AsyncIterator[RunningServer]:
    """An App on a real Redis (under a key prefix of its own unless given one), served on a
    free loopback port for the duration of the block; ``rng``: its random source, when a
    test needs the deal or the first bidder known."""
    overrides.setdefault("key_prefix", unique_prefix())
    # (its strong bots' processes start with the first strong decision: few tests have
    # one, and starting them with each of these servers cost about a second each)
    overrides.setdefault("bot_pool_start", "lazy")
    # (see tests/conftest.py: no background mining, reviews at the server's priority)
    overrides.setdefault("puzzle_mine_seconds", 0.0)
    overrides.setdefault("review_niceness", 0)
    settings = replace(Settings(port=free_port(), redis_url=redis_url), **overrides)
    store = open_store(settings, redis_url)
    app = App(settings, store, addresses=AddressStore(store), rng=rng)
    ready, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve_app(app, ready, stop))
    await asyncio.wait_for(ready.wait(), 5)
    try:
        yield RunningServer(app, f"ws://127.0.0.1:{settings.port}", stop, task)
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await store.close()


@dataclass
class WireClient:
    """A client that numbers its requests and keeps every message it received."""

    ws: ClientConnection
    received: list[ServerMessage] = field(default_factory=list)
    next_id: int = 1

    async def send(self, request: Request) -> int:
        rid = self.next_id
        self.next_id += 1
        await self.ws.send(encode(request.model_copy(update={"id": rid})))
        return rid

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def recv(self, timeout: float = 5.0) -> ServerMessage:
        message = decode_server(await asyncio.wait_for(self.ws.recv(), timeout))
        self.received.append(message)
        return message

    async def recv_type(self, kind: type[BaseModel], timeout: float = 5.0) -> Any:
        """Read until a message of ``kind`` arrives; return it."""
        while True:
            message = await self.recv(timeout)
            if isinstance(message, kind):
                return message


@contextlib.asynccontextmanager
async def wire_client(
    url: str, name: str = "tester", token: str | None = None, source: str | None = None
) -> AsyncIterator[tuple[WireClient, Welcome]]:
    """A connected client that has said hello; from the loopback address ``source`` (e.g.
    127.0.0.2: another client address) when given."""
    async with connect(url, **from_address(source)) as ws:
        client = WireClient(ws)
        await client.send(Hello(name=name, version=PROTOCOL_VERSION, token=token))
        welcome = await client.recv_type(Welcome)
        client.next_id = max(client.next_id, welcome.last_request_id + 1)  # number on
        yield client, welcome


def from_address(source: str | None) -> dict[str, Any]:
    """``connect`` options to connect from the local address ``source`` (any 127.x.y.z
    is this machine's loopback)."""
    return {} if source is None else {"local_addr": (source, 0)}


RETRYABLE = (ErrorCode.UNAVAILABLE, ErrorCode.STORAGE_UNAVAILABLE, ErrorCode.RATE_LIMITED)


@dataclass
class AutoSeat:
    """A wire client whose actions a bot policy chooses (the client's own ``AutoPlayer``)."""

    client: WireClient
    state: TableState | None = None
    auto: AutoPlayer = field(default_factory=lambda: AutoPlayer.for_level("easy"))

    async def step(self, timeout: float = 10.0, act: bool = True) -> ServerMessage:
        """Read one message, fold it into the table, and answer it if it is my move (unless
        not ``act``: ``act()`` answers later)."""
        message = await self.client.recv(timeout)
        if isinstance(message, Snapshot):
            self.state = TableState.from_snapshot(message)
        elif self.state is not None:
            self.state = self.state.apply(message)
        if act:
            await self.act(message)
        return message

    async def act(self, message: ServerMessage | None = None) -> None:
        """Make my move, if it is mine to make (``message``: the last one read)."""
        if self.state is not None:
            if isinstance(message, Error) and message.code in RETRYABLE:
                await asyncio.sleep(0.2)  # refused unapplied: decide again shortly
                self.auto.forget(self.state)
            request = self.auto.next_request(self.state)
            if request is not None:
                await self.client.send(request)

    async def until(self, kind: type[BaseModel], timeout: float = 30.0) -> Any:
        """Play on until a message of ``kind`` arrives; return it."""
        async with asyncio.timeout(timeout):
            while True:
                message = await self.step(timeout)
                if isinstance(message, kind):
                    return message
