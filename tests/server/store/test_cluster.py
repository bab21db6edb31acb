"""The Redis store against a real three-master Redis Cluster: the same operations as on one
Redis (room CAS and fencing, journals, leases over many rooms, the active and watchable
sets, the quick-match queue, sessions, publish and subscribe), with the rooms' keys spread
over every node. ``connect`` tells a cluster from a single Redis by asking it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from server.store import clients
from server.store.base import RoomWrite, StoredRoom
from server.store.clients import POOL_SIZE
from server.store.codec import pack
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import (
    RedisStore,
    StoreConflict,
    StoreFenced,
    StoreUnavailable,
)
from tests.redis_cluster import ClusterProcesses
from tests.redis_server import free_port
from tests.server.store import checks
from tests.server.store.checks import assert_unavailable, published_and_heard, receive

#: Enough room codes that each of the three nodes serves some.
CODES = [f"R{i:03d}" for i in range(30)]


@pytest.fixture
async def store(redis_cluster_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = await RedisStore.connect(
        redis_cluster_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix, wait=5
    )
    assert s.cluster
    yield s
    await s.close()


@pytest.fixture(params=["single", "unix", "cluster"])
async def either_store(
    request: pytest.FixtureRequest, key_prefix: str, tmp_path: Path
) -> AsyncIterator[RedisStore]:
    """A store on one Redis over TCP, on an embedded one over its unix socket, then on the
    cluster (the fixtures looked up only when used)."""
    embedded = EmbeddedRedis(tmp_path / "embedded") if request.param == "unix" else None
    if embedded is not None:
        url = embedded.start()
    else:
        fixture = {"single": "redis_url", "cluster": "redis_cluster_url"}[request.param]
        url = request.getfixturevalue(fixture)
    s = await RedisStore.connect(url, finished_ttl=3600, session_ttl=600, prefix=key_prefix, wait=5)
    assert s.cluster == (request.param == "cluster")
    try:
        yield s
    finally:
        await s.close()
        if embedded is not None:
            embedded.stop()


async def node_clients(store: RedisStore) -> list[Redis]:
    """A plain client on each primary node of the store's cluster."""
    assert isinstance(store.redis, RedisCluster)
    await store.redis.ping()  # the client has read the slot map
    nodes = store.redis.get_primaries()
    return [Redis(host=node.host, port=int(node.port)) for node in nodes]


async def keys_per_node(store: RedisStore) -> list[int]:
    clients = await node_clients(store)
    try:
        return [
            len([key async for key in client.scan_iter(match=f"{store.keys.prefix}*")])
            for client in clients
        ]
    finally:
        for client in clients:
            await client.aclose()


async def test_connect_tells_a_cluster_from_one_redis(
    redis_url: str, redis_cluster_url: str
) -> None:
    single = await RedisStore.connect(redis_url, 60, 60, wait=5)
    cluster = await RedisStore.connect(redis_cluster_url, 60, 60, wait=5)
    hinted = RedisStore.from_url(redis_cluster_url.replace("redis://", "redis+cluster://"), 60, 60)
    plain = RedisStore.from_url(redis_url, 60, 60)
    try:
        assert not single.cluster and not plain.cluster
        assert cluster.cluster and hinted.cluster
        assert hinted.url == redis_cluster_url
        for store in (single, cluster, hinted, plain):
            assert await store.ping()
    finally:
        for store in (single, cluster, hinted, plain):
            await store.close()


async def test_rooms_are_saved_and_loaded_on_every_node(store: RedisStore) -> None:
    for code in CODES:
        await store.save_room(
            RoomWrite(code, -1, 0, pack({"code": code, "version": 0}), [{"k": "start"}])
        )
        await store.save_room(
            RoomWrite(code, 0, 1, pack({"code": code, "version": 1}), [{"k": "cmd"}])
        )
    for code in CODES:
        assert await store.load_room(code) == StoredRoom({"code": code, "version": 1})
        assert await store.read_log(code) == [{"k": "start"}, {"k": "cmd"}]
    assert await store.active_rooms() == sorted(CODES)
    assert await store.load_room("NOSUCH") is None
    # each room's state and log share a slot; the rooms are spread over the three nodes
    slots = {key_slot(store.keys.room_state(code).encode()) for code in CODES}
    assert len(slots) == len(CODES)
    for code in CODES:
        assert key_slot(store.keys.room_log(code).encode()) == key_slot(
            store.keys.room_state(code).encode()
        )
    counts = await keys_per_node(store)
    assert len(counts) == 3 and all(count > 0 for count in counts), counts
    assert sum(counts) == 2 * len(CODES) + 1  # state and log per room, the active set


async def test_a_stale_write_is_refused_and_a_closed_room_leaves_the_sets(
    store: RedisStore,
) -> None:
    await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), [{"k": "start"}]))
    await store.add_watchable("ABCDE", 1000.0)
    await store.save_room(RoomWrite("ABCDE", 0, 1, pack({"version": 1}), [{"k": "x"}]))
    with pytest.raises(StoreConflict):
        await store.save_room(RoomWrite("ABCDE", 0, 2, pack({"version": 2}), [{"k": "y"}]))
    with pytest.raises(StoreConflict):  # a second room under a taken code
        await store.save_room(RoomWrite("ABCDE", -1, 0, pack({"version": 0}), []))
    assert await store.load_room("ABCDE") == StoredRoom({"version": 1})
    assert [r["k"] for r in await store.read_log("ABCDE")] == ["start", "x"]
    assert await store.watchable(10) == ["ABCDE"]
    await store.save_room(
        RoomWrite("ABCDE", 1, 2, pack({"version": 2}), [{"k": "end"}], closed=True)
    )
    assert await store.active_rooms() == []
    assert await store.watchable(10) == []
    for key in (store.keys.room_state("ABCDE"), store.keys.room_log("ABCDE")):
        assert 0 < await store.redis.ttl(key) <= 3600


async def test_a_stale_owners_write_is_fenced(store: RedisStore) -> None:
    old = await store.acquire_lease("ROOM2", "a:1", ttl=0.2)
    await store.save_room(RoomWrite("ROOM2", -1, 0, pack({"version": 0}), [], fence=old))
    await asyncio.sleep(0.3)  # a's lease runs out (a stalled)
    new = await store.acquire_lease("ROOM2", "b:2", ttl=30)
    assert new > old
    await store.save_room(RoomWrite("ROOM2", 0, 1, pack({"version": 1}), [], fence=new))
    with pytest.raises(StoreFenced):
        await store.save_room(
            RoomWrite("ROOM2", 0, 1, pack({"version": 1, "stale": True}), [], fence=old)
        )
    assert await store.load_room("ROOM2") == StoredRoom({"version": 1})


async def test_leases_of_rooms_on_every_node_are_renewed_and_released(
    store: RedisStore,
) -> None:
    tokens = {code: await store.acquire_lease(code, "a:1", ttl=30) for code in CODES}
    assert all(token >= 1 for token in tokens.values())
    assert [await store.acquire_lease(code, "b:2", ttl=30) for code in CODES] == [0] * len(CODES)
    held = {code: f"a:1:{token}" for code, token in tokens.items()}
    assert await store.lease_holder(CODES[0]) == held[CODES[0]]
    assert await store.renew_leases(held, 30) == []  # one pipeline over three nodes
    assert await store.renew_leases({}, 30) == []
    assert await store.renew_leases(held, 0) == []  # released
    assert [await store.lease_holder(code) for code in CODES] == [None] * len(CODES)
    assert await store.free_rooms(CODES) == CODES  # asked of every node in one pipeline
    later = {code: await store.acquire_lease(code, "b:2", ttl=30) for code in CODES}
    assert all(later[code] > tokens[code] for code in CODES)
    lost = CODES[::3]
    mixed = {code: held[code] for code in lost} | {
        code: f"b:2:{later[code]}" for code in CODES if code not in lost
    }
    assert sorted(await store.renew_leases(mixed, 30)) == sorted(lost)  # no longer a's
    # lease and fence keys of every room: spread over the nodes
    counts = await keys_per_node(store)
    assert all(count > 0 for count in counts), counts


async def test_more_requests_at_once_than_connections_wait_their_turn(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pipelines and single requests beyond the pool's size wait for a place: none is
    refused, and no node is asked for more connections than ``POOL_SIZE``. (The wait for
    a place is made long: on a loaded machine these thousands of requests take more than
    the 2 s a place is waited for in service.)"""
    monkeypatch.setattr(clients, "TIMEOUT", 60.0)
    await store.acquire_lease(CODES[0], "a:1", ttl=30)
    asked = [store.free_rooms(CODES) for _ in range(POOL_SIZE)]
    single = [store.lease_holder(code) for code in CODES * 9]
    results = await asyncio.gather(*asked, *single)
    assert results[:POOL_SIZE] == [CODES[1:]] * POOL_SIZE
    assert results[POOL_SIZE:] == ["a:1:1", *[None] * (len(CODES) - 1)] * 9
    assert isinstance(store.redis, RedisCluster)
    for node in store.redis.get_nodes():
        assert len(node._connections) <= POOL_SIZE


async def test_the_quick_match_queue(either_store: RedisStore) -> None:
    store = either_store
    assert await store.enqueue("p1", 100.0, {"name": "Ann"}, 25.0) == 1
    assert await store.enqueue("p1", 100.5, {"name": "Ann"}, 30.0) == 0  # already there
    assert await store.enqueue("p2", 101.0, {"name": "Bob"}, 22.5) == 2
    assert await store.is_queued("p2")
    assert await store.leave_queue("p2")
    assert not await store.leave_queue("p2")
    assert not await store.is_queued("p2")
    assert await store.enqueue("p2", 103.0, {"name": "Bob"}, 22.5) == 2
    assert await store.enqueue("p3", 104.0, {"name": "Cy"}, 31.25) == 3
    assert await store.enqueue("p4", 105.0, {"name": "Di"}, 19.0) == 4
    assert await store.waiting(3) == [
        ("p1", 100.0, 25.0),
        ("p2", 103.0, 22.5),
        ("p3", 104.0, 31.25),
    ]
    taken = await store.take_players(["p3", "p1", "p4"])
    assert taken == [("p3", {"name": "Cy"}), ("p1", {"name": "Ann"}), ("p4", {"name": "Di"})]
    assert await store.take_players(["p2", "p1"]) == []  # p1 is gone: nobody is taken
    assert await store.waiting(10) == [("p2", 103.0, 22.5)]
    assert await store.take_players(["p2"]) == [("p2", {"name": "Bob"})]
    assert not await store.is_queued("p2")


async def test_sessions_are_saved_loaded_and_refreshed(store: RedisStore) -> None:
    tokens = [f"tok{i}" for i in range(12)]
    for i, token in enumerate(tokens):
        await store.save_session(token, {"player_id": f"p{i}", "name": "Ann", "room": ""})
    for i, token in enumerate(tokens):
        assert await store.load_session(token) == {"player_id": f"p{i}", "name": "Ann", "room": ""}
        assert 0 < await store.redis.ttl(store.keys.session(token)) <= 600
    assert await store.load_session("other") is None
    await store.save_session(tokens[0], {"room": "ABCDE"})  # a field changed, others kept
    assert await store.load_session(tokens[0]) == {
        "player_id": "p0",
        "name": "Ann",
        "room": "ABCDE",
    }
    counts = await keys_per_node(store)
    assert all(count > 0 for count in counts), counts


async def test_published_messages_reach_a_subscriber_in_order(either_store: RedisStore) -> None:
    await published_and_heard(either_store, "m", count=60)


async def test_a_publish_on_the_cluster_reaches_subscribers_on_every_node(
    store: RedisStore,
) -> None:
    channel = f"{store.keys.prefix}room"
    messages = [(channel, f"m{i}".encode()) for i in range(20)]
    clients = await node_clients(store)
    try:
        pubsubs = [client.pubsub() for client in clients]
        for pubsub in pubsubs:
            await pubsub.subscribe(channel)
        await store.publish_many(messages)
        for pubsub in pubsubs:
            assert await receive(pubsub, len(messages)) == messages
            await pubsub.aclose()
    finally:
        for client in clients:
            await client.aclose()


async def test_an_unreachable_cluster_is_unavailable_not_a_crash() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(StoreUnavailable):
        await RedisStore.connect(url, 60, 60, wait=0)
    store = RedisStore.from_url(url.replace("redis://", "redis+cluster://"), 60, 60)
    try:
        assert store.cluster
        await assert_unavailable(store)
    finally:
        await store.close()


async def test_a_node_down_is_unavailable_and_its_rooms_come_back_with_it(
    key_prefix: str,
) -> None:
    """A cluster of this test's own: one node is killed, then started again."""
    cluster = await asyncio.to_thread(lambda: ClusterProcesses().start())
    store = await RedisStore.connect(cluster.url, 3600, 600, prefix=key_prefix, wait=5)

    def owner(code: str) -> int:
        return cluster.owner(key_slot(store.keys.room_state(code).encode()))

    try:
        # a room on the node that goes down, and one on a node that stays up
        down = next(code for code in CODES if owner(code) == 1)
        up = next(code for code in CODES if owner(code) == 2)
        for code in (down, up):
            await store.save_room(RoomWrite(code, -1, 0, pack({"version": 0}), []))
        cluster.kill_node(1)
        with pytest.raises(StoreUnavailable):
            await store.load_room(down)
        with pytest.raises(StoreUnavailable):
            await store.save_room(RoomWrite(down, 0, 1, pack({"version": 1}), []))
        with pytest.raises(StoreUnavailable):
            await store.renew_leases({down: "a:1:1", up: "a:1:1"}, 30)
        assert await store.load_room(up) == StoredRoom(
            {"version": 0}
        )  # the other nodes still serve
        await asyncio.to_thread(cluster.restart_node, 1)
        # the same client serves the room again (the node kept its slots; being without
        # persistence here, it came back empty)
        assert await store.load_room(down) is None
        await store.save_room(RoomWrite(down, -1, 0, pack({"version": 0}), []))
        assert await store.load_room(down) == StoredRoom({"version": 0})
        assert await store.load_room(up) == StoredRoom({"version": 0})
    finally:
        await store.close()
        await asyncio.to_thread(cluster.stop)


async def test_rooms_on_every_node_are_taken_over_in_batches(store: RedisStore) -> None:
    await checks.adopted_in_batches(store, CODES)
