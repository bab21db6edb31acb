"""Matches for the analysis tests, recorded as a room journals them, played by bots or by
a script (a seat that throws a won deal away, then best play by everyone)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from protocol.cards import Rank
from server.analysis import puzzles, review
from server.analysis.review import Position, solve
from server.bots.base import BotPolicy, decide, policy_for
from server.game.commands import Command, Pass, PlayCards
from server.game.journal import RecordingRandom, command_record, start_record
from server.game.match import Match, MatchConfig
from tests.server.bots.helpers import command_for

Records = list[dict[str, Any]]
#: What decides a play-phase turn instead of the bots: the match, the seat on turn; a
#: command, or None to let the bot decide.
Script = Callable[[Match, int], Command | None]


def journaled_match(
    deals: int, seed: int, script: Script | None = None, level: str = "normal"
) -> Records:
    """A match played by ``level`` bots (and ``script`` where it says), as its journal."""
    records: Records = []
    rng = RecordingRandom(random.Random(seed), records)
    policies: Sequence[BotPolicy] = [policy_for(level, random.Random(seed + s)) for s in range(3)]
    config = MatchConfig(deals=deals)
    records.append(start_record(config, None, 0.0))
    match, _ = Match.start(config, rng, 0.0)
    while match.phase != "over":
        command: Command | None = None
        if script is not None and match.phase == "playing":
            command = script(match, match.deal.turn)
        if command is None:
            for seat in range(3):
                request = decide(policies[seat], match.view_for(seat, 0.0))
                if request is not None:
                    command = command_for(seat, request)
                    break
        assert command is not None, "no seat acted"
        records.append(command_record(command, 0.0))
        match.apply(command, 0.0, rng)
    return records


def position_of(match: Match) -> Position:
    """The position of the deal in play (the review's own reading of it)."""
    position = review.position_of(match)
    assert position is not None
    return position


def command_of(seat: int, move: tuple[Rank, ...] | None) -> Command:
    return Pass(seat) if move is None else PlayCards(seat, move)


class Thrower:
    """A script: bots play until at most ``cards`` are left in the three hands; then, the
    first time the seat on turn has a won position and a move that loses it, it plays that
    move (``thrown``: the deal number, the decision's index in its play, the moves that would
    have kept the win); from then on every seat plays best (a winning move if its side has
    one), so the other side wins."""

    def __init__(self, cards: int = 12) -> None:
        self.cards = cards
        self.thrown: tuple[int, int, tuple[tuple[Rank, ...] | None, ...]] | None = None
        self.deal_no = 0
        self.index = 0

    def __call__(self, match: Match, seat: int) -> Command | None:
        if match.deal_no != self.deal_no:
            self.deal_no, self.index = match.deal_no, 0
        self.index += 1
        if self.thrown is not None and self.thrown[0] != match.deal_no:
            return None  # a later deal: the bots again
        if sum(len(h) for h in match.deal.hands) > self.cards:
            return None
        position = position_of(match)
        solution = solve(position)
        mover = position.side(seat)
        if self.thrown is None:
            if not solution.winning_moves:
                return None
            for option in position.options():
                after = position.after(option)
                if after is not None and solve(after).winner != mover:
                    kept = tuple(None if m is None else m.cards for m in solution.winning_moves)
                    self.thrown = (match.deal_no, self.index - 1, kept)
                    return command_of(seat, None if option is None else option.cards)
            return None
        best = solution.winning_moves[0] if solution.winning_moves else position.options()[0]
        return command_of(seat, None if best is None else best.cards)


class Misser:
    """A script: bots play until at most ``cards`` are left in the three hands; then, the
    first time the seat on turn faces a puzzle (one winning move, three plays or more), it
    plays another move (``missed``: the deal number, the decision's index in its play, the
    puzzle); from then on every seat plays best, so the other side wins that deal."""

    def __init__(self, cards: int = 14) -> None:
        self.cards = cards
        self.missed: tuple[int, int, puzzles.Puzzle] | None = None
        self.deal_no = 0
        self.index = 0

    def __call__(self, match: Match, seat: int) -> Command | None:
        if match.deal_no != self.deal_no:
            self.deal_no, self.index = match.deal_no, 0
        self.index += 1
        if sum(len(h) for h in match.deal.hands) > self.cards:
            return None
        position = position_of(match)
        if self.missed is not None:
            if self.missed[0] != match.deal_no:
                return None
            solution = solve(position)
            best = solution.winning_moves[0] if solution.winning_moves else position.options()[0]
            return command_of(seat, None if best is None else best.cards)
        for option in position.options():
            puzzle = puzzles.puzzle_at(position, option)
            if puzzle is not None:
                self.missed = (match.deal_no, self.index - 1, puzzle)
                return command_of(seat, None if option is None else option.cards)
        return None
