"""Hands packed into one int and the plays a packed hand can make, for the solver's search.

A hand is an int with 4 bits a rank (``Rank.index`` 0..14, the 3 in the lowest bits), so
taking a play out of a hand is one subtraction and a hand is its own hash key. A play is
a ``Move``: a tuple made once per play and kept for the life of the process, read by index
in the search (``DELTA`` .. ``PLAY``). Which plays a hand can lead, and which of them beat a
given play, are worked out once per hand (``leads``, ``answers``) from ``protocol.legal``,
so the solver follows the same rules as the server by construction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from protocol.cards import Rank
from protocol.legal import legal_plays_from_counts
from protocol.plays import KIND_ORDER, Kind, Play

#: A solver move: (delta, id, type, rank, bomb, size, play, kickers, main ranks); see the
#: index names below.
Move = tuple[int, int, int, int, int, int, Play, tuple[int, ...], tuple[int, ...]]
#: The packed counts the play takes out of a hand.
DELTA: Final = 0
#: A small int naming the play (1 and up; 0 stands for "no play to beat").
ID: Final = 1
#: Kind and size in one int: an ordinary play beats only plays of its own type.
TYPE: Final = 2
#: The main rank index.
RANK: Final = 3
#: -1 for ordinary plays, the rank index for bombs, ``ROCKET_BOMB`` for the rocket.
BOMB: Final = 4
#: How many cards the play takes.
SIZE: Final = 5
#: The ``protocol.plays.Play`` itself.
PLAY: Final = 6
#: The kicker cards' rank indices, one per card, ascending (empty for kinds without).
KICKERS: Final = 7
#: The main part's rank indices (the triples or the four of a kind with kickers).
MAINS: Final = 8
ROCKET_BOMB = 99
_MAIN_COUNT = {
    Kind.TRIPLE_SINGLE: 3,
    Kind.TRIPLE_PAIR: 3,
    Kind.AIRPLANE_SINGLES: 3,
    Kind.AIRPLANE_PAIRS: 3,
    Kind.FOUR_TWO_SINGLES: 4,
    Kind.FOUR_TWO_PAIRS: 4,
}

_BY_PLAY: dict[int, Move] = {}
#: Kept caches are cleared past this many entries, so a long-lived process stays bounded.
CACHE_LIMIT = 400_000
_LEADS: dict[int, list[Move]] = {}
_ANSWERS: dict[tuple[int, int], list[Move]] = {}


def pack(counts: Sequence[int]) -> int:
    """15 rank counts (``Rank.index`` order) as one int."""
    h = 0
    for i in range(14, -1, -1):
        h = (h << 4) | counts[i]
    return h


def unpack(hand: int) -> list[int]:
    """A packed hand's 15 rank counts."""
    return [(hand >> (4 * i)) & 15 for i in range(15)]


def pack_ranks(ranks: Iterable[Rank]) -> int:
    """The packed hand of some ranks."""
    h = 0
    for r in ranks:
        h += 1 << (4 * (r - 3))
    return h


def size(hand: int) -> int:
    """How many cards a packed hand holds."""
    return sum(unpack(hand))


def move(play: Play) -> Move:
    """The solver move of a play kept by ``protocol.legal`` (or equal to one)."""
    found = _BY_PLAY.get(id(play))
    if found is not None and found[PLAY] is play:
        return found
    delta = pack_ranks(play.cards)
    for kept in legal_plays_from_counts(unpack(delta)):
        if kept == play:
            return _make(kept)
    raise ValueError(f"{play!r} is not a play")


def _make(play: Play) -> Move:
    found = _BY_PLAY.get(id(play))
    if found is None:
        kind = play.kind
        bomb = -1
        if kind is Kind.BOMB:
            bomb = play.rank - 3
        elif kind is Kind.ROCKET:
            bomb = ROCKET_BOMB
        n = len(play.cards)
        kickers: tuple[int, ...] = ()
        mains: tuple[int, ...] = ()
        width = _MAIN_COUNT.get(kind)
        if width is not None:
            main_count = {Kind.AIRPLANE_SINGLES: n // 4, Kind.AIRPLANE_PAIRS: n // 5}.get(kind, 1)
            mains = tuple(range(play.rank - 3, play.rank - 3 + main_count))
            kickers = tuple(r - 3 for r in play.cards if r - 3 not in mains)
        found = (
            pack_ranks(play.cards),
            len(_BY_PLAY) + 1,
            KIND_ORDER[kind] * 64 + n,
            play.rank - 3,
            bomb,
            n,
            play,
            kickers,
            mains,
        )
        _BY_PLAY[id(play)] = found
    return found


def leads(hand: int) -> list[Move]:
    """Every play the hand may lead, the longest first."""
    found = _LEADS.get(hand)
    if found is None:
        if len(_LEADS) > CACHE_LIMIT:
            _LEADS.clear()
        found = [_make(p) for p in legal_plays_from_counts(unpack(hand))]
        found.sort(key=lambda m: -m[SIZE])
        _LEADS[hand] = found
    return found


def beats(m: Move, other: Move) -> bool:
    """Whether ``m`` may answer ``other`` (SPEC section 5, as ``Play.beats``)."""
    if other[BOMB] == ROCKET_BOMB:
        return False
    if m[BOMB] >= 0:
        return m[BOMB] > other[BOMB]
    return m[TYPE] == other[TYPE] and m[RANK] > other[RANK]


def answers(hand: int, other: Move) -> list[Move]:
    """The hand's plays that beat ``other``, the longest first (ordinary ones before bombs)."""
    key = (hand, other[ID])
    found = _ANSWERS.get(key)
    if found is None:
        if len(_ANSWERS) > CACHE_LIMIT:
            _ANSWERS.clear()
        found = [m for m in leads(hand) if beats(m, other)]
        found.sort(key=lambda m: m[BOMB])
        _ANSWERS[key] = found
    return found


_GROUPS: dict[int, int] = {}


def groups(hand: int) -> int:
    """How many ranks the hand holds: a cheap guess of how many plays it needs."""
    found = _GROUPS.get(hand)
    if found is None:
        found = _GROUPS[hand] = sum(1 for c in unpack(hand) if c)
    return found


# Kicker choices that are never better than another choice (for a seat without a partner).
#
# Take a play with kickers, and a rank k of the hand that is an "isolated" single: one card,
# not a joker, and no straight can hold it (the hand's run of ranks around k, within 3..A,
# is shorter than 5). Such a card can only ever be played as a single or a single kicker.
# If a play takes such a k2 as a kicker while a lower isolated single k1 stays in the hand,
# the same play with k1 instead (same kind and main rank, so the table is the same for
# everyone) leaves a hand that holds k2 where the other holds k1: whatever the seat can do
# later with k1 it can do with k2 (a higher single beats all that a lower one beats, and a
# kicker's rank never counts), and the others then face a table no easier to beat. So the
# second hand's position is won whenever the first one's is, and a search that tries the
# play with the lowest isolated kickers need not try the others. Pairs alike: a rank with
# exactly two cards, no straight and no pair chain through it, as a kicker pair. This holds
# for the two-hand form and for the landlord; a farmer's higher single could stop the
# partner from taking the lead over it, so farmers get every move.

_LEAN_LEADS: dict[int, list[Move]] = {}
_LEAN_ANSWERS: dict[tuple[int, int], list[Move]] = {}
_ISOLATED: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
_CHAIN_END = 12
_JOKER = 13


def _runs(present: list[bool]) -> list[int]:
    """For each rank index below the 2, the length of the run of present ranks through it."""
    runs = [0] * _CHAIN_END
    i = 0
    while i < _CHAIN_END:
        if not present[i]:
            i += 1
            continue
        j = i
        while j < _CHAIN_END and present[j]:
            j += 1
        for k in range(i, j):
            runs[k] = j - i
        i = j
    return runs


def isolated(hand: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The hand's isolated single ranks and isolated pair ranks, ascending (see above)."""
    found = _ISOLATED.get(hand)
    if found is None:
        counts = unpack(hand)
        run1 = _runs([c >= 1 for c in counts])
        run2 = _runs([c >= 2 for c in counts])
        singles = tuple(
            i for i in range(_JOKER) if counts[i] == 1 and (i >= _CHAIN_END or run1[i] < 5)
        )
        pairs = tuple(
            i
            for i in range(_JOKER)
            if counts[i] == 2 and (i >= _CHAIN_END or (run1[i] < 5 and run2[i] < 3))
        )
        found = _ISOLATED[hand] = (singles, pairs)
    return found


def _undominated(hand: int, m: Move) -> bool:
    """False for a play whose isolated kickers are not the lowest the hand could take."""
    kickers = m[KICKERS]
    if not kickers:
        return True
    singles, pairs = isolated(hand)
    if m[TYPE] // 64 in _PAIR_KICKER_ORDERS:
        pool, used = pairs, sorted(set(kickers))
    else:
        pool, used = singles, list(kickers)
    mains = m[MAINS]
    taken = [k for k in used if k in pool]
    if not taken:
        return True
    lowest = [k for k in pool if k not in mains][: len(taken)]
    return taken == lowest


_PAIR_KICKER_ORDERS = frozenset({KIND_ORDER[Kind.AIRPLANE_PAIRS], KIND_ORDER[Kind.FOUR_TWO_PAIRS]})


def lean_leads(hand: int) -> list[Move]:
    """``leads`` without the plays whose kickers another play's dominate (see above)."""
    found = _LEAN_LEADS.get(hand)
    if found is None:
        if len(_LEAN_LEADS) > CACHE_LIMIT:
            _LEAN_LEADS.clear()
        found = _LEAN_LEADS[hand] = [m for m in leads(hand) if _undominated(hand, m)]
    return found


def lean_answers(hand: int, other: Move) -> list[Move]:
    """``answers`` without the plays whose kickers another play's dominate (see above)."""
    key = (hand, other[ID])
    found = _LEAN_ANSWERS.get(key)
    if found is None:
        if len(_LEAN_ANSWERS) > CACHE_LIMIT:
            _LEAN_ANSWERS.clear()
        found = _LEAN_ANSWERS[key] = [m for m in answers(hand, other) if _undominated(hand, m)]
    return found
