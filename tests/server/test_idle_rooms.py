"""Rooms do not pile up in Redis (issue 11): a room nobody is connected to ends after the
idle-room timeout, also after a restart; a closed room's keys, its fence counter too, expire
(soon for a room with no match played, after ``finished_ttl`` for a match to replay), and
it leaves the active and watchable sets. Real sockets, real Redis."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from protocol.events import BidMade, MatchEnded
from protocol.messages import CreateRoom, Snapshot, StartPractice
from server.game.journal import close_reason, replay
from server.rooms.stored import room_from_stored, room_to_data
from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.redis_store import CLOSED_BRIEFLY, RedisStore
from tests.redis_server import unique_prefix
from tests.server.wire import AutoSeat, running_server, wire_client

IDLE = 0.5
FINISHED_TTL = 1000.0
LEASE_TTL = 10.0


async def room_data(store: RedisStore, code: str) -> dict[str, Any]:
    """The room as stored (its whole state and the steps since), as plain data; {} when
    there is none."""
    stored = await store.load_room(code)
    return {} if stored is None else room_to_data(room_from_stored(stored))


@dataclass
class Lifetimes:
    """What is left of a room in Redis: each key's seconds to live (-1: for ever, None:
    gone) and whether the cross-room sets still name it."""

    state: float | None
    log: float | None
    fence: float | None
    lease: float | None
    active: bool
    watchable: bool


async def lifetimes(store: RedisStore, code: str) -> Lifetimes:
    keys = store.keys

    async def ttl(key: str) -> float | None:
        ms: Any = await store.redis.pttl(key)
        return None if ms == -2 else -1 if ms == -1 else ms / 1000

    return Lifetimes(
        state=await ttl(keys.room_state(code)),
        log=await ttl(keys.room_log(code)),
        fence=await ttl(keys.room_fence(code)),
        lease=await ttl(keys.room_lease(code)),
        active=bool(await store.redis.sismember(keys.active_rooms, code)),
        watchable=await store.redis.zscore(keys.watchable, code) is not None,
    )


async def until_closed(store: RedisStore, code: str, timeout: float = 10.0) -> dict[str, Any]:
    """The room's stored state once it is closed."""
    async with asyncio.timeout(timeout):
        while True:
            stored = await store.load_room(code)
            data = None if stored is None else room_to_data(room_from_stored(stored))
            if data is not None and data["closed"] is not None:
                return data
            await asyncio.sleep(0.02)


def expiring(seconds: float | None, most: float) -> bool:
    return seconds is None or 0 < seconds <= most


def left_the_sets(left: Lifetimes) -> bool:
    return not left.active and not left.watchable and expiring(left.lease, LEASE_TTL)


async def test_a_waiting_room_whose_creator_went_ends_and_its_keys_go_soon(
    redis_url: str,
) -> None:
    async with running_server(
        redis_url, idle_room_timeout=IDLE, finished_ttl=FINISHED_TTL, lease_ttl=LEASE_TTL
    ) as srv:
        store = srv.app.store
        async with wire_client(srv.url) as (client, _):
            await client.send(CreateRoom(deals=3, public=True))
            code = (await client.recv_type(Snapshot)).room.code
            before = await lifetimes(store, code)
            assert before.state == before.fence == -1 and before.active and before.watchable
        went = time.time()
        data = await until_closed(store, code)
        assert data["closed"] == "abandoned"
        assert went - 0.1 <= data["idle_since"]  # idle from the disconnection on
        left = await lifetimes(store, code)
        # no match was played: nothing to replay, so the keys go within a minute
        assert expiring(left.state, CLOSED_BRIEFLY) and expiring(left.fence, CLOSED_BRIEFLY)
        assert left.log is None
        assert left_the_sets(left)
        assert code not in srv.app.rooms


async def test_an_abandoned_practice_room_ends_and_its_keys_expire(redis_url: str) -> None:
    async with running_server(
        redis_url, idle_room_timeout=IDLE, finished_ttl=FINISHED_TTL, lease_ttl=LEASE_TTL
    ) as srv:
        store = srv.app.store
        async with wire_client(srv.url) as (client, _):
            await client.send(StartPractice(deals=3, level="easy", speed="instant"))
            code = (await client.recv_type(Snapshot)).room.code
        data = await until_closed(store, code)
        assert data["closed"] == "abandoned"
        left = await lifetimes(store, code)
        # dealt, but the person never moved: not worth a week either
        for seconds in (left.state, left.log, left.fence):
            assert expiring(seconds, CLOSED_BRIEFLY)
        assert left_the_sets(left)


async def test_a_match_played_then_abandoned_is_kept_and_replays_as_abandoned(
    redis_url: str,
) -> None:
    prefix = unique_prefix()
    async with running_server(
        redis_url,
        key_prefix=prefix,
        idle_room_timeout=IDLE,
        finished_ttl=FINISHED_TTL,
        lease_ttl=LEASE_TTL,
    ) as srv:
        store = srv.app.store
        async with wire_client(srv.url) as (client, _):
            seat = AutoSeat(client)
            await client.send(StartPractice(deals=3, level="easy", speed="instant"))
            await seat.until(BidMade)  # the person bids first in practice
            code = seat.state.room.code if seat.state else ""
        data = await until_closed(store, code)
        assert data["closed"] == "abandoned" and data["played"]
        left = await lifetimes(store, code)
        for seconds in (left.state, left.log, left.fence):
            assert expiring(seconds, FINISHED_TTL) and seconds and seconds > CLOSED_BRIEFLY
        assert left_the_sets(left)
        records = await store.read_log(code)
        assert close_reason(records) == "abandoned"
        *_, (_, match, _) = replay(records)
        assert match.to_data() == data["match"]
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "server.replay", code, "--redis-url", redis_url]
        + ["--key-prefix", prefix],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "(the match ended early: abandoned)" in done.stdout


async def test_a_finished_match_keeps_finished_ttl_and_its_fence_expires_with_it(
    redis_url: str,
) -> None:
    async with running_server(
        redis_url, idle_room_timeout=60.0, finished_ttl=FINISHED_TTL, lease_ttl=LEASE_TTL
    ) as srv:
        store = srv.app.store
        async with wire_client(srv.url) as (client, _):
            seat = AutoSeat(client)
            await client.send(StartPractice(deals=1, level="easy", speed="instant"))
            await seat.until(MatchEnded, timeout=60)
            code = seat.state.room.code if seat.state else ""
            data = await until_closed(store, code)
        assert data["closed"] == "match_over"
        left = await lifetimes(store, code)
        # before issue 11 the fence counter never expired
        for seconds in (left.state, left.log, left.fence):
            assert seconds is not None and CLOSED_BRIEFLY < seconds <= FINISHED_TTL
        assert left_the_sets(left)


async def test_a_room_taken_over_after_a_restart_ends_on_time(redis_url: str) -> None:
    """The idle moment is saved with the room: a room whose last person went long before
    the restart ends at once, not a whole timeout after it."""
    prefix = unique_prefix()
    long_idle = 60.0
    settings = {"key_prefix": prefix, "finished_ttl": FINISHED_TTL, "lease_ttl": LEASE_TTL}
    async with running_server(redis_url, idle_room_timeout=long_idle, **settings) as srv:
        store = srv.app.store
        async with wire_client(srv.url) as (client, _):
            await client.send(CreateRoom(deals=3))
            code = (await client.recv_type(Snapshot)).room.code
        async with asyncio.timeout(10):
            while (await room_data(store, code)).get("idle_since") is None:
                await asyncio.sleep(0.02)
    # while the server is down, make its last person have gone an hour ago
    other = await RedisStore.connect(redis_url, FINISHED_TTL, 60.0, prefix=prefix, wait=5)
    try:
        stored: Any = await other.redis.hmget(other.keys.room_state(code), "v", "f")
        version, fence = int(stored[0]), int(stored[1])
        data = await room_data(other, code)
        data["idle_since"] = time.time() - 3600.0
        data["version"] = version + 1
        await other.save_room(RoomWrite(code, version, version + 1, pack(data), [], fence=fence))
    finally:
        await other.close()
    async with running_server(redis_url, idle_room_timeout=long_idle, **settings) as srv:
        data = await until_closed(srv.app.store, code, timeout=long_idle / 4)
        assert data["closed"] == "abandoned"
        assert left_the_sets(await lifetimes(srv.app.store, code))


async def test_a_room_whose_people_were_here_when_its_server_stopped_ends_after_takeover(
    redis_url: str,
) -> None:
    """A server going down leaves its rooms showing their people connected; the process
    that takes a room over finds nobody there, and the idle clock starts at the takeover."""
    prefix = unique_prefix()
    settings = {"key_prefix": prefix, "finished_ttl": FINISHED_TTL, "lease_ttl": LEASE_TTL}
    async with running_server(redis_url, idle_room_timeout=3600.0, **settings) as srv:
        async with wire_client(srv.url) as (client, _):
            await client.send(CreateRoom(deals=3))
            code = (await client.recv_type(Snapshot)).room.code
            srv.stop.set()  # going down with its player still connected
            await asyncio.wait_for(srv.task, 10)
    async with running_server(redis_url, idle_room_timeout=IDLE, **settings) as srv:
        data = await until_closed(srv.app.store, code)
        assert data["closed"] == "abandoned"
