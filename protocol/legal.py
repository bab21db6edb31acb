"""Every play a hand can make (SPEC sections 4 and 5), for hints, bots and the server.

Plays are generated per kind straight from the hand's rank counts, kickers as multisets, so
each distinct play comes out exactly once and no candidate is classified after the fact. When
a play is to be beaten only that kind and size is generated, plus bombs and the rocket.

For speed (``benchmarks/legal_plays.py``) the generators make ints, not plays: each play is
known by an int that sorts as ``hint_order`` does, so the result is one int sort and a lookup.
Each play is built once and kept: those without kickers and the triples with one at import
(550 of them), the others the first time a hand holds them, so that the cache holds at most
one of each play there is (24,639 of at most 20 cards). ``legal_plays_from_counts`` is the
same generator for callers that keep a hand as rank counts (the bots' searches), and the plays
it returns are those kept objects: the same object each time, for the life of the process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import NamedTuple

from protocol.cards import DECK_SIZE, RANKS, Rank, rank_counts
from protocol.plays import ACE_INDEX, BJ_INDEX, KIND_ORDER, SJ_INDEX, Kind, Play

#: Longest chains a 20-card hand can hold, by kind.
MAX_STRAIGHT = 12
MAX_PAIR_CHAIN = 10
MAX_AIRPLANE = 6
MAX_AIRPLANE_SINGLES = 5
MAX_AIRPLANE_PAIRS = 4

#: Sort keys have room for plays of this many cards: any that one deck can hold.
_KEY_CARDS = DECK_SIZE
#: Chains start at an index below this (3..A).
_CHAIN_END = ACE_INDEX + 1
#: Ranks that pair (and triple and bomb): 3..2, not the jokers.
_PAIRABLE = range(SJ_INDEX)


def hint_order(play: Play) -> tuple[int, int, int, int, tuple[Rank, ...]]:
    """Sort key for a hint button: ordinary plays from the smallest main rank up (then by kind,
    size and kickers), then bombs from the smallest, then the rocket."""
    group = 2 if play.kind is Kind.ROCKET else 1 if play.kind is Kind.BOMB else 0
    return (group, play.rank, KIND_ORDER[play.kind], len(play.cards), play.cards)


#: ``hint_order``'s first two fields, by kind: (group, kind order).
_GROUP_ORDER = {
    kind: (2 if kind is Kind.ROCKET else 1 if kind is Kind.BOMB else 0, KIND_ORDER[kind])
    for kind in Kind
}

#: Every play made so far, by its sort key.
_PLAYS: dict[int, Play] = {}


def _register(kind: Kind, main: int, cards: Iterable[int]) -> int:
    """Make a play from rank indices, keep it, and return its sort key: ``hint_order`` packed
    into one int, 4 bits a rank and the cards padded to the same length, so that the ints
    compare as the tuples do and distinct plays get distinct ints."""
    indices = sorted(cards)
    n = len(indices)
    group, order = _GROUP_ORDER[kind]
    key = ((group * 16 + main) * 16 + order) * 64 + n
    for i in indices:
        key = key * 16 + i
    key <<= 4 * (_KEY_CARDS - n)
    _PLAYS[key] = Play(kind, RANKS[main], tuple([RANKS[i] for i in indices]))
    return key


_SINGLE = [_register(Kind.SINGLE, i, (i,)) for i in range(15)]
_PAIR = [_register(Kind.PAIR, i, (i, i)) for i in _PAIRABLE]
_TRIPLE = [_register(Kind.TRIPLE, i, (i,) * 3) for i in _PAIRABLE]
_BOMB = [_register(Kind.BOMB, i, (i,) * 4) for i in _PAIRABLE]
_ROCKET = _register(Kind.ROCKET, SJ_INDEX, (SJ_INDEX, BJ_INDEX))
#: ``_TRIPLE_SINGLE[i][j]``: triple of index i with single j (-1 where j == i).
_TRIPLE_SINGLE = [
    [-1 if j == i else _register(Kind.TRIPLE_SINGLE, i, (i, i, i, j)) for j in range(15)]
    for i in _PAIRABLE
]
#: ``_TRIPLE_PAIR[i][j]``: triple of index i with a pair of j (-1 where j == i).
_TRIPLE_PAIR = [
    [-1 if j == i else _register(Kind.TRIPLE_PAIR, i, (i, i, i, j, j)) for j in _PAIRABLE]
    for i in _PAIRABLE
]


def _chain_table(kind: Kind, width: int, shortest: int) -> list[list[int]]:
    """``table[start][length]``: the sort key of a chain of ``width`` cards a rank (-1 where
    there is none). Lengths go past the longest lead, up to A, for plays to beat that no 20
    cards hold."""
    return [
        [
            _register(kind, s, [i for i in range(s, s + n) for _ in range(width)])
            if shortest <= n and s + n <= _CHAIN_END
            else -1
            for n in range(_CHAIN_END + 1)
        ]
        for s in range(_CHAIN_END)
    ]


_STRAIGHT = _chain_table(Kind.STRAIGHT, 1, 5)
_PAIR_CHAIN = _chain_table(Kind.PAIR_CHAIN, 2, 3)
_AIRPLANE = _chain_table(Kind.AIRPLANE, 3, 2)


class _KickerKind(NamedTuple):
    """A kind with kickers, and its plays made so far: ``cache[main index][length][kickers]``
    is a sort key (length 1 for the fours)."""

    kind: Kind
    width: int
    pairs: bool
    cache: list[list[dict[tuple[int, ...], int]]]


def _kicker_kind(kind: Kind, width: int, pairs: bool) -> _KickerKind:
    return _KickerKind(kind, width, pairs, [[{} for _ in range(_CHAIN_END + 1)] for _ in _PAIRABLE])


_AIRPLANE_SINGLES = _kicker_kind(Kind.AIRPLANE_SINGLES, 3, False)
_AIRPLANE_PAIRS = _kicker_kind(Kind.AIRPLANE_PAIRS, 3, True)
_FOUR_TWO_SINGLES = _kicker_kind(Kind.FOUR_TWO_SINGLES, 4, False)
_FOUR_TWO_PAIRS = _kicker_kind(Kind.FOUR_TWO_PAIRS, 4, True)


def _single_kickers(counts: Sequence[int], lo: int, hi: int, n: int) -> Iterable[tuple[int, ...]]:
    """Multisets of ``n`` single kickers, each ascending: ranks outside ``lo..hi-1``, at most
    two of a rank, never both jokers."""
    cands: list[int] = []
    for i in range(15):
        c = counts[i]
        if c and not lo <= i < hi:
            cands.append(i)
            if c >= 2:
                cands.append(i)
    if len(cands) < n:
        return ()
    # combinations() repeats a multiset that takes one card of a doubled rank: drop those.
    kicks = dict.fromkeys(combinations(cands, n))
    if cands[-1] == BJ_INDEX and SJ_INDEX in cands:
        return [k for k in kicks if not (k[-1] == BJ_INDEX and k.count(SJ_INDEX) == 1)]
    return kicks


def _pair_kickers(counts: Sequence[int], lo: int, hi: int, n: int) -> Iterable[tuple[int, ...]]:
    """Sets of ``n`` kicker pairs (as rank indices, ascending) of distinct ranks outside
    ``lo..hi-1``; jokers never pair."""
    return combinations([i for i in _PAIRABLE if counts[i] >= 2 and not lo <= i < hi], n)


def _with_kickers(
    counts: Sequence[int], spec: _KickerKind, main: int, length: int, out: list[int]
) -> None:
    """Append the sort keys of the plays whose main part is ``length`` ranks from index
    ``main``, ``spec.width`` cards each, with every kicker set the hand allows."""
    kind, width, pairs, cache = spec
    made = cache[main][length]
    hi = main + length
    n = length * (width - 2)
    for kick in (
        _pair_kickers(counts, main, hi, n) if pairs else _single_kickers(counts, main, hi, n)
    ):
        key = made.get(kick)
        if key is None:
            cards = [i for i in range(main, hi) for _ in range(width)]
            cards.extend(kick)
            if pairs:
                cards.extend(kick)
            key = made[kick] = _register(kind, main, cards)
        out.append(key)


def _chains(counts: Sequence[int], width: int, length: int, above: int) -> list[int]:
    """Start indices, above ``above``, of the runs of ``length`` ranks within 3..A that hold
    ``width`` cards of each rank."""
    starts: list[int] = []
    run = 0
    for s in range(_CHAIN_END - 1, above, -1):
        run = run + 1 if counts[s] >= width else 0
        if run >= length:
            starts.append(s)
    return starts


def _answers(counts: Sequence[int], to_beat: Play, out: list[int]) -> None:
    """Append the sort keys of the plays of ``to_beat``'s kind and size that beat it (bombs
    and the rocket aside)."""
    kind = to_beat.kind
    above = to_beat.rank - 3
    size = len(to_beat.cards)
    if kind is Kind.SINGLE:
        out.extend([_SINGLE[i] for i in range(above + 1, 15) if counts[i]])
    elif kind is Kind.PAIR:
        out.extend([_PAIR[i] for i in range(above + 1, SJ_INDEX) if counts[i] >= 2])
    elif kind is Kind.TRIPLE:
        out.extend([_TRIPLE[i] for i in range(above + 1, SJ_INDEX) if counts[i] >= 3])
    elif kind is Kind.TRIPLE_SINGLE:
        singles = [j for j in range(15) if counts[j]]
        for i in range(above + 1, SJ_INDEX):
            if counts[i] >= 3:
                row = _TRIPLE_SINGLE[i]
                out.extend([row[j] for j in singles if j != i])
    elif kind is Kind.TRIPLE_PAIR:
        pairs = [j for j in _PAIRABLE if counts[j] >= 2]
        for i in range(above + 1, SJ_INDEX):
            if counts[i] >= 3:
                row = _TRIPLE_PAIR[i]
                out.extend([row[j] for j in pairs if j != i])
    elif kind is Kind.STRAIGHT:
        out.extend([_STRAIGHT[s][size] for s in _chains(counts, 1, size, above)])
    elif kind is Kind.PAIR_CHAIN:
        n = size // 2
        out.extend([_PAIR_CHAIN[s][n] for s in _chains(counts, 2, n, above)])
    elif kind is Kind.AIRPLANE:
        n = size // 3
        out.extend([_AIRPLANE[s][n] for s in _chains(counts, 3, n, above)])
    elif kind is Kind.AIRPLANE_SINGLES or kind is Kind.AIRPLANE_PAIRS:
        spec = _AIRPLANE_SINGLES if kind is Kind.AIRPLANE_SINGLES else _AIRPLANE_PAIRS
        n = size // (4 if kind is Kind.AIRPLANE_SINGLES else 5)
        for s in _chains(counts, 3, n, above):
            _with_kickers(counts, spec, s, n, out)
    elif kind is Kind.FOUR_TWO_SINGLES or kind is Kind.FOUR_TWO_PAIRS:
        spec = _FOUR_TWO_SINGLES if kind is Kind.FOUR_TWO_SINGLES else _FOUR_TWO_PAIRS
        for i in range(above + 1, SJ_INDEX):
            if counts[i] == 4:
                _with_kickers(counts, spec, i, 1, out)


def _lead(counts: Sequence[int], out: list[int]) -> None:
    """Append the sort keys of every play the hand may lead."""
    singles = [i for i in range(15) if counts[i]]
    pairs = [i for i in singles if i < SJ_INDEX and counts[i] >= 2]
    triples = [i for i in pairs if counts[i] >= 3]
    out.extend([_SINGLE[i] for i in singles])
    out.extend([_PAIR[i] for i in pairs])
    out.extend([_TRIPLE[i] for i in triples])
    for i in triples:
        row = _TRIPLE_SINGLE[i]
        out.extend([row[j] for j in singles if j != i])
        row = _TRIPLE_PAIR[i]
        out.extend([row[j] for j in pairs if j != i])
        if counts[i] == 4:
            _with_kickers(counts, _FOUR_TWO_SINGLES, i, 1, out)
            _with_kickers(counts, _FOUR_TWO_PAIRS, i, 1, out)
            out.append(_BOMB[i])
    if counts[SJ_INDEX] and counts[BJ_INDEX]:
        out.append(_ROCKET)
    # Chains: run1[s], run2[s], run3[s] = ranks from s on holding 1, 2, 3 cards each.
    run1 = run2 = run3 = 0
    for s in range(_CHAIN_END - 1, -1, -1):
        c = counts[s]
        if not c:
            run1 = run2 = run3 = 0
            continue
        run1 += 1
        if run1 >= 5:
            out.extend(_STRAIGHT[s][5 : min(run1, MAX_STRAIGHT) + 1])
        if c < 2:
            run2 = run3 = 0
            continue
        run2 += 1
        if run2 >= 3:
            out.extend(_PAIR_CHAIN[s][3 : min(run2, MAX_PAIR_CHAIN) + 1])
        if c < 3:
            run3 = 0
            continue
        run3 += 1
        if run3 >= 2:
            out.extend(_AIRPLANE[s][2 : min(run3, MAX_AIRPLANE) + 1])
            for n in range(2, min(run3, MAX_AIRPLANE_SINGLES) + 1):
                _with_kickers(counts, _AIRPLANE_SINGLES, s, n, out)
            for n in range(2, min(run3, MAX_AIRPLANE_PAIRS) + 1):
                _with_kickers(counts, _AIRPLANE_PAIRS, s, n, out)


def legal_plays(hand: Iterable[Rank], to_beat: Play | None = None) -> list[Play]:
    """Every distinct play ``hand`` can make that beats ``to_beat`` (any play when None),
    in hint order: ordinary plays from the smallest up, then bombs, then the rocket."""
    return legal_plays_from_counts(rank_counts(hand), to_beat)


def legal_plays_from_counts(counts: Sequence[int], to_beat: Play | None = None) -> list[Play]:
    """``legal_plays`` for a hand given as its rank counts (15 slots in ``Rank.index`` order,
    3 first, the big joker last), for searches that keep hands that way.

    The plays returned are kept for the life of the process: a play is the same object
    every time it is returned, so a caller may key a cache on its identity."""
    keys: list[int] = []
    if to_beat is None:
        _lead(counts, keys)
    elif to_beat.kind is Kind.ROCKET:
        return []
    else:
        above = -1
        if to_beat.kind is Kind.BOMB:
            above = to_beat.rank - 3
        else:
            _answers(counts, to_beat, keys)
        keys.extend([_BOMB[i] for i in range(above + 1, SJ_INDEX) if counts[i] == 4])
        if counts[SJ_INDEX] and counts[BJ_INDEX]:
            keys.append(_ROCKET)
    keys.sort()
    return list(map(_PLAYS.__getitem__, keys))
