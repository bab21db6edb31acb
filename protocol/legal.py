"""Every play a hand can make (SPEC sections 4 and 5), for hints, bots and the server.

Plays are generated per kind straight from the hand's rank counts, kickers as multisets, so
each distinct play comes out exactly once and no candidate is classified after the fact. When
a play is to be beaten only that kind and size is generated, plus bombs and the rocket.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from protocol.cards import RANKS, Rank, rank_counts
from protocol.plays import ACE_INDEX, BJ_INDEX, KIND_ORDER, SJ_INDEX, Kind, Play

#: Longest chains a 20-card hand can hold, by kind.
MAX_STRAIGHT = 12
MAX_PAIR_CHAIN = 10
MAX_AIRPLANE = 6
MAX_AIRPLANE_SINGLES = 5
MAX_AIRPLANE_PAIRS = 4

_CHAIN_INDICES = range(ACE_INDEX + 1)


def _single_kickers(
    counts: list[int], banned: range | int, n: int, first: int = 0
) -> Iterator[tuple[int, ...]]:
    """Multisets of ``n`` single kickers: ranks outside ``banned``, at most two of a rank,
    never both jokers; in ascending order."""
    if n == 0:
        yield ()
        return
    for i in range(first, 15):
        if i == banned if isinstance(banned, int) else i in banned:
            continue
        c = counts[i]
        if c == 0:
            continue
        for rest in _single_kickers(counts, banned, n - 1, i + 1):
            if i == SJ_INDEX and rest and rest[-1] == BJ_INDEX:
                continue
            yield (i, *rest)
        if c >= 2 and n >= 2:
            for rest in _single_kickers(counts, banned, n - 2, i + 1):
                yield (i, i, *rest)


def _pair_kickers(
    counts: list[int], banned: range | int, n: int, first: int = 0
) -> Iterator[tuple[int, ...]]:
    """Sets of ``n`` kicker pairs of distinct ranks outside ``banned`` (jokers never pair)."""
    if n == 0:
        yield ()
        return
    for i in range(first, SJ_INDEX):
        if counts[i] >= 2 and not (i == banned if isinstance(banned, int) else i in banned):
            for rest in _pair_kickers(counts, banned, n - 1, i + 1):
                yield (i, i, *rest)


def _make(kind: Kind, main: int, main_cards: tuple[int, ...], kickers: tuple[int, ...]) -> Play:
    cards = (
        tuple(RANKS[i] for i in sorted(main_cards + kickers))
        if kickers
        else tuple(RANKS[i] for i in main_cards)
    )
    return Play(kind, RANKS[main], cards)


def _chains(counts: list[int], width: int, length: int, above: int) -> Iterator[int]:
    """Start indices of runs of ``length`` ranks within 3..A holding ``width`` cards each,
    starting above index ``above``."""
    for start in range(above + 1, ACE_INDEX + 2 - length):
        if all(counts[i] >= width for i in range(start, start + length)):
            yield start


def _of_kind(counts: list[int], kind: Kind, size: int, above: int) -> Iterator[Play]:
    """Plays of one kind and card count whose main rank index is above ``above``."""
    if kind is Kind.SINGLE:
        for i in range(above + 1, 15):
            if counts[i]:
                yield _make(kind, i, (i,), ())
    elif kind is Kind.PAIR or kind is Kind.TRIPLE:
        width = 2 if kind is Kind.PAIR else 3
        for i in range(above + 1, SJ_INDEX):
            if counts[i] >= width:
                yield _make(kind, i, (i,) * width, ())
    elif kind is Kind.TRIPLE_SINGLE or kind is Kind.TRIPLE_PAIR:
        kickers = _single_kickers if kind is Kind.TRIPLE_SINGLE else _pair_kickers
        for i in range(above + 1, SJ_INDEX):
            if counts[i] >= 3:
                for kick in kickers(counts, i, 1):
                    yield _make(kind, i, (i, i, i), kick)
    elif kind is Kind.STRAIGHT or kind is Kind.PAIR_CHAIN or kind is Kind.AIRPLANE:
        width = {Kind.STRAIGHT: 1, Kind.PAIR_CHAIN: 2, Kind.AIRPLANE: 3}[kind]
        length = size // width
        for s in _chains(counts, width, length, above):
            yield _make(kind, s, tuple(i for i in range(s, s + length) for _ in range(width)), ())
    elif kind is Kind.AIRPLANE_SINGLES or kind is Kind.AIRPLANE_PAIRS:
        per = 4 if kind is Kind.AIRPLANE_SINGLES else 5
        kickers = _single_kickers if kind is Kind.AIRPLANE_SINGLES else _pair_kickers
        length = size // per
        for s in _chains(counts, 3, length, above):
            main = range(s, s + length)
            main_cards = tuple(i for i in main for _ in range(3))
            for kick in kickers(counts, main, length):
                yield _make(kind, s, main_cards, kick)
    elif kind is Kind.FOUR_TWO_SINGLES or kind is Kind.FOUR_TWO_PAIRS:
        kickers = _single_kickers if kind is Kind.FOUR_TWO_SINGLES else _pair_kickers
        for i in range(above + 1, SJ_INDEX):
            if counts[i] == 4:
                for kick in kickers(counts, i, 2):
                    yield _make(kind, i, (i, i, i, i), kick)
    elif kind is Kind.BOMB:
        for i in range(above + 1, SJ_INDEX):
            if counts[i] == 4:
                yield _make(kind, i, (i, i, i, i), ())
    elif kind is Kind.ROCKET and counts[SJ_INDEX] and counts[BJ_INDEX]:
        yield _make(kind, SJ_INDEX, (SJ_INDEX, BJ_INDEX), ())


#: (kind, card counts) of every ordinary shape a lead may take.
_LEAD_SHAPES: tuple[tuple[Kind, tuple[int, ...]], ...] = (
    (Kind.SINGLE, (1,)),
    (Kind.PAIR, (2,)),
    (Kind.TRIPLE, (3,)),
    (Kind.TRIPLE_SINGLE, (4,)),
    (Kind.TRIPLE_PAIR, (5,)),
    (Kind.STRAIGHT, tuple(range(5, MAX_STRAIGHT + 1))),
    (Kind.PAIR_CHAIN, tuple(2 * n for n in range(3, MAX_PAIR_CHAIN + 1))),
    (Kind.AIRPLANE, tuple(3 * n for n in range(2, MAX_AIRPLANE + 1))),
    (Kind.AIRPLANE_SINGLES, tuple(4 * n for n in range(2, MAX_AIRPLANE_SINGLES + 1))),
    (Kind.AIRPLANE_PAIRS, tuple(5 * n for n in range(2, MAX_AIRPLANE_PAIRS + 1))),
    (Kind.FOUR_TWO_SINGLES, (6,)),
    (Kind.FOUR_TWO_PAIRS, (8,)),
)


def hint_order(play: Play) -> tuple[int, int, int, int, tuple[Rank, ...]]:
    """Sort key for a hint button: ordinary plays from the smallest main rank up (then by kind,
    size and kickers), then bombs from the smallest, then the rocket."""
    group = 2 if play.kind is Kind.ROCKET else 1 if play.kind is Kind.BOMB else 0
    return (group, play.rank, KIND_ORDER[play.kind], len(play.cards), play.cards)


def legal_plays(hand: Iterable[Rank], to_beat: Play | None = None) -> list[Play]:
    """Every distinct play ``hand`` can make that beats ``to_beat`` (any play when None),
    in hint order: ordinary plays from the smallest up, then bombs, then the rocket."""
    counts = rank_counts(hand)
    total = sum(counts)
    plays: list[Play] = []
    if to_beat is None:
        for kind, sizes in _LEAD_SHAPES:
            for size in sizes:
                if size > total:
                    break
                plays.extend(_of_kind(counts, kind, size, -1))
        plays.extend(_of_kind(counts, Kind.BOMB, 4, -1))
    elif to_beat.kind is Kind.ROCKET:
        return []
    elif to_beat.kind is Kind.BOMB:
        plays.extend(_of_kind(counts, Kind.BOMB, 4, to_beat.rank.index))
    else:
        size = len(to_beat.cards)
        if size <= total:
            plays.extend(_of_kind(counts, to_beat.kind, size, to_beat.rank.index))
        plays.extend(_of_kind(counts, Kind.BOMB, 4, -1))
    plays.extend(_of_kind(counts, Kind.ROCKET, 2, -1))
    plays.sort(key=hint_order)
    return plays
