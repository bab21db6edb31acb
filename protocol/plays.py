"""The 14 kinds of play, classification and beating (SPEC sections 4 and 5).

A play is a multiset of ranks. Under this project's kicker rules every multiset is at most one
kind with one main rank, so ``classify`` is a function, and a test proves it by enumeration.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple

from protocol.cards import RANKS, Rank, format_cards, parse_cards, rank_counts

ACE_INDEX = Rank.ACE.index
SJ_INDEX = Rank.SMALL_JOKER.index
BJ_INDEX = Rank.BIG_JOKER.index
#: No seat holds more than 20 cards (the landlord with the kitty), so no play is longer.
MAX_PLAY_SIZE = 20


class Kind(StrEnum):
    """The 14 kinds of play; the values are the names used on the wire."""

    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    TRIPLE_SINGLE = "triple_single"
    TRIPLE_PAIR = "triple_pair"
    STRAIGHT = "straight"
    PAIR_CHAIN = "pair_chain"
    AIRPLANE = "airplane"
    AIRPLANE_SINGLES = "airplane_singles"
    AIRPLANE_PAIRS = "airplane_pairs"
    FOUR_TWO_SINGLES = "four_two_singles"
    FOUR_TWO_PAIRS = "four_two_pairs"
    BOMB = "bomb"
    ROCKET = "rocket"


KIND_ORDER: dict[Kind, int] = {k: i for i, k in enumerate(Kind)}


class InvalidPlayError(ValueError):
    """Cards that form none of the 14 kinds."""


class Play(NamedTuple):
    """An immutable play: its kind, its main rank and its sorted ranks.

    The rocket's main rank is the small joker (it is never compared).
    """

    kind: Kind
    rank: Rank
    cards: tuple[Rank, ...]

    @classmethod
    def parse(cls, text: str) -> Play:
        """Parse card text and classify it; CardTextError or InvalidPlayError when it is not
        a play."""
        ranks = parse_cards(text)
        play = classify(ranks)
        if play is None:
            raise InvalidPlayError(f"{format_cards(ranks)} is not a play")
        return play

    @property
    def is_bomb_like(self) -> bool:
        """A bomb or the rocket: the plays that beat across kinds and double the score."""
        return self.kind is Kind.BOMB or self.kind is Kind.ROCKET

    def beats(self, other: Play) -> bool:
        """Whether this play may answer ``other`` on the table (SPEC section 5)."""
        if other.kind is Kind.ROCKET:
            return False
        if self.kind is Kind.ROCKET:
            return True
        if self.kind is Kind.BOMB:
            return other.kind is not Kind.BOMB or self.rank > other.rank
        return (
            self.kind is other.kind
            and len(self.cards) == len(other.cards)
            and self.rank > other.rank
        )

    def __str__(self) -> str:
        return format_cards(self.cards)

    def __repr__(self) -> str:
        return f"Play.parse({format_cards(self.cards)!r})"


def _run_start(indices: list[int]) -> int | None:
    """The first index if ``indices`` (ascending) is one consecutive run within 3..A."""
    if indices[-1] > ACE_INDEX or indices[-1] - indices[0] != len(indices) - 1:
        return None
    return indices[0]


def classify(ranks: Iterable[Rank]) -> Play | None:
    """The play these ranks make, or None when they make none (or no deck holds them)."""
    cards = tuple(sorted(ranks))
    n = len(cards)
    if n == 0 or n > MAX_PLAY_SIZE:
        return None
    counts = rank_counts(cards)
    if counts[SJ_INDEX] > 1 or counts[BJ_INDEX] > 1 or max(counts) > 4:
        return None
    by_count: list[list[int]] = [[], [], [], [], []]
    for i, c in enumerate(counts):
        if c:
            by_count[c].append(i)
    ones, twos, threes, fours = by_count[1], by_count[2], by_count[3], by_count[4]

    def play(kind: Kind, index: int) -> Play:
        return Play(kind, RANKS[index], cards)

    if n == 1:
        return play(Kind.SINGLE, ones[0])
    if n == 2:
        if twos:
            return play(Kind.PAIR, twos[0])
        return play(Kind.ROCKET, SJ_INDEX) if ones == [SJ_INDEX, BJ_INDEX] else None
    if fours:
        if n == 4:
            return play(Kind.BOMB, fours[0])
        if n == 6 and len(fours) == 1 and ones != [SJ_INDEX, BJ_INDEX]:
            return play(Kind.FOUR_TWO_SINGLES, fours[0])
        if n == 8 and len(fours) == 1 and len(twos) == 2:
            return play(Kind.FOUR_TWO_PAIRS, fours[0])
        return None
    if len(ones) == n and n >= 5:
        start = _run_start(ones)
        return None if start is None else play(Kind.STRAIGHT, start)
    if len(twos) * 2 == n and n >= 6:
        start = _run_start(twos)
        return None if start is None else play(Kind.PAIR_CHAIN, start)
    if not threes:
        return None
    if len(threes) == 1:
        if n == 3:
            return play(Kind.TRIPLE, threes[0])
        if n == 4:
            return play(Kind.TRIPLE_SINGLE, threes[0])
        if n == 5 and twos:
            return play(Kind.TRIPLE_PAIR, threes[0])
        return None
    start = _run_start(threes)
    if start is None:
        return None
    k = len(threes)
    if n == 3 * k:
        return play(Kind.AIRPLANE, start)
    if n == 4 * k and ones[-2:] != [SJ_INDEX, BJ_INDEX]:
        return play(Kind.AIRPLANE_SINGLES, start)
    if n == 5 * k and len(twos) == k:
        return play(Kind.AIRPLANE_PAIRS, start)
    return None
