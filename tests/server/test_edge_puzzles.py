"""Puzzles over the wire (``GetPuzzle``, ``PuzzleMove``) against a real Redis: a puzzle
played to its end against the solver's longest defence, a losing move that ends it with the
winning line, the ratings of a first attempt only, the day's puzzle the same for everyone,
and every bad move refused with its code, changing nothing."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from protocol.cards import Rank
from protocol.errors import ErrorCode
from protocol.events import MatchEnded
from protocol.messages import (
    Error,
    GetProfile,
    GetPuzzle,
    Profile,
    PuzzleData,
    PuzzleMove,
    PuzzlePosition,
    PuzzleReply,
    RoomClosed,
    StartPractice,
)
from protocol.plays import classify
from server.analysis.export import export_line
from server.analysis.puzzle_play import winning_line
from server.analysis.puzzles import puzzle_id, puzzle_key
from server.analysis.review import Position, Side
from server.players.puzzle_rating import seed, shown
from server.store.puzzles import PuzzleEntry
from tests.server.analysis.helpers import Misser, journaled_match
from tests.server.analysis.test_mining import NODES, SEED
from tests.server.analysis.test_puzzles import PUZZLE
from tests.server.test_after_match import answer
from tests.server.wire import AutoSeat, RunningServer, WireClient, running_server, wire_client

KEY = puzzle_key(PUZZLE)
PID = puzzle_id(KEY)
#: A second puzzle: the farmers to move (seat 2 must beat the landlord's A with its 2).
OTHER_KEY = "6|7|8 99 10 10 JJ QQ 2|2|A@0"
OTHER = puzzle_id(OTHER_KEY)


async def add(srv: RunningServer, key: str, side: str, answer_text: str, plays: int) -> str:
    rating = seed(plays)
    entry = PuzzleEntry(key, side, answer_text, plays, 0.0)
    await srv.app.puzzles.store.add_puzzle(puzzle_id(key), entry, rating, shown(rating))
    return puzzle_id(key)


def position_of(view: PuzzlePosition) -> Position:
    hands = tuple(tuple(sorted(h)) for h in view.hands)
    to_beat = None if view.to_beat is None else classify([Rank(r) for r in view.to_beat])
    return Position((hands[0], hands[1], hands[2]), 0, view.turn, to_beat, view.by)  # type: ignore[arg-type]


async def solve_it(client: WireClient, data: PuzzleData) -> list[PuzzleReply]:
    """Play the solver's winning moves until the puzzle is over."""
    side: Side = data.side
    position: PuzzlePosition | None = data.position
    replies: list[PuzzleReply] = []
    step = 0
    while position is not None:
        seat, move = winning_line(position_of(position), side)[0]
        ranks = None if move is None else [int(r) for r in move]
        reply = await answer(
            client,
            PuzzleMove(puzzle_id=data.puzzle_id, seat=seat, ranks=ranks, step=step),
            PuzzleReply,
        )
        assert isinstance(reply, PuzzleReply), reply
        replies.append(reply)
        step += 1
        position = reply.position
    return replies


async def refused(client: WireClient, request: Any) -> ErrorCode:
    reply = await answer(client, request, PuzzleReply)
    assert isinstance(reply, Error), reply
    return reply.code


async def test_a_puzzle_solved_and_failed_rates_first_attempts_only(redis_url: str) -> None:
    async with (
        running_server(redis_url, puzzle_mine_seconds=0.0, rate_burst=1000) as srv,
        wire_client(srv.url, "ann") as (ann, _),
        wire_client(srv.url, "bo", source="127.0.0.2") as (bo, _),
    ):
        assert await refused(ann, GetPuzzle()) == ErrorCode.NO_PUZZLE  # none yet
        await add(srv, KEY, "landlord", "9", 4)

        data = await answer(ann, GetPuzzle(), PuzzleData)
        assert isinstance(data, PuzzleData) and data.puzzle_id == PID
        assert position_of(data.position) == PUZZLE
        assert (data.side, data.min_plays, data.tried, data.own) == ("landlord", 4, False, False)
        assert data.rating == shown(seed(4)) and data.your_rating == 1500

        replies = await solve_it(ann, data)
        assert [r.result for r in replies[:-1]] == ["going"] * (len(replies) - 1)
        last = replies[-1]
        assert last.result == "solved" and last.position is None and last.line == []
        for reply in replies[:-1]:  # the defence answered: the farmers' seats only
            assert reply.moves[0].seat == 0 and {m.seat for m in reply.moves[1:]} <= {1, 2}
        assert last.rating is not None
        assert last.rating.after > last.rating.before == 1500
        assert last.rating.puzzle_after < last.rating.puzzle_before == data.rating

        # bo misses the one winning move: over at once, with the winning line
        data = await answer(bo, GetPuzzle(puzzle_id=PID), PuzzleData)
        assert data.rating == last.rating.puzzle_after
        failed = await answer(bo, PuzzleMove(puzzle_id=PID, seat=0, ranks=[5], step=0), PuzzleReply)
        assert failed.result == "failed" and failed.position is None
        assert [(m.seat, m.ranks) for m in failed.moves] == [(0, [5])]
        assert (failed.line[0].seat, failed.line[0].ranks) == (0, [9])
        assert failed.line[-1].seat == 0  # the landlord goes out
        assert failed.rating is not None and failed.rating.after < failed.rating.before
        assert failed.rating.puzzle_after > failed.rating.puzzle_before

        # ann again: tried, played the same way, and no rating moves
        again = await answer(ann, GetPuzzle(puzzle_id=PID), PuzzleData)
        assert again.tried and again.your_rating == last.rating.after
        retry = await answer(ann, PuzzleMove(puzzle_id=PID, seat=0, ranks=[5], step=0), PuzzleReply)
        assert retry.result == "failed" and retry.rating is None

        profile = await answer(ann, GetProfile(), Profile)
        assert profile.puzzles is not None
        assert (profile.puzzles.tried, profile.puzzles.solved) == (1, 1)
        assert profile.puzzles.rating == last.rating.after
        bo_profile = await answer(bo, GetProfile(), Profile)
        assert (bo_profile.puzzles.tried, bo_profile.puzzles.solved) == (1, 0)


async def test_bad_moves_are_refused_with_their_code_and_change_nothing(redis_url: str) -> None:
    async with (
        running_server(redis_url, puzzle_mine_seconds=0.0, rate_burst=1000) as srv,
        wire_client(srv.url, "ann") as (ann, _),
    ):
        await add(srv, KEY, "landlord", "9", 4)
        move = PuzzleMove(puzzle_id=PID, seat=0, ranks=[9], step=0)
        assert await refused(ann, move) == ErrorCode.NO_PUZZLE  # not started
        assert await refused(ann, GetPuzzle(puzzle_id="0" * 12)) == ErrorCode.NO_PUZZLE
        await answer(ann, GetPuzzle(puzzle_id=PID), PuzzleData)
        bad = [
            (move.model_copy(update={"puzzle_id": "a" * 12}), ErrorCode.NO_PUZZLE),
            (move.model_copy(update={"seat": 1, "ranks": [3, 3]}), ErrorCode.NOT_YOUR_TURN),
            (move.model_copy(update={"ranks": [3]}), ErrorCode.CARDS_NOT_HELD),
            (move.model_copy(update={"ranks": [9, 9]}), ErrorCode.CARDS_NOT_HELD),
            (move.model_copy(update={"ranks": [5, 9]}), ErrorCode.NOT_A_PLAY),
            (move.model_copy(update={"ranks": None}), ErrorCode.LEADER_MUST_PLAY),
            (move.model_copy(update={"step": 1}), ErrorCode.STALE),
        ]
        for request, code in bad:
            assert await refused(ann, request) == code, request
        # nothing changed: the first move is still to make, and is answered
        reply = await answer(ann, move, PuzzleReply)
        assert isinstance(reply, PuzzleReply) and reply.result == "going" and reply.step == 1
        assert await refused(ann, move) == ErrorCode.STALE  # resent: not applied twice
        # a farmer's card on the landlord's turn, once the farmers answered
        assert reply.position is not None and reply.position.turn == 0
        wrong = PuzzleMove(puzzle_id=PID, seat=0, ranks=[13], step=1)
        assert await refused(ann, wrong) == ErrorCode.CARDS_NOT_HELD


async def test_a_first_attempt_left_unfinished_counts_as_failed(redis_url: str) -> None:
    """A player who looks at a puzzle and asks for another (or for the same again) has
    failed it: else a hard one could be left unrated, its answer found elsewhere."""
    async with (
        running_server(redis_url, puzzle_mine_seconds=0.0, rate_burst=1000) as srv,
        wire_client(srv.url, "ann") as (ann, _),
    ):
        await add(srv, KEY, "landlord", "9", 4)
        await add(srv, OTHER_KEY, "farmers", "2", 3)
        first = await answer(ann, GetPuzzle(puzzle_id=PID), PuzzleData)
        assert not first.tried and first.your_rating == 1500
        other = await answer(ann, GetPuzzle(puzzle_id=OTHER), PuzzleData)  # PID left
        assert other.your_rating < 1500
        profile = await answer(ann, GetProfile(), Profile)
        assert (profile.puzzles.tried, profile.puzzles.solved) == (1, 0)
        assert profile.puzzles.rating == other.your_rating
        # the same again: OTHER left too; PID a retry now, unrated, and leaving it is free
        again = await answer(ann, GetPuzzle(puzzle_id=OTHER), PuzzleData)
        assert again.tried and again.your_rating < other.your_rating
        retry = await answer(ann, GetPuzzle(puzzle_id=PID), PuzzleData)
        assert retry.tried and retry.rating > first.rating  # (the puzzle won once)
        await answer(ann, GetPuzzle(puzzle_id=OTHER), PuzzleData)
        profile = await answer(ann, GetProfile(), Profile)
        assert (profile.puzzles.tried, profile.puzzles.solved) == (2, 0)
        assert profile.puzzles.rating == again.your_rating


async def test_an_address_past_its_solver_time_is_refused_and_nothing_changes(
    redis_url: str,
) -> None:
    async with (
        running_server(redis_url, puzzle_mine_seconds=0.0, rate_burst=1000) as srv,
        wire_client(srv.url, "ann") as (ann, _),
    ):
        await add(srv, KEY, "landlord", "9", 4)
        await answer(ann, GetPuzzle(puzzle_id=PID), PuzzleData)
        move = PuzzleMove(puzzle_id=PID, seat=0, ranks=[9], step=0)
        budget = srv.app.puzzles.budget
        budget.end("127.0.0.1", budget.seconds)  # its solver time spent (another tab's)
        assert await refused(ann, move) == ErrorCode.RATE_LIMITED
        budget._spent.clear()  # (the window has passed)
        budget.begin("127.0.0.1")  # an answer of its own in progress
        assert await refused(ann, move) == ErrorCode.BUSY
        budget.end("127.0.0.1", 0.0)
        reply = await answer(ann, move, PuzzleReply)  # the attempt was where it was
        assert isinstance(reply, PuzzleReply) and reply.result == "going" and reply.step == 1


async def test_the_days_puzzle_is_the_same_for_everyone(redis_url: str) -> None:
    async with (
        running_server(redis_url, puzzle_mine_seconds=0.0, rate_burst=1000) as srv,
        wire_client(srv.url, "ann") as (ann, _),
        wire_client(srv.url, "bo", source="127.0.0.2") as (bo, _),
    ):
        assert await refused(ann, GetPuzzle(daily=True)) == ErrorCode.NO_PUZZLE
        await add(srv, KEY, "landlord", "9", 4)
        await add(srv, OTHER_KEY, "farmers", "2", 3)
        a = await answer(ann, GetPuzzle(daily=True), PuzzleData)
        b = await answer(bo, GetPuzzle(daily=True), PuzzleData)
        assert a.daily and b.daily and a.puzzle_id == b.puzzle_id in (PID, OTHER)
        # another process's choice stands: the stored day's puzzle is what everyone gets
        day_key = srv.app.store.keys.puzzles(  # type: ignore[attr-defined]
            "daily:"
            + __import__("server.lobby.puzzles", fromlist=["utc_day"]).utc_day(srv.app.clock())
        )
        other = OTHER if a.puzzle_id == PID else PID
        await srv.app.store.redis.set(day_key, other)  # type: ignore[attr-defined]
        c = await answer(ann, GetPuzzle(daily=True), PuzzleData)
        assert c.puzzle_id == other


async def test_a_farmers_puzzle_is_played_with_both_farmers(redis_url: str) -> None:
    async with (
        running_server(redis_url, puzzle_mine_seconds=0.0, rate_burst=1000) as srv,
        wire_client(srv.url, "ann") as (ann, _),
    ):
        await add(srv, OTHER_KEY, "farmers", "2", 3)
        data = await answer(ann, GetPuzzle(puzzle_id=OTHER), PuzzleData)
        assert data.side == "farmers" and data.position.turn == 2
        assert data.position.to_beat == [14] and data.position.by == 0
        replies = await solve_it(ann, data)
        assert replies[-1].result == "solved"
        seats = {m.seat for r in replies for m in r.moves[:1]}
        assert seats <= {1, 2}
        assert all(m.seat == 0 for r in replies for m in r.moves[1:])


#: Positions each mined deal may search: seed 4 holds a puzzle found within them.
MINE_NODES = 30_000


async def jobs_done(srv: RunningServer, n: int, timeout: float = 180.0) -> None:
    """Until the miner has done ``n`` jobs."""

    async def done() -> None:
        while srv.app.miner.jobs + srv.app.miner.failed < n:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(done(), timeout)


@pytest.mark.slow
async def test_puzzles_mined_in_the_review_process_carry_no_name_and_no_code(
    redis_url: str,
) -> None:
    async with (
        running_server(
            redis_url,
            bot_speed="instant",
            # bounded in positions, not in seconds a loaded machine would cut short: the
            # same puzzles found on any machine, in a second or two of the review process
            puzzle_mine_seconds=60.0,
            puzzle_mine_nodes=MINE_NODES,
            rate_burst=1000,
        ) as srv,
        wire_client(srv.url, "Zelda Quux") as (zelda, welcome),
    ):
        # a practice match of Zelda's, mined as it closes
        seat = AutoSeat(zelda)
        await zelda.send(StartPractice(deals=1, speed="instant"))
        await seat.until(MatchEnded, 60)
        await zelda.recv_type(RoomClosed, 10)
        assert seat.state is not None
        code = seat.state.room.code
        # and the bots' self-play from a seed whose three deals hold a puzzle
        srv.app.miner.queue_seed(3, 4)
        await jobs_done(srv, 2)
        assert srv.app.miner.failed == 0
        assert srv.app.miner.found >= 1
        data = await answer(zelda, GetPuzzle(), PuzzleData)
        assert isinstance(data, PuzzleData)
        assert set(PuzzleData.model_fields) == {
            "type",
            "puzzle_id",
            "position",
            "side",
            "min_plays",
            "rating",
            "your_rating",
            "daily",
            "tried",
            "own",
        }
        told = data.model_dump_json()
        redis = srv.app.store.redis  # type: ignore[attr-defined]
        keys = srv.app.store.keys  # type: ignore[attr-defined]
        held = [told]
        for key in await redis.keys(keys.puzzles("*")):
            kind = await redis.type(key)
            if kind == b"hash":
                held += [repr(v) for v in (await redis.hgetall(key)).values()]
            elif kind == b"zset":
                held += [repr(m) for m in await redis.zrange(key, 0, -1)]
            else:
                held.append(repr(await redis.get(key)))
        for text in held:
            for secret in (code, "Zelda", welcome.player_id, welcome.token):
                assert secret not in text


async def test_a_journal_export_is_mined_at_the_start_and_a_bad_line_said(
    redis_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``--puzzle-mine-journal``: a new server mines the exported matches in the review
    process; the puzzle stored carries no name, and nobody is marked (there is nobody)."""
    misser = Misser()
    records = journaled_match(1, SEED, misser)
    assert misser.missed is not None
    export = tmp_path / "matches.jsonl"
    export.write_text(export_line(records) + "\n{broken\n")
    with caplog.at_level(logging.INFO, logger="server.app"):
        async with running_server(
            redis_url,
            puzzle_mine_seconds=60.0,
            puzzle_mine_nodes=NODES,
            puzzle_mine_journal=str(export),
        ) as srv:
            await jobs_done(srv, 1)
            assert srv.app.miner.failed == 0
            key = misser.missed[2].key
            stored = await srv.app.puzzles.store.puzzle(puzzle_id(key))
            assert stored is not None and stored.record.key == key
    said = [r.getMessage() for r in caplog.records if "journal export" in r.getMessage()]
    assert said == [
        f"the journal export {export}: line 2: not JSON (Expecting property name enclosed in"
        " double quotes) (matches queued before it: 1)"
    ]
