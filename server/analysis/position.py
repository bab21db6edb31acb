"""A moment of a deal's play with every hand open, as the review, the estimates and the
puzzles see it: the hands, whose turn, the play to beat and who made it; its legal moves
and the position each leads to. (Its own module: the review and the estimates it calls
both stand on it.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from protocol.cards import Rank
from protocol.legal import legal_plays
from protocol.plays import Play

Side = Literal["landlord", "farmers"]
Cards = tuple[Rank, ...]


@dataclass(frozen=True, slots=True)
class Position:
    """A moment of a deal's play: every hand by seat, whose turn, the play to beat (None:
    the seat leads) and the seat that made it."""

    hands: tuple[Cards, Cards, Cards]
    landlord: int
    turn: int
    to_beat: Play | None
    by: int | None

    def side(self, seat: int) -> Side:
        return "landlord" if seat == self.landlord else "farmers"

    def options(self) -> list[Play | None]:
        """The legal moves of the seat on turn (None: the pass)."""
        moves: list[Play | None] = list(legal_plays(self.hands[self.turn], self.to_beat))
        if self.to_beat is not None:
            moves.append(None)
        return moves

    def after(self, move: Play | None) -> Position | None:
        """The position once the seat on turn made ``move`` (None: passed); None when the
        move empties its hand (the deal is over)."""
        turn, nxt = self.turn, (self.turn + 1) % 3
        if move is None:
            if self.to_beat is None:
                raise ValueError("the seat that leads a trick must play")
            if nxt == self.by:  # both others passed: its maker leads
                return Position(self.hands, self.landlord, nxt, None, None)
            return Position(self.hands, self.landlord, nxt, self.to_beat, self.by)
        left = list(self.hands[turn])
        for rank in move.cards:
            left.remove(rank)
        if not left:
            return None
        hands = list(self.hands)
        hands[turn] = tuple(left)
        return Position((hands[0], hands[1], hands[2]), self.landlord, nxt, move, turn)
