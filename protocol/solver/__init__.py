"""An exact solver for Dou Dizhu positions with every hand open (issue 32).

Two forms, both pure (no I/O: the caller may pass a clock for the time limit):

- ``solve_two``: two hands, the first to move; it leads, or must beat (or pass on) a play
  of the second's. Whoever goes out first wins.
- ``solve_three``: the three seats of a deal, the landlord (seat 0) against both farmers as
  one side (seat 1 plays after the landlord, seat 2 after seat 1), from any moment of a
  trick: whose turn it is, the play to beat and who made it.

Each answers who goes out first with best play by everyone, every move of the side to move
that keeps its win (``None`` standing for the pass), and how many positions it searched.
With a node or time limit that is reached the answer is unknown (``winner`` None), never a
guess. The search itself is ``protocol.solver.search``; plays come from ``protocol.legal``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from protocol.cards import JOKERS, RANKS, Rank
from protocol.legal import hint_order
from protocol.plays import Play
from protocol.solver.moves import DELTA, PLAY, answers, leads, move, pack_ranks
from protocol.solver.search import SearchLimit, ThreeSeats, TwoHands

LANDLORD = 0
FARMER1 = 1
FARMER2 = 2
SEAT_NAMES = ("landlord", "farmer1", "farmer2")


class SolveInputError(ValueError):
    """A position no deal can reach: an empty hand, more cards of a rank than a deck holds,
    a play to beat that its seat could not have made, a seat out of range."""


@dataclass(frozen=True, slots=True)
class Solution:
    """The exact value of a position.

    ``winner``: "first" or "second" (two hands), "landlord" or "farmers" (three seats), or
    None when a limit stopped the search first. ``winning_moves``: the moves of the side to
    move that keep its win, in hint order with the pass (None) last; empty when it cannot
    win or the answer is unknown. ``positions``: positions searched."""

    winner: str | None
    winning_moves: tuple[Play | None, ...]
    positions: int

    @property
    def known(self) -> bool:
        return self.winner is not None


def _check_deck(hands: Sequence[Sequence[Rank]], to_beat: Play | None) -> None:
    """Raise SolveInputError unless the hands and the play to beat fit in one deck."""
    counts = dict.fromkeys(RANKS, 0)
    for hand in hands:
        for r in hand:
            counts[r] += 1
    if to_beat is not None:
        for r in to_beat.cards:
            counts[r] += 1
    for rank, n in counts.items():
        limit = 1 if rank in JOKERS else 4
        if n > limit:
            where = "the hands and the play to beat" if to_beat is not None else "the hands"
            raise SolveInputError(f"{where} hold {n} cards of rank {rank}; a deck has {limit}")


def _hands(named: Sequence[tuple[str, Iterable[Rank]]]) -> list[list[Rank]]:
    hands = []
    for name, cards in named:
        hand = sorted(cards)
        if not hand:
            raise SolveInputError(f"the {name} hand is empty: the deal is already over")
        hands.append(hand)
    return hands


def _ordered(moves: Iterable[Play | None]) -> tuple[Play | None, ...]:
    plays = sorted((m for m in moves if m is not None), key=hint_order)
    passes = [m for m in moves if m is None]
    return (*plays, *passes[:1])


def solve_two(
    first: Iterable[Rank],
    second: Iterable[Rank],
    to_beat: Play | None = None,
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Solution:
    """Solve two open hands, ``first`` to move: it leads, or answers ``to_beat`` (a play the
    second hand made) or passes, after which the second leads."""
    a_ranks, b_ranks = _hands([("first", first), ("second", second)])
    _check_deck([a_ranks, b_ranks], to_beat)
    a, b = pack_ranks(a_ranks), pack_ranks(b_ranks)
    last = None if to_beat is None else move(to_beat)
    search = TwoHands(node_limit, time_limit, clock)
    won: list[Play | None] = []
    try:
        for m in leads(a) if last is None else answers(a, last):
            if m[DELTA] == a or not search.wins(b, a - m[DELTA], m):
                won.append(m[PLAY])
        if last is not None and not search.wins(b, a, None):
            won.append(None)
    except SearchLimit:
        return Solution(None, (), search.nodes)
    return Solution("first" if won else "second", _ordered(won), search.nodes)


def solve_three(
    landlord: Iterable[Rank],
    farmer1: Iterable[Rank],
    farmer2: Iterable[Rank],
    *,
    turn: int = LANDLORD,
    to_beat: Play | None = None,
    by: int | None = None,
    node_limit: int | None = None,
    time_limit: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Solution:
    """Solve the three open hands of a deal: ``turn`` (0 landlord, 1 the farmer after the
    landlord, 2 the other) is to move; it leads, or answers ``to_beat`` (made by seat ``by``)
    or passes. ``winning_moves`` are the moves of ``turn`` that keep its side's win."""
    hands = _hands([("landlord", landlord), ("farmer1", farmer1), ("farmer2", farmer2)])
    if turn not in (LANDLORD, FARMER1, FARMER2):
        raise SolveInputError(f"no seat {turn}: the seats are 0 (landlord), 1 and 2 (farmers)")
    if (to_beat is None) != (by is None):
        raise SolveInputError("a play to beat needs the seat that made it, and only it")
    if by is not None and by not in (LANDLORD, FARMER1, FARMER2):
        raise SolveInputError(f"no seat {by}: the seats are 0 (landlord), 1 and 2 (farmers)")
    if by is not None and by == turn:
        raise SolveInputError(
            f"the {SEAT_NAMES[turn]} cannot have to beat its own play: it leads when both "
            "others passed"
        )
    _check_deck(hands, to_beat)
    h = [pack_ranks(x) for x in hands]
    last = None if to_beat is None else move(to_beat)
    ls = 0 if by is None else by
    search = ThreeSeats(node_limit, time_limit, clock)
    lw = search.landlord_wins
    want = turn == LANDLORD
    nxt = (turn + 1) % 3
    won: list[Play | None] = []
    try:
        for m in leads(h[turn]) if last is None else answers(h[turn], last):
            if m[DELTA] == h[turn]:
                won.append(m[PLAY])
                continue
            after = list(h)
            after[turn] -= m[DELTA]
            if lw(after[0], after[1], after[2], nxt, m, turn) == want:
                won.append(m[PLAY])
        if last is not None and lw(h[0], h[1], h[2], nxt, last, ls) == want:
            won.append(None)
    except SearchLimit:
        return Solution(None, (), search.nodes)
    side_won = bool(won)
    landlord_won = side_won if want else not side_won
    return Solution("landlord" if landlord_won else "farmers", _ordered(won), search.nodes)
