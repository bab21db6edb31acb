"""A fast deal simulator on rank counts, for the strong bot's rollouts and its end-game solver.

A hand is a 15-slot list of counts indexed by ``Rank.index`` (3 at 0 .. big joker at 14).
Moves are the kept ``Play`` objects of ``protocol.legal.legal_plays_from_counts``, called on
the counts directly, so no rank list is built and no play is classified; each play's effect
on the counts is worked out once and kept (``info``).

Two rollout policies, each the same for all three seats; ``playout`` plays a deal to the end
with either:

- ``club``: the normal bot's play (``server.bots.club``) with the cautious ``ROLLOUT_STYLE``,
  each seat counting cards from what it could know (the other two hands together). About
  1-2 ms a deal.
- ``greedy``: cheaper (about 0.2 ms a deal) and weaker: lead the lowest group without
  breaking pairs or triples, answer an opponent with the smallest play that breaks the
  least, let the partner's plays stand, keep bombs for when someone is close to going out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from protocol.legal import legal_plays_from_counts
from protocol.plays import Kind, Play
from server.bots.club import Style, Table, answer, lead

Counts = list[int]
#: Rank index of the 2: the first of the "control" ranks (2, small and big joker).
TWO = 12
ACE = 11
_CODE: dict[Kind, int] = {k: i for i, k in enumerate(Kind)}
BOMB_CODE = _CODE[Kind.BOMB]
ROCKET_CODE = _CODE[Kind.ROCKET]
SINGLE_CODE = _CODE[Kind.SINGLE]
PAIR_CODE = _CODE[Kind.PAIR]
FOUR_CODES = frozenset({_CODE[Kind.FOUR_TWO_SINGLES], _CODE[Kind.FOUR_TWO_PAIRS]})


class MoveInfo(NamedTuple):
    """What a play does to a hand: its kind code, main rank index, size, the cards it takes
    per rank index, the kicker part of them, and whether it doubles the score."""

    kind: int
    main: int
    size: int
    takes: tuple[tuple[int, int], ...]
    kickers: tuple[tuple[int, int], ...]
    bomb: bool


_INFO: dict[int, MoveInfo] = {}
Policy = Callable[[list[Counts], list[int], int, int, "Play | None", int], "Play | None"]
"""A rollout policy: (hands, sizes, seat, landlord, play to beat, its seat) -> move."""


def _main_ranks(play: Play) -> range:
    """The rank indices of a play's main part (the kickers are the rest)."""
    kind, main, n = play.kind, play.rank - 3, len(play.cards)
    if kind is Kind.TRIPLE_SINGLE or kind is Kind.TRIPLE_PAIR:
        return range(main, main + 1)
    if kind is Kind.FOUR_TWO_SINGLES or kind is Kind.FOUR_TWO_PAIRS:
        return range(main, main + 1)
    if kind is Kind.AIRPLANE_SINGLES:
        return range(main, main + n // 4)
    if kind is Kind.AIRPLANE_PAIRS:
        return range(main, main + n // 5)
    return range(main, 15)


def info(play: Play) -> MoveInfo:
    """The counts view of a play made by ``moves`` (cached by identity: those plays live for
    the whole process in ``protocol.legal``'s cache; do not pass other Play objects)."""
    found = _INFO.get(id(play))
    if found is not None:
        return found
    counts: dict[int, int] = {}
    for r in play.cards:
        counts[r - 3] = counts.get(r - 3, 0) + 1
    main_part = _main_ranks(play)
    takes = tuple(sorted(counts.items()))
    made = MoveInfo(
        kind=_CODE[play.kind],
        main=play.rank - 3,
        size=len(play.cards),
        takes=takes,
        kickers=tuple((i, c) for i, c in takes if i not in main_part),
        bomb=play.is_bomb_like,
    )
    _INFO[id(play)] = made
    return made


def canonical(play: Play) -> Play:
    """The cached play equal to ``play`` (one from ``classify`` or a view is not cached)."""
    counts = [0] * 15
    for r in play.cards:
        counts[r - 3] += 1
    for p in legal_plays_from_counts(counts, None):
        if p == play:
            return p
    raise ValueError(f"{play!r} is not a play")


def counts_of(indices: list[int]) -> Counts:
    """A counts list from rank indices."""
    counts = [0] * 15
    for i in indices:
        counts[i] += 1
    return counts


def _break_cost(counts: Counts, takes: tuple[tuple[int, int], ...]) -> int:
    """How badly taking these cards splits the hand's groups: 1 a pair or triple broken,
    4 a bomb broken."""
    cost = 0
    for i, c in takes:
        held = counts[i]
        if c < held:
            cost += 4 if held == 4 else 1
    return cost


def greedy(
    hands: list[Counts],
    sizes: list[int],
    seat: int,
    landlord: int,
    last: Play | None,
    last_seat: int,
) -> Play | None:
    """The rollout policy's move for ``seat`` (None: pass). ``last`` is the play to beat,
    None when the seat leads. It sees the hand sizes and its own hand only."""
    hand = hands[seat]
    size = sizes[seat]
    ms = legal_plays_from_counts(hand, last)
    if not ms:
        return None
    for m in ms:
        if len(m.cards) == size:
            return m
    if seat == landlord:
        enemy_min = min(sizes[(seat + 1) % 3], sizes[(seat + 2) % 3])
        partner = -1
    else:
        enemy_min = sizes[landlord]
        partner = 3 - seat - landlord
    if last is None:
        return _greedy_lead(hand, ms, enemy_min, partner, sizes)
    if partner == last_seat:
        return None
    threat = sizes[last_seat]
    best: Play | None = None
    best_cost = 99
    bomb: Play | None = None
    last_main = last.rank - 3
    for m in ms:
        mi = info(m)
        if mi.bomb:
            if bomb is None:
                bomb = m
            continue
        cost = _break_cost(hand, mi.takes)
        if mi.main >= TWO and last_main < ACE and enemy_min > 6:
            cost += 1
        if cost < best_cost:
            best, best_cost = m, cost
            if cost == 0:
                break
    if best is not None and (best_cost <= 1 or enemy_min <= 4):
        return best
    if bomb is not None and (threat <= 4 or size - len(bomb.cards) <= 4):
        return bomb
    return None


def _greedy_lead(
    hand: Counts, ms: list[Play], enemy_min: int, partner: int, sizes: list[int]
) -> Play:
    """The rollout policy's lead: among plays of the lowest main rank, the one that sheds
    most without breaking groups or spending high kickers; no single into an opponent's last
    card (nor a pair into their last two) while anything else is left."""
    if partner >= 0 and sizes[partner] == 1 and info(ms[0]).kind == SINGLE_CODE:
        return ms[0]
    lowest = ms[0].rank
    best = ms[0]
    best_score = -99.0
    for m in ms:
        if m.rank != lowest:
            break
        mi = info(m)
        if mi.kind in FOUR_CODES:
            continue
        score = mi.size - 2.0 * _break_cost(hand, mi.takes)
        for i, _ in mi.kickers:
            if i >= ACE:
                score -= 3.0
        if score > best_score:
            best, best_score = m, score
    if enemy_min <= 2:
        kind = info(best).kind
        if (kind == SINGLE_CODE and enemy_min == 1) or (kind == PAIR_CODE and enemy_min == 2):
            other = [m for m in ms if info(m).kind != kind and not info(m).bomb]
            if other:
                return other[0]
            same = [m for m in ms if info(m).kind == kind]
            if same:
                return same[-1]
    return best


def playout(
    hands: list[Counts],
    landlord: int,
    turn: int,
    last: Play | None,
    last_seat: int,
    plays_made: list[int],
    policy: Policy | None = None,
) -> tuple[bool, int]:
    """Play the deal out with ``greedy`` from this position (hands are changed in place):
    whether the landlord won, and how many times the score doubles from here on (bombs,
    rockets, and a spring or anti-spring)."""
    choose = greedy if policy is None else policy
    sizes = [sum(h) for h in hands]
    doublings = 0
    made = list(plays_made)
    while True:
        if last_seat == turn:
            last = None
        move = choose(hands, sizes, turn, landlord, last, last_seat)
        if move is None:
            turn = (turn + 1) % 3
            continue
        mi = info(move)
        hand = hands[turn]
        for i, c in mi.takes:
            hand[i] -= c
        sizes[turn] -= mi.size
        made[turn] += 1
        if mi.bomb:
            doublings += 1
        if sizes[turn] == 0:
            won = turn == landlord
            if (won and made[(landlord + 1) % 3] == 0 and made[(landlord + 2) % 3] == 0) or (
                not won and made[landlord] == 1
            ):
                doublings += 1
            return won, doublings
        last, last_seat = move, turn
        turn = (turn + 1) % 3


# --- the club policy: the normal bot's play, for stronger rollouts ---------------------

_CANON: dict[Play, Play] = {}


def cached(play: Play) -> Play:
    """The cached play equal to ``play`` (memoized ``canonical``)."""
    found = _CANON.get(play)
    if found is None:
        found = _CANON[play] = canonical(play)
    return found


#: The club player as the rollouts play him: more cautious answers than the normal bot's
#: (``server.bots.normal.STYLE``), and at most the 40 smallest answers weighed, for speed.
ROLLOUT_STYLE = Style(allow=-0.45, allow_near=0.35, allow_last=-0.3, weigh=lambda p: p[:40])


def club(
    hands: list[Counts],
    sizes: list[int],
    seat: int,
    landlord: int,
    last: Play | None,
    last_seat: int,
) -> Play | None:
    """The normal bot's play (``server.bots.club``) for ``seat``, in ``ROLLOUT_STYLE``; a
    seat's unseen cards are the other two hands together, which is what it can know."""
    a, b = hands[(seat + 1) % 3], hands[(seat + 2) % 3]
    table = Table(
        me=seat,
        landlord=landlord,
        counts=tuple(hands[seat]),
        sizes=sizes,
        unseen=tuple([a[i] + b[i] for i in range(15)]),
    )
    if last is None:
        return cached(lead(table))  # a group of the split: an equal play, not the kept one
    return answer(table, last, last_seat, ROLLOUT_STYLE)
