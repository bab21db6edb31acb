"""Hand analysis for the bots: rank counts, the split of a hand into the fewest groups, and
card counting from a seat's view.

A hand is worked on as a 15-slot tuple of rank counts (``Rank.index`` order). ``decompose``
splits it into plays ("groups") that together use every card, choosing the split of least
``cost``: each group costs about one turn, less when it is a high group that wins its trick
(a big joker costs nothing), and bombs and the rocket cost less than nothing because they take
the lead back. So the cost is roughly "tricks the hand still has to win by leading", which is
what a club player counts when he says a hand "splits into five groups".

The search tries every straight and pair chain the hand holds (recursively, memoised on the
counts), and groups what is left into singles, pairs, triples, airplanes, bombs and the rocket,
with triples and airplanes taking the cheapest singles or pairs as kickers. Results are cached
across calls, so one deal's many look-ups of nearby hands are cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from protocol.cards import RANKS, Rank, card_rank
from protocol.events import TableView
from protocol.legal import legal_plays_from_counts
from protocol.plays import ACE_INDEX, BJ_INDEX, SJ_INDEX, Kind, Play

Counts = tuple[int, ...]
"""Cards of each rank, 15 slots in ``Rank.index`` order."""

# --- what a group is worth -------------------------------------------------------------
# Strength: roughly how likely the group wins its trick when led (0: a low card anyone tops,
# 1: nothing but a bomb beats it). A group costs 1 - strength.
_SINGLE_STRENGTH = (0, 0, 0, 0, 0, 0, 0, 0, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85, 1.0)
_PAIR_STRENGTH = (0, 0, 0, 0, 0, 0, 0, 0.05, 0.15, 0.25, 0.4, 0.6, 0.9)
_TRIPLE_STRENGTH = (0, 0, 0, 0, 0, 0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.95)
BOMB_COST = -0.4
ROCKET_COST = -0.5

SINGLE_COST = tuple(1.0 - s for s in _SINGLE_STRENGTH)
PAIR_COST = tuple(1.0 - s for s in _PAIR_STRENGTH)
TRIPLE_COST = tuple(1.0 - s for s in _TRIPLE_STRENGTH)


def chain_cost(width: int, start: int, length: int) -> float:
    """Cost of a straight (width 1), pair chain (2) or airplane (3): chains are answered
    less often than short plays, and one that ends near the ace hardly ever."""
    end = start + length - 1
    base = (0.15, 0.3, 0.5)[width - 1]
    strength = base + 0.1 * (end - 7) + 0.03 * (length - 5 + width)
    return 1.0 - min(0.95, max(0.05, strength))


def group_cost(play: Play) -> float:
    """The cost of one group (see the module doc): about 1 for a low group, less for a high
    one, below 0 for bombs and the rocket."""
    i = play.rank.index
    kind = play.kind
    if kind is Kind.SINGLE:
        return SINGLE_COST[i]
    if kind is Kind.PAIR:
        return PAIR_COST[i]
    if kind in (Kind.TRIPLE, Kind.TRIPLE_SINGLE, Kind.TRIPLE_PAIR):
        return TRIPLE_COST[i]
    if kind is Kind.BOMB:
        return BOMB_COST
    if kind is Kind.ROCKET:
        return ROCKET_COST
    if kind is Kind.STRAIGHT:
        return chain_cost(1, i, len(play.cards))
    if kind is Kind.PAIR_CHAIN:
        return chain_cost(2, i, len(play.cards) // 2)
    if kind is Kind.AIRPLANE:
        return chain_cost(3, i, len(play.cards) // 3)
    if kind is Kind.AIRPLANE_SINGLES:
        return chain_cost(3, i, len(play.cards) // 4)
    if kind is Kind.AIRPLANE_PAIRS:
        return chain_cost(3, i, len(play.cards) // 5)
    return 0.8  # four with two: it gives up a bomb; rarely chosen by the split


# --- counts ----------------------------------------------------------------------------


def counts_of(ranks: Iterable[Rank]) -> Counts:
    """Rank counts of some ranks."""
    counts = [0] * 15
    for r in ranks:
        counts[r - 3] += 1
    return tuple(counts)


def minus(counts: Counts, ranks: Iterable[Rank]) -> Counts:
    """Counts with these ranks taken out (they must be there)."""
    out = list(counts)
    for r in ranks:
        out[r - 3] -= 1
    return tuple(out)


# --- the split -------------------------------------------------------------------------

Chain = tuple[int, int, int]
"""(width, start index, length): a straight, pair chain or airplane part."""

_MEMO: dict[Counts, tuple[float, tuple[Chain, ...]]] = {}
_MEMO_LIMIT = 400_000
#: ``chain_cost`` of every chain a hand can hold, by (width, start, length).
_CHAIN_COST = {
    (width, start, length): chain_cost(width, start, length)
    for width in (1, 2, 3)
    for start in range(ACE_INDEX + 1)
    for length in range(1, ACE_INDEX + 2 - start)
}


class _Unit(NamedTuple):
    """Consecutive triples (one, or an airplane) and the kickers they take: rank indices,
    each a single (``width`` 1) or a pair (2); no kickers when ``width`` is 0."""

    start: int
    length: int
    width: int
    kickers: tuple[int, ...]


class _BaseSplit(NamedTuple):
    """The split of a hand with no straights or pair chains taken out, as rank indices."""

    bombs: list[int]
    rocket: bool
    units: list[_Unit]
    pairs: list[int]
    singles: list[int]


def _base_split(counts: Counts) -> _BaseSplit:
    """Rocket, bombs, triples (consecutive ones joined into airplanes) with the cheapest
    kickers worth taking, pairs and singles."""
    bombs: list[int] = []
    singles: list[int] = []
    pairs: list[int] = []
    triples: list[int] = []
    for i in range(15):
        c = counts[i]
        if c == 1:
            singles.append(i)
        elif c == 2:
            pairs.append(i)
        elif c == 3:
            triples.append(i)
        elif c == 4:
            bombs.append(i)
    rocket = bool(counts[SJ_INDEX] and counts[BJ_INDEX])
    if rocket:
        singles = singles[:-2]
    # Join consecutive triples (within 3..A) into airplanes: [start, length].
    runs: list[list[int]] = []
    for i in triples:
        if runs and i <= ACE_INDEX and runs[-1][0] + runs[-1][1] == i:
            runs[-1][1] += 1
        else:
            runs.append([i, 1])
    # Kickers: the highest units first take the lowest singles or pairs worth attaching.
    units: list[_Unit] = []
    for start, length in reversed(runs):
        s_gain = sum(SINGLE_COST[i] for i in singles[:length]) if len(singles) >= length else -1
        p_gain = sum(PAIR_COST[i] for i in pairs[:length]) if len(pairs) >= length else -1
        if max(s_gain, p_gain) > 0.25 * length:
            if s_gain >= p_gain:
                kick, singles = singles[:length], singles[length:]
                units.append(_Unit(start, length, 1, tuple(kick)))
            else:
                kick, pairs = pairs[:length], pairs[length:]
                units.append(_Unit(start, length, 2, tuple(kick)))
        else:
            units.append(_Unit(start, length, 0, ()))
    return _BaseSplit(bombs, rocket, units, pairs, singles)


def _base_cost(counts: Counts) -> float:
    """The cost of ``_base_split``'s groups."""
    split = _base_split(counts)
    cost = 0.0
    for _ in split.bombs:
        cost += BOMB_COST
    if split.rocket:
        cost += ROCKET_COST
    for unit in split.units:
        length = unit.length
        cost += TRIPLE_COST[unit.start] if length == 1 else _CHAIN_COST[(3, unit.start, length)]
    for i in split.pairs:
        cost += PAIR_COST[i]
    for i in split.singles:
        cost += SINGLE_COST[i]
    return cost


_UNIT_KINDS = {
    (1, 0): Kind.TRIPLE,
    (1, 1): Kind.TRIPLE_SINGLE,
    (1, 2): Kind.TRIPLE_PAIR,
    (2, 0): Kind.AIRPLANE,
    (2, 1): Kind.AIRPLANE_SINGLES,
    (2, 2): Kind.AIRPLANE_PAIRS,
}


def _base_groups(counts: Counts) -> list[Play]:
    """``_base_split``'s groups as plays."""
    split = _base_split(counts)
    groups = [Play(Kind.BOMB, RANKS[i], (RANKS[i],) * 4) for i in split.bombs]
    if split.rocket:
        groups.append(Play(Kind.ROCKET, Rank.SMALL_JOKER, (Rank.SMALL_JOKER, Rank.BIG_JOKER)))
    for start, length, width, kickers in split.units:
        main = [RANKS[start + k] for k in range(length) for _ in range(3)]
        kicks = [RANKS[i] for i in kickers for _ in range(width)]
        kind = _UNIT_KINDS[(min(length, 2), width)]
        cards = tuple(sorted(main + kicks)) if kicks else tuple(main)
        groups.append(Play(kind, RANKS[start], cards))
    groups.extend(Play(Kind.PAIR, RANKS[i], (RANKS[i], RANKS[i])) for i in split.pairs)
    groups.extend(Play(Kind.SINGLE, RANKS[i], (RANKS[i],)) for i in split.singles)
    return groups


def _search(counts: Counts) -> tuple[float, tuple[Chain, ...]]:
    """Least cost of a split and the chains it takes out (memoised): every straight (5+)
    and pair chain (3+) the counts hold is tried, and the rest goes to the base split
    (which joins consecutive triples into airplanes by itself)."""
    found = _MEMO.get(counts)
    if found is not None:
        return found
    best: tuple[float, tuple[Chain, ...]] = (_base_cost(counts), ())
    for width, shortest in ((1, 5), (2, 3)):
        run = 0
        for i in range(ACE_INDEX, -1, -1):
            run = run + 1 if counts[i] >= width else 0
            for length in range(shortest, run + 1):
                rest = list(counts)
                for j in range(i, i + length):
                    rest[j] -= width
                sub_cost, sub_chains = _search(tuple(rest))
                total = sub_cost + _CHAIN_COST[(width, i, length)]
                if total < best[0] - 1e-9:
                    best = (total, ((width, i, length), *sub_chains))
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[counts] = best
    return best


def hand_cost(counts: Counts) -> float:
    """The cost of the hand's best split (0 for an empty hand)."""
    return _search(counts)[0]


def decompose(counts: Counts) -> list[Play]:
    """The hand's best split into groups (plays), which together use every card."""
    rest = counts
    groups: list[Play] = []
    kinds = {1: Kind.STRAIGHT, 2: Kind.PAIR_CHAIN}
    for width, start, length in _search(counts)[1]:
        cards = tuple(RANKS[i] for i in range(start, start + length) for _ in range(width))
        groups.append(Play(kinds[width], RANKS[start], cards))
        rest = minus(rest, cards)
    groups.extend(_base_groups(rest))
    return groups


# --- what a seat knows -----------------------------------------------------------------

FULL_DECK: Counts = tuple([4] * 13 + [1, 1])


def outstanding(view: TableView) -> Counts:
    """The cards this seat cannot see: not in its hand and not yet played (the kitty, once
    shown, is in the landlord's hand or played, so it needs no extra care)."""
    left = list(FULL_DECK)
    for c in view.hand or ():
        left[card_rank(c) - 3] -= 1
    for p in view.plays:
        for c in p.cards:
            left[card_rank(c) - 3] -= 1
    return tuple(left)


def can_be_beaten(play: Play, unseen: Counts, max_cards: int) -> bool:
    """Whether some seat holding at most ``max_cards`` of the ``unseen`` cards could beat
    ``play`` without a bomb or the rocket."""
    if play.is_bomb_like or len(play.cards) > max_cards:
        return False
    answers = legal_plays_from_counts(unseen, play)
    return any(not a.is_bomb_like and len(a.cards) <= max_cards for a in answers)


__all__ = [
    "BOMB_COST",
    "FULL_DECK",
    "ROCKET_COST",
    "Counts",
    "can_be_beaten",
    "counts_of",
    "decompose",
    "group_cost",
    "hand_cost",
    "minus",
    "outstanding",
]
