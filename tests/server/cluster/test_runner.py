"""The runner over the in-memory store: write before send, a failed write sends nothing and
changes nothing, one save path for a new room and a running one."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterable

import pytest
from pydantic import BaseModel

from protocol.errors import ErrorCode
from protocol.messages import ReadyRequest, Request
from server.bots import decide
from server.bots.base import policy_for
from server.rooms.room import Clocks, Room, RoomError
from server.rooms.stored import room_from_stored, room_to_data
from server.runner import TAIL_MAX, RoomRunner, RunnerDeps
from server.store.errors import StoreConflict
from server.store.memory import MemoryRedis, MemoryStore
from tests.virtual_time import run_in_virtual_time


class Outlet:
    """Records what the runner sends, with the store's writes at that moment."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.sent: list[tuple[str, BaseModel, int]] = []
        self.moves: list[tuple[str, list[str], list[str]]] = []

    def deliver(self, deliveries: Iterable[tuple[str, BaseModel]]) -> None:
        self.sent += [(p, m, len(self.store.writes)) for p, m in deliveries]

    def moved(self, code: str, entered: list[str], left: list[str]) -> None:
        self.moves.append((code, entered, left))


async def nothing(room: Room) -> None:
    return None


async def new_runner(store: MemoryStore, outlet: Outlet, code: str = "ROOM1") -> RoomRunner:
    room = Room.create(code, "private", 1, "ann", "Ann")
    deps = RunnerDeps(outlet, store, random.Random(1), nothing, lambda: 0.0, presence=outlet)
    runner = RoomRunner(room, deps)
    await runner.save_new()
    return runner


async def test_a_new_room_is_saved_as_every_change_is_built_on_no_version() -> None:
    store = MemoryStore()
    runner = await new_runner(store, Outlet(store))
    assert store.writes == [("ROOM1", -1, runner.room.version, 0)]
    assert await store.active_rooms() == ["ROOM1"]
    with pytest.raises(StoreConflict):  # the code is another room's
        await new_runner(store, Outlet(store))


async def test_a_change_is_written_before_it_is_sent_and_says_who_came_in() -> None:
    store = MemoryStore()
    outlet = Outlet(store)
    runner = await new_runner(store, outlet)

    await runner.change(lambda room: room.join("bo", "Bo", 0.0))

    assert outlet.sent and all(writes == 2 for _, _, writes in outlet.sent)
    assert outlet.moves == [("ROOM1", ["bo"], [])]
    stored = await store.load_room("ROOM1")
    assert stored is not None and room_from_stored(stored).seats[1].player_id == "bo"


async def test_a_change_that_cannot_be_written_sends_nothing_and_is_undone() -> None:
    redis = MemoryRedis()
    store = MemoryStore(redis)
    outlet = Outlet(store)
    runner = await new_runner(store, outlet)
    redis.down = True

    with pytest.raises(RoomError) as refused:
        await runner.change(lambda room: room.join("bo", "Bo", 0.0))

    assert refused.value.code == ErrorCode.UNAVAILABLE
    assert outlet.sent == [] and outlet.moves == []
    assert not runner.room.is_member("bo")  # back to the last saved state
    redis.down = False
    await runner.change(lambda room: room.join("bo", "Bo", 0.0))  # the retry goes through
    assert runner.room.is_member("bo")


async def test_a_refused_change_writes_nothing() -> None:
    store = MemoryStore()
    outlet = Outlet(store)
    runner = await new_runner(store, outlet)
    with pytest.raises(RoomError):
        await runner.change(lambda room: room.join("ann", "Ann", 0.0))  # seated already
    assert len(store.writes) == 1 and outlet.sent == []


async def test_steps_are_saved_as_steps_and_a_failed_one_goes_back_to_the_last_saved() -> None:
    """Requests are saved as step records after the room was saved whole, at most
    ``TAIL_MAX`` in a row; a step that cannot be written leaves the room as the whole save
    and the steps saved since make it, and the store rebuilds the same room."""
    redis = MemoryRedis()
    store = MemoryStore(redis)
    runner = await new_runner(store, Outlet(store))
    await runner.change(lambda room: room.join("bo", "Bo", 0.0))
    await runner.change(lambda room: room.join("cy", "Cy", 0.0))
    for person in ("ann", "bo", "cy"):
        await runner.request(person, ReadyRequest())  # the match starts
    tail = store.data.rooms["ROOM1"].tail
    assert len(tail) == 3

    def next_move() -> tuple[str, Request]:
        match = runner.room.match
        assert match is not None and match.turn is not None
        request = decide(policy_for("easy"), match.view_for(match.turn, 0.0))
        assert request is not None
        return runner.room.seats[match.turn].player_id or "", request

    await runner.request(*next_move())
    saved = room_to_data(runner.room)
    redis.down = True
    with pytest.raises(RoomError):
        await runner.request(*next_move())
    assert room_to_data(runner.room) == saved
    redis.down = False
    stored = await store.load_room("ROOM1")
    assert stored is not None and room_to_data(room_from_stored(stored)) == saved

    lengths = []
    for _ in range(TAIL_MAX + 1):
        await runner.request(*next_move())
        lengths.append(len(store.data.rooms["ROOM1"].tail))
    assert max(lengths) == TAIL_MAX and lengths[-1] < TAIL_MAX  # then saved whole
    stored = await store.load_room("ROOM1")
    assert stored is not None and room_to_data(room_from_stored(stored)) == room_to_data(
        runner.room
    )


def test_the_clock_keeps_one_timer_while_its_deadline_moves_on_and_runs_out_at_the_last() -> None:
    """Each action moves the deadline on: the clock's timer is not made again each time
    (it would ring early and set itself for the rest), and the clock runs out at the last
    deadline, not at an earlier one. (On a clock the test controls: no real second waited.)"""
    run_in_virtual_time(clock_keeps_one_timer())


async def clock_keeps_one_timer() -> None:
    store = MemoryStore()
    outlet = Outlet(store)
    room = Room.create("CLOCK", "private", 1, "ann", "Ann", clocks=Clocks(2.0, 2.0, 5.0))
    loop = asyncio.get_running_loop()
    runner = RoomRunner(room, RunnerDeps(outlet, store, random.Random(2), nothing, loop.time))
    await runner.save_new()
    await runner.change(lambda r: r.join("bo", "Bo", loop.time()))
    await runner.change(lambda r: r.join("cy", "Cy", loop.time()))
    for person in ("ann", "bo", "cy"):
        await runner.request(person, ReadyRequest())  # the match starts: the bid clock
    first = runner._clock
    assert first is not None
    for _ in range(6):  # each moving the deadline on
        match = runner.room.match
        assert match is not None and match.turn is not None
        request = decide(policy_for("easy"), match.view_for(match.turn, loop.time()))
        assert request is not None
        await runner.request(runner.room.seats[match.turn].player_id or "", request)
        assert runner._clock is first  # the same timer, still set
        await asyncio.sleep(0.25)  # (6 x 0.25 s: the first deadline, 2 s on, is passed)

    def timed_out() -> bool:
        return any(getattr(m, "timeout", False) for _, m, _ in outlet.sent)

    match = runner.room.match
    assert match is not None and match.deadline is not None
    deadline = match.deadline
    await asyncio.sleep(deadline - 0.5 - loop.time())
    assert not timed_out()  # the first timer rang at the first deadline, and waited on
    await asyncio.sleep(0.49)
    assert not timed_out()
    await asyncio.sleep(0.02)
    assert timed_out() and loop.time() >= deadline
    runner.stop()
