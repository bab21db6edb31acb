"""Room leases with fencing tokens: one process runs a room at a time, a stale owner's
writes are refused, and a room whose process went away is taken over."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import Snapshot, StartPractice
from server.rooms.room import RoomError
from server.rooms.stored import room_from_stored, room_to_data
from server.store.base import RoomWrite, StoredRoom
from server.store.codec import pack
from server.store.redis_store import RedisStore, StoreFenced
from tests.redis_server import unique_prefix
from tests.server.store import checks
from tests.server.wire import running_server, wire_client


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    s = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield s
    await s.close()


async def test_one_node_holds_a_lease_and_a_later_one_gets_a_higher_token(
    store: RedisStore,
) -> None:
    first = await store.acquire_lease("ROOM1", "a:1", ttl=30)
    assert first >= 1
    assert await store.acquire_lease("ROOM1", "b:2", ttl=30) == 0  # held
    assert await store.acquire_lease("ROOM1", "a:1", ttl=30) == first  # its own, renewed
    assert await store.lease_holder("ROOM1") == f"a:1:{first}"
    assert await store.renew_leases({"ROOM1": f"a:1:{first}"}, 0) == []  # released
    second = await store.acquire_lease("ROOM1", "b:2", ttl=30)
    assert second > first
    assert await store.renew_leases({"ROOM1": f"a:1:{first}"}, 30) == ["ROOM1"]  # not a's


async def test_the_rooms_nobody_runs_are_found_in_one_question(store: RedisStore) -> None:
    await store.acquire_lease("HELD1", "a:1", ttl=30)
    token = await store.acquire_lease("GONE1", "a:1", ttl=30)
    await store.renew_leases({"GONE1": f"a:1:{token}"}, 0)  # let go
    assert await store.free_rooms(["HELD1", "GONE1", "NEVER"]) == ["GONE1", "NEVER"]
    assert await store.free_rooms([]) == []


async def test_a_stale_owners_write_is_refused(store: RedisStore) -> None:
    old = await store.acquire_lease("ROOM2", "a:1", ttl=0.2)
    await store.save_room(RoomWrite("ROOM2", -1, 0, pack({"version": 0}), [], fence=old))
    await asyncio.sleep(0.3)  # a's lease runs out (a stalled)
    new = await store.acquire_lease("ROOM2", "b:2", ttl=30)
    await store.save_room(RoomWrite("ROOM2", 0, 1, pack({"version": 1}), [], fence=new))
    with pytest.raises(StoreFenced):  # a wakes up and writes on the version it knew
        await store.save_room(
            RoomWrite("ROOM2", 0, 1, pack({"version": 1, "stale": True}), [], fence=old)
        )
    assert await store.load_room("ROOM2") == StoredRoom({"version": 1})


async def test_another_process_takes_over_a_room_whose_process_stopped(redis_url: str) -> None:
    prefix = unique_prefix()
    # a lease renewed every 0.5 s: a renewal would have to be a whole second late for
    # second to take the room while first still runs it
    fast = {"key_prefix": prefix, "lease_ttl": 1.5}
    async with running_server(redis_url, **fast) as second:
        async with running_server(redis_url, **fast) as first:
            async with wire_client(first.url) as (client, _):
                await client.send(StartPractice(deals=1, speed="slow"))
                snapshot: Snapshot = await client.recv_type(Snapshot)
                code = snapshot.room.code
                assert code in first.app.rooms and code not in second.app.rooms
                await asyncio.sleep(2.0)  # past a lease TTL: renewed, still first's
                assert code not in second.app.rooms
        # first stopped (its leases given up): second runs the room within a sweep
        for _ in range(100):
            if code in second.app.rooms:
                break
            await asyncio.sleep(0.05)
        assert code in second.app.rooms
        assert second.app.rooms[code].room.match is not None


async def test_a_process_that_lost_its_lease_lets_the_room_go(redis_url: str) -> None:
    prefix = unique_prefix()
    async with running_server(redis_url, key_prefix=prefix, lease_ttl=30) as first:
        async with wire_client(first.url) as (client, _):
            await client.send(StartPractice(deals=1, speed="slow"))
            code = (await client.recv_type(Snapshot)).room.code
            runner = first.app.rooms[code]
            # another process takes the room over behind first's back
            await first.app.store.redis.delete(first.app.store.keys.room_lease(code))
            fence = await first.app.store.acquire_lease(code, "elsewhere:1", ttl=30)
            assert fence > runner.fence
            stored = await first.app.store.load_room(code)
            assert stored is not None
            data = room_to_data(room_from_stored(stored))
            await first.app.store.save_room(
                RoomWrite(code, data["version"], data["version"] + 1, pack(data), [], fence=fence)
            )
            # first's next write is refused and it stops running the room
            with pytest.raises(RoomError) as refused:
                await runner.change(lambda room: room.set_connected("nobody", True))
            assert refused.value.code == ErrorCode.UNAVAILABLE
    assert code not in first.app.rooms


async def test_a_room_asked_for_twice_at_once_is_taken_over_once(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two players of a room nobody runs reach it at the same moment (or a player and the
    orphan sweep): one runner takes it over, not two with a clock and bots each."""
    async with running_server(redis_url, lease_ttl=30) as srv:
        async with wire_client(srv.url) as (client, _):
            await client.send(StartPractice(deals=1, speed="slow"))
            code = (await client.recv_type(Snapshot)).room.code
            directory = srv.app.directory
            old = directory.rooms[code]
            directory.lost(old.room)  # as after a restart: stored, run by nobody
            await srv.app.store.renew_leases({code: f"{directory.node}:{old.fence}"}, 0)
            load_room = srv.app.store.load_room

            async def slow_load(code: str) -> dict[str, Any] | None:
                await asyncio.sleep(0.2)  # the other asker gets its lease meanwhile
                return await load_room(code)

            monkeypatch.setattr(srv.app.store, "load_room", slow_load)
            takeovers = srv.app.metrics.room_takeovers._value.get()
            await asyncio.gather(directory.adopt(code), directory.adopt(code))
            assert srv.app.metrics.room_takeovers._value.get() == takeovers + 1
            assert directory.rooms[code] is not old


async def test_rooms_are_taken_over_in_batches(store: RedisStore) -> None:
    await checks.adopted_in_batches(store, [f"B{i:03d}" for i in range(20)])
