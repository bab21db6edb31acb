"""The Redis store against a real redis-server: atomic state + journal writes with a
compare-and-set on the version, TTLs, sessions, and a clear error when Redis is away."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from protocol.messages import PassRequest
from server.rooms.room import Actor, BotActor, Room
from server.rooms.steps import RequestStep, step_record
from server.rooms.stored import room_from_stored, room_to_data
from server.store.base import RoomStore, RoomWrite, StoredRoom
from server.store.codec import pack, unpack
from server.store.keys import Keys
from server.store.memory import MemoryStore
from server.store.redis_store import (
    RedisStore,
    StoreConflict,
    StoreUnavailable,
)
from tests.redis_server import free_port


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield s
    await s.close()


def a_room() -> Room:
    room = Room.create("ABCDE", "practice", 1, "alice", "Alice")
    for seat in (1, 2):
        room.seats[seat].kind = "bot"
    room.start_match(1000.0, random.Random(1), first_bidder=0)
    return room


def test_a_rooms_keys_share_one_cluster_hash_tag() -> None:
    keys = Keys("ddz:")
    assert keys.room_state("ABCDE") == "ddz:room:{ABCDE}:state"
    assert keys.room_log("ABCDE") == "ddz:room:{ABCDE}:log"


async def test_a_room_is_saved_and_loaded_with_its_journal(store: RedisStore) -> None:
    room = a_room()
    journal = room.take_journal()
    assert [r["k"] for r in journal] == ["start", "draw"]
    await store.save_room(RoomWrite("ABCDE", -1, room.version, pack(room_to_data(room)), journal))
    loaded = await store.load_room("ABCDE")
    assert loaded is not None and room_to_data(room_from_stored(loaded)) == room_to_data(room)
    assert await store.read_log("ABCDE") == journal
    assert await store.active_rooms() == ["ABCDE"]


async def test_a_write_built_on_an_old_version_is_refused_and_changes_nothing(
    store: RedisStore,
) -> None:
    room = a_room()
    await store.save_room(RoomWrite("ABCDE", -1, 0, pack(room_to_data(room)), room.take_journal()))
    await store.save_room(RoomWrite("ABCDE", 0, 1, pack({"version": 1}), [{"k": "x"}]))
    with pytest.raises(StoreConflict):
        await store.save_room(RoomWrite("ABCDE", 0, 2, pack({"version": 2}), [{"k": "y"}]))
    with pytest.raises(StoreConflict):  # a second room under a taken code
        await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), []))
    assert await store.load_room("ABCDE") == StoredRoom({"version": 1})
    assert [r["k"] for r in await store.read_log("ABCDE")][-1] == "x"


async def test_a_closed_rooms_state_and_log_expire_and_it_leaves_the_active_set(
    store: RedisStore, redis_url: str
) -> None:
    await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), [{"k": "start"}]))
    await store.save_room(
        RoomWrite("ABCDE", 0, 1, pack({"version": 1}), [{"k": "end"}], closed=True)
    )
    assert await store.active_rooms() == []
    raw = Redis.from_url(redis_url)
    try:
        for key in (store.keys.room_state("ABCDE"), store.keys.room_log("ABCDE")):
            assert 0 < await raw.ttl(key) <= 3600
    finally:
        await raw.aclose()


async def test_sessions_are_saved_loaded_and_refreshed(store: RedisStore, redis_url: str) -> None:
    await store.save_session("tok", {"player_id": "p1", "name": "Ann", "room": ""})
    assert await store.load_session("tok") == {"player_id": "p1", "name": "Ann", "room": ""}
    assert await store.load_session("other") is None
    raw = Redis.from_url(redis_url)
    try:
        assert 0 < await raw.ttl(store.keys.session("tok")) <= 600
    finally:
        await raw.aclose()


async def test_an_unreachable_redis_is_unavailable_not_a_crash() -> None:
    store = RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0", 60, 60)
    try:
        with pytest.raises(StoreUnavailable):
            await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), []))
        with pytest.raises(StoreUnavailable):
            await store.load_session("tok")
        assert not await store.ping()
    finally:
        await store.close()


def test_blobs_round_trip() -> None:
    data = room_to_data(a_room())
    assert unpack(pack(data)) == data


@pytest.mark.parametrize("kind", ["redis", "memory"])
async def test_steps_are_kept_as_a_tail_that_a_whole_save_drops(
    store: RedisStore, kind: str
) -> None:
    """A step saves its record beside the room saved whole; loading gives both, and the
    room they rebuild; the next whole save (and a new room of the same code) drops them."""
    used: RoomStore = store if kind == "redis" else MemoryStore()
    room = a_room()
    await used.save_room(
        RoomWrite("ABCDE", -1, room.version, pack(room_to_data(room)), room.take_journal())
    )
    whole_version = room.version
    rng = random.Random(2)
    for _ in range(3):
        turn = room.match.turn if room.match else None
        assert turn is not None
        actor: Actor = "alice" if turn == 0 else BotActor(turn)
        step = RequestStep(actor, PassRequest())
        before = room.version
        change = step.apply(room, 1001.0, rng)
        room.note_presence(1001.0)
        room.saved(1001.5)
        record = step_record(step, 1001.0, change, room.version, 1001.5)
        await used.save_room(
            RoomWrite("ABCDE", before, room.version, None, change.journal, step=pack(record))
        )
    loaded = await used.load_room("ABCDE")
    assert loaded is not None
    assert loaded.state["version"] == whole_version and len(loaded.tail) == 3
    assert room_to_data(room_from_stored(loaded)) == room_to_data(room)
    kinds = [r["k"] for r in await used.read_log("ABCDE")]
    assert kinds.count("cmd") == 3  # (three passes: a new deal, its draw journalled too)
    await used.save_room(
        RoomWrite("ABCDE", room.version, room.version + 1, pack({"version": 9}), [])
    )
    assert await used.load_room("ABCDE") == StoredRoom({"version": 9})
    if kind == "redis":
        assert not await store.redis.exists(store.keys.room_tail("ABCDE"))
