"""Puzzles (残局) for the lobby (issue 33): ``GetPuzzle`` starts one, ``PuzzleMove`` plays it.

A player asks for a puzzle by id, the day's (the same for everyone on a UTC day), or the
next: a random one they have not tried among those rated near their puzzle rating (the
window widening until one is found; when they have tried them all, a tried one). Starting a
puzzle starts an attempt, kept in the store (``server/store/puzzles.py``); only a player's
first attempt at a puzzle is rated, and one left unfinished counts as failed: left for
another puzzle (or the same again), or left ``ATTEMPT_TTL`` without a move (counted when the
player next asks for a puzzle, moves or reads their record, whichever comes first: the
attempt waits in the store for it, so a restart loses nothing). Each move is
checked (the seat on turn and of the player's side, cards held, a play that beats the
table: else a typed refusal that changes nothing), then answered by the solver
(``server.analysis.puzzle_play``: the defence that lasts longest; a losing move ends it with
the winning line) in a thread, under a node limit, so the event loop goes on meanwhile; one
answer at a time per address, and a bound on the solver time an address may use
(``answer_budget``). The attempt moves on (or ends) only from the step the move was checked
at (a script), so two moves of one player at once apply one: the other is refused as stale.

What a player is sent of a puzzle is its cards and ratings: no name, no match code.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from typing import Any

from protocol.cards import Rank
from protocol.errors import ErrorCode
from protocol.messages import (
    GetPuzzle,
    PuzzleData,
    PuzzleMove,
    PuzzlePlay,
    PuzzlePosition,
    PuzzleRatingChange,
    PuzzleRecord,
    PuzzleReply,
)
from server.analysis.puzzle_play import (
    Answer,
    Move,
    PuzzleError,
    answer,
    checked_move,
    replayed,
)
from server.analysis.puzzles import position_of_key
from server.analysis.review import Position, Side
from server.edge.flood import HISTORY_COST
from server.edge.hub import Connection
from server.lobby.answer_budget import AnswerBudget
from server.lobby.base import Lobby, Route, Routes
from server.lobby.sessions import Session
from server.lobby.stores import PuzzleStore
from server.players.puzzle_rating import attempt as rate_attempt
from server.players.puzzle_rating import shown
from server.store.puzzles import ATTEMPT_TTL, Attempt, StoredPuzzle

#: Widths (shown points either side of the player's rating) tried in turn for the next
#: puzzle, and how many puzzles each looks at.
WINDOWS = (75, 150, 300, 600, 100_000)
NEAR = 100
#: The shown ratings the day's puzzle is drawn from (all puzzles when none is in it).
DAILY_RANGE = (1300, 1800)
#: How far back "turning points this week" looks.
WEEK = 7 * 86400


def utc_day(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(now))


def _ranks(cards: Any) -> list[int] | None:
    return None if cards is None else [int(r) for r in cards]


def _stale(at: int, asked: int) -> PuzzleError:
    return PuzzleError(ErrorCode.STALE, f"this attempt is at move {at}, not {asked}")


def position_view(position: Position) -> PuzzlePosition:
    return PuzzlePosition(
        hands=[[int(r) for r in hand] for hand in position.hands],
        turn=position.turn,
        to_beat=None if position.to_beat is None else _ranks(position.to_beat.cards),
        by=position.by,
    )


def _plays(moves: tuple[Move, ...] | list[Move]) -> list[PuzzlePlay]:
    return [PuzzlePlay(seat=seat, ranks=_ranks(cards)) for seat, cards in moves]


def _moves(data: list[Any]) -> list[Move]:
    return [
        (int(seat), None if cards is None else tuple(Rank(r) for r in cards))
        for seat, cards in data
    ]


def _timed_answer(position: Position, side: Side, play: Any) -> tuple[Answer, float]:
    """The solver's answer, and the seconds of CPU it took (this thread's)."""
    began = time.thread_time()
    reply = answer(position, side, play)
    return reply, time.thread_time() - began


class Puzzles:
    def __init__(
        self, lobby: Lobby, store: PuzzleStore, budget: AnswerBudget | None = None
    ) -> None:
        self.lobby = lobby
        self.store = store
        #: The solver's time for answers, per address (``server/lobby/answer_budget.py``).
        self.budget = budget or AnswerBudget()

    def routes(self) -> Routes:
        return {
            GetPuzzle: Route(self.get_puzzle),
            PuzzleMove: Route(self.move),
        }

    # --- starting one ------------------------------------------------------------------

    async def get_puzzle(self, conn: Connection, session: Session, request: GetPuzzle) -> None:
        conn.bucket.spend(HISTORY_COST)
        player = session.player_id
        me = await self.store.puzzle_player(player)
        if request.puzzle_id is not None:
            pid = request.puzzle_id
        elif request.daily:
            pid = await self.daily()
        else:
            pid = await self.next_for(player, shown(me.rating))
        stored = await self.store.puzzle(pid)
        if stored is None:
            raise PuzzleError(ErrorCode.NO_PUZZLE, f"no puzzle {pid}")
        current = await self.store.attempt(player)
        if current is not None and await self._count_left(player, current):
            me = await self.store.puzzle_player(player)  # (as the failure left it)
        # (a retry is played as the first was, and rates nothing)
        started = await self.store.start_attempt(player, pid, self.lobby.clock())
        conn.send(
            PuzzleData(
                puzzle_id=pid,
                position=position_view(position_of_key(stored.record.key)),
                side="landlord" if stored.record.side == "landlord" else "farmers",
                min_plays=stored.record.min_plays,
                rating=shown(stored.rating),
                your_rating=shown(me.rating),
                daily=request.daily and request.puzzle_id is None,
                tried=not started.first,
                own=started.own,
            )
        )

    async def _count_left(self, player: str, attempt: Attempt) -> bool:
        """A first attempt left unfinished (another puzzle asked for, this one again, or
        ``ATTEMPT_TTL`` gone by without a move) counts as failed: else a player could look
        at a hard puzzle, leave it unrated (or wait it out), and find its answer elsewhere
        for a retry. Whether it was counted now (not: a retry, or ended meanwhile by a move
        elsewhere)."""
        if not attempt.rated:
            return False
        left = await self.store.puzzle(attempt.puzzle)
        if left is None:
            return False
        with contextlib.suppress(PuzzleError):  # (ended meanwhile by a move elsewhere)
            await self._over(player, left, attempt, solved=False)
            return True
        return False

    async def _count_if_run_out(self, player: str, attempt: Attempt) -> bool:
        """Whether the attempt ran out (``ATTEMPT_TTL`` without a move): then it is over,
        and counted as failed if rated."""
        if not attempt.expired(self.lobby.clock()):
            return False
        await self._count_left(player, attempt)
        return True

    async def next_for(self, player: str, rating: int) -> str:
        """A random puzzle the player has not tried, in the narrowest window around their
        rating that holds one; a tried one when they have tried every one."""
        seen: list[str] = []
        for width in WINDOWS:
            near = await self.store.puzzles_near(rating, width, NEAR)
            if not near:
                continue
            seen = near
            tried = await self.store.tried(player, near)
            fresh = [pid for pid, t in zip(near, tried, strict=True) if not t]
            if fresh:
                return fresh[self.lobby.rng.randrange(len(fresh))]
        if not seen:
            raise PuzzleError(ErrorCode.NO_PUZZLE, "there is no puzzle yet: come back later")
        return seen[self.lobby.rng.randrange(len(seen))]

    async def daily(self) -> str:
        """The day's puzzle (UTC): the first any process offered for the day, drawn by the
        day's name from the puzzles rated in ``DAILY_RANGE`` (from all when none is)."""
        pool = await self.store.puzzle_ids(*DAILY_RANGE)
        if not pool:
            pool = await self.store.puzzle_ids(-(10**6), 10**6)
        if not pool:
            raise PuzzleError(ErrorCode.NO_PUZZLE, "there is no puzzle yet: come back later")
        day = utc_day(self.lobby.clock())
        draw = int.from_bytes(hashlib.sha256(day.encode()).digest()[:8], "big")
        return await self.store.daily_puzzle(day, sorted(pool)[draw % len(pool)])

    # --- playing it --------------------------------------------------------------------

    async def move(self, conn: Connection, session: Session, request: PuzzleMove) -> None:
        conn.bucket.spend(HISTORY_COST)
        player = session.player_id
        attempt = await self.store.attempt(player)
        pid = request.puzzle_id
        if attempt is not None and await self._count_if_run_out(player, attempt):
            counted = " and counts as failed" if attempt.rated else ""
            raise PuzzleError(
                ErrorCode.NO_PUZZLE,
                f"your attempt at puzzle {attempt.puzzle} ran out (no move for"
                f" {ATTEMPT_TTL // 3600} h){counted}: ask for a puzzle",
            )
        if attempt is None or attempt.puzzle != pid:
            raise PuzzleError(
                ErrorCode.NO_PUZZLE, f"you are not playing puzzle {pid}: ask for it first"
            )
        if request.step != attempt.step:
            raise _stale(attempt.step, request.step)
        stored = await self.store.puzzle(pid)
        if stored is None:
            raise PuzzleError(ErrorCode.NO_PUZZLE, f"no puzzle {pid}")
        side: Side = "landlord" if stored.record.side == "landlord" else "farmers"
        moves = _moves(attempt.moves)
        position = replayed(position_of_key(stored.record.key), moves)
        if position is None:
            raise PuzzleError(ErrorCode.NO_PUZZLE, "this puzzle is over: ask for another")
        play = checked_move(position, side, request.seat, request.ranks)
        self.budget.begin(conn.address)
        spent = 0.0
        try:
            reply, spent = await asyncio.to_thread(_timed_answer, position, side, play)
        finally:
            self.budget.end(conn.address, spent)
        step = attempt.step + 1
        if reply.result == "going":
            moves += list(reply.moves)
            kept = [[s, _ranks(c)] for s, c in moves]
            now = self.lobby.clock()
            if not await self.store.advance_attempt(player, pid, attempt.step, kept, now):
                raise _stale(attempt.step + 1, request.step)
            conn.send(self._reply(pid, step, reply, None))
            return
        change = await self._over(player, stored, attempt, reply.result == "solved")
        conn.send(self._reply(pid, step, reply, change))

    async def _over(
        self, player: str, stored: StoredPuzzle, attempt: Attempt, solved: bool
    ) -> PuzzleRatingChange | None:
        """End the attempt; a first attempt changes both ratings and counts."""
        me = await self.store.puzzle_player(player)
        mine, its = rate_attempt(me.rating, stored.rating, solved)
        rated = mine if attempt.rated else None
        if not await self.store.end_attempt(player, stored.id, attempt.step, rated, solved):
            raise _stale(attempt.step + 1, attempt.step)  # (a move of theirs elsewhere won)
        if not attempt.rated:
            return None
        await self.store.rate_puzzle(stored.id, stored.rating, its)
        return PuzzleRatingChange(
            before=shown(me.rating),
            after=shown(mine),
            puzzle_before=shown(stored.rating),
            puzzle_after=shown(its),
        )

    @staticmethod
    def _reply(
        pid: str, step: int, reply: Answer, change: PuzzleRatingChange | None
    ) -> PuzzleReply:
        return PuzzleReply(
            puzzle_id=pid,
            step=step,
            moves=_plays(reply.moves),
            position=None if reply.position is None else position_view(reply.position),
            result=reply.result,
            line=_plays(reply.line),
            rating=change,
        )

    # --- the profile's part ------------------------------------------------------------

    async def record(self, player: str) -> PuzzleRecord:
        """The player's puzzle record, with an attempt of theirs that ran out counted."""
        attempt = await self.store.attempt(player)
        if attempt is not None:
            await self._count_if_run_out(player, attempt)
        me = await self.store.puzzle_player(player)
        week = await self.store.turning_since(player, self.lobby.clock() - WEEK)
        return PuzzleRecord(
            tried=me.tried, solved=me.solved, rating=shown(me.rating), turning_points_week=week
        )
