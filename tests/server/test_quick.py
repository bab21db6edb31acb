"""Quick match over real sockets and a real Redis queue: three people meet; one alone gets
two bots after the wait; leaving the queue; one person, one place; the live list."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    LeaveQueue,
    ListRooms,
    Queued,
    QueueLeft,
    QuickMatch,
    RoomList,
    Snapshot,
    StartPractice,
)
from tests.server.wire import WireClient, running_server, wire_client


@contextlib.asynccontextmanager
async def clients(url: str, n: int) -> AsyncIterator[list[WireClient]]:
    async with contextlib.AsyncExitStack() as stack:
        out = []
        for i in range(n):
            client, _ = await stack.enter_async_context(wire_client(url, name=f"p{i}"))
            out.append(client)
        yield out


async def test_three_people_in_the_queue_make_one_timed_three_deal_match(redis_url: str) -> None:
    async with running_server(redis_url, quick_match_wait=30) as srv:
        async with clients(srv.url, 3) as players:
            for p in players:
                await p.send(QuickMatch())
                queued: Queued = await p.recv_type(Queued)
                assert queued.wait == 30
            snapshots: list[Snapshot] = [await p.recv_type(Snapshot) for p in players]
            codes = {s.room.code for s in snapshots}
            assert len(codes) == 1
            room = snapshots[0].room
            assert room.mode == "quick" and room.deals == 3 and room.timed
            assert [seat.kind for seat in room.seats] == ["person"] * 3
            assert sorted(s.room.your_seat for s in snapshots) == [0, 1, 2]  # type: ignore[type-var]
            assert [seat.name for seat in room.seats] == [
                "p0",
                "p1",
                "p2",
            ]  # first come, first seated
            assert all(s.room.table is not None for s in snapshots)  # dealt at once


async def test_one_person_alone_gets_two_bots_after_the_wait(redis_url: str) -> None:
    async with running_server(redis_url, quick_match_wait=0.3) as srv:
        async with wire_client(srv.url) as (client, _):
            await client.send(QuickMatch())
            await client.recv_type(Queued)
            started = asyncio.get_running_loop().time()
            snapshot: Snapshot = await client.recv_type(Snapshot, timeout=5)
            waited = asyncio.get_running_loop().time() - started
            assert 0.2 <= waited < 2.0
            assert [s.kind for s in snapshot.room.seats] == ["person", "bot", "bot"]


async def test_leaving_the_queue(redis_url: str) -> None:
    async with running_server(redis_url, quick_match_wait=0.2) as srv:
        async with wire_client(srv.url) as (client, _):
            await client.send(QuickMatch())
            await client.recv_type(Queued)
            await client.send(LeaveQueue())
            await client.recv_type(QueueLeft)
            await asyncio.sleep(0.5)  # past the wait: nobody is matched
            assert not srv.app.rooms
            await client.send(LeaveQueue())
            error: Error = await client.recv_type(Error)
            assert error.code == ErrorCode.NOT_QUEUED


async def test_one_person_is_never_in_two_queues_or_two_seats(redis_url: str) -> None:
    async with running_server(redis_url, quick_match_wait=30) as srv:
        async with wire_client(srv.url) as (client, _):
            await client.send(QuickMatch())
            await client.recv_type(Queued)
            await client.send(QuickMatch())
            assert (await client.recv_type(Error)).code == ErrorCode.ALREADY_QUEUED
            await client.send(CreateRoom())
            assert (await client.recv_type(Error)).code == ErrorCode.ALREADY_QUEUED
            await client.send(LeaveQueue())
            await client.recv_type(QueueLeft)
            await client.send(StartPractice(deals=1, speed="slow"))
            await client.recv_type(Snapshot)
            await client.send(QuickMatch())
            assert (await client.recv_type(Error)).code == ErrorCode.ALREADY_SEATED


async def test_a_person_who_disconnects_leaves_the_queue(redis_url: str) -> None:
    async with running_server(redis_url, quick_match_wait=30) as srv:
        async with wire_client(srv.url) as (client, welcome):
            await client.send(QuickMatch())
            await client.recv_type(Queued)
            assert await srv.app.store.is_queued(welcome.player_id)
        for _ in range(100):
            if not await srv.app.store.is_queued(welcome.player_id):
                break
            await asyncio.sleep(0.02)
        assert not await srv.app.store.is_queued(welcome.player_id)


async def test_the_live_list_names_quick_matches_and_public_rooms_only(redis_url: str) -> None:
    async with running_server(redis_url, quick_match_wait=0.1) as srv:
        async with clients(srv.url, 4) as (quick, public, private, looker):
            await quick.send(QuickMatch())
            quick_room: Snapshot = await quick.recv_type(Snapshot, timeout=5)
            await public.send(CreateRoom(public=True))
            public_room: Snapshot = await public.recv_type(Snapshot)
            await private.send(CreateRoom())
            private_room: Snapshot = await private.recv_type(Snapshot)
            await looker.send(ListRooms())
            listed: RoomList = await looker.recv_type(RoomList)
            codes = {r.code for r in listed.rooms}
            assert quick_room.room.code in codes and public_room.room.code in codes
            assert private_room.room.code not in codes
            summary = next(r for r in listed.rooms if r.code == quick_room.room.code)
            assert summary.mode == "quick" and summary.deal_no == 1
