"""The background miner (``server/lobby/puzzle_mining.py``) on the in-memory store: a closed
room with a person is queued and mined; its puzzle is stored once, marked as their own for
the people of the side that missed it (and them only), and their turning points counted;
rooms of no person, or a server that does not mine, are left alone."""

from __future__ import annotations

from typing import Any

from server.analysis.puzzles import puzzle_id
from server.analysis.review import played_deals
from server.lobby.puzzle_mining import Miner
from server.lobby.reviews import Reviewer
from server.rooms.room import Room, Seat
from server.store.memory import MemoryRedis, MemoryStore
from server.store.memory_puzzles import MemoryPuzzles
from tests.server.analysis.helpers import Misser, journaled_match
from tests.server.analysis.test_mining import NODES, SEED


class Log:
    """The store's journal of one room, as the miner reads it."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records = records
        self.reads = 0

    async def read_log(self, code: str) -> list[dict[str, Any]]:
        self.reads += 1
        return list(self.records)


async def inline(fn: Any, *args: Any) -> Any:
    return fn(*args)


def room_of(code: str, people: dict[int, str]) -> Room:
    room = Room.create(code, "private", 3, "x", "x")
    room.seats = [
        Seat(kind="person", player_id=people[i], name="someone")
        if i in people
        else Seat(kind="bot", name="normal bot", level="normal")
        for i in range(3)
    ]
    return room


async def test_a_closed_room_is_mined_once_its_puzzle_marked_for_who_missed_it() -> None:
    misser = Misser()
    records = journaled_match(1, SEED, misser)
    assert misser.missed is not None
    _, index, puzzle = misser.missed
    missed_by = played_deals(records)[0].steps[index].position.turn
    people = {seat: f"p-{seat}" for seat in range(3)}
    puzzles = MemoryPuzzles(MemoryStore(MemoryRedis()))
    log = Log(records)
    mined_by_the_miner: list[dict[str, Any]] = []

    async def mine(fn: Any, *args: Any) -> Any:  # (what it mined, kept for the checks)
        mined_by_the_miner.append(await inline(fn, *args))
        return mined_by_the_miner[-1]

    miner = Miner(log, puzzles, Reviewer(1.0), 600.0, lambda: 5000.0, run=mine, nodes=NODES)  # type: ignore[arg-type]

    await miner.apply(room_of("K7Q2XW", people))
    await miner.apply(room_of("K7Q2XW", people))  # settled twice: queued once
    stored_count = await miner.step()
    (mined,) = mined_by_the_miner
    assert stored_count == len(mined["puzzles"])
    (found,) = [p for p in mined["puzzles"] if p["key"] == puzzle.key]
    losers = found["seats"]
    winner = next(s for s in range(3) if s not in losers)
    assert missed_by in losers
    assert await miner.step() == 0 and log.reads == 1
    stored = await puzzles.puzzle(found["id"])
    assert stored is not None and stored.record.key == puzzle.key
    assert await puzzles.is_own(people[missed_by], found["id"])
    assert not await puzzles.is_own(people[winner], found["id"])
    lost_turns = [t for t in mined["turning"] if t["seat"] == missed_by]
    assert await puzzles.turning_since(people[missed_by], 0.0) == len(lost_turns) >= 1
    assert await puzzles.turning_since(people[missed_by], 5000.0 + 1) == 0

    # the same match mined again (another process settled it): nothing new
    miner.queue_room("K7Q2XW", people)
    assert await miner.step() == 0
    assert await puzzles.puzzle_count() == len(mined["puzzles"])


async def test_an_exported_match_is_mined_with_no_name_and_marked_for_nobody() -> None:
    misser = Misser()
    records = journaled_match(1, SEED, misser)
    assert misser.missed is not None
    puzzles = MemoryPuzzles(MemoryStore(MemoryRedis()))
    log = Log([])
    miner = Miner(log, puzzles, Reviewer(1.0), 600.0, lambda: 5000.0, run=inline, nodes=NODES)  # type: ignore[arg-type]
    miner.queue_exported(records)
    miner.queue_room("K7Q2XW", {0: "p-0"})  # a closed room comes first
    miner.queue_seed(3, 1)  # self-play comes after
    assert await miner.step() == 0 and log.reads == 1  # (the room's log is empty)
    assert await miner.step() >= 1 and log.reads == 1  # the export, from its own records
    puzzle = misser.missed[2]
    stored = await puzzles.puzzle(puzzle_id(puzzle.key))
    assert stored is not None and stored.record.key == puzzle.key
    for seat in range(3):
        assert await puzzles.turning_since(f"p-{seat}", 0.0) == 0
    assert miner._seeds and not miner._exported


async def test_rooms_of_no_person_or_a_server_that_does_not_mine_are_left_alone() -> None:
    puzzles = MemoryPuzzles(MemoryStore(MemoryRedis()))
    log = Log([])
    miner = Miner(log, puzzles, Reviewer(1.0), 30.0, lambda: 0.0, run=inline)  # type: ignore[arg-type]
    await miner.apply(room_of("BOTS", {}))
    off = Miner(log, puzzles, Reviewer(1.0), 0.0, lambda: 0.0, run=inline)  # type: ignore[arg-type]
    await off.apply(room_of("ANN", {0: "p-ann"}))
    assert await miner.step() == 0 and await off.step() == 0 and log.reads == 0
