"""Players brought back into their room when it moves, or when their return could not
reach it: nobody is left connected to a process that no longer runs their room, or seen
as away by the process that does, with nothing more coming. Over the in-memory store."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from protocol.messages import Chat, Resumed, RoomClosed, Snapshot
from server.cluster import ops
from server.cluster.messages import Forward, Rejoin, unpack_message
from server.rooms.room import RoomError
from server.store.errors import StoreUnavailable
from tests.server.cluster.harness import Node, join_from, nodes, open_room, overhear, until
from tests.server.cluster.test_pause import on_turn, outage, timed_match


def connected_in(node: Node, code: str, player: str) -> bool:
    """Whether the room, run on ``node``, sees the player connected (a watcher: in it)."""
    runner = node.directory.rooms.get(code)
    if runner is None:
        return False
    room = runner.room
    seat = room.seat_of(player)
    return room.is_member(player) if seat is None else room.seats[seat].connected


def snapshot_for(node: Node, player: str) -> bool:
    return any(isinstance(m, Snapshot) for m in node.hub.got[player])


def no_rejoin(channel: str, data: bytes) -> bool:
    """Lose every ``Rejoin`` (pub/sub is at most once)."""
    return isinstance(unpack_message(data), Rejoin)


async def never() -> bool:
    return False


async def test_a_room_taken_during_an_outage_brings_its_people_here_to_its_new_process() -> None:
    async with nodes("a:1", "b:2", lease_ttl=5.0, watched=True) as (redis, clock, (a, b)):
        players, watcher = await timed_match(a, "ROOM1")
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        assert a.health is not None
        a.health.probe = never  # a does not see the store come back yet
        clock.now += 6.0  # a's lease runs out meanwhile
        redis.down = False
        redis.drop = no_rejoin  # b's calls to come back are lost: a must act on its own
        await b.directory.adopt_orphans()
        for got in a.hub.got.values():
            got.clear()

        a.health.answered()  # a sees the store again, and that the room is b's now

        await asyncio.gather(in_doubt, return_exceptions=True)
        for person in [*players, watcher]:
            await until(lambda p=person: snapshot_for(a, p) and connected_in(b, "ROOM1", p))
        assert a.room_of(players[0]) == "ROOM1"


async def test_a_process_that_lost_a_rooms_lease_brings_its_people_to_the_new_process() -> None:
    async with nodes("a:1", "b:2", lease_ttl=5.0) as (redis, clock, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        old = a.directory.rooms[code]
        clock.now += 6.0  # a stalled past its lease
        redis.drop = no_rejoin
        await b.directory.adopt_orphans()
        assert not connected_in(b, code, ann)  # taken over: nobody is connected yet
        a.hub.got[ann].clear()

        with pytest.raises(RoomError):  # a's next write is fenced: it lets the room go
            await old.change(lambda room: room.set_connected(ann, True))

        await until(lambda: snapshot_for(a, ann) and connected_in(b, code, ann))


async def test_a_return_that_could_not_reach_the_room_is_tried_until_it_does() -> None:
    async with nodes("a:1", "b:2", forward_timeout=0.1) as (redis, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)
        await b.directory.route(code, ops.Gone(bo))  # Bo's connection dropped...
        assert not connected_in(a, code, bo)
        redis.drop = lambda channel, data: isinstance(unpack_message(data), Forward)
        b.hub.got[bo].clear()

        b.cluster.recall(bo, code)  # ...and he is back on b, while a cannot be reached
        await asyncio.sleep(0.3)  # (tries lost on the way)
        assert not connected_in(a, code, bo)
        redis.drop = lambda channel, data: False

        await until(lambda: snapshot_for(b, bo) and connected_in(a, code, bo))


async def test_after_an_outage_a_room_whose_lease_ran_out_is_left_to_its_own_process() -> None:
    ttl = 0.3  # (the lease keeper looks every tenth of a second)
    async with nodes("a:1", "b:2", lease_ttl=ttl, watched=True) as (redis, clock, (a, b)):
        players, _ = await timed_match(a, "ROOM1")
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        assert a.health is not None and b.health is not None
        b.health.failed(StoreUnavailable("gone"))  # b saw the outage too
        a.health.probe = never  # a is slower to see the store back
        clock.now += 1.0  # every lease of a's ran out
        redis.down = False
        await until(lambda: b.health is not None and not b.health.down)
        keeper = asyncio.ensure_future(b.directory.keep_leases())
        try:
            await asyncio.sleep(3 * ttl)  # b's keeper looked for orphans a few times
            assert "ROOM1" not in b.directory.rooms

            a.health.answered()
            await asyncio.gather(in_doubt, return_exceptions=True)
            await until(lambda: a.directory.rooms["ROOM1"].paused_since is None)

            # a lease later, a room whose process is gone is taken over again
            for runner in a.directory.rooms.values():
                runner.stop()
            a.directory.rooms.clear()
            clock.now += 2 * ttl
            await until(lambda: "ROOM1" in b.directory.rooms)
        finally:
            keeper.cancel()


@dataclass(frozen=True)
class Socket:
    """A connection as the cluster part reads it: whose it is."""

    player_id: str


async def test_a_player_told_here_that_the_match_paused_is_told_here_that_it_goes_on() -> None:
    """Only the player's process saw the outage (the room's made no call meanwhile): the
    room's process never pauses, so it would never say the match goes on."""
    async with nodes("a:1", "b:2", watched=True) as (redis, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)
        b.hub.all.add(Socket(bo))  # type: ignore[arg-type]  # (Bo's connection to b)
        assert b.health is not None and a.health is not None
        redis.down = True
        b.health.failed(StoreUnavailable("gone"))
        b.hub.got[bo].clear()
        assert a.directory.rooms[code].paused_since is None

        redis.down = False

        await until(lambda: any(isinstance(m, Resumed) for m in b.hub.got[bo]))
        kinds = [type(m) for m in b.hub.got[bo]]
        assert kinds.index(Snapshot) < kinds.index(Resumed)  # the room's picture, then
        assert not a.health.down


async def test_a_player_whose_room_closed_while_its_word_was_lost_gets_it_as_it_closed() -> None:
    """Their process's link to the others was down as their room closed: what the room
    sent them (its end) and that they left it were lost. Brought back, they find it over."""
    async with nodes("a:1", "b:2") as (redis, clock, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)
        await a.directory.route(code, ops.Gone(ann))  # nobody connected: idle
        await b.directory.route(code, ops.Gone(bo))
        redis.drop = lambda channel, data: channel.endswith(bo)  # b hears nothing of Bo's
        b.hub.got[bo].clear()
        clock.now += 1000.0
        runner = a.directory.rooms[code]
        await runner.change(lambda room: room.end_idle(clock.now, 60.0))
        await until(lambda: code not in a.directory.rooms)
        assert b.room_of(bo) == code
        redis.drop = lambda channel, data: False

        b.cluster.recall(bo, code)  # (as after the link came back: b.cluster.resync())

        await until(lambda: any(isinstance(m, RoomClosed) for m in b.hub.got[bo]))
        snapshot, closed = b.hub.got[bo]
        assert isinstance(snapshot, Snapshot) and snapshot.room.your_seat == 1
        assert isinstance(closed, RoomClosed) and closed.reason == "abandoned"
        await until(lambda: b.room_of(bo) is None)  # (freed once the end is delivered)


async def test_after_its_link_came_back_a_player_gets_their_snapshot_before_the_rooms_next_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bo's process lost its link to the others for a moment: what his room sent him then
    was lost (Ann's first chat). Listening again, it brings him back into his room; what
    the room sends him before it takes that return (Ann's second chat) follows the gap, so
    it is not passed on before his snapshot, which shows it all."""
    async with nodes("a:1", "b:2") as (redis, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)
        b.hub.all.add(Socket(bo))  # type: ignore[arg-type]  # (Bo's connection to b)
        await until(lambda: len(b.hub.got[bo]) > 0)
        redis.drop = lambda channel, data: channel.endswith(bo)  # the link is down
        await a.directory.route(code, ops.Ask(ann, Chat(phrase="hello")))
        await a.cluster.relay.flush()
        redis.drop = lambda channel, data: False
        b.hub.got[bo].clear()
        heard = overhear(monkeypatch, b.cluster)
        route = b.directory.route

        async def chat_first(room: str, op: ops.RoomOp) -> None:
            if isinstance(op, ops.Back) and not heard:  # Ann chats before Bo's return is in
                await a.directory.route(code, ops.Ask(ann, Chat(phrase="thanks")))
                await until(lambda: bool(heard))
            await route(room, op)

        monkeypatch.setattr(b.directory, "route", chat_first)

        b.cluster.resync()

        await until(lambda: len(b.hub.got[bo]) > 0)
        assert isinstance(b.hub.got[bo][0], Snapshot), b.hub.got[bo]


async def test_a_room_closing_while_a_returning_watcher_awaits_his_snapshot_shows_its_end() -> None:
    """Bo watches Ann's room from another process, whose link to the others came back: what
    the room sends him is held until his snapshot comes. His return does not reach the
    room (its forward lost), and the room closes meanwhile: its end, held back with the
    rest, is not lost to him: he gets the room as it closed, and that it closed."""
    async with nodes("a:1", "b:2", forward_timeout=0.2) as (redis, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await b.connect("Bo")
        session = b.sessions.of_player(bo)
        assert session is not None
        await b.sessions.enter(session, code)
        await b.directory.route(code, ops.Watch(bo))
        b.hub.all.add(Socket(bo))  # type: ignore[arg-type]  # (Bo's connection to b)
        await until(lambda: snapshot_for(b, bo))
        b.hub.got[bo].clear()
        redis.drop = lambda channel, data: isinstance(unpack_message(data), Forward)

        b.cluster.resync()  # (as after b's link came back)
        await a.directory.route(code, ops.Leave(ann))  # the room closes: nobody is seated

        await until(lambda: any(isinstance(m, RoomClosed) for m in b.hub.got[bo]))
        snapshot, closed = b.hub.got[bo]
        assert isinstance(snapshot, Snapshot) and snapshot.room.code == code
        assert snapshot.room.your_seat is None
        assert isinstance(closed, RoomClosed) and closed.reason == "everyone_left"
        assert b.room_of(bo) is None
