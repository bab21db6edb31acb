"""Checks the store tests share."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio.client import PubSub

from server.store.redis_store import RedisStore, StoreUnavailable, pack


async def assert_unavailable(store: RedisStore) -> None:
    """Every kind of call on a store whose Redis cannot be reached is refused as
    ``StoreUnavailable`` (a retryable error for the client), never a crash."""
    with pytest.raises(StoreUnavailable):
        await store.save_room("ABCDE", -1, 0, pack({"version": 0}), [])
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
