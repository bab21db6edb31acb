"""A room save or a publish reaches Redis once, even when its answer comes after the
client's timeout (a Redis stopped for a moment, here with SIGSTOP). redis-py's retries
send a late request again whole, and the first copy still runs when Redis goes on: a
publish heard twice is a player shown one event twice, and a save run twice is refused the
second time as a conflict though the first was stored. On a Sentinel-managed primary (no
lean line there) those two go through the store's client that never retries."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from server.store import clients
from server.store.base import RoomWrite, StoredRoom
from server.store.codec import pack
from server.store.errors import StoreUnavailable
from server.store.redis_store import RedisStore
from tests.redis_sentinel import SentinelProcesses

#: The clients' timeout in these tests, and how long Redis is stopped: past it.
TIMEOUT = 0.5
STOPPED = 1.5


@pytest.fixture
async def store(
    sentinel: SentinelProcesses, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[RedisStore]:
    monkeypatch.setattr(clients, "TIMEOUT", TIMEOUT)
    s = await RedisStore.connect(
        sentinel.url, finished_ttl=3600, session_ttl=600, prefix=key_prefix, wait=5
    )
    try:
        yield s
    finally:
        await s.close()


async def stopped_during(sentinel: SentinelProcesses, seconds: float) -> None:
    """The primary stops for ``seconds`` (its clients' requests wait in its socket)."""
    pid = sentinel.nodes[sentinel.primary_port()].pid
    os.kill(pid, signal.SIGSTOP)
    try:
        await asyncio.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


async def heard_within(pubsub: PubSub, seconds: float, until: bytes | None = None) -> list[bytes]:
    """What ``pubsub`` hears in ``seconds`` (or until it hears ``until``)."""
    heard: list[bytes] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and until not in heard:
        message = await pubsub.get_message(timeout=0.1)
        if message is not None:
            heard.append(message["data"])
    return heard


async def test_a_publish_whose_answer_is_late_is_heard_once(
    sentinel: SentinelProcesses, store: RedisStore
) -> None:
    listener = Redis(host="127.0.0.1", port=sentinel.primary_port())
    pubsub = listener.pubsub(ignore_subscribe_messages=True)
    await pubsub.subscribe("frames")
    try:
        await store.publish_many([("frames", b"first")])  # (once heard, it listens)
        assert await heard_within(pubsub, 2.0, until=b"first") == [b"first"]
        publishing = asyncio.ensure_future(store.publish_many([("frames", b"one")]))
        await stopped_during(sentinel, STOPPED)
        with pytest.raises(StoreUnavailable):  # its answer came too late: in doubt
            await publishing
        assert await heard_within(pubsub, 1.0) == [b"one"]
    finally:
        await pubsub.aclose()
        await listener.aclose()


async def test_a_save_whose_answer_is_late_is_in_doubt_not_refused(
    sentinel: SentinelProcesses, store: RedisStore
) -> None:
    await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), [{"k": "start"}]))
    write = RoomWrite("ABCDE", 0, 1, pack({"version": 1}), [{"k": "bid"}])
    saving = asyncio.ensure_future(store.save_room(write))
    await stopped_during(sentinel, STOPPED)

    # not a conflict (a second run of it, refused): the store could not say in time
    with pytest.raises(StoreUnavailable):
        await saving
    # and it was stored once, its journal record with it
    assert await store.load_room("ABCDE") == StoredRoom({"version": 1})
    assert await store.read_log("ABCDE") == [{"k": "start"}, {"k": "bid"}]


async def test_a_takeover_save_whose_answer_is_late_is_in_doubt_not_refused(
    sentinel: SentinelProcesses, store: RedisStore
) -> None:
    """The takeover's saves of many rooms at once: the same as one room's save. (Refused as
    a conflict though stored, a room taken over after a restart was taken as not saved; its
    person's return, made meanwhile, was refused, their seat left marked away.)"""
    await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), [{"k": "start"}]))
    write = RoomWrite("ABCDE", 0, 1, pack({"version": 1}))
    saving = asyncio.ensure_future(store.save_rooms([write]))
    await stopped_during(sentinel, STOPPED)

    with pytest.raises(StoreUnavailable):
        await saving
    assert await store.load_room("ABCDE") == StoredRoom({"version": 1})


async def test_a_save_and_a_publish_whose_link_dropped_before_they_were_written_are_sent(
    sentinel: SentinelProcesses, store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not one byte of a request written, Redis never saw it: sent again, it runs once. (A
    Sentinel turning the old primary into a replica drops its clients; a pooled link
    found closed as a save was about to go out failed that save, and the server saw an
    outage where there was none, on a slow machine.)"""
    await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), [{"k": "start"}]))
    pool = store.once.connection_pool if store.once is not None else None
    assert pool is not None
    handed_out = pool.get_connection
    dropped: list[object] = []

    async def dropped_once_handed_out(*args: object, **kwargs: object) -> object:
        connection = await handed_out(*args, **kwargs)
        if len(dropped) < 2:  # the link closes after the pool gave it out, before the write
            connection._writer.transport.close()
            dropped.append(connection)
        return connection

    monkeypatch.setattr(pool, "get_connection", dropped_once_handed_out)
    listener = Redis(host="127.0.0.1", port=sentinel.primary_port())
    pubsub = listener.pubsub(ignore_subscribe_messages=True)
    await pubsub.subscribe("frames")
    try:
        await store.save_room(RoomWrite("ABCDE", 0, 1, pack({"version": 1}), [{"k": "bid"}]))
        await store.publish_many([("frames", b"one")])
        assert len(dropped) == 2
        assert await store.load_room("ABCDE") == StoredRoom({"version": 1})
        assert await store.read_log("ABCDE") == [{"k": "start"}, {"k": "bid"}]
        assert await heard_within(pubsub, 2.0, until=b"one") == [b"one"]
    finally:
        await pubsub.aclose()
        await listener.aclose()
