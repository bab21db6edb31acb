"""A player who knocks while the server starts is let in, not refused: the upgrade waits
for the app to take players (it listens before that), and once it does, the rooms coming
back meanwhile do not hold anyone out. Only a start slower than ``STARTING_WAIT`` is
refused, with a 503 to retry."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

import server.edge.transport as transport
from protocol.messages import PROTOCOL_VERSION, Hello, Welcome
from server.app import App
from server.cluster.directory import RoomDirectory
from server.cluster.relay import Relay
from server.edge.transport import open_store, serve_app
from server.rooms.room import Clocks, Room
from server.rooms.stored import room_to_data
from server.settings import Settings
from server.store.addresses import AddressStore
from server.store.base import RoomWrite
from server.store.codec import pack
from tests.redis_server import free_port, unique_prefix
from tests.server.wire import WireClient


@contextlib.asynccontextmanager
async def starting(
    redis_url: str, prefix: str | None = None
) -> AsyncIterator[tuple[App, str, asyncio.Event]]:
    """A server being started (``serve_app`` in a task), once it listens: its app, its
    address, and the event set once the app has started."""
    key_prefix = prefix or unique_prefix()
    settings = Settings(port=free_port(), redis_url=redis_url, key_prefix=key_prefix)
    store = open_store(settings, redis_url)
    app = App(settings, store, addresses=AddressStore(store))
    ready, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve_app(app, ready, stop))
    try:
        async with asyncio.timeout(10):
            while True:
                with contextlib.suppress(OSError):
                    _, writer = await asyncio.open_connection("127.0.0.1", settings.port)
                    writer.close()
                    break
                await asyncio.sleep(0.01)
        yield app, f"ws://127.0.0.1:{settings.port}", ready
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)
        await store.close()


def slow(monkeypatch: pytest.MonkeyPatch, cls: type, name: str, seconds: float) -> None:
    """``cls.name`` (a coroutine method) waits ``seconds`` first."""
    original = getattr(cls, name)

    async def slowly(self: Any, *args: Any) -> Any:
        await asyncio.sleep(seconds)
        return await original(self, *args)

    monkeypatch.setattr(cls, name, slowly)


async def hello(url: str) -> Welcome:
    async with connect(url) as ws:
        client = WireClient(ws)
        await client.send(Hello(name="early", version=PROTOCOL_VERSION))
        welcome: Welcome = await client.recv_type(Welcome)
        return welcome


async def test_a_player_who_knocks_while_the_server_starts_is_let_in(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow(monkeypatch, Relay, "start", 0.8)  # the app takes players 0.8 s after it listens
    async with starting(redis_url) as (app, url, _):
        assert not app.accepting  # knocking before the app takes anyone
        welcome = await hello(url)
        assert welcome.player_id and app.accepting


async def test_a_start_slower_than_the_wait_is_refused_with_a_503_to_retry(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transport, "STARTING_WAIT", 0.2)
    slow(monkeypatch, Relay, "start", 1.5)
    async with starting(redis_url) as (app, url, _):
        with pytest.raises(InvalidStatus) as refused:
            await hello(url)
        assert refused.value.response.status_code == 503
        assert b"starting: retry" in refused.value.response.body
        assert not app.accepting


async def test_players_are_let_in_while_the_rooms_come_back(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = unique_prefix()
    store = open_store(Settings(key_prefix=prefix), redis_url)
    try:  # a room left running by the process before
        room = Room.quick("R0001", [(f"p{i}", f"P{i}") for i in range(3)], Clocks(60, 60, 60))
        room.start_match(time.time(), random.Random(1))
        await store.save_room(
            RoomWrite("R0001", -1, room.version, pack(room_to_data(room)), room.take_journal())
        )
    finally:
        await store.close()
    recovering = asyncio.Event()
    adopt_many = RoomDirectory.adopt_many

    async def slowly(directory: RoomDirectory, batch: list[str]) -> int:
        recovering.set()
        await asyncio.sleep(2.0)
        return await adopt_many(directory, batch)

    monkeypatch.setattr(RoomDirectory, "adopt_many", slowly)
    async with starting(redis_url, prefix) as (app, url, ready):
        await asyncio.wait_for(recovering.wait(), 10)
        assert app.directory.recovering and not ready.is_set()
        welcome = await hello(url)
        assert welcome.player_id
        assert app.directory.recovering  # let in before the rooms were all back
        await asyncio.wait_for(ready.wait(), 10)
        assert list(app.rooms) == ["R0001"]
