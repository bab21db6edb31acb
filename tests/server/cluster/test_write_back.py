"""Nothing anyone saw is lost: when the store comes back with less than it acknowledged (a
Redis started again from an older file, a replica promoted that had missed writes), the
process running the room writes back what it has, fenced, and the stored journal again
holds every event each client received."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.events import BidMade
from protocol.messages import BidRequest
from server.cluster import ops
from server.game.journal import replay
from server.rooms.room import Room, RoomError
from server.rooms.stored import room_from_stored, room_to_data
from server.store.base import Lease, RoomWrite, StoredRoom
from server.store.codec import pack, unpack
from server.store.errors import StoreUnavailable
from server.store.recent import RecentWrites
from tests.server.cluster.harness import Node, nodes, until
from tests.server.cluster.test_pause import BID_CLOCK, on_turn, timed_match


async def bid(node: Node, code: str, players: list[str], value: int) -> None:
    """The player on turn bids ``value``."""
    await node.directory.route(code, ops.Ask(on_turn(node, code, players), BidRequest(value=value)))


def bids_seen(node: Node, person: str) -> list[tuple[int, int]]:
    return [(m.seat, m.bid) for m in node.hub.got[person] if isinstance(m, BidMade)]


def bids_stored(records: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [
        (r["cmd"]["seat"], r["cmd"]["value"])
        for r in records
        if r["k"] == "cmd" and r["cmd"]["type"] == "Bid"
    ]


async def test_writes_the_store_lost_in_an_outage_are_written_back_when_it_returns() -> None:
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        players, watcher = await timed_match(a, "ROOM1")
        lose = redis.keep()
        await bid(a, "ROOM1", players, 1)  # a burst the store will lose
        await bid(a, "ROOM1", players, 2)
        assert bids_seen(a, watcher) == bids_stored(await a.store.read_log("ROOM1"))
        runner = a.directory.rooms["ROOM1"]
        version = runner.room.version

        redis.down = True  # Redis dies, and comes back from an older file
        assert a.health is not None
        a.health.failed(StoreUnavailable("gone"))
        lose()
        assert len(bids_stored(await a.store.read_log("ROOM1"))) == 0
        redis.down = False
        await until(lambda: runner.paused_since is None)

        records = await a.store.read_log("ROOM1")
        for person in [*players, watcher]:
            assert bids_seen(a, person) == bids_stored(records)  # nothing anyone saw is lost
        *_, (_, match, _) = replay(records)
        assert match.deal.bids == runner.room.match.deal.bids  # type: ignore[union-attr]
        assert runner.room.version >= version
        stored = redis.rooms["ROOM1"]
        assert stored.version == runner.room.version and stored.fence == runner.fence
        await bid(a, "ROOM1", players, 3)  # and the match goes on
        assert bids_seen(a, watcher) == bids_stored(await a.store.read_log("ROOM1"))


async def test_a_write_that_finds_the_store_behind_writes_back_then_is_retried() -> None:
    """Lost writes noticed by the next write (a conflict on the version) without an
    outage: the room is written back, the write refused as retryable, the retry stands."""
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        players, watcher = await timed_match(a, "ROOM1")
        lose = redis.keep()
        await bid(a, "ROOM1", players, 1)
        lose()

        with pytest.raises(RoomError) as refused:
            await bid(a, "ROOM1", players, 2)
        assert refused.value.code == ErrorCode.UNAVAILABLE
        assert bids_seen(a, watcher) == bids_stored(await a.store.read_log("ROOM1"))
        await bid(a, "ROOM1", players, 2)
        assert len(bids_seen(a, watcher)) == 2
        assert bids_seen(a, watcher) == bids_stored(await a.store.read_log("ROOM1"))


async def test_a_room_written_by_another_process_meanwhile_is_left_to_it() -> None:
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        players, _ = await timed_match(a, "ROOM1")
        assert a.health is not None
        redis.down = True
        a.health.failed(StoreUnavailable("gone"))
        stored = redis.rooms["ROOM1"]  # another process wrote the room meanwhile
        later = room_from_stored(StoredRoom(unpack(stored.state), [unpack(t) for t in stored.tail]))
        later.version += 5
        state = pack(room_to_data(later))
        write = RoomWrite("ROOM1", stored.version, later.version, state, fence=99)
        redis.down = False
        a.health.probe = _never
        await a.store.save_room(write)

        a.health.answered()

        await until(lambda: "ROOM1" not in a.directory.rooms)
        assert redis.rooms["ROOM1"].state == state  # not written over
        assert players


async def _never() -> bool:
    return False


def test_recent_writes_give_the_records_above_a_version_and_say_when_some_are_gone() -> None:
    recent = RecentWrites(keep=10.0)
    recent.add(-1, 0, 0.0, [{"k": "start"}])
    recent.add(0, 1, 5.0, [{"k": "cmd", "n": 1}])
    recent.add(1, 2, 12.0, [{"k": "cmd", "n": 2}])  # the first write is past the window
    assert recent.since(0, 2) == ([{"k": "cmd", "n": 1}, {"k": "cmd", "n": 2}], True)
    assert recent.since(2, 2) == ([], True)
    assert recent.since(-1, 2) == ([{"k": "cmd", "n": 1}, {"k": "cmd", "n": 2}], False)
    # versions above the last kept write that this process did not write (taken over)
    assert RecentWrites().since(3, 5) == ([], False)


async def test_a_public_room_the_store_lost_whole_is_listed_again() -> None:
    """Redis lost the room's first save and its place in the list of rooms to watch: the
    write-back puts both back, so the room does not vanish from the list for good."""
    async with nodes("a:1", watched=True) as (redis, _, (a,)):
        lose = redis.keep()
        ann = await a.connect("Ann")
        room = Room.create("ROOM1", "private", 3, ann, "Ann", public=True)
        runner = await a.directory.open(room)
        assert runner is not None
        await a.store.add_watchable("ROOM1", 1.0)
        redis.down = True
        assert a.health is not None
        a.health.failed(StoreUnavailable("gone"))
        lose()
        assert "ROOM1" not in redis.watchable and "ROOM1" not in redis.rooms
        redis.down = False
        await until(lambda: runner.paused_since is None)
        assert "ROOM1" in redis.watchable
        assert redis.rooms["ROOM1"].version == runner.room.version


async def test_a_lease_lost_with_the_writes_unnoticed_is_taken_again_and_written_back() -> None:
    """The store comes back with less without a call of this process failing meanwhile (a
    replica promoted while the room had nothing to save), and the lease it kept has run
    out: the renewal finds it gone. Nobody else holds it, so the process takes it again and
    writes the room back, rather than letting the room go and taking it over again from what
    the store kept (its players would see it go back)."""
    ttl = 0.3  # (the lease keeper renews every tenth of a second)
    async with nodes("a:1", lease_ttl=ttl, watched=True) as (redis, clock, (a,)):
        players, watcher = await timed_match(a, "ROOM1")
        runner = a.directory.rooms["ROOM1"]
        lose = redis.keep()
        await bid(a, "ROOM1", players, 1)
        await bid(a, "ROOM1", players, 2)
        lose()
        clock.now += 2 * ttl  # the lease the store kept has run out
        keeper = asyncio.ensure_future(a.directory.keep_leases())
        try:
            await until(lambda: redis.rooms["ROOM1"].version == runner.room.version)
        finally:
            keeper.cancel()
        assert a.directory.rooms["ROOM1"] is runner  # not let go
        assert redis.lease("ROOM1") == Lease("a:1", runner.fence).text
        records = await a.store.read_log("ROOM1")
        for person in [*players, watcher]:
            assert bids_seen(a, person) == bids_stored(records)
        await bid(a, "ROOM1", players, 3)  # and the match goes on
        assert bids_seen(a, watcher) == bids_stored(await a.store.read_log("ROOM1"))


async def test_a_takeover_whose_save_finds_the_store_behind_writes_back_and_runs_the_clock(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """a is gone; b takes its room over, and between b's read and b's save the store loses
    a's last writes (a replica that had missed them promoted): the takeover's save is
    refused, though the store answers. b writes back the room it read, and the room runs
    with the takeover's clock, the seat's time given back: not left with no clock and no
    bot until someone acts, nor charged for the time a was gone.

    The journal records of a's lost writes were a's alone (b read the room, not a's
    writes): b cannot give them back, and says so. Waiting for a replica (the durability
    level ``--redis-wait-replicas``) is what keeps them through a failover."""
    async with nodes("a:1", "b:2", lease_ttl=5.0, watched=True) as (redis, clock, (a, b)):
        players, watcher = await timed_match(a, "ROOM1")
        lose = redis.keep()
        await bid(a, "ROOM1", players, 1)  # a burst the promoted replica will not have
        await bid(a, "ROOM1", players, 2)
        seen = bids_seen(a, watcher)
        a.directory.closing = True  # a is gone: it renews nothing, takes nothing
        for runner in a.directory.rooms.values():
            runner.stop()
        clock.now += 6.0  # its lease runs out
        load_rooms = b.store.load_rooms

        async def then_failover(codes: list[str]) -> list[StoredRoom | None]:
            rooms = await load_rooms(codes)
            lose()  # (its lease and fence with them: b's write still fences a's out)
            return rooms

        monkeypatch.setattr(b.store, "load_rooms", then_failover)
        await b.directory.adopt_orphans()
        monkeypatch.undo()
        runner = b.directory.rooms["ROOM1"]

        await until(lambda: redis.rooms["ROOM1"].version >= runner.room.version)
        stored = await b.store.load_room("ROOM1")
        assert stored is not None
        kept = room_from_stored(stored).match
        assert kept is not None and [tuple(x) for x in kept.deal.bids] == seen  # the room: kept
        assert bids_stored(await b.store.read_log("ROOM1")) != seen  # a's records: lost
        assert any("its journal misses them" in r.getMessage() for r in caplog.records)
        match = runner.room.match
        assert match is not None and match.deadline is not None
        assert runner._clock is not None  # the seat on turn's clock runs
        assert match.deadline - clock.now > BID_CLOCK - 1.0  # its time given back
