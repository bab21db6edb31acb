"""A person's lobby lock in Redis: one holder at a time, across processes; a request that
cannot have it in time is refused as busy; a holder gives up only its own lock; a lock
whose process died expires."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from protocol.errors import ErrorCode
from server.lobby.player_lock import PlayerLocks
from server.rooms.room import RoomError
from server.store.redis_store import RedisStore


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.from_url(redis_url, 60, 60, key_prefix)
    yield store
    await store.close()


async def test_requests_of_one_person_run_one_at_a_time(store: RedisStore) -> None:
    here, there = PlayerLocks(store), PlayerLocks(store)  # two processes
    inside: list[str] = []
    overlaps = 0

    async def request(locks: PlayerLocks, name: str) -> None:
        nonlocal overlaps
        async with locks.hold("ann"):
            overlaps += bool(inside)
            inside.append(name)
            await asyncio.sleep(0.01)
            inside.remove(name)

    await asyncio.gather(*(request(here if i % 2 else there, f"r{i}") for i in range(10)))
    assert overlaps == 0
    assert await store.redis.get(store.keys.lobby_lock("ann")) is None  # given up


async def test_another_persons_requests_do_not_wait(store: RedisStore) -> None:
    locks = PlayerLocks(store, wait=0.05)
    async with locks.hold("ann"), locks.hold("bob"):
        pass


async def test_a_request_that_cannot_have_the_lock_in_time_is_refused_as_busy(
    store: RedisStore,
) -> None:
    locks = PlayerLocks(store, wait=0.1)
    async with locks.hold("ann"):
        with pytest.raises(RoomError) as exc:
            async with locks.hold("ann"):
                pass
    assert exc.value.code == ErrorCode.BUSY


async def test_a_holder_whose_lock_expired_does_not_release_the_next_ones(
    store: RedisStore,
) -> None:
    slow = PlayerLocks(store, ttl=0.05)
    key = store.keys.lobby_lock("ann")
    async with slow.hold("ann"):
        await asyncio.sleep(0.1)  # expired: its process was too slow (or died)
        assert await store.take_lock(key, "next", 5)  # another request has it now
    assert await store.redis.get(key) == b"next"  # slow's release left it alone
