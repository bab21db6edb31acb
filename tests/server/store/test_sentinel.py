"""The Redis store on a primary that Redis Sentinel manages (``redis+sentinel://``): the same
operations as on one Redis, then a failover, forced (``SENTINEL FAILOVER``, the old primary
stays up) or after the primary died, and the same store goes on against the new primary
with what was replicated before. Each test starts its own primary, replica and Sentinel(s)
(``tests.redis_sentinel``), since a failover changes who is who."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.store.base import RoomWrite, StoredRoom
from server.store.clients import POOL_SIZE, SENTINEL_CHECK, split_sentinel_url
from server.store.codec import pack
from server.store.redis_store import (
    RedisStore,
    StoreConflict,
    StoreFenced,
    StoreUnavailable,
)
from tests.redis_sentinel import SentinelProcesses
from tests.redis_server import free_port
from tests.server.store.checks import assert_unavailable, published_and_heard

T = TypeVar("T")


@pytest.fixture
async def store(sentinel: SentinelProcesses, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = await RedisStore.connect(
        sentinel.url, finished_ttl=3600, session_ttl=600, prefix=key_prefix, wait=5
    )
    try:
        yield s
    finally:
        await s.close()


def node(port: int) -> Redis:
    return Redis(host="127.0.0.1", port=port, socket_timeout=5)


async def retried(call: Callable[[], Awaitable[T]], within: float = 10.0) -> T:
    """``call()``, tried again while it raises ``StoreUnavailable`` (a failover under way),
    for up to ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            return await call()
        except StoreUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def replicated(store: RedisStore) -> None:
    """Until the replica has every write made so far (WAIT)."""
    acked: Any = await store.redis.execute_command("WAIT", 1, 5000)
    assert acked == 1


def test_sentinel_urls_are_read() -> None:
    target = split_sentinel_url("redis+sentinel://:s%40cret@h1,h2:26380,[::1]:5000/ddz/2")
    assert target is not None
    assert target.sentinels == (("h1", 26379), ("h2", 26380), ("::1", 5000))
    assert target.service == "ddz"
    assert target.options == {"password": "s@cret", "db": 2}
    assert target.sentinel_options == {}
    tls = split_sentinel_url(
        "rediss+sentinel://app:pw@h1/main?sentinel_password=spw&ssl_cert_reqs=none"
    )
    assert tls is not None and tls.service == "main" and tls.sentinels == (("h1", 26379),)
    assert tls.options == {
        "username": "app",
        "password": "pw",
        "ssl": True,
        "ssl_cert_reqs": "none",
    }
    assert tls.sentinel_options == {"ssl": True, "ssl_cert_reqs": "none", "password": "spw"}
    assert split_sentinel_url("redis://h1:6379/0") is None
    assert split_sentinel_url("redis+cluster://h1:6379/0") is None
    for bad in (
        "redis+sentinel://h1:26379",  # no service
        "redis+sentinel:///ddz",  # no Sentinel
        "redis+sentinel://h1/ddz/zero",
        "redis+sentinel://h1:port/ddz",
    ):
        with pytest.raises(ValueError):
            split_sentinel_url(bad)
    store = RedisStore.from_url("redis+sentinel://h1,h2/ddz/0", 60, 60)  # no I/O
    assert store.sentinel and not store.cluster
    assert store.url == "redis+sentinel://h1,h2/ddz/0"


async def test_the_store_works_through_the_sentinel(
    sentinel: SentinelProcesses, store: RedisStore
) -> None:
    assert store.sentinel and not store.cluster
    assert await store.ping()
    # rooms: compare-and-set, journal, fencing, the active and watchable sets
    await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), [{"k": "start"}]))
    await store.add_watchable("ABCDE", 1000.0)
    await store.save_room(RoomWrite("ABCDE", 0, 1, pack({"version": 1}), [{"k": "x"}]))
    with pytest.raises(StoreConflict):
        await store.save_room(RoomWrite("ABCDE", 0, 2, pack({"version": 2}), [{"k": "y"}]))
    assert await store.load_room("ABCDE") == StoredRoom({"version": 1})
    assert await store.read_log("ABCDE") == [{"k": "start"}, {"k": "x"}]
    assert await store.active_rooms() == ["ABCDE"]
    assert await store.watchable(10) == ["ABCDE"]
    # leases: scripts, and a pipeline of EVALs
    codes = [f"R{i:02d}" for i in range(10)]
    tokens = {code: await store.acquire_lease(code, "a:1", ttl=30) for code in codes}
    assert all(token >= 1 for token in tokens.values())
    assert await store.acquire_lease(codes[0], "b:2", ttl=30) == 0
    held = {code: f"a:1:{token}" for code, token in tokens.items()}
    assert await store.lease_holder(codes[0]) == held[codes[0]]
    assert await store.renew_leases(held, 30) == []
    assert await store.free_rooms(codes) == []
    assert await store.renew_leases(held, 0) == []  # released
    assert await store.free_rooms(codes) == codes
    later = await store.acquire_lease("ABCDE", "b:2", ttl=30)
    await store.save_room(RoomWrite("ABCDE", 1, 2, pack({"version": 2}), [], fence=later))
    with pytest.raises(StoreFenced):
        await store.save_room(RoomWrite("ABCDE", 1, 2, pack({"version": 2}), [], fence=later - 1))
    # sessions and the queue
    await store.save_session("tok", {"player_id": "p1", "name": "Ann"})
    assert await store.load_session("tok") == {"player_id": "p1", "name": "Ann"}
    assert await store.load_session("other") is None
    for i, pid in enumerate(["p1", "p2", "p3", "p4"]):
        assert await store.enqueue(pid, 100.0 + i, {"name": pid}, 25.0) == i + 1
    assert await store.leave_queue("p4") and not await store.is_queued("p4")
    taken = await store.take_players(["p1", "p2", "p3"])
    assert [pid for pid, _ in taken] == ["p1", "p2", "p3"]
    await published_and_heard(store, "m")
    # all of it on the primary, and copied to the replica
    await replicated(store)
    for port in sentinel.ports:
        async with node(port) as client:
            assert await client.exists(store.keys.room_state("ABCDE")) == 1


async def test_a_burst_waits_for_the_pool_and_asks_the_sentinel_once(
    sentinel: SentinelProcesses, store: RedisStore
) -> None:
    """More requests at once than the pool has connections: they wait for one (no "Too many
    connections"), and the new connections' questions to the Sentinel are shared (one
    connection to it, where each asking on its own would open one)."""
    async with node(sentinel.sentinel_ports[0]) as on_sentinel:

        async def asked() -> int:  # connections to the Sentinel so far (one a question)
            stats: Any = await on_sentinel.info("stats")
            return int(stats["total_connections_received"])

        before = await asked()
        # (32 more than the pool's connections: they must wait. Three times the pool's size
        # spent so much CPU in one burst that, beside two CPU hogs and the suite, the last
        # requests waited past the 2 s a request waits for a connection.)
        codes = [f"B{i:04d}" for i in range(POOL_SIZE + 32)]
        assert await asyncio.gather(*(store.lease_holder(code) for code in codes)) == [None] * len(
            codes
        )
        assert await asked() - before < 10
    async with node(sentinel.primary_port()) as on_primary:
        clients: Any = await on_primary.info("clients")
        assert POOL_SIZE // 2 < int(clients["connected_clients"]) <= POOL_SIZE + 5


async def test_a_forced_failover_moves_the_store_to_the_new_primary(
    sentinel: SentinelProcesses, store: RedisStore
) -> None:
    old, new = sentinel.primary_port(), sentinel.replica_port()
    await store.save_room(RoomWrite("ROOM1", -1, 0, pack({"version": 0}), [{"k": "start"}]))
    await store.save_room(RoomWrite("ROOM1", 0, 1, pack({"version": 1}), [{"k": "a"}]))
    await store.save_session("tok", {"player_id": "p1"})
    await store.enqueue("p9", 100.0, {"name": "Zed"}, 25.0)
    await replicated(store)

    async def bump() -> int:
        """Write ROOM1's next version over the one the store reads; the version written."""
        room = await retried(lambda: store.load_room("ROOM1"))
        assert room is not None
        version = int(room.state["version"]) + 1
        await retried(
            lambda: store.save_room(
                RoomWrite("ROOM1", version - 1, version, pack({"version": version}), [])
            )
        )
        return version

    # a subscriber on the old primary, waiting for messages as the relay's reader does
    early = store.subscriber()
    early_pubsub = early.pubsub(ignore_subscribe_messages=True)
    await early_pubsub.subscribe(f"{store.keys.prefix}early")

    async def listen() -> None:
        while True:
            await early_pubsub.get_message(timeout=None)

    listening = asyncio.ensure_future(listen())

    # Writes go on while the Sentinel fails over. The old primary stays up, and a primary,
    # until the Sentinel demotes it some ten seconds on: what it takes after the replica's
    # promotion is lost then. Within about SENTINEL_CHECK of the switch the store's pooled
    # connections leave it for the new primary (where a write built on a version only the
    # old one had is refused as a conflict, as it would be in the server).
    failing_over = asyncio.ensure_future(asyncio.to_thread(sentinel.failover))
    switched: float | None = None
    deadline = time.monotonic() + 15
    async with node(old) as on_old, node(new) as on_new:
        while True:
            assert time.monotonic() < deadline, "the store still writes to the old primary"
            if switched is None and failing_over.done():
                assert await failing_over == new
                switched = time.monotonic()
            try:
                version = await bump()
            except StoreConflict:
                continue
            if switched is not None:
                stored: Any = await on_new.hget(store.keys.room_state("ROOM1"), "v")
                if stored is not None and int(stored) == version:
                    break
            await asyncio.sleep(0.05)
        # within a check or two (a busy machine's slack), long before the ~11 s the old
        # primary takes to be demoted
        assert switched is not None and time.monotonic() - switched < 2 * SENTINEL_CHECK + 2
        for _ in range(5):  # from here on, every write is the new primary's
            version = await bump()
            assert int(await on_new.hget(store.keys.room_state("ROOM1"), "v")) == version
        # the store left the old primary on its own: it is still up, still a primary, its
        # clients not yet killed (what it took after the promotion is lost when demoted)
        assert (await on_old.info("replication"))["role"] == "master"
    # and it dropped the link of the subscriber it gave out before, for its owner to see
    try:
        done, _ = await asyncio.wait([listening], timeout=2)
        assert done, "the old primary's subscriber was left listening"
        assert isinstance(listening.exception(), RedisConnectionError)
    finally:
        listening.cancel()
        await early_pubsub.aclose()  # type: ignore[no-untyped-call]
        await early.aclose()
    # what was replicated before the failover is there
    assert await store.load_session("tok") == {"player_id": "p1"}
    assert await store.is_queued("p9")
    assert (await store.read_log("ROOM1"))[:2] == [{"k": "start"}, {"k": "a"}]
    assert await store.load_room("ROOM1") == StoredRoom({"version": version})
    # scripts (loaded afresh on the new primary), pipelines, a new subscriber
    assert await store.acquire_lease("ROOM1", "a:1", ttl=30) >= 1
    assert await store.renew_leases({"ROOM1": await store.lease_holder("ROOM1") or ""}, 30) == []
    await published_and_heard(store, "after")


async def test_the_primary_dies_and_the_store_follows_the_promoted_replica(
    key_prefix: str,
) -> None:
    """Three Sentinels (the URL names them all, and a fourth address where none listens);
    the primary is killed: requests fail as unavailable until the Sentinels have promoted
    the replica, then work on it, with what the replica had."""
    sentinel = await asyncio.to_thread(lambda: SentinelProcesses(sentinels=3).start())
    url = sentinel.url.replace("://", f"://127.0.0.1:{free_port()},", 1)
    store = await RedisStore.connect(url, 3600, 600, prefix=key_prefix, wait=5)
    try:
        await store.save_room(RoomWrite("ROOM2", -1, 0, pack({"version": 0}), [{"k": "start"}]))
        await store.save_session("tok", {"player_id": "p2"})
        await replicated(store)
        old = sentinel.primary_port()
        killed = asyncio.ensure_future(asyncio.to_thread(sentinel.kill_primary))
        failures = 0
        deadline = time.monotonic() + 30  # above kill_primary's own 20 s
        while not killed.done():  # requests while the Sentinels fail over
            try:
                await store.load_room("ROOM2")
            except StoreUnavailable:
                failures += 1
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        new = await killed
        assert new != old and failures > 0
        assert await retried(lambda: store.load_room("ROOM2")) == StoredRoom({"version": 0})
        await retried(
            lambda: store.save_room(RoomWrite("ROOM2", 0, 1, pack({"version": 1}), [{"k": "a"}]))
        )
        assert await store.read_log("ROOM2") == [{"k": "start"}, {"k": "a"}]
        assert await store.load_session("tok") == {"player_id": "p2"}
        async with node(new) as on_new:
            assert int(await on_new.hget(store.keys.room_state("ROOM2"), "v")) == 1
        await published_and_heard(store, "after")
    finally:
        await store.close()
        await asyncio.to_thread(sentinel.stop)


async def test_no_sentinel_is_unavailable_not_a_crash() -> None:
    url = f"redis+sentinel://127.0.0.1:{free_port()},127.0.0.1:{free_port()}/ddz/0"
    with pytest.raises(StoreUnavailable):
        await RedisStore.connect(url, 60, 60, wait=0)
    store = RedisStore.from_url(url, 60, 60)
    try:
        await assert_unavailable(store)
    finally:
        await store.close()


async def test_a_sentinel_that_knows_no_such_service_is_unavailable(
    sentinel: SentinelProcesses,
) -> None:
    url = sentinel.url.replace(f"/{sentinel.service}/", "/nosuch/")
    with pytest.raises(StoreUnavailable, match="nosuch"):
        await RedisStore.connect(url, 60, 60, wait=0)
