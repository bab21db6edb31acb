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
from server.store.errors import StoreUnavailable
from server.store.memory import MemoryRedis, MemoryStore
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


async def test_a_lock_the_storage_did_not_let_go_is_given_up_once_it_answers() -> None:
    """The storage goes away during a request and the lock cannot be given up as it ends:
    it is given up as soon as the storage answers, and the person's next request has it,
    where it would have been refused as busy until the lock ran out."""
    redis = MemoryRedis()
    locks = PlayerLocks(MemoryStore(redis), wait=2.0)  # the lock lives 15 s
    async with locks.hold("ann"):
        redis.down = True
    redis.down = False
    async with locks.hold("ann"):
        pass


async def test_a_lock_taken_whose_answer_was_lost_is_given_up_once_the_storage_answers() -> None:
    redis = MemoryRedis()
    locks = PlayerLocks(MemoryStore(redis), wait=2.0)
    redis.lose_lock_answers = True  # taken: the storage stops answering before saying so
    with pytest.raises(StoreUnavailable):
        async with locks.hold("ann"):
            pytest.fail("a request ran without knowing it held the lock")
    redis.lose_lock_answers = redis.down = False
    async with locks.hold("ann"):
        pass


async def test_the_locks_not_let_go_are_tried_only_until_they_run_out() -> None:
    """While the storage stays away, the locks not let go are tried again only until they
    would have run out anyway: nothing keeps trying through a long outage."""
    redis = MemoryRedis()
    store = MemoryStore(redis)
    locks = PlayerLocks(store, ttl=0.2)
    for person in ("ann", "bob"):
        async with locks.hold(person):
            redis.down = True
        redis.down = False
    redis.down = True  # for longer than the locks live
    assert len(locks.unreleased) == 2
    async with asyncio.timeout(5):
        while locks.unreleased:
            await asyncio.sleep(0.01)
    redis.down = False
    assert await store.take_lock(store.keys.lobby_lock("ann"), "next", 1)  # ran out
