"""The cluster part over the in-memory store and relay: forwarding a change to the room's
process, a lost forward, takeover and handover, a player connected elsewhere, who is in
which room. No sockets, no Redis: each test runs in well under a second."""

from __future__ import annotations

import asyncio

import pytest

from protocol.errors import ErrorCode
from protocol.messages import Left, Pong, ReadyRequest, Snapshot
from server.cluster import ops
from server.cluster.messages import Adopt, Forward, PlayerFrames, Rejoin, unpack_message
from server.rooms.room import RoomError
from server.rooms.stored import room_from_stored, room_to_data
from tests.server.cluster.harness import join_from, nodes, open_room, until


async def test_a_change_for_a_room_run_elsewhere_is_forwarded_and_its_frames_come_back() -> None:
    async with nodes("a:1", "b:2") as (_, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)

        assert code not in b.directory.rooms  # it still runs on a
        await until(lambda: any(isinstance(m, Snapshot) for m in b.hub.got[bo]))
        snapshot = next(m for m in b.hub.got[bo] if isinstance(m, Snapshot))
        assert [s.name for s in snapshot.room.seats][:2] == ["Ann", "Bo"]
        assert b.room_of(bo) == code  # told by the room, not guessed from the frame
        assert a.directory.rooms[code].room.is_member(bo)


async def test_a_refusal_travels_back_typed() -> None:
    async with nodes("a:1", "b:2") as (_, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await b.connect("Bo")
        with pytest.raises(RoomError) as refused:
            await b.directory.route(code, ops.Ask(bo, ReadyRequest()))
        assert refused.value.code == ErrorCode.NO_ROOM  # the room's own refusal, as raised on a
        assert refused.value.message == "you have no seat in this room"
        assert not a.directory.rooms[code].room.is_member(bo)  # a refusal changes nothing


async def test_a_lost_forward_is_a_retryable_unavailable_and_changes_nothing() -> None:
    async with nodes("a:1", "b:2", forward_timeout=0.2) as (redis, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await b.connect("Bo")
        redis.drop = lambda channel, data: isinstance(unpack_message(data), Forward)

        with pytest.raises(RoomError) as refused:
            await b.directory.route(code, ops.Join(bo, "Bo"))

        assert refused.value.code == ErrorCode.UNAVAILABLE
        assert not a.directory.rooms[code].room.is_member(bo)
        redis.drop = lambda channel, data: False
        await b.directory.route(code, ops.Join(bo, "Bo"))  # the retry gets through
        assert a.directory.rooms[code].room.is_member(bo)


async def test_a_process_not_listening_to_the_others_refuses_at_once_and_sends_nothing() -> None:
    """Its link to the others is being made again: an answer could not be heard, so a
    change for a room run elsewhere is not sent (not applied unanswered, and no wait for an
    answer that cannot come); it is refused as retryable at once."""
    async with nodes("a:1", "b:2", forward_timeout=30.0) as (_, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await b.connect("Bo")
        b.cluster.relay.listening = False

        async with asyncio.timeout(5.0):  # (not the forward's 30 s)
            with pytest.raises(RoomError) as refused:
                await b.directory.route(code, ops.Join(bo, "Bo"))

        assert refused.value.code == ErrorCode.UNAVAILABLE
        await a.cluster.relay.flush()
        assert not a.directory.rooms[code].room.is_member(bo)  # it was never sent


async def test_handover_publishes_the_rooms_frames_before_it_gives_the_rooms_away() -> None:
    async with nodes("a:1", "b:2") as (redis, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await b.connect("Bo")
        # each message as published, with who held the room's lease at that moment
        published: list[tuple[object, str | None]] = []

        def record(channel: str, data: bytes) -> bool:
            published.append((unpack_message(data), redis.lease(code)))
            return False

        redis.drop = record
        joining = asyncio.ensure_future(b.directory.route(code, ops.Join(bo, "Bo")))
        await until(lambda: a.directory.rooms[code].lock.locked() or joining.done())

        await a.directory.hand_over()  # while the join is under way
        await a.cluster.relay.flush()

        await joining
        frames = [lease for m, lease in published if isinstance(m, PlayerFrames)]
        assert frames and all(lease is not None and lease.startswith("a:1") for lease in frames)
        adopt, lease = published[-1]
        assert isinstance(adopt, Adopt) and adopt.codes == [code] and lease is None

        await b.directory.adopt(code)  # as b does on hearing it
        assert code in b.directory.rooms
        holder = await b.directory.leases.holder(code)
        assert holder is not None and holder.node == "b:2"


async def test_a_process_whose_lease_ran_out_is_fenced_and_lets_the_room_go() -> None:
    async with nodes("a:1", "b:2", lease_ttl=5.0) as (_, clock, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        old = a.directory.rooms[code]
        clock.now += 6.0  # a stalled past its lease

        await b.directory.adopt_orphans()

        taken = b.directory.rooms[code]
        assert taken.fence > old.fence
        with pytest.raises(RoomError) as refused:  # a's late write is refused by the fence
            await old.change(lambda room: room.set_connected(ann, True))
        assert refused.value.code == ErrorCode.UNAVAILABLE
        assert code not in a.directory.rooms  # and a runs it no more


async def test_takeover_calls_back_players_connected_here_and_elsewhere() -> None:
    async with nodes("a:1", "b:2", "c:3", lease_ttl=5.0, forward_timeout=0.5) as (
        _,
        clock,
        (a, b, c),
    ):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)  # b remembers a as the room's process
        b.hub.got[bo].clear()
        for runner in a.directory.rooms.values():
            runner.stop()
        a.directory.rooms.clear()
        await a.cluster.relay.stop()  # a died: it answers nothing
        clock.now += 6.0

        await c.directory.adopt_orphans()

        assert code in c.directory.rooms
        # Bo, on b, is told to come back (Rejoin) and gets a fresh snapshot from c
        await until(lambda: any(isinstance(m, Snapshot) for m in b.hub.got[bo]))
        seat = c.directory.rooms[code].room.seat_of(bo)
        assert seat is not None and c.directory.rooms[code].room.seats[seat].connected


async def test_a_stale_gone_from_an_older_process_does_not_mark_the_player_away() -> None:
    async with nodes("a:1", "b:2", "c:3") as (_, _, (a, b, c)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await b.connect("Bo")
        await b.directory.route(code, ops.Join(bo, "Bo"))
        await c.directory.route(code, ops.Back(bo))  # Bo connected again, on c

        await b.directory.route(code, ops.Gone(bo))  # b sees the old connection end

        room = a.directory.rooms[code].room
        seat = room.seat_of(bo)
        assert seat is not None and room.seats[seat].connected


async def test_a_player_who_left_is_not_brought_back() -> None:
    async with nodes("a:1", "b:2") as (_, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)

        await b.directory.route(code, ops.Leave(bo))

        await until(lambda: b.room_of(bo) is None)  # the room said so
        assert any(isinstance(m, Left) for m in b.hub.got[bo])
        session = b.sessions.of_player(bo)
        assert session is not None
        stored = await b.store.load_session(session.token)
        assert stored is not None and stored["room"] == ""
        with pytest.raises(RoomError) as refused:
            await b.directory.route(code, ops.Back(bo))
        assert refused.value.code == ErrorCode.NO_ROOM
        b.cluster.resync()  # nor on a resync: no room is named for them
        await asyncio.sleep(0.01)
        assert not a.directory.rooms[code].room.is_member(bo)


async def test_a_closed_room_leaves_nobody_in_it_and_is_reported() -> None:
    async with nodes("a:1") as (_, _, (a,)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        assert a.room_of(ann) == code

        await a.directory.route(code, ops.Leave(ann))  # the last person: it closes

        await until(lambda: a.closed == [code])
        assert a.room_of(ann) is None
        assert code not in a.directory.rooms
        assert await a.store.active_rooms() == []


def counting_holder_reads(node_store: object) -> list[str]:
    """Wrap a node's store so that each lease read is noted (the room's code)."""
    reads: list[str] = []
    read = node_store.lease_holder  # type: ignore[attr-defined]

    async def lease_holder(code: str) -> str | None:
        reads.append(code)
        result: str | None = await read(code)
        return result

    node_store.lease_holder = lease_holder  # type: ignore[attr-defined]
    return reads


async def test_forwarded_requests_read_the_rooms_lease_once() -> None:
    async with nodes("a:1", "b:2") as (_, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        reads = counting_holder_reads(b.store)
        bo = await join_from(b, code)
        for _ in range(3):
            await b.directory.route(code, ops.Gone(bo))
            await b.directory.route(code, ops.Back(bo))
        assert reads == [code]  # once for seven forwarded changes
        assert a.directory.rooms[code].room.seats[1].connected


async def test_a_room_that_moved_is_found_again_where_it_runs_now() -> None:
    async with nodes("a:1", "b:2", "c:3") as (redis, _, (a, b, c)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(c, code)  # c now remembers a as the room's process
        redis.drop = lambda channel, data: isinstance(unpack_message(data), Adopt | Rejoin)
        await a.directory.hand_over()  # a lets the room go; c misses the news
        await b.directory.adopt(code)
        reads = counting_holder_reads(c.store)

        await c.directory.route(code, ops.Ask(bo, ReadyRequest()))

        assert reads == [code]  # a answered "moved": c asked again and reached b
        assert b.directory.rooms[code].room.seats[1].ready
        with pytest.raises(RoomError) as refused:  # b's refusal: c remembers b now
            await c.directory.route(code, ops.Ask(bo, ReadyRequest()))
        assert refused.value.code == ErrorCode.ALREADY_READY
        assert reads == [code]


async def test_what_one_change_sends_a_player_elsewhere_goes_as_one_message() -> None:
    async with nodes("a:1", "b:2") as (redis, _, (a, b)):
        bo = await b.connect("Bo")
        published: list[object] = []

        def record(channel: str, data: bytes) -> bool:
            published.append(unpack_message(data))
            return False

        redis.drop = record
        a.cluster.deliver([(bo, Left()), ("cy", Left()), (bo, Pong(request_id=7))])
        await a.cluster.relay.flush()

        assert [len(m.frames) for m in published if isinstance(m, PlayerFrames)] == [2, 1]
        await until(lambda: len(b.hub.got[bo]) == 2)
        assert b.hub.got[bo] == [Left(), Pong(request_id=7)]  # in order


async def test_a_clean_handover_saves_whole_the_rooms_saved_as_steps() -> None:
    """Steps saved since a room's last whole save would be replayed by the process that
    takes it; a clean shutdown saves such rooms whole first."""
    async with nodes("a:1", "b:2") as (redis, _, (a, _b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        await a.directory.route(code, ops.Ask(ann, ReadyRequest()))
        assert len(redis.rooms[code].tail) == 1  # the ready, a step
        live = room_to_data(a.directory.rooms[code].room)
        await a.directory.hand_over()
        assert redis.rooms[code].tail == []
        stored = await a.store.load_room(code)
        assert stored is not None and not stored.tail
        assert room_to_data(room_from_stored(stored)) == live
