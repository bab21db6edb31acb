"""Ranks, physical cards, and card text (SPEC section 1).

Every rule works on ranks only; the 54 physical cards exist so that a hand can be dealt and
shown with suits. A physical card travels as its id (0..53), a plain int that msgpack and
Redis store as they are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum


class Rank(IntEnum):
    """The 15 ranks, ordered low to high. ``int(rank) - 3`` indexes a 15-slot count array."""

    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    TWO = 15
    SMALL_JOKER = 16
    BIG_JOKER = 17

    @property
    def text(self) -> str:
        """How a person writes this rank: ``3`` .. ``10``, ``J`` .. ``2``, ``SJ``, ``BJ``."""
        return RANK_TEXT[self]

    @property
    def index(self) -> int:
        """Position 0..14 in the rank order."""
        return self.value - 3

    def __str__(self) -> str:
        return RANK_TEXT[self]


RANKS: tuple[Rank, ...] = tuple(Rank)
RANK_TEXT: dict[Rank, str] = {
    **{Rank(v): str(v) for v in range(3, 11)},
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
    Rank.TWO: "2",
    Rank.SMALL_JOKER: "SJ",
    Rank.BIG_JOKER: "BJ",
}
JOKERS = (Rank.SMALL_JOKER, Rank.BIG_JOKER)
#: Ranks that may be part of a straight, pair chain or airplane: 3 up to A.
CHAIN_RANKS: tuple[Rank, ...] = RANKS[: Rank.ACE.index + 1]

SUITS = ("♠", "♥", "♣", "♦")


@dataclass(frozen=True, slots=True)
class Card:
    """One of the 54 physical cards. Ids 0..51 are rank-major (four suits each), 52 and 53
    the small and big joker."""

    id: int

    def __post_init__(self) -> None:
        if not 0 <= self.id < 54:
            raise ValueError(f"card id {self.id} is not in 0..53")

    @property
    def rank(self) -> Rank:
        return card_rank(self.id)

    @property
    def suit(self) -> str | None:
        """The suit symbol, or None for a joker."""
        return SUITS[self.id % 4] if self.id < 52 else None

    def __str__(self) -> str:
        suit = self.suit
        return f"{suit}{self.rank.text}" if suit else self.rank.text


DECK_SIZE = 54


def card_rank(card_id: int) -> Rank:
    """The rank of a physical card id."""
    if card_id >= 52:
        return Rank.SMALL_JOKER if card_id == 52 else Rank.BIG_JOKER
    return RANKS[card_id // 4]


def full_deck() -> list[int]:
    """The 54 card ids in order; shuffle a copy to deal."""
    return list(range(DECK_SIZE))


def ranks_of(card_ids: Iterable[int]) -> list[Rank]:
    """Sorted ranks of some physical cards."""
    return sorted(card_rank(c) for c in card_ids)


def rank_counts(ranks: Iterable[Rank]) -> list[int]:
    """A 15-slot list: how many cards of each rank, indexed by ``Rank.index``."""
    counts = [0] * 15
    for r in ranks:
        counts[r - 3] += 1
    return counts


class CardTextError(ValueError):
    """Text that does not spell cards; the message says where and why."""


_SINGLE_CHAR = {
    **{str(v): Rank(v) for v in range(3, 10)},
    "T": Rank.TEN,
    "J": Rank.JACK,
    "Q": Rank.QUEEN,
    "K": Rank.KING,
    "A": Rank.ACE,
    "2": Rank.TWO,
}
_SEPARATORS = " ,\t"


def _read_rank(text: str, i: int) -> tuple[Rank, int]:
    """Read one rank token at ``text[i]`` (upper case); return it and the next position."""
    ch = text[i]
    pair = text[i : i + 2]
    if pair == "10":
        return Rank.TEN, i + 2
    if pair == "SJ":
        return Rank.SMALL_JOKER, i + 2
    if pair == "BJ":
        return Rank.BIG_JOKER, i + 2
    if ch in _SINGLE_CHAR:
        return _SINGLE_CHAR[ch], i + 1
    if ch == "1":
        raise CardTextError(f"'1' at position {i + 1} must be part of '10'")
    if ch in "SB":
        raise CardTextError(f"'{ch}' at position {i + 1} must be followed by 'J' (SJ, BJ)")
    raise CardTextError(f"'{text[i]}' at position {i + 1} is not a card rank")


def parse_cards(text: str) -> list[Rank]:
    """Read what a person types (``333 44``, ``33344``, ``10 10 10 J``, ``TTTJ``, ``sj bj``,
    ``3-7`` for one card of each rank from 3 to 7) and return the ranks sorted.

    Raises CardTextError for text that is empty, spells no rank, has more cards of a rank
    than a deck holds, or a range outside 3..A.
    """
    upper = text.upper()
    ranks: list[Rank] = []
    i = 0
    while i < len(upper):
        if upper[i] in _SEPARATORS:
            i += 1
            continue
        if upper[i] == "-":
            if not ranks or i + 1 >= len(upper) or upper[i + 1] in _SEPARATORS:
                raise CardTextError(f"'-' at position {i + 1} needs a rank on each side")
            low = ranks[-1]
            high, i = _read_rank(upper, i + 1)
            if not (Rank.THREE <= low < high <= Rank.ACE):
                raise CardTextError(f"range {low}-{high} must rise within 3..A")
            ranks.extend(Rank(v) for v in range(low + 1, high + 1))
            continue
        rank, i = _read_rank(upper, i)
        ranks.append(rank)
    if not ranks:
        raise CardTextError("no cards given")
    for rank, n in Counter(ranks).items():
        limit = 1 if rank in JOKERS else 4
        if n > limit:
            raise CardTextError(f"{n} cards of rank {rank}, but a deck has {limit}")
    return sorted(ranks)


def format_cards(ranks: Iterable[Rank]) -> str:
    """Sorted ranks as text, grouped by rank: ``333 44``, ``10 10 J``, ``SJ BJ``.

    ``parse_cards(format_cards(x)) == sorted(x)`` for any non-empty list of ranks.
    """
    groups: list[str] = []
    for rank, n in sorted(Counter(ranks).items()):
        sep = " " if rank is Rank.TEN or rank in JOKERS else ""
        groups.append(sep.join([rank.text] * n))
    return " ".join(groups)


def format_hand(card_ids: Iterable[int]) -> str:
    """Physical cards with suits, sorted by rank: ``♠3 ♥3 ♦10 SJ``."""
    return " ".join(str(Card(c)) for c in sorted(card_ids))
