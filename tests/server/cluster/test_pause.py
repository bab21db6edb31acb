"""Rooms through a storage outage, over the in-memory store: every room pauses (its people
told, its clocks and bots stopped), requests are refused and change nothing, the outage is
one log line each way, and when the store answers again every room goes on with the time
its clock had left when the outage began."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import pytest

from protocol.errors import ErrorCode
from protocol.events import BidMade, TurnStarted
from protocol.messages import BidRequest, Paused, ReadyRequest, Resumed, Snapshot
from server.cluster import ops
from server.rooms.room import Clocks, Room, RoomError
from server.rooms.stored import room_from_stored, room_to_data
from server.store.base import RoomWrite
from server.store.errors import StoreConflict, StoreUnavailable
from server.store.memory import MemoryRedis
from tests.server.cluster.harness import Node, join_from, nodes, open_room, until

#: The bid clock of the rooms here, in seconds.
BID_CLOCK = 20.0


async def timed_match(node: Node, code: str) -> tuple[list[str], str]:
    """A timed match run on ``node``: three persons connected there, bidding, and a
    watcher; (the persons' ids, the watcher's id)."""
    ann = await node.connect("Ann")
    session = node.sessions.of_player(ann)
    assert session is not None
    await node.sessions.enter(session, code)
    room = Room.create(code, "private", 1, ann, "Ann", clocks=Clocks(BID_CLOCK, 20.0, 10.0))
    runner = await node.directory.open(room)
    assert runner is not None
    players = [ann]
    for name in ("Bo", "Cy"):
        player = await node.connect(name)
        await node.directory.route(code, ops.Join(player, name))
        players.append(player)
    watcher = await node.connect("Wu")
    await node.directory.route(code, ops.Watch(watcher))
    for player in players:
        await node.directory.route(code, ops.Ask(player, ReadyRequest()))
    match = node.directory.rooms[code].room.match
    assert match is not None and match.phase == "bidding" and match.deadline is not None
    return players, watcher


def on_turn(node: Node, code: str, players: list[str]) -> str:
    match = node.directory.rooms[code].room.match
    assert match is not None and match.turn is not None
    return players[match.turn]


def bid(node: Node, code: str, player: str, value: int = 1) -> asyncio.Task[None]:
    """The player bids, in a task of its own (a bid whose save is in doubt waits for the
    storage to come back)."""
    return asyncio.ensure_future(
        node.directory.route(code, ops.Ask(player, BidRequest(value=value)))
    )


async def outage(redis: MemoryRedis, node: Node, code: str, player: str) -> asyncio.Task[None]:
    """The store goes down as the player on turn bids: the bid's save fails, the storage
    is marked down, and the bid waits to know whether it was stored."""
    redis.down = True
    in_doubt = bid(node, code, player)
    await until(lambda: node.health is not None and node.health.down)
    return in_doubt


async def refused_after_return(redis: MemoryRedis, in_doubt: asyncio.Task[None]) -> None:
    """The store comes back without the bid: it is refused, as storage_unavailable."""
    redis.down = False
    with pytest.raises(RoomError) as refused:
        await in_doubt
    assert refused.value.code == ErrorCode.STORAGE_UNAVAILABLE


def clear(node: Node) -> None:
    for got in node.hub.got.values():
        got.clear()


async def test_an_outage_pauses_every_room_and_tells_each_player_and_watcher() -> None:
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        first, watcher1 = await timed_match(a, "ROOM1")
        second, watcher2 = await timed_match(a, "ROOM2")
        clear(a)

        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", first))

        for code, people in (("ROOM1", [*first, watcher1]), ("ROOM2", [*second, watcher2])):
            for person in people:
                (notice,) = a.hub.got[person]
                assert isinstance(notice, Paused) and notice.code == code
            runner = a.directory.rooms[code]
            assert runner.paused_since is not None
            # no clock and no bot is set going while paused
            assert runner._clock is None and runner._bot is None and runner._idle is None
        await refused_after_return(redis, in_doubt)


async def test_a_request_while_paused_is_refused_at_once_and_changes_nothing() -> None:
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        players, _ = await timed_match(a, "ROOM1")
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        runner = a.directory.rooms["ROOM1"]
        clear(a)
        assert a.health is not None
        a.health.probe = _never  # (the probe does not see the store come back yet)
        redis.down = False
        before, writes = room_to_data(runner.room), list(a.store.writes)

        for player in players:
            with pytest.raises(RoomError) as refused:
                await a.directory.route("ROOM1", ops.Ask(player, BidRequest(value=2)))
            assert refused.value.code == ErrorCode.STORAGE_UNAVAILABLE

        assert room_to_data(runner.room) == before and a.store.writes == writes
        assert all(not got for got in a.hub.got.values())
        a.health.answered()
        await refused_after_return(redis, in_doubt)


async def _never() -> bool:
    return False


async def test_the_clocks_are_given_back_the_time_of_the_outage_and_the_match_goes_on() -> None:
    async with nodes("a:1", watched=True) as (redis, clock, (a,)):
        players, watcher = await timed_match(a, "ROOM1")
        runner = a.directory.rooms["ROOM1"]
        match = runner.room.match
        assert match is not None and match.deadline is not None
        clock.now += 4.0
        left = match.deadline - clock.now  # what the seat on turn has when Redis goes
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        clear(a)
        clock.now += 300.0  # a long outage: far past the deadline

        await refused_after_return(redis, in_doubt)
        await until(lambda: runner.paused_since is None and bool(a.hub.got[watcher]))

        match = runner.room.match
        assert match is not None and match.deadline is not None
        assert match.deadline - clock.now == pytest.approx(left)
        for person in [*players, watcher]:
            resumed, prompt = a.hub.got[person]
            assert isinstance(resumed, Resumed) and resumed.code == "ROOM1"
            assert isinstance(prompt, TurnStarted) and prompt.deadline == match.deadline
        stored = await a.store.load_room("ROOM1")  # saved before it was sent
        assert stored is not None
        stored_match = room_from_stored(stored).match
        assert stored_match is not None and stored_match.deadline == match.deadline
        # the match goes on: the seat on turn bids
        await a.directory.route("ROOM1", ops.Ask(on_turn(a, "ROOM1", players), BidRequest(value=1)))
        assert runner._clock is not None


async def test_a_write_stored_before_its_answer_was_lost_is_sent_once_the_storage_is_back() -> None:
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        players, watcher = await timed_match(a, "ROOM1")
        runner = a.directory.rooms["ROOM1"]
        seat = runner.room.match.turn if runner.room.match else None
        clear(a)
        redis.lose_answers = True  # the bid is stored, then Redis stops answering
        in_doubt = bid(a, "ROOM1", on_turn(a, "ROOM1", players))
        await until(lambda: a.health is not None and a.health.down)
        assert [type(m) for m in a.hub.got[watcher]] == [Paused]  # the bid not sent yet

        redis.lose_answers = redis.down = False
        await in_doubt  # found stored: the bid stands
        await until(lambda: runner.paused_since is None)

        kinds = [type(m) for m in a.hub.got[watcher]]
        assert kinds[0] is Paused and kinds[1] is BidMade
        assert kinds.index(Resumed) > 1
        log = await a.store.read_log("ROOM1")
        bids = [r for r in log if r["k"] == "cmd" and r["cmd"]["type"] == "Bid"]
        assert [(b["cmd"]["seat"], b["cmd"]["value"]) for b in bids] == [(seat, 1)]


async def test_an_outage_is_one_log_line_down_and_one_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        players, _ = await timed_match(a, "ROOM1")
        caplog.clear()
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        for player in players:  # more failed attempts: requests, the relay, the leases
            with pytest.raises(RoomError):
                await a.directory.route("ROOM1", ops.Ask(player, BidRequest(value=1)))
        a.cluster.relay.to_player("nobody", Paused(code="ROOM1", since=0.0))  # type: ignore[arg-type]
        await a.cluster.relay.flush(1.0)
        runner = a.directory.rooms["ROOM1"]
        await refused_after_return(redis, in_doubt)
        await until(lambda: runner.paused_since is None)

        warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warnings) == 2, warnings
        assert warnings[0].startswith("storage down") and warnings[1].startswith("storage back")


async def test_a_room_another_process_took_during_the_outage_is_left_to_it() -> None:
    async with nodes("a:1", "b:2", lease_ttl=5.0, watched=True) as (redis, clock, (a, b)):
        players, _ = await timed_match(a, "ROOM1")
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        assert a.health is not None
        a.health.probe = _never  # a does not see the store come back yet
        clock.now += 6.0  # a's lease runs out meanwhile
        redis.down = False
        await b.directory.adopt_orphans()  # b takes the room over
        assert "ROOM1" in b.directory.rooms

        a.health.answered()  # now a sees the store answer

        with pytest.raises(RoomError):  # a's bid was not stored; b runs the room now
            await in_doubt
        await until(lambda: "ROOM1" not in a.directory.rooms)
        assert b.directory.rooms["ROOM1"].paused_since is None


async def test_a_false_return_leaves_the_rooms_paused_and_the_pause_counts_from_its_start() -> None:
    async with nodes("a:1", watched=True) as (redis, clock, (a,)):
        players, _ = await timed_match(a, "ROOM1")
        runner = a.directory.rooms["ROOM1"]
        match = runner.room.match
        assert match is not None and match.deadline is not None and a.health is not None
        left = match.deadline - clock.now
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        since = runner.paused_since
        a.health.probe = _never
        clock.now += 30.0

        a.health.answered()  # a call was answered, but the store fails again at once
        await until(lambda: a.health is not None and a.health.down)

        assert runner.paused_since == since
        clock.now += 30.0
        a.health.probe = lambda: _answers(redis)
        await refused_after_return(redis, in_doubt)
        await until(lambda: runner.paused_since is None)
        match = runner.room.match
        assert match is not None and match.deadline == pytest.approx(clock.now + left)


async def _answers(redis: MemoryRedis) -> bool:
    return not redis.down


@dataclass(frozen=True)
class Socket:
    """A connection as the cluster part reads it: whose it is."""

    player_id: str


async def test_a_player_here_in_a_room_run_elsewhere_is_told_by_this_process() -> None:
    """The room's own notice would come through Redis, which is down: the process the
    player is connected to tells them."""
    async with nodes("a:1", "b:2", watched=True) as (redis, _, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)
        b.hub.all.add(Socket(bo))  # type: ignore[arg-type]  # (Bo's connection to b)
        b.hub.got[bo].clear()
        assert b.health is not None and a.health is not None
        redis.down = True
        b.health.failed(StoreUnavailable("gone"))

        (notice,) = b.hub.got[bo]
        assert isinstance(notice, Paused) and notice.code == code
        redis.down = False
        await until(lambda: not b.health.down and not a.health.down)  # type: ignore[union-attr]


async def test_a_room_taken_over_while_the_storage_is_down_pauses_and_goes_on_with_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """b takes over a's room while b counts the storage down (its reads answer again, its
    saves do not yet: a replica still catching up after a failover). The takeover's save
    fails, so the room is b's but unsaved: it is paused like every room here, and goes on
    (its clock set going) when the storage is back, not left without a clock."""
    async with nodes("a:1", "b:2", lease_ttl=5.0, watched=True) as (redis, clock, (a, b)):
        await timed_match(a, "ROOM1")
        a.directory.closing = True  # a is gone: it renews nothing, takes nothing
        for runner in a.directory.rooms.values():
            runner.stop()
        clock.now += 6.0  # its lease runs out
        assert b.health is not None
        b.health.probe = _never
        b.health.failed(StoreUnavailable("a save's replicas did not answer"))

        async def unsaved(writes: list[object]) -> list[object]:
            raise StoreUnavailable("0 of 1 replicas acknowledged")

        monkeypatch.setattr(b.store, "save_rooms", unsaved)
        await b.directory.adopt_orphans()
        runner = b.directory.rooms["ROOM1"]
        assert runner.paused_since is not None  # paused with the rest

        monkeypatch.undo()
        b.health.probe = lambda: _answers(redis)
        await until(lambda: runner.paused_since is None)
        assert runner._clock is not None  # the seat on turn's clock runs again


async def test_a_return_whose_save_is_refused_is_tried_again_not_left_without_a_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The storage is back, but the room's first save after it is refused (a conflict,
    which the runner settles): the room stays paused and its return is tried again, so it
    goes on with its clock; not left running with no clock and no bot."""
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        players, _ = await timed_match(a, "ROOM1")
        runner = a.directory.rooms["ROOM1"]
        in_doubt = await outage(redis, a, "ROOM1", on_turn(a, "ROOM1", players))
        save_room = a.store.save_room
        refused: list[int] = []

        async def refuse_once(write: RoomWrite) -> None:
            if not refused:
                refused.append(write.version)
                raise StoreConflict("the stored version moved on")
            await save_room(write)

        monkeypatch.setattr(a.store, "save_room", refuse_once)
        await refused_after_return(redis, in_doubt)

        await until(lambda: runner.paused_since is None)
        assert refused  # the first try was refused
        assert runner._clock is not None  # the seat on turn's clock runs


async def test_a_return_refused_while_paused_shows_the_room_as_saved_not_a_change_in_doubt() -> (
    None
):
    """Bo's join was applied but its save is in doubt (the storage went down under it).
    A return of his, refused while the room is paused, shows him no snapshot: the room as
    saved does not have him, and the join is undone when the storage answers without it.
    A snapshot of the room as it stood would have shown him a seat he then lost."""
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await a.connect("Bo")
        redis.down = True
        joining = asyncio.ensure_future(a.directory.route(code, ops.Join(bo, "Bo")))
        await until(lambda: a.health is not None and a.health.down)
        assert a.directory.rooms[code].room.is_member(bo)  # (applied, not saved)
        peeked = await a.directory.peek(code)  # (what the lobby reads of it)
        assert peeked is not None and not peeked.is_member(bo)

        with pytest.raises(RoomError) as refused:
            await a.directory.route(code, ops.Back(bo))

        assert refused.value.code == ErrorCode.STORAGE_UNAVAILABLE
        assert not [m for m in a.hub.got[bo] if isinstance(m, Snapshot)]
        redis.down = False
        with pytest.raises(RoomError):  # not stored: undone, and refused
            await joining
        assert not a.directory.rooms[code].room.is_member(bo)
        assert not [m for m in a.hub.got[bo] if isinstance(m, Snapshot)]
