"""Group commit against a real redis-server: the room saves asked for in one loop turn go
as one pipelined round trip, and each caller gets its own answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.store.base import RoomWrite, StoredRoom
from server.store.codec import pack
from server.store.redis_store import RedisStore, StoreConflict, StoreFenced


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield s
    await s.close()


def batches_of(store: RedisStore) -> list[int]:
    sizes: list[int] = []
    store.room_saves.on_batch = sizes.append
    return sizes


async def stored_rooms(store: RedisStore, codes: list[str]) -> None:
    """Rooms saved once (a new room's first save also joins the active set on its own)."""
    for code in codes:
        await store.save_room(RoomWrite(code, -1, 0, pack({"version": 0}), []))


async def test_saves_asked_for_in_one_turn_go_as_one_batch(store: RedisStore) -> None:
    codes = [f"G{i:04d}" for i in range(20)]
    await stored_rooms(store, codes)
    sizes = batches_of(store)
    await asyncio.gather(
        *(
            store.save_room(RoomWrite(code, 0, 1, pack({"version": 1}), [{"k": "play"}]))
            for code in codes
        )
    )
    assert sizes == [20]
    for code in codes:
        assert await store.load_room(code) == StoredRoom({"version": 1})
        assert await store.read_log(code) == [{"k": "play"}]


async def test_each_save_in_a_batch_gets_its_own_answer(store: RedisStore) -> None:
    for code, fence in (("OK001", 1), ("STALE", 5), ("OLDER", 1)):
        await store.save_room(RoomWrite(code, -1, 0, pack({"version": 0}), [], fence=fence))
    sizes = batches_of(store)
    results = await asyncio.gather(
        store.save_room(RoomWrite("OK001", 0, 1, pack({"version": 1}), [{"k": "a"}], fence=1)),
        store.save_room(RoomWrite("STALE", 0, 1, pack({"version": 1}), [{"k": "b"}], fence=4)),
        store.save_room(RoomWrite("OLDER", 7, 8, pack({"version": 8}), [{"k": "c"}], fence=1)),
        return_exceptions=True,
    )
    assert sizes == [3]
    assert results[0] is None
    assert isinstance(results[1], StoreFenced)
    assert isinstance(results[2], StoreConflict)
    # the refused ones changed nothing, the accepted one is whole
    assert await store.load_room("OK001") == StoredRoom({"version": 1})
    assert await store.load_room("STALE") == StoredRoom({"version": 0})
    assert await store.load_room("OLDER") == StoredRoom({"version": 0})
    assert await store.read_log("OK001") == [{"k": "a"}]
    assert await store.read_log("STALE") == []


async def test_saves_asked_for_while_a_batch_is_out_form_the_next_one(
    store: RedisStore,
) -> None:
    codes = [f"L{i:04d}" for i in range(6)]
    await stored_rooms(store, codes)
    sent = asyncio.Event()
    sizes: list[int] = []

    def on_batch(size: int) -> None:
        sizes.append(size)
        sent.set()

    store.room_saves.on_batch = on_batch
    first = asyncio.ensure_future(
        store.save_room(RoomWrite(codes[0], 0, 1, pack({"version": 1}), []))
    )
    await sent.wait()  # the first batch is on its way
    later = [store.save_room(RoomWrite(code, 0, 1, pack({"version": 1}), [])) for code in codes[1:]]
    await asyncio.gather(first, *later)
    assert sizes == [1, 5]


async def test_a_script_redis_forgot_is_loaded_again(store: RedisStore, redis_url: str) -> None:
    await store.save_room(RoomWrite("FLUSH", -1, 0, pack({"version": 0}), []))
    raw = Redis.from_url(redis_url)
    try:
        await raw.script_flush()
    finally:
        await raw.aclose()
    await store.save_room(RoomWrite("FLUSH", 0, 1, pack({"version": 1}), [{"k": "after"}]))
    assert await store.load_room("FLUSH") == StoredRoom({"version": 1})
    assert await store.read_log("FLUSH") == [{"k": "after"}]


async def test_a_save_whose_caller_was_cancelled_is_still_written(store: RedisStore) -> None:
    """Its room already holds the change and the write took its journal records: dropped,
    the room's next save would carry the change's state without them."""
    await stored_rooms(store, ["GONE1"])
    sent = asyncio.Event()
    store.room_saves.on_batch = lambda size: sent.set()
    saving = asyncio.ensure_future(
        store.save_room(RoomWrite("GONE1", 0, 1, pack({"version": 1}), [{"k": "bot"}]))
    )
    await asyncio.sleep(0)  # queued, not yet sent
    saving.cancel()
    await asyncio.wait_for(sent.wait(), 5)  # (a dropped save is never sent: this fails)
    await store.room_saves.close()  # the batch out is waited for
    assert await store.load_room("GONE1") == StoredRoom({"version": 1})
    assert await store.read_log("GONE1") == [{"k": "bot"}]


async def test_closing_the_store_writes_the_saves_still_queued(
    redis_url: str, key_prefix: str
) -> None:
    s = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    await stored_rooms(s, ["LAST1"])
    saving = asyncio.ensure_future(s.save_room(RoomWrite("LAST1", 0, 1, pack({"version": 1}), [])))
    await asyncio.sleep(0)  # queued, not yet sent
    await s.room_saves.close()
    await saving
    reader = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    try:
        assert await reader.load_room("LAST1") == StoredRoom({"version": 1})
    finally:
        await s.close()
        await reader.close()
