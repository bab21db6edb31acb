"""Puzzles in Redis (server/store/puzzles.py) and their in-memory twin: a puzzle is stored
once by its id (the same cards from two deals: one puzzle, rated once), rated as a
difference, chosen by rating; a player's attempt, record, own puzzles and turning points."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.lobby.stores import PuzzleStore
from server.players.rating import NEW, Rating
from server.store.codec import pack
from server.store.memory import MemoryRedis, MemoryStore
from server.store.memory_puzzles import MemoryPuzzles
from server.store.puzzles import ATTEMPT_TTL, Attempt, PuzzleEntry, RedisPuzzles, Started
from server.store.redis_store import RedisStore

ENTRY = PuzzleEntry("5 9 10 Q|33 6 7 10 K|5 6|0|lead", "landlord", "9", 4, 100.0)


@pytest.fixture
async def redis_store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield store
    await store.close()


async def script(puzzles: PuzzleStore) -> list[Any]:
    """The same calls on either store; what each answered (floats rounded)."""
    out: list[Any] = []
    out.append(await puzzles.add_puzzle("aaaaaaaaaaaa", ENTRY, Rating(26.5, 8.0), 1560))
    # the same id again, from another deal, with another rating: kept as first stored
    other = PuzzleEntry(ENTRY.key, "landlord", "9", 4, 999.0)
    out.append(await puzzles.add_puzzle("aaaaaaaaaaaa", other, NEW, 1500))
    out.append(await puzzles.add_puzzle("bbbbbbbbbbbb", ENTRY, NEW, 1500))
    out.append(await puzzles.add_puzzle("cccccccccccc", ENTRY, Rating(35.0, 8.0), 1900))
    out.append(await puzzles.puzzle_count())
    stored = await puzzles.puzzle("aaaaaaaaaaaa")
    assert stored is not None
    out.append((stored.record, stored.rating, stored.attempts))
    out.append(await puzzles.puzzle("dddddddddddd"))
    out.append(await puzzles.puzzles_near(1520, 50, 10))
    out.append(await puzzles.puzzles_near(1520, 500, 2))
    # two attempts' changes, each a difference from the rating it was computed from
    await puzzles.rate_puzzle("aaaaaaaaaaaa", Rating(26.5, 8.0), Rating(28.5, 7.5))
    await puzzles.rate_puzzle("aaaaaaaaaaaa", Rating(26.5, 8.0), Rating(25.5, 7.5))
    rated = await puzzles.puzzle("aaaaaaaaaaaa")
    assert rated is not None
    out.append((round(rated.rating.mu, 9), round(rated.rating.sigma, 9), rated.attempts))
    out.append(await puzzles.puzzle_ids(1500, 1600))
    out.append(await puzzles.daily_puzzle("2026-12-05", "bbbbbbbbbbbb"))
    out.append(await puzzles.daily_puzzle("2026-12-05", "cccccccccccc"))  # the first stays
    out.append(await puzzles.daily_puzzle("2026-12-06", "cccccccccccc"))
    # a player
    out.append(await puzzles.puzzle_player("p1"))
    out.append(await puzzles.tried("p1", ["aaaaaaaaaaaa", "bbbbbbbbbbbb"]))
    out.append(await puzzles.start_attempt("p1", "aaaaaaaaaaaa", 10.0))
    out.append(await puzzles.attempt("p1"))
    moves = [[0, [9]], [1, None]]
    out.append(await puzzles.advance_attempt("p1", "aaaaaaaaaaaa", 0, moves, 20.0))
    out.append(await puzzles.advance_attempt("p1", "aaaaaaaaaaaa", 0, [], 21.0))  # stale: no
    out.append(await puzzles.advance_attempt("p1", "bbbbbbbbbbbb", 1, [], 21.0))  # another: no
    out.append(await puzzles.attempt("p1"))
    out.append(await puzzles.end_attempt("p1", "aaaaaaaaaaaa", 0, Rating(1.0, 1.0), True))
    out.append(await puzzles.end_attempt("p1", "aaaaaaaaaaaa", 1, Rating(27.0, 8.0), True))
    out.append(await puzzles.attempt("p1"))
    out.append(await puzzles.end_attempt("p1", "aaaaaaaaaaaa", 1, Rating(1.0, 1.0), True))
    out.append(await puzzles.start_attempt("p1", "aaaaaaaaaaaa", 11.0))  # again: not first
    out.append(await puzzles.attempt("p1"))
    out.append(await puzzles.tried("p1", ["aaaaaaaaaaaa", "bbbbbbbbbbbb"]))
    out.append(await puzzles.end_attempt("p1", "aaaaaaaaaaaa", 0, None, False))  # a retry
    out.append(await puzzles.start_attempt("p1", "bbbbbbbbbbbb", 12.0))
    out.append(await puzzles.end_attempt("p1", "bbbbbbbbbbbb", 0, Rating(26.0, 7.9), False))
    out.append(await puzzles.puzzle_player("p1"))
    await puzzles.note_own("p1", ["bbbbbbbbbbbb"])
    await puzzles.note_own("p1", [])
    out.append(
        (await puzzles.is_own("p1", "bbbbbbbbbbbb"), await puzzles.is_own("p1", "aaaaaaaaaaaa"))
    )
    await puzzles.note_turning("p1", ["M1:1:4", "M1:2:9"], 1000.0)
    await puzzles.note_turning("p1", ["M1:1:4"], 1000.0)  # the same match noted again
    await puzzles.note_turning("p1", ["M2:1:3"], 1000.0 + 8 * 86400)
    out.append(await puzzles.turning_since("p1", 1000.0 + 86400))
    out.append(await puzzles.turning_since("p1", 0.0))
    out.append(await puzzles.turning_since("nobody", 0.0))
    # the start says whether the puzzle is the player's own (one round trip for both)
    out.append(await puzzles.start_attempt("p1", "bbbbbbbbbbbb", 13.0))
    out.append(await puzzles.start_attempt("p2", "bbbbbbbbbbbb", 13.0))
    return out


async def test_the_twin_answers_as_redis_does(redis_store: RedisStore) -> None:
    on_redis = await script(RedisPuzzles(redis_store))
    in_memory = await script(MemoryPuzzles(MemoryStore(MemoryRedis())))
    assert on_redis == in_memory
    assert on_redis[:5] == [True, False, True, True, 3]  # stored once
    assert on_redis[5] == (ENTRY, Rating(26.5, 8.0), 0)
    assert on_redis[6] is None
    assert on_redis[7] == ["bbbbbbbbbbbb", "aaaaaaaaaaaa"]
    assert on_redis[8] == ["bbbbbbbbbbbb", "aaaaaaaaaaaa"]
    assert on_redis[9] == (27.5, round(8.0 * (7.5 / 8.0) ** 2, 9), 2)
    assert on_redis[11:14] == ["bbbbbbbbbbbb", "bbbbbbbbbbbb", "cccccccccccc"]
    assert on_redis[14] == (NEW, 0, 0)
    assert on_redis[15] == [False, False]
    assert on_redis[16] == Started(first=True, own=False)  # the first attempt: rated
    assert on_redis[17] == Attempt("aaaaaaaaaaaa", 0, [], True, 10.0 + ATTEMPT_TTL)
    assert on_redis[18:21] == [True, False, False]  # moved on once, from its step only
    moved = Attempt("aaaaaaaaaaaa", 1, [[0, [9]], [1, None]], True, 20.0 + ATTEMPT_TTL)
    assert on_redis[21] == moved  # (running out a day after the move)
    assert on_redis[22:25] == [False, True, None]  # ended from its step, once
    assert on_redis[25] is False
    assert on_redis[26:28] == [
        (False, False),
        Attempt("aaaaaaaaaaaa", 0, [], False, 11.0 + ATTEMPT_TTL),
    ]
    assert on_redis[28] == [True, False]
    assert on_redis[29:32] == [True, (True, False), True]
    assert on_redis[32] == (Rating(26.0, 7.9), 2, 1)
    assert on_redis[33] == (True, False)
    assert on_redis[34:37] == [1, 3, 0]
    assert on_redis[37:] == [Started(first=False, own=True), Started(first=True, own=False)]


async def test_a_rated_attempt_waits_in_redis_to_be_counted_a_retry_expires(
    redis_store: RedisStore,
) -> None:
    """A first try left without a move must still be there to be counted as failed when the
    player comes back (``server/lobby/puzzles.py``), however late: Redis never drops it. A
    retry counts nothing: it goes after ``ATTEMPT_TTL``, as a rated one stored before
    ``until`` was kept did (moved on, it stays)."""
    puzzles = RedisPuzzles(redis_store)
    key = redis_store.keys.player("p1", "puzzle_attempt")
    await puzzles.add_puzzle("aaaaaaaaaaaa", ENTRY, NEW, 1500)
    assert (await puzzles.start_attempt("p1", "aaaaaaaaaaaa", 10.0)).first
    assert await redis_store.redis.ttl(key) == -1
    assert await puzzles.advance_attempt("p1", "aaaaaaaaaaaa", 0, [[0, [9]]], 20.0)
    assert await redis_store.redis.ttl(key) == -1
    attempt = await puzzles.attempt("p1")
    assert attempt is not None and attempt.rated
    assert not attempt.expired(20.0 + ATTEMPT_TTL - 1) and attempt.expired(20.0 + ATTEMPT_TTL)

    assert not (await puzzles.start_attempt("p1", "aaaaaaaaaaaa", 30.0)).first
    assert 0 < await redis_store.redis.ttl(key) <= ATTEMPT_TTL
    assert await puzzles.advance_attempt("p1", "aaaaaaaaaaaa", 0, [[0, [9]]], 40.0)
    assert 0 < await redis_store.redis.ttl(key) <= ATTEMPT_TTL

    # an attempt as stored before ``until``: never run out, kept once moved on
    await redis_store.redis.delete(key)
    await redis_store.redis.hset(
        key, mapping={"id": "aaaaaaaaaaaa", "step": 0, "moves": pack([]), "rated": 1}
    )
    await redis_store.redis.expire(key, ATTEMPT_TTL)
    old = await puzzles.attempt("p1")
    assert old is not None and old.until == float("inf") and not old.expired(10.0**12)
    assert await puzzles.advance_attempt("p1", "aaaaaaaaaaaa", 0, [[0, [9]]], 50.0)
    assert await redis_store.redis.ttl(key) == -1
    moved = await puzzles.attempt("p1")
    assert moved is not None and moved.until == 50.0 + ATTEMPT_TTL


async def test_the_puzzles_keys_live_on_their_slots_of_a_cluster(
    redis_cluster_url: str, key_prefix: str
) -> None:
    store = await RedisStore.connect(
        redis_cluster_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix, wait=5
    )
    try:
        assert await script(RedisPuzzles(store)) == await script(
            MemoryPuzzles(MemoryStore(MemoryRedis()))
        )
    finally:
        await store.close()
