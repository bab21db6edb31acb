"""Moves the search may leave out because another move of the same seat is at least as good.

Call a rank k of a hand *lone* when the hand holds exactly one card of it, it is no joker,
and no straight can hold it (the hand's run of ranks around k, within 3..A, is shorter than
5); a lone card can only ever be played as a single or as a single kicker. Likewise a *lone
pair*: exactly two cards, no joker, no straight and no pair chain through it.

Take two lone cards k1 < k2 of the seat to move. A hand that holds k2 where another holds k1
(all else equal) is at least as good: whatever the seat can do later with k1 it can do with
k2 (a higher single beats all that a lower one beats, a kicker's rank never counts), and the
others then face a table no easier to beat. For a farmer one more thing must hold: the
partner, who might want to take the lead over that single, holds no card from k1 (excluded)
to k2 (included), so the partner's choices are the same. Hence:

- *Kickers*: a play taking k2 as a kicker while k1 stays in the hand is never better than
  the same play (same kind and main rank: the same table for everyone) with k1 instead. So
  only plays whose lone kickers are the lowest ones (below the next of the partner's ranks,
  for a farmer) are searched. Lone pairs as kicker pairs alike.
- *Singles and pairs*: a single k2 and a single k1 make the same table when neither other
  hand holds a card from k1 (excluded) to k2 (included): every answer to one is an answer to
  the other. Playing k1 keeps k2, so the single k2 is never better; of the lone cards in one
  such stretch only the lowest is played as a single. Lone pairs alike.

A dominated move is never better than the one kept, so the position's value is the same with
or without it (the tests compare the search with a plain minimax). The root of a solve, which
lists every winning move, still tries them all.
"""

from __future__ import annotations

from protocol.plays import KIND_ORDER, Kind
from protocol.solver.moves import (
    CACHE_LIMIT,
    DELTA,
    ID,
    KICKERS,
    MAINS,
    RANK,
    TYPE,
    Move,
    answers,
    groups,
    leads,
    unpack,
)

#: Bit 4*i set where a packed hand holds rank index i (see ``present``).
_LOW_BITS = sum(1 << (4 * i) for i in range(15))
_CHAIN_END = 12
_JOKER = 13
_SINGLE = KIND_ORDER[Kind.SINGLE]
_PAIR = KIND_ORDER[Kind.PAIR]
_PAIR_KICKERS = frozenset({KIND_ORDER[Kind.AIRPLANE_PAIRS], KIND_ORDER[Kind.FOUR_TWO_PAIRS]})

_LONE: dict[int, tuple[frozenset[int], frozenset[int], int]] = {}
_LEAN: dict[tuple[int, int, int, int], list[Move]] = {}


def present(hand: int) -> int:
    """The ranks a packed hand holds, as a mask with bit 4*i for rank index i."""
    return (hand | hand >> 1 | hand >> 2 | hand >> 3) & _LOW_BITS


def _stretch(rank: int, mask: int) -> int:
    """How many ranks of ``mask`` are at or below ``rank``: two ranks are in one stretch
    when no rank of the mask is between them (the higher one included)."""
    return (mask & ((1 << (4 * rank + 4)) - 1)).bit_count()


def _runs(held: list[bool]) -> list[int]:
    """For each rank index below the 2, the length of the run of held ranks through it."""
    runs = [0] * _CHAIN_END
    i = 0
    while i < _CHAIN_END:
        if not held[i]:
            i += 1
            continue
        j = i
        while j < _CHAIN_END and held[j]:
            j += 1
        for k in range(i, j):
            runs[k] = j - i
        i = j
    return runs


def lone(hand: int) -> tuple[frozenset[int], frozenset[int], int]:
    """The hand's lone cards and lone pairs, as rank indices (see the module docstring), and
    the mask (as ``present``'s) of the ranks above the lowest of them up to the highest: only
    the others' ranks there can tell two of them apart."""
    found = _LONE.get(hand)
    if found is None:
        counts = unpack(hand)
        run1 = _runs([c >= 1 for c in counts])
        run2 = _runs([c >= 2 for c in counts])
        singles = frozenset(
            i for i in range(_JOKER) if counts[i] == 1 and (i >= _CHAIN_END or run1[i] < 5)
        )
        pairs = frozenset(
            i
            for i in range(_JOKER)
            if counts[i] == 2 and (i >= _CHAIN_END or (run1[i] < 5 and run2[i] < 3))
        )
        span = 0
        both = singles | pairs
        if len(both) > 1:
            for i in range(min(both) + 1, max(both) + 1):
                span |= 1 << (4 * i)
        if len(_LONE) > CACHE_LIMIT:
            _LONE.clear()
        found = _LONE[hand] = (singles, pairs, span)
    return found


def _lowest_kickers(m: Move, singles: frozenset[int], pairs: frozenset[int], partner: int) -> bool:
    """Whether each lone kicker of ``m`` is the lowest of its stretch (between the partner's
    ranks) not taken already: no lower lone rank of that stretch stays in the hand."""
    kickers = m[KICKERS]
    pool = pairs if m[TYPE] // 64 in _PAIR_KICKERS else singles
    taken = [k for k in kickers if k in pool]
    if not taken:
        return True
    mains = m[MAINS]
    used = set(taken)
    for k in taken:
        stretch = _stretch(k, partner)
        for low in pool:
            if (
                low < k
                and low not in used
                and low not in mains
                and _stretch(low, partner) == stretch
            ):
                return False
    return True


def _filter(hand: int, moves: list[Move], others: int, partner: int) -> list[Move]:
    singles, pairs, _ = lone(hand)
    if not singles and not pairs:
        return list(moves)
    # The lowest lone single (and pair) of each stretch between the others' ranks.
    lowest: dict[tuple[int, int], int] = {}
    for m in moves:
        kind = m[TYPE] // 64
        r = m[RANK]
        if (kind == _SINGLE and r in singles) or (kind == _PAIR and r in pairs):
            key = (kind, _stretch(r, others))
            if key not in lowest or r < lowest[key]:
                lowest[key] = r
    out = []
    for m in moves:
        kind = m[TYPE] // 64
        r = m[RANK]
        if (kind == _SINGLE and r in singles) or (kind == _PAIR and r in pairs):
            if lowest[(kind, _stretch(r, others))] != r:
                continue
        elif m[KICKERS] and not _lowest_kickers(m, singles, pairs, partner):
            continue
        out.append(m)
    return out


def lean(hand: int, last: Move | None, others: int, partner: int) -> list[Move]:
    """The moves of ``hand`` (leads, or answers to ``last``) less those another of them
    dominates, in the order the search tries them: a move that empties the hand first, then
    by how few plays the hand will still need (``groups``), the longest first among equals.
    ``others``: ``present`` of the other hands together; ``partner``: of the partner's hand
    (0 for a seat without one)."""
    span = lone(hand)[2]
    key = (hand, 0 if last is None else last[ID], others & span, partner & span)
    found = _LEAN.get(key)
    if found is None:
        moves = leads(hand) if last is None else answers(hand, last)
        if len(_LEAN) > CACHE_LIMIT:
            _LEAN.clear()
        kept = _filter(hand, moves, others & span, partner & span)
        kept.sort(key=lambda m: -1 if m[DELTA] == hand else groups(hand - m[DELTA]))
        found = _LEAN[key] = kept
    return found
