"""Watchers and disconnected players over real sockets, one process or two: a watcher
leaves the room when their connection ends (wherever the room runs), a room refuses the
watcher past its cap, and nothing is published for a player connected nowhere.

Issue 11, item 5: watch and drop 2,000 times left 2,000 watchers in the room; its stored
state grew from 1.1 KB to 29 KB and every change was published to each of them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import CreateRoom, Error, JoinRoom, SeatBot, SeatsChanged, Snapshot, Watch
from server.rooms.stored import room_from_stored
from server.store.redis_store import RedisStore
from tests.redis_server import unique_prefix
from tests.server.wire import RunningServer, WireClient, running_server, wire_client


@contextlib.asynccontextmanager
async def two_processes(
    redis_url: str, **overrides: Any
) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    prefix = unique_prefix()
    async with (
        running_server(redis_url, key_prefix=prefix, **overrides) as a,
        running_server(redis_url, key_prefix=prefix, **overrides) as b,
    ):
        yield a, b


async def watchers_seen(client: WireClient, count: int) -> None:
    """Read until a SeatsChanged shows ``count`` watchers."""
    while (await client.recv_type(SeatsChanged)).watchers != count:
        pass


async def stored_watchers(store: RedisStore, code: str) -> list[str]:
    data = await store.load_room(code)
    assert data is not None
    return room_from_stored(data).watchers


async def test_a_watcher_connected_elsewhere_leaves_when_their_connection_ends(
    redis_url: str,
) -> None:
    async with two_processes(redis_url) as (a, b):
        async with wire_client(a.url, "host") as (host, _):
            await host.send(CreateRoom(public=True))
            code = (await host.recv_type(Snapshot)).room.code
            walts: set[str] = set()
            for _ in range(3):  # watch and drop, again and again
                async with wire_client(b.url, "walt") as (walt, welcome):
                    walts.add(welcome.player_id)
                    await walt.send(Watch(code=code))
                    assert (await walt.recv_type(Snapshot)).room.watchers == 1
                    await watchers_seen(host, 1)
                await watchers_seen(host, 0)  # gone from the room on A
                assert a.app.rooms[code].room.watchers == []
                assert await stored_watchers(a.app.store, code) == []
            assert not walts & a.app.rooms[code].via.keys()  # nothing kept of them


async def test_the_watcher_past_the_cap_is_refused(redis_url: str) -> None:
    async with running_server(redis_url, max_watchers=2) as srv:
        async with wire_client(srv.url, "host") as (host, _):
            await host.send(CreateRoom(public=True))
            code = (await host.recv_type(Snapshot)).room.code
            async with (
                wire_client(srv.url, "w1") as (w1, _),
                wire_client(srv.url, "w2") as (w2, _),
                wire_client(srv.url, "w3") as (w3, _),
            ):
                for watcher in (w1, w2):
                    await watcher.send(Watch(code=code))
                    await watcher.recv_type(Snapshot)
                rid = await w3.send(Watch(code=code))
                error = await w3.recv_type(Error)
                assert error.code == ErrorCode.ROOM_FULL and error.request_id == rid
                assert error.message == "this room has 2 watchers"
                assert len(srv.app.rooms[code].room.watchers) == 2
                await w3.send(JoinRoom(code=code))  # refused, but free: a seat is open
                assert (await w3.recv_type(Snapshot)).room.your_seat == 1


async def test_nothing_is_published_for_a_player_connected_nowhere(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann (on B) sits in a room run on A and drops: A publishes nothing for her while she
    is away, and she gets her snapshot when she comes back."""
    async with two_processes(redis_url) as (a, b):
        async with wire_client(a.url, "host") as (host, _):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            async with wire_client(b.url, "ann") as (ann, welcome):
                await ann.send(JoinRoom(code=code))
                await ann.recv_type(Snapshot)
            room = a.app.rooms[code].room
            for _ in range(100):
                if not room.seats[1].connected:
                    break
                await asyncio.sleep(0.02)
                room = a.app.rooms[code].room
            assert not room.seats[1].connected
            published: list[str] = []
            to_player = a.app.relay.to_player
            monkeypatch.setattr(
                a.app.relay, "to_player", lambda p, body: (published.append(p), to_player(p, body))
            )
            await host.send(SeatBot(level="easy"))
            await host.recv_type(SeatsChanged)
            assert welcome.player_id not in published
            async with wire_client(b.url, token=welcome.token) as (again, back):
                assert back.resumed and back.room == code
                snapshot = await again.recv_type(Snapshot)
                assert snapshot.room.your_seat == 1 and snapshot.room.seats[2].kind == "bot"
