"""Ratings in Redis (server/store/ratings.py) and their in-memory twin: a match's change is
applied once per player however often it is asked, and the ladder ranks and reads back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.players.ladder import RatingStore
from server.store.codec import pack
from server.store.memory import MemoryRedis, MemoryStore
from server.store.memory_lobby import MemoryRatings
from server.store.ratings import RedisRatings
from server.store.redis_store import RedisStore
from tests.redis_sentinel import SentinelProcesses


@pytest.fixture(params=["cluster", "sentinel"])
async def spread_store(
    request: pytest.FixtureRequest, key_prefix: str
) -> AsyncIterator[RedisStore]:
    """A store on a Redis Cluster (a player's keys on their slot, the ladder's on another),
    then on a Sentinel-managed primary."""
    sentinel = SentinelProcesses().start() if request.param == "sentinel" else None
    try:
        url = request.getfixturevalue("redis_cluster_url") if sentinel is None else sentinel.url
        s = await RedisStore.connect(
            url, finished_ttl=3600, session_ttl=600, prefix=key_prefix, wait=5
        )
        try:
            yield s
        finally:
            await s.close()
    finally:
        if sentinel is not None:
            sentinel.stop()


@pytest.fixture
async def redis_store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield store
    await store.close()


def shown_of(entry: dict[str, Any]) -> float:
    """A ladder entry's shown score, as the server works it out (here: from its mu)."""
    return 1500.0 + 40.0 * (float(entry.get("mu", 25.0)) - 25.0)


async def script(ratings: RatingStore) -> list[Any]:
    """The same calls on either store; what each answered (floats rounded)."""
    out: list[Any] = [await ratings.rating("p1")]
    new, won = (25.0, 8.0), (27.5, 7.5)
    applied, stored = await ratings.apply("p1", "M1", new, won, "Ann", 100.0)
    out.append((applied, round(stored.mu, 9), round(stored.sigma, 9), stored.matches))
    again = await ratings.apply("p1", "M1", new, won, "Ann", 101.0)  # the same match
    out.append((again[0], round(again[1].mu, 9), again[1].matches))
    # a match that started before M1 was applied, applied after it: its difference counts
    late = await ratings.apply("p1", "M0", new, (24.0, 7.5), "Ann", 102.0)
    out.append((late[0], round(late[1].mu, 9), round(late[1].sigma, 9), late[1].matches))
    await ratings.save_start("M1", {"seats": [{"pid": "p1", "mu": 25.0}]})
    out.append(await ratings.load_start("M1"))
    out.append(await ratings.load_start("M9"))
    for pid, score in [("p1", 3.5), ("p2", 9.25), ("p3", -1.0), ("p4", 9.25)]:
        entry = {"name": pid.upper(), "matches": 10}
        await ratings.set_ladder(pid, score - 10.0, entry, 1500 + score)
    await ratings.set_ladder("p3", -6.0, {"name": "P3", "matches": 11}, 1504.0)  # moved up
    read = await ratings.ladder(3, "p1", shown_of)
    out.append(([(r.player_id, r.score, r.entry) for r in read.top], read.rank, read.score))
    out.append((await ratings.ladder(3, "nobody", shown_of))[1:])
    out.append([(round(r.mu, 9), round(r.sigma, 9), r.at) for r in await ratings.history("p1")])
    out.append(await ratings.history("nobody"))
    return out


async def test_the_twin_answers_as_redis_does(redis_store: RedisStore) -> None:
    on_redis = await script(RedisRatings(redis_store))
    in_memory = await script(MemoryRatings(MemoryStore(MemoryRedis())))
    assert on_redis == in_memory
    assert on_redis[0] is None
    assert on_redis[1] == (True, 27.5, 7.5, 1)
    assert on_redis[2] == (False, 27.5, 1)  # applied once
    assert on_redis[3] == (True, 26.5, round(7.5 * 7.5 / 8.0, 9), 2)
    assert on_redis[6][1:] == (4, 1503.5)  # below the top three
    assert [pid for pid, _, _ in on_redis[6][0]] == ["p4", "p2", "p3"]
    assert on_redis[7] == (None, None, 4)
    # the rating after each applied match, the oldest first (the one applied twice: once)
    assert on_redis[8] == [(27.5, 7.5, 100.0), (26.5, round(7.5 * 7.5 / 8.0, 9), 102.0)]
    assert on_redis[9] == []


async def test_a_cluster_and_a_sentinel_answer_as_one_redis_does(spread_store: RedisStore) -> None:
    """Each script's keys lie in one slot (a player's, or the ladder's): no cross-slot
    refusal, and the same answers as the in-memory twin (itself checked on one Redis)."""
    assert await script(RedisRatings(spread_store)) == await script(
        MemoryRatings(MemoryStore(MemoryRedis()))
    )
    ratings = RedisRatings(spread_store)
    results = await asyncio.gather(
        *(ratings.apply("p9", "M1", (25.0, 8.0), (26.0, 7.0), "Ann", 100.0) for _ in range(10))
    )
    assert sum(applied for applied, _ in results) == 1


async def test_the_same_change_asked_at_once_from_many_places_is_applied_once(
    redis_store: RedisStore,
) -> None:
    ratings = RedisRatings(redis_store)
    results = await asyncio.gather(
        *(ratings.apply("p1", "M1", (25.0, 8.0), (26.0, 7.0), "Ann", 100.0) for _ in range(20))
    )
    assert sum(applied for applied, _ in results) == 1
    stored = await ratings.rating("p1")
    assert stored is not None and stored.matches == 1 and stored.mu == pytest.approx(26.0)


async def test_a_players_rating_keys_share_one_hash_tag(redis_store: RedisStore) -> None:
    keys = redis_store.keys
    for key in (keys.rating("p1"), keys.rated("p1"), keys.rating_log("p1")):
        assert "{player:p1}" in key
    assert "{ladder}" in keys.ladder_top and "{ladder}" in keys.ladder_players
    assert "{ladder}" in keys.ladder_shown


async def test_a_ladder_from_before_it_ranked_by_points_is_ranked_so_when_read(
    redis_store: RedisStore,
) -> None:
    """Entries kept before the ladder ranked by the rating shown (only by mu - 3 sigma)
    get their shown score at the first read: no migration to run."""
    keys = redis_store.keys
    redis = redis_store.redis
    held = {"old1": (30.0, 6.0), "old2": (28.0, 1.0), "old3": (35.0, 7.0)}
    for pid, (mu, sigma) in held.items():
        entry = {"name": pid, "mu": mu, "sigma": sigma, "matches": 12}
        await redis.zadd(keys.ladder_top, {pid: mu - 3 * sigma})
        await redis.hset(keys.ladder_players, pid, pack(entry))
    ratings = RedisRatings(redis_store)
    read = await ratings.ladder(10, "old2", shown_of)
    assert [r.player_id for r in read.top] == ["old3", "old1", "old2"]  # by mu, not mu - 3 sigma
    assert read.rank == 3 and read.ranked == 3
    in_memory = MemoryRatings(MemoryStore(MemoryRedis()))
    for pid, (mu, sigma) in held.items():
        in_memory.data.players[pid] = {"name": pid, "mu": mu, "sigma": sigma, "matches": 12}
    twin = await in_memory.ladder(10, "old2", shown_of)
    assert [r.player_id for r in twin.top] == ["old3", "old1", "old2"] and twin.rank == 3
