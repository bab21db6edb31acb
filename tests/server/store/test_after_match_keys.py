"""The keys of issue 14 against a real redis-server: who watched a room (capped), the
rematch pointer (first asker wins; a gone rematch may be replaced); both expire. (The
players' records: ``test_player_records.py``.)"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.redis_store import RedisStore


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield s
    await s.close()


async def test_who_watched_is_remembered_up_to_the_cap_and_expires(store: RedisStore) -> None:
    for player in ("w1", "w2", "w3"):
        await store.note_watched("ABCDE", player, cap=2)
    assert [await store.has_watched("ABCDE", p) for p in ("w1", "w2", "w3")] == [
        True,
        True,
        False,
    ]
    assert 0 < await store.redis.ttl(store.keys.room_watched("ABCDE")) <= 3600


async def test_the_first_rematch_named_wins_and_a_gone_one_may_be_replaced(
    store: RedisStore,
) -> None:
    assert await store.rematch_room("OLD01") is None
    assert await store.claim_rematch("OLD01", "NEW01", None)
    assert not await store.claim_rematch("OLD01", "NEW02", None)  # a second asker, racing
    assert await store.rematch_room("OLD01") == "NEW01"
    assert await store.claim_rematch("OLD01", "NEW03", "NEW01")  # NEW01 closed meanwhile
    assert await store.rematch_room("OLD01") == "NEW03"
    assert 0 < await store.redis.ttl(store.keys.room_again("OLD01")) <= 3600
