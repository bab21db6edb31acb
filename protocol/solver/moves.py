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
    """A cheap guess of how many plays the hand needs: its ranks, less one for each triple
    that can take a single or pair along, one for the rocket, and a run of five or more
    lone cards (3..A) counted as one straight."""
    found = _GROUPS.get(hand)
    if found is None:
        counts = unpack(hand)
        by = [0, 0, 0, 0, 0]
        for c in counts:
            by[c] += 1
        found = by[1] + by[2] + by[3] + by[4]
        found -= min(by[3], by[1] + by[2])
        if counts[13] and counts[14]:
            found -= 1
        run = 0
        for i in range(13):
            if i < 12 and counts[i] == 1:
                run += 1
            else:
                if run >= 5:
                    found -= run - 1
                run = 0
        if len(_GROUPS) > CACHE_LIMIT:
            _GROUPS.clear()
        _GROUPS[hand] = found
    return found


_TOPS: dict[int, dict[int, int]] = {}


def tops(hand: int) -> dict[int, int]:
    """What the hand can beat with: for each play type (``TYPE``) the highest main rank it
    holds, and under key -1 its highest bomb (``BOMB``: a rank, ``ROCKET_BOMB``, or -1)."""
    found = _TOPS.get(hand)
    if found is None:
        found = {-1: -1}
        for m in leads(hand):
            t = m[TYPE]
            if m[RANK] > found.get(t, -1):
                found[t] = m[RANK]
            if m[BOMB] > found[-1]:
                found[-1] = m[BOMB]
        if len(_TOPS) > CACHE_LIMIT:
            _TOPS.clear()
        _TOPS[hand] = found
    return found


def beaten(m: Move, top: dict[int, int]) -> bool:
    """Whether a hand with these ``tops`` holds a play that beats ``m``
    (``bool(answers(hand, m))``, without listing them)."""
    bomb = m[BOMB]
    if bomb == ROCKET_BOMB:
        return False
    return top[-1] > bomb or (bomb < 0 and top.get(m[TYPE], -1) > m[RANK])
