"""Checks the store tests share."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio.client import PubSub

from server.store.base import RoomWrite, StoredRoom
from server.store.codec import pack
from server.store.redis_store import (
    RedisStore,
    StoreConflict,
    StoreFenced,
    StoreUnavailable,
)


async def assert_unavailable(store: RedisStore) -> None:
    """Every kind of call on a store whose Redis cannot be reached is refused as
    ``StoreUnavailable`` (a retryable error for the client), never a crash."""
    with pytest.raises(StoreUnavailable):
        await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), []))
    with pytest.raises(StoreUnavailable):
        await store.load_session("tok")
    with pytest.raises(StoreUnavailable):
        await store.renew_leases({"ABCDE": "a:1:1"}, 30)
    with pytest.raises(StoreUnavailable):
        await store.publish_many([("ch", b"x")])
    assert not await store.ping()


async def receive(pubsub: PubSub, count: int, timeout: float = 5.0) -> list[tuple[str, bytes]]:
    """The next ``count`` messages a subscriber hears, as (channel, data)."""
    got: list[tuple[str, bytes]] = []
    async with asyncio.timeout(timeout):
        while len(got) < count:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is not None:
                got.append((message["channel"].decode(), message["data"]))
    return got


async def published_and_heard(store: RedisStore, tag: str, count: int = 30) -> None:
    """Messages published through the store, in batches (one of them empty), reach a
    subscriber it gives, in order."""
    channels = [f"{store.keys.prefix}{tag}{i}" for i in range(3)]
    messages = [(channels[i % 3], f"{tag}{i}".encode()) for i in range(count)]
    subscriber = store.subscriber()
    try:
        async with subscriber.pubsub() as pubsub:
            await pubsub.subscribe(*channels)
            await store.publish_many(messages[: count // 2])
            await store.publish_many([])
            await store.publish_many(messages[count // 2 :])
            assert await receive(pubsub, len(messages)) == messages
    finally:
        await subscriber.aclose()


async def adopted_in_batches(store: RedisStore, codes: list[str]) -> None:
    """Leases, states and takeover writes of many rooms, each in one pipeline (on a
    cluster: EVAL in a non-transactional pipeline, over every node)."""
    for code in codes:
        await store.save_room(
            RoomWrite(code, -1, 0, pack({"code": code, "version": 0}), [], fence=0)
        )
    held = codes[:3]
    for code in held:  # another process runs these
        assert await store.acquire_lease(code, "b:2", ttl=30) >= 1
    tokens = await store.acquire_leases(codes, "a:1", ttl=30)
    assert tokens[:3] == [0, 0, 0] and all(t >= 1 for t in tokens[3:])
    assert await store.acquire_leases(codes, "a:1", ttl=30) == tokens  # its own: kept
    assert await store.acquire_leases([], "a:1", ttl=30) == []
    states = await store.load_rooms([*codes, "NONE1"])
    assert states == [StoredRoom({"code": code, "version": 0}) for code in codes] + [None]
    ours = list(zip(codes[3:], tokens[3:], strict=True))
    writes = [
        RoomWrite(code, 0, 1, pack({"code": code, "version": 1}), fence=token)
        for code, token in ours
    ]
    writes[0] = RoomWrite(
        writes[0].code, 5, 6, b"", fence=writes[0].fence
    )  # built on a version it is not
    results = await store.save_rooms(writes)
    assert isinstance(results[0], StoreConflict)
    assert results[1:] == [None] * (len(writes) - 1)
    assert await store.load_rooms([writes[1].code]) == [
        StoredRoom({"code": writes[1].code, "version": 1})
    ]
    later = await store.acquire_lease(held[0], "b:2", ttl=30)
    await store.save_room(RoomWrite(held[0], 0, 1, pack({"version": 1}), [], fence=later))
    (fenced,) = await store.save_rooms([RoomWrite(held[0], 1, 2, pack({}))])  # a stale owner
    assert isinstance(fenced, StoreFenced)
    assert await store.save_rooms([]) == []
