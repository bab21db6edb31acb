"""The lobby's puzzles (server/lobby/puzzles.py) over either puzzle store, the in-memory twin
and a real Redis, driven by its handlers with a fake clock: what a ``GetPuzzle`` costs the
store (its round trips, counted so that an extra one cannot come back), and a first try
left to run out (``ATTEMPT_TTL`` without a move) failed as one left for another puzzle is,
by whatever the player asks next, after a restart too."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from pydantic import BaseModel
from redis.asyncio.connection import AbstractConnection

from protocol.errors import ErrorCode
from protocol.messages import (
    Error,
    GetPuzzle,
    PuzzleData,
    PuzzleMove,
    PuzzleRecord,
    PuzzleReply,
)
from server.analysis.puzzle_play import PuzzleError
from server.analysis.puzzles import puzzle_id
from server.lobby.puzzles import Puzzles
from server.lobby.sessions import Session
from server.lobby.stores import PuzzleStore
from server.players.puzzle_rating import seed, shown
from server.store.memory import MemoryRedis, MemoryStore
from server.store.memory_puzzles import MemoryPuzzles
from server.store.puzzles import ATTEMPT_TTL, PuzzleEntry, RedisPuzzles
from server.store.redis_store import RedisStore
from tests.server.lobby.harness import Clock, FakeConn

#: The landlord to lead 5 9 10 Q against 33 6 7 10 K and 5 6: only the 9 wins, in 4 plays.
KEY = "5 9 10 Q|33 6 7 10 K|5 6|0|lead"
PID = puzzle_id(KEY)


class StubLobby:
    """What ``Puzzles`` uses of the lobby: its clock and its random source."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.rng = random.Random(3)


class Counting:
    """A puzzle store whose calls are written down, by name, in order (each one round trip
    on Redis: ``test_each_store_call_is_one_round_trip_on_redis``)."""

    def __init__(self, store: PuzzleStore) -> None:
        self.store = store
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return await method(*args, **kwargs)

        return counted


def puzzles_on(store: PuzzleStore, clock: Clock) -> Puzzles:
    return Puzzles(StubLobby(clock), store)  # type: ignore[arg-type]


def session(player: str) -> Session:
    return Session(token=f"t-{player}", player_id=player, name=player)


async def add(store: PuzzleStore) -> None:
    rating = seed(4)
    await store.add_puzzle(PID, PuzzleEntry(KEY, "landlord", "9", 4, 0.0), rating, shown(rating))


async def ask(puzzles: Puzzles, player: str, request: GetPuzzle) -> PuzzleData:
    conn = FakeConn()
    await puzzles.get_puzzle(conn, session(player), request)  # type: ignore[arg-type]
    (data,) = conn.sent
    assert isinstance(data, PuzzleData), data
    return data


@pytest.fixture
async def redis_puzzles(redis_url: str, key_prefix: str) -> AsyncIterator[RedisPuzzles]:
    store = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield RedisPuzzles(store)
    await store.close()


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Every write of a command (or of a pipeline's commands) to Redis: one round trip."""
    sent: list[bytes] = []
    send = AbstractConnection.send_packed_command

    async def counted(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        sent.append(b"".join(command) if isinstance(command, list) else bytes(command))
        await send(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    yield sent


async def warmed(store: PuzzleStore) -> None:
    """The puzzle stored, and asked for by another player once (Redis has the scripts)."""
    await add(store)
    await ask(puzzles_on(store, Clock()), "warm", GetPuzzle(puzzle_id=PID))


async def store_calls_of_a_get_puzzle(store: PuzzleStore) -> list[str]:
    """The store's calls to answer a ``GetPuzzle`` by id, from a player with no attempt in
    progress."""
    counting = Counting(store)
    data = await ask(puzzles_on(counting, Clock()), "ann", GetPuzzle(puzzle_id=PID))
    assert (data.tried, data.own) == (False, False)
    return counting.calls


#: A ``GetPuzzle`` by id: the player's rating, the puzzle, the attempt they leave (if any),
#: and the attempt started (whether the puzzle is their own is read in the same script).
GET_PUZZLE_CALLS = ["puzzle_player", "puzzle", "attempt", "start_attempt"]


async def test_a_get_puzzle_costs_four_store_calls_on_the_twin() -> None:
    store = MemoryPuzzles(MemoryStore(MemoryRedis()))
    await warmed(store)
    assert await store_calls_of_a_get_puzzle(store) == GET_PUZZLE_CALLS


async def test_a_get_puzzle_costs_four_round_trips_on_redis(
    redis_puzzles: RedisPuzzles, round_trips: list[bytes]
) -> None:
    # (regression: whether the puzzle was the player's own was read in a fifth, after the
    # start)
    await warmed(redis_puzzles)
    round_trips.clear()
    assert await store_calls_of_a_get_puzzle(redis_puzzles) == GET_PUZZLE_CALLS
    assert len(round_trips) == len(GET_PUZZLE_CALLS), round_trips


async def test_the_start_says_whether_the_puzzle_is_the_players_own(
    redis_puzzles: RedisPuzzles,
) -> None:
    for store in (redis_puzzles, MemoryPuzzles(MemoryStore(MemoryRedis()))):
        await add(store)
        await store.note_own("ann", [PID])
        mine = await ask(puzzles_on(store, Clock()), "ann", GetPuzzle(puzzle_id=PID))
        theirs = await ask(puzzles_on(store, Clock()), "bo", GetPuzzle(puzzle_id=PID))
        assert (mine.own, theirs.own) == (True, False)


# --- an attempt left to run out ----------------------------------------------------------


async def reply_to(puzzles: Puzzles, player: str, request: PuzzleMove) -> BaseModel:
    """The handler's answer to a move: its reply, or its refusal as an ``Error``."""
    conn = FakeConn()
    try:
        await puzzles.move(conn, session(player), request)  # type: ignore[arg-type]
    except PuzzleError as exc:
        return Error(code=exc.code, message=exc.message)
    (reply,) = conn.sent
    return reply


async def run_out(open_store: Callable[[], PuzzleStore]) -> list[Any]:
    """Attempts left without a move for ``ATTEMPT_TTL``, on a store opened afresh for each
    step (a server restarted: what counts is in the store); what the players were told."""
    clock = Clock()

    def puzzles() -> Puzzles:
        return puzzles_on(open_store(), clock)

    nine = PuzzleMove(puzzle_id=PID, seat=0, ranks=[9], step=0)
    out: list[Any] = []
    await add(open_store())
    await ask(puzzles(), "ann", GetPuzzle(puzzle_id=PID))  # a first try: rated
    clock.now += ATTEMPT_TTL - 1  # a second before it runs out: nothing counted yet
    out.append(await puzzles().record("ann"))
    reply = await reply_to(puzzles(), "ann", nine)  # a move: a day more
    assert isinstance(reply, PuzzleReply) and reply.result == "going", reply
    clock.now += ATTEMPT_TTL - 1
    out.append(await puzzles().record("ann"))
    clock.now += 1  # the day without a move is over: failed, seen by the record
    out.append(await puzzles().record("ann"))
    out.append(await puzzles().record("ann"))  # (counted once)
    stored = await open_store().puzzle(PID)
    assert stored is not None
    out.append((shown(stored.rating), stored.attempts))

    # bo waits his out and then moves: refused, and failed
    await ask(puzzles(), "bo", GetPuzzle(puzzle_id=PID))
    clock.now += ATTEMPT_TTL
    out.append(await reply_to(puzzles(), "bo", nine))
    out.append(await reply_to(puzzles(), "bo", nine))
    out.append(await puzzles().record("bo"))

    # cy waits hers out and asks for the puzzle again: failed, and a retry now
    await ask(puzzles(), "cy", GetPuzzle(puzzle_id=PID))
    clock.now += ATTEMPT_TTL
    again = await ask(puzzles(), "cy", GetPuzzle(puzzle_id=PID))
    out.append((again.tried, again.your_rating))
    # a retry run out counts nothing
    clock.now += ATTEMPT_TTL
    out.append(await reply_to(puzzles(), "cy", nine))
    out.append(await puzzles().record("cy"))
    return out


def check_run_out(told: list[Any]) -> None:
    before, moved, failed, once, puzzle, bo_move, bo_again, bo, cy_again, cy_move, cy = told
    assert before == moved == PuzzleRecord(tried=0, solved=0, rating=1500)
    assert (failed.tried, failed.solved) == (1, 0) and failed.rating < 1500
    assert once == failed
    assert puzzle[0] > shown(seed(4)) and puzzle[1] == 1  # the puzzle won once
    assert bo_move.code == ErrorCode.NO_PUZZLE
    assert bo_move.message == (
        f"your attempt at puzzle {PID} ran out (no move for 24 h) and counts as failed:"
        " ask for a puzzle"
    )
    assert bo_again.code == ErrorCode.NO_PUZZLE and "not playing" in bo_again.message
    assert (bo.tried, bo.solved) == (1, 0) and bo.rating < 1500
    assert cy_again == (True, cy_again[1]) and cy_again[1] < 1500
    assert cy_move.code == ErrorCode.NO_PUZZLE and "counts" not in cy_move.message
    assert (cy.tried, cy.solved, cy.rating) == (1, 0, cy_again[1])


async def test_an_attempt_left_to_run_out_counts_as_failed_on_the_twin() -> None:
    shared = MemoryRedis()  # (what a restarted test server would find again)
    check_run_out(await run_out(lambda: MemoryPuzzles(MemoryStore(shared))))


async def test_an_attempt_left_to_run_out_counts_as_failed_on_redis(
    redis_url: str, key_prefix: str
) -> None:
    opened: list[RedisStore] = []

    def open_store() -> PuzzleStore:
        store = RedisStore.from_url(
            redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix
        )
        opened.append(store)
        return RedisPuzzles(store)

    try:
        on_redis = await run_out(open_store)
    finally:
        for store in opened:
            await store.close()
    check_run_out(on_redis)
    shared = MemoryRedis()
    assert on_redis == await run_out(lambda: MemoryPuzzles(MemoryStore(shared)))
