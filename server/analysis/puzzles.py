"""Puzzles cut from reviewed deals (issue 33): the miner's filter.

A position of a deal is a puzzle when

- the side to move can force a win with exactly one move, every other move losing (each
  other move is solved, not taken from the solver's list of winning moves, which leaves out
  kicker choices a lower kicker does as well as);
- the win takes at least three plays of that side against the longest defence: it cannot
  force it within two (``wins_within``);
- the deal's player did not find it: they chose another move. Such a move lost the win, so
  only a review's turning points with one better move are candidates.

A puzzle carries the position's cards only (every hand, whose turn, the play to beat), with
the seats numbered from the landlord (0; 1 plays after it): no names, no match code, no seat
of the match. ``Puzzle.key`` is the cards in a canonical text, so the same position found in
two deals is one puzzle (``unique``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from protocol.cards import Rank, format_cards, parse_cards
from protocol.legal import legal_plays
from protocol.plays import Play, classify
from server.analysis.review import Cards, DealReview, PlayedDeal, Position, Side, solve

#: Positions a candidate's checks may search: the solves of every other move, then the
#: length of the win.
NODE_LIMIT = 400_000
#: A puzzle's win takes at least this many plays of the side to move.
MIN_PLAYS = 3


class Unproved(Exception):
    """A check ran out of its node limit: the position is not offered as a puzzle."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    """An open position (landlord at seat 0), the side to move and its one winning move."""

    position: Position
    side: Side
    answer: Cards | None

    @property
    def key(self) -> str:
        return puzzle_key(self.position)


def _text(cards: Iterable[Rank]) -> str:
    ranks = list(cards)
    return format_cards(ranks) if ranks else "-"


def puzzle_key(position: Position) -> str:
    """The position's cards in one canonical text, seats numbered from the landlord."""
    own = normalized(position)
    beat = "lead" if own.to_beat is None else f"{_text(own.to_beat.cards)}@{own.by}"
    hands = "|".join(_text(h) for h in own.hands)
    return f"{hands}|{own.turn}|{beat}"


def normalized(position: Position) -> Position:
    """The same position with the landlord at seat 0."""
    ll = position.landlord

    def own(seat: int) -> int:
        return (seat - ll) % 3

    h = position.hands
    return Position(
        hands=(h[ll], h[(ll + 1) % 3], h[(ll + 2) % 3]),
        landlord=0,
        turn=own(position.turn),
        to_beat=position.to_beat,
        by=None if position.by is None else own(position.by),
    )


def _finishes_in(hand: Cards, plays: int) -> bool:
    """Whether the hand could go out in ``plays`` plays of its own, were nobody to stop it
    (a bound: from three plays on, always True)."""
    if plays <= 0:
        return False
    if plays >= 3:
        return True
    if classify(hand) is not None:
        return True
    if plays == 1:
        return False
    for lead in legal_plays(hand):
        rest = list(hand)
        for r in lead.cards:
            rest.remove(r)
        if classify(rest) is not None:
            return True
    return False


class WinSearch:
    """Whether ``side`` can force a win within so many plays of its own (its passes do not
    count), whatever the other side does: one memo and one node count across every question
    asked of it (the positions of one decision); raises ``Unproved`` once past ``limit``
    positions."""

    def __init__(self, side: Side, limit: int = NODE_LIMIT) -> None:
        self.side = side
        self.left = limit
        self.memo: dict[tuple[Position, int], bool] = {}

    def within(self, pos: Position, k: int) -> bool:
        side = self.side
        seats = [s for s in range(3) if pos.side(s) == side]
        if not any(_finishes_in(pos.hands[s], k) for s in seats):
            return False
        key = (pos, k)
        found = self.memo.get(key)
        if found is not None:
            return found
        self.left -= 1
        if self.left < 0:
            raise Unproved("the length of the win is out of the node limit")
        mine = pos.side(pos.turn) == side
        result = not mine
        for option in pos.options():
            after = pos.after(option)
            if after is None:
                won = mine
            else:
                won = self.within(after, k - (1 if mine and option is not None else 0))
            if won == mine:
                result = mine
                break
        self.memo[key] = result
        return result

    def plays_to_win(self, pos: Position, most: int = 20) -> int | None:
        """The fewest plays of ``side`` that force its win (None: not within ``most``)."""
        return next((k for k in range(1, most + 1) if self.within(pos, k)), None)


def wins_within(position: Position, side: Side, plays: int, limit: int = NODE_LIMIT) -> bool:
    """Whether ``side`` can force a win with at most ``plays`` plays of its own seats (its
    passes do not count), whatever the other side does; raises ``Unproved`` past ``limit``
    positions."""
    return WinSearch(side, limit).within(position, plays)


def puzzle_at(position: Position, played: Play | None, limit: int = NODE_LIMIT) -> Puzzle | None:
    """The puzzle this position is, if it is one and ``played`` (the move the deal's player
    chose) missed its answer; None otherwise or when a check is out of ``limit``."""
    side = position.side(position.turn)
    winners: list[Play | None] = []
    try:
        for option in position.options():
            after = position.after(option)
            if after is None:
                winners.append(option)
            else:
                solution = solve(after, node_limit=limit)
                if solution.winner is None:
                    return None
                if solution.winner == side:
                    winners.append(option)
            if len(winners) > 1:
                return None
        if len(winners) != 1 or _cards_of(winners[0]) == _cards_of(played):
            return None
        if wins_within(position, side, MIN_PLAYS - 1, limit):
            return None
    except Unproved:
        return None
    answer = winners[0]
    return Puzzle(normalized(position), side, None if answer is None else answer.cards)


def _cards_of(move: Play | None) -> Cards | None:
    return None if move is None else tuple(sorted(move.cards))


def mine(deal: PlayedDeal, review: DealReview, limit: int = NODE_LIMIT) -> list[Puzzle]:
    """The puzzles of a reviewed deal: its turning points with one better move, checked."""
    found: list[Puzzle] = []
    for step, decision in zip(deal.steps, review.decisions, strict=True):
        if not decision.turning or len(decision.better) != 1:
            continue
        played = None if step.play is None else classify(step.play)
        puzzle = puzzle_at(step.position, played, limit)
        if puzzle is not None:
            found.append(puzzle)
    return unique(found)


def unique(puzzles: Iterable[Puzzle]) -> list[Puzzle]:
    """Each position once (by ``key``), the first found kept."""
    seen: dict[str, Puzzle] = {}
    for puzzle in puzzles:
        seen.setdefault(puzzle.key, puzzle)
    return list(seen.values())


def puzzle_id(key: str) -> str:
    """The puzzle's id on the wire: the first 12 hex digits of its key's SHA-256."""
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def _cards_in(text: str) -> Cards:
    return () if text == "-" else tuple(parse_cards(text))


def position_of_key(key: str) -> Position:
    """``puzzle_key``'s position back (landlord at seat 0)."""
    *hands, turn, beat = key.split("|")
    if len(hands) != 3:
        raise ValueError(f"not a puzzle key: {key!r}")
    to_beat: Play | None = None
    by: int | None = None
    if beat != "lead":
        cards, seat = beat.split("@")
        to_beat = classify(list(_cards_in(cards)))
        if to_beat is None:
            raise ValueError(f"not a play to beat: {cards!r}")
        by = int(seat)
    h = [_cards_in(x) for x in hands]
    return Position((h[0], h[1], h[2]), 0, int(turn), to_beat, by)


def min_plays(puzzle: Puzzle, limit: int = NODE_LIMIT) -> int | None:
    """The fewest plays of the puzzle's side that force its win (None: out of ``limit``)."""
    try:
        return WinSearch(puzzle.side, limit).plays_to_win(puzzle.position)
    except Unproved:
        return None
