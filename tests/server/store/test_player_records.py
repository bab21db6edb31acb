"""The lasting players' records on a real Redis, a Redis Cluster and a Sentinel-managed
primary: a key's hash replaced only over the one expected, a match applied to a player
once (counters, list, best match, the applied guard in one script on the player's slot),
a closing save marking its match pending, and settling a pending match exactly once."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from server.players.bookkeeping import Bookkeeping
from server.rooms.stored import room_to_data
from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.player_records import NEW_PLAYER_TTL, PLAYER_TTL, PlayerUpdate
from server.store.redis_store import RedisStore
from tests.redis_sentinel import SentinelProcesses
from tests.server.lobby.test_after_match import played_with_journal


@pytest.fixture(params=["single", "cluster", "sentinel"])
async def store(request: pytest.FixtureRequest, key_prefix: str) -> AsyncIterator[RedisStore]:
    sentinel = SentinelProcesses().start() if request.param == "sentinel" else None
    try:
        if sentinel is not None:
            url = sentinel.url
        else:
            fixture = {"single": "redis_url", "cluster": "redis_cluster_url"}[request.param]
            url = request.getfixturevalue(fixture)
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


def entry(code: str, total: int) -> dict[str, object]:
    return {"code": code, "totals": [total, -total, 0]}


async def test_a_card_is_made_once_and_its_key_replaced_only_over_the_one_expected(
    store: RedisStore,
) -> None:
    assert await store.player_card("p00000000000000aa") is None
    assert await store.create_player("p00000000000000aa", "hash-1", 1000.0)
    assert not await store.create_player("p00000000000000aa", "hash-2", 1001.0)
    await store.set_player_session("p00000000000000aa", "token-1")
    card = await store.player_card("p00000000000000aa")
    assert card is not None and card["k"] == "hash-1" and card["t"] == "token-1"
    assert not await store.replace_player_key("p00000000000000aa", "hash-0", "hash-3")
    assert await store.replace_player_key("p00000000000000aa", "hash-1", "hash-3")
    card = await store.player_card("p00000000000000aa")
    assert card is not None and card["k"] == "hash-3"
    ttl = await store.redis.ttl(store.keys.player("p00000000000000aa", "card"))
    assert 0 < ttl <= NEW_PLAYER_TTL  # no match yet: kept a week from the last hello
    update = PlayerUpdate("M@1", entry("M", 1), {"played:quick": 1})
    assert await store.apply_match("p00000000000000aa", update, 1000.0, 10, 0.0)
    assert await store.player_card("p00000000000000aa") is not None
    for part in ("card", "matches", "stats", "applied"):
        ttl = await store.redis.ttl(store.keys.player("p00000000000000aa", part))
        assert NEW_PLAYER_TTL < ttl <= PLAYER_TTL, part


async def test_a_match_is_applied_to_a_player_once(store: RedisStore) -> None:
    player = "p00000000000000bb"
    first = PlayerUpdate("M1@1.5", entry("M1", 4), {"played:quick": 1, "bombs": 2}, best=4)
    assert await store.apply_match(player, first, 1000.0, 3, 0.0)
    assert not await store.apply_match(player, first, 1001.0, 3, 0.0)
    second = PlayerUpdate("M2@2.5", entry("M2", 1), {"played:quick": 1}, {"mark": "x"}, best=1)
    assert await store.apply_match(player, second, 1002.0, 3, 0.0)
    for n in range(3, 6):
        update = PlayerUpdate(f"M{n}@{n}", entry(f"M{n}", -n), {"played:quick": 1})
        assert await store.apply_match(player, update, 1000.0 + n, 3, 0.0)
    record = await store.player_record(player, 0, 10)
    assert record.total == 3  # the list keeps 3
    assert [m["code"] for m in record.matches] == ["M5", "M4", "M3"]
    page = await store.player_record(player, 1, 1)
    assert [m["code"] for m in page.matches] == ["M4"] and page.total == 3
    stats = record.stats
    assert stats["played:quick"] == 5 and stats["bombs"] == 2 and stats["mark"] == "x"
    assert stats["best"] == 4 and stats["best_entry"]["code"] == "M1"
    # an applied id is forgotten only once older than what may be applied again
    assert await store.apply_match(player, PlayerUpdate("M6@6", entry("M6", 0)), 2000.0, 3, 1002.0)
    assert not await store.apply_match(player, second, 2001.0, 3, 1002.0)
    assert await store.apply_match(player, first, 2002.0, 3, 1002.0)  # M1 was forgotten


async def test_a_closed_match_is_pending_from_its_save_and_settled_once(
    store: RedisStore,
) -> None:
    room, journal = played_with_journal(random.Random(9))
    room.saved(1234.5)
    code = room.code
    write = RoomWrite(code, -1, room.version, pack(room_to_data(room)), journal, closed=True)
    await store.save_room(write)
    assert await store.pending_matches() == [code]
    bookkeeping = Bookkeeping(store, lambda: 2000.0, 7200.0)
    assert await bookkeeping.settle_pending() == 3
    assert await store.pending_matches() == []
    await store.redis.sadd(store.keys.pending_matches, code)  # a settler died before the end
    assert await bookkeeping.settle_pending() == 0
    assert await store.pending_matches() == []
    for player in ("alice", "bob", "carol"):
        record = await store.player_record(player, 0, 20)
        assert [m["code"] for m in record.matches] == [code]
        assert record.stats["played:private"] == 1
