"""Every room key has an end (issue 11): a closing room's state, log and fence counter get
one TTL, long for a match to replay and short otherwise; a live room's keys never expire,
and its fencing token never goes back, even when a code is used again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.redis_store import CLOSED_BRIEFLY, RedisStore

FINISHED_TTL = 3600


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = RedisStore.from_url(
        redis_url, finished_ttl=FINISHED_TTL, session_ttl=600, prefix=key_prefix
    )
    yield s
    await s.close()


async def ttls(store: RedisStore, code: str) -> list[int]:
    keys = store.keys
    out: list[int] = []
    for key in (keys.room_state(code), keys.room_log(code), keys.room_fence(code)):
        seconds: Any = await store.redis.ttl(key)
        out.append(int(seconds))
    return out


async def open_room(store: RedisStore, code: str) -> int:
    fence = await store.acquire_lease(code, "a:1", ttl=30)
    await store.save_room(
        RoomWrite(code, -1, 0, pack({"version": 0}), [{"k": "start"}], fence=fence)
    )
    return fence


async def test_a_live_rooms_keys_do_not_expire(store: RedisStore) -> None:
    await open_room(store, "LIVE1")
    assert await ttls(store, "LIVE1") == [-1, -1, -1]


async def test_a_closed_match_keeps_its_keys_finished_ttl_its_fence_too(
    store: RedisStore,
) -> None:
    fence = await open_room(store, "DONE1")
    await store.save_room(
        RoomWrite("DONE1", 0, 1, pack({"version": 1}), [], closed=True, fence=fence)
    )
    assert all(FINISHED_TTL - 5 < t <= FINISHED_TTL for t in await ttls(store, "DONE1"))


async def test_a_room_not_worth_keeping_goes_within_a_minute(store: RedisStore) -> None:
    fence = await open_room(store, "GONE1")
    await store.save_room(
        RoomWrite("GONE1", 0, 1, pack({"version": 1}), [], closed=True, fence=fence, keep=False)
    )
    assert all(0 < t <= CLOSED_BRIEFLY for t in await ttls(store, "GONE1"))


async def test_a_code_used_again_is_a_live_room_with_a_higher_token(store: RedisStore) -> None:
    """Regression guard: the state of a closed room may expire a moment before its fence
    counter (or the counter before the state); a new room of that code must neither
    inherit the TTL nor hand out a token lower than the last writer's."""
    fence = await open_room(store, "AGAIN")
    await store.save_room(
        RoomWrite("AGAIN", 0, 1, pack({"version": 1}), [], closed=True, fence=fence)
    )
    await store.renew_leases({"AGAIN": f"a:1:{fence}"}, 0)
    await store.redis.delete(store.keys.room_state("AGAIN"))  # the state went first
    again = await open_room(store, "AGAIN")
    assert again > fence
    assert await ttls(store, "AGAIN") == [-1, -1, -1]
    # the counter lost while the state lives: the next token is still above the last
    await store.renew_leases({"AGAIN": f"a:1:{again}"}, 0)
    await store.redis.delete(store.keys.room_fence("AGAIN"))
    assert await store.acquire_lease("AGAIN", "b:2", ttl=30) > again
