"""Write before send, on the real store: no event of a change reaches anyone before Redis
has acknowledged the change's save, however the saves are batched (group commit)."""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
from pydantic import BaseModel
from redis.asyncio import Redis

from server.rooms.room import Delivery, Room
from server.rooms.stored import room_from_stored
from server.runner import RoomRunner, RunnerDeps
from server.store.base import RoomWrite
from server.store.redis_store import RedisStore

ROOMS = 12


class AckedStore:
    """The real store, noting each save Redis acknowledged: (code, version)."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.acked: set[tuple[str, int]] = set()

    async def save_room(self, write: RoomWrite) -> None:
        await self.store.save_room(write)
        self.acked.add((write.code, write.version))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


class Outlet:
    """Records each delivery with whether its room's save was acknowledged by then."""

    def __init__(self, store: AckedStore, rooms: dict[str, Room]) -> None:
        self.store = store
        self.rooms = rooms
        self.sent: list[tuple[str, BaseModel, bool]] = []

    def deliver(self, deliveries: Iterable[tuple[str, BaseModel]]) -> None:
        for player, message in deliveries:
            code = next(c for c, room in self.rooms.items() if room.is_member(player))
            acked = (code, self.rooms[code].version) in self.store.acked
            self.sent.append((player, message, acked))


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield s
    await s.close()


async def nothing(room: Room) -> None:
    return None


def join(room: Room, player: str) -> list[Delivery]:
    return room.join(player, "Bo", 0.0)


async def test_no_event_goes_out_before_its_save_is_acknowledged(
    store: RedisStore, redis_url: str
) -> None:
    acked = AckedStore(store)
    rooms: dict[str, Room] = {}
    outlet = Outlet(acked, rooms)
    runners: list[RoomRunner] = []
    for i in range(ROOMS):
        room = Room.create(f"WBS{i:02d}", "private", 1, f"ann{i}", "Ann")
        deps = RunnerDeps(outlet, acked, random.Random(i), nothing, lambda: 0.0)  # type: ignore[arg-type]
        runner = RoomRunner(room, deps)
        await runner.save_new()
        runners.append(runner)
    for runner in runners:
        rooms[runner.code] = runner.room

    sent = asyncio.Event()
    store.room_saves.on_batch = lambda size: sent.set()
    admin = Redis.from_url(redis_url)
    try:
        # Redis holds every write (and so every save's answer) until unpaused
        await admin.client_pause(30_000, all=False)
        changes = [
            asyncio.ensure_future(runner.change(functools.partial(join, player=f"bo{i}")))
            for i, runner in enumerate(runners)
        ]
        await sent.wait()  # the saves are on their way, as one batch
        assert outlet.sent == []  # and nothing was delivered meanwhile
    finally:
        await admin.client_unpause()
        await admin.aclose()
    await asyncio.gather(*changes)

    assert len({p for p, _, _ in outlet.sent}) == 2 * ROOMS  # each room's two people heard
    assert all(acked for _, _, acked in outlet.sent)
    for runner in runners:
        stored = await store.load_room(runner.code)
        assert stored is not None and room_from_stored(stored).version == runner.room.version
