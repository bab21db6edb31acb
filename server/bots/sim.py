"""A fast deal simulator on rank counts, for the strong bot's rollouts and its end-game solver.

A hand is a 15-slot list of counts indexed by ``Rank.index`` (3 at 0 .. big joker at 14).
Moves are the cached ``Play`` objects of ``protocol.legal``: the generator is called on the
counts directly (``moves``), so no rank list is built and no play is classified, and each
play's effect on the counts is worked out once and kept (``info``).

Two rollout policies, each the same for all three seats; ``playout`` plays a deal to the end
with either:

- ``club``: the normal bot's heuristics (``server.bots.normal``) on counts: the cheapest
  split of the hand (``split_cost``, the same cost as ``server.bots.hand.hand_cost`` without
  building plays), low groups led first, sure winners cashed last, answers only when the
  hand gets no worse, card counting from what the seat could know. About 1-2 ms a deal.
- ``greedy``: cheaper (about 0.2 ms a deal) and weaker: lead the lowest group without
  breaking pairs or triples, answer an opponent with the smallest play that breaks the
  least, let the partner's plays stand, keep bombs for when someone is close to going out.

``moves`` uses ``protocol.legal``'s private generators on counts: that module's speed is
what makes rollouts affordable in pure Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from protocol.cards import Rank
from protocol.legal import _BOMB, _PLAYS, _ROCKET, _answers, _lead
from protocol.plays import Kind, Play

Counts = list[int]
SJ = 13
BJ = 14
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


def moves(counts: Counts, to_beat: Play | None) -> list[Play]:
    """``protocol.legal.legal_plays`` on a counts list: every play the hand may make (lead
    when ``to_beat`` is None), in hint order (ordinary plays from the lowest main rank, then
    bombs, then the rocket)."""
    keys: list[int] = []
    if to_beat is None:
        _lead(counts, keys)
    else:
        kind = to_beat.kind
        if kind is Kind.ROCKET:
            return []
        above = -1
        if kind is Kind.BOMB:
            above = to_beat.rank - 3
        else:
            _answers(counts, to_beat, keys)
        for i in range(above + 1, SJ):
            if counts[i] == 4:
                keys.append(_BOMB[i])
        if counts[SJ] and counts[BJ]:
            keys.append(_ROCKET)
    keys.sort()
    plays = _PLAYS
    return [plays[k] for k in keys]


def canonical(play: Play) -> Play:
    """The cached play equal to ``play`` (one from ``classify`` or a view is not cached)."""
    counts = [0] * 15
    for r in play.cards:
        counts[r - 3] += 1
    for p in moves(counts, None):
        if p == play:
            return p
    raise ValueError(f"{play!r} is not a play")


def counts_of(indices: list[int]) -> Counts:
    """A counts list from rank indices."""
    counts = [0] * 15
    for i in indices:
        counts[i] += 1
    return counts


def apply(counts: Counts, play: Play) -> None:
    """Take a play's cards out of a hand, in place."""
    for i, c in info(play).takes:
        counts[i] -= c


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
    ms = moves(hand, last)
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


# --- the club policy: NormalBot's heuristics on counts, for stronger rollouts ------------

_CANON: dict[Play, Play] = {}


def cached(play: Play) -> Play:
    """The cached play equal to ``play`` (memoized ``canonical``)."""
    found = _CANON.get(play)
    if found is None:
        found = _CANON[play] = canonical(play)
    return found


def _beatable(play: Play, unseen: Counts, max_cards: int) -> bool:
    """Whether a seat with at most ``max_cards`` of the ``unseen`` cards could beat ``play``
    without a bomb (``server.bots.hand.can_be_beaten`` on counts)."""
    if play.kind is Kind.ROCKET or play.kind is Kind.BOMB:
        return False
    if len(play.cards) > max_cards:
        return False
    return any(not info(a).bomb and len(a.cards) <= max_cards for a in moves(unseen, play))


def _without(hand: Counts, play: Play) -> tuple[int, ...]:
    rest = list(hand)
    for i, c in info(play).takes:
        rest[i] -= c
    return tuple(rest)


def club(
    hands: list[Counts],
    sizes: list[int],
    seat: int,
    landlord: int,
    last: Play | None,
    last_seat: int,
) -> Play | None:
    """``server.bots.normal.NormalBot``'s play on counts: split the hand into the cheapest
    groups (``server.bots.hand``), lead low groups and cash sure winners last, answer only
    when the hand does not get worse, and count cards (a seat's unseen cards are the other
    two hands together, which is what that seat itself can know)."""
    from server.bots.hand import decompose, group_cost

    hand_cost = split_cost

    hand = hands[seat]
    size = sizes[seat]
    ms = moves(hand, last)
    if not ms:
        return None
    out = [m for m in ms if len(m.cards) == size]
    if out:
        return out[-1]
    a, b = (seat + 1) % 3, (seat + 2) % 3
    ha, hb = hands[a], hands[b]
    unseen = [ha[i] + hb[i] for i in range(15)]
    if seat == landlord:
        partner = -1
        danger = min(sizes[a], sizes[b])
        opp_max = max(sizes[a], sizes[b])
    else:
        partner = 3 - seat - landlord
        danger = opp_max = sizes[landlord]
    counts = tuple(hand)
    if last is None:
        groups = decompose(counts)
        ordinary = [g for g in groups if not g.is_bomb_like]
        bombs = [g for g in groups if g.is_bomb_like]
        loose = [g for g in ordinary if _beatable(g, unseen, opp_max)]
        if len(loose) <= 1:
            sure = sorted((g for g in ordinary if g not in loose), key=lambda g: -len(g.cards))
            bombs.sort(key=lambda g: 99 if g.kind is Kind.ROCKET else g.rank)
            return cached([*sure, *bombs, *loose][0])
        if partner >= 0:
            short = sizes[partner]
            if short == 1 and not (sizes[landlord] <= 2 and a == landlord):
                return ms[0]
            if short == 2 and a == partner:
                pairs = [g for g in ordinary if g.kind is Kind.PAIR]
                if pairs:
                    return cached(min(pairs, key=lambda g: g.rank))
        opponents = (a, b) if partner < 0 else (landlord,)
        short_hands = {sizes[s] for s in opponents if sizes[s] <= 2}
        if short_hands:
            safe = [g for g in ordinary if len(g.cards) not in short_hands]
            if safe:
                return cached(min(safe, key=_lead_order))
            if 1 in short_hands:
                singles = [g for g in ordinary if g.kind is Kind.SINGLE]
                if singles:
                    top = max(singles, key=lambda g: g.rank)
                    low = [g for g in singles if g is not top]
                    sure_top = not _beatable(top, unseen, opp_max)
                    return cached(low[0] if len(singles) == 2 and sure_top and low else top)
        choices = [g for g in loose if g not in bombs] or ordinary or groups
        return cached(min(choices, key=_lead_order))
    ordinary = [m for m in ms if not info(m).bomb]
    if len(ordinary) > 40:
        ordinary = ordinary[:40]
    bomb_moves = [m for m in ms if info(m).bomb]
    before = hand_cost(counts)
    best: Play | None = None
    best_after = 0.0
    for m in ordinary:
        after = hand_cost(_without(hand, m))
        if best is None or after < best_after - 1e-9:
            best, best_after = m, after
    if partner >= 0 and last_seat == partner:
        landlord_cards = sizes[landlord]
        if (
            ordinary
            and a == landlord
            and landlord_cards <= 2
            and len(last.cards) <= landlord_cards
            and _beatable(last, unseen, landlord_cards)
        ):
            return ordinary[-1]
        if best is None or sizes[partner] <= 2:
            return None
        rest = _without(hand, best)
        if all(not _beatable(g, unseen, opp_max) for g in decompose(rest) if not g.is_bomb_like):
            return best
        if best_after - before <= -0.9 and group_cost(last) > 0.9 and best.rank < Rank.KING:
            return best
        return None
    threat = danger
    kind = last.kind
    if best is not None and (
        (kind is Kind.SINGLE and threat == 1) or (kind is Kind.PAIR and threat <= 2)
    ):
        return ordinary[-1]
    if best is not None:
        allow = -0.45
        if threat <= 2:
            allow = 5.0
        elif threat <= 5:
            allow = 0.35
        elif partner >= 0 and a == landlord:
            allow = -0.3
        if best_after - before <= allow:
            return best
        rest = _without(hand, best)
        loose_n = sum(
            1 for g in decompose(rest) if not g.is_bomb_like and _beatable(g, unseen, opp_max)
        )
        if loose_n <= 1:
            return best
    if bomb_moves:
        bomb = bomb_moves[0]
        rest = _without(hand, bomb)
        if (
            sizes[last_seat] <= 4
            or threat <= 3
            or sum(
                1 for g in decompose(rest) if not g.is_bomb_like and _beatable(g, unseen, opp_max)
            )
            <= 1
            or (len(last.cards) >= 6 and threat <= 8)
        ):
            return bomb
    return None


def _lead_order(group: Play) -> float:
    """Lead the low groups first, and of those the ones that shed more cards."""
    return group.rank - 3 - 0.6 * len(group.cards)


# --- the split's cost, as ``server.bots.hand.hand_cost``, without building plays ----------

_COST_MEMO: dict[tuple[int, ...], float] = {}
_COST_MEMO_LIMIT = 300_000
_CHAIN_COST: dict[tuple[int, int, int], float] = {}


def _tables() -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...], float, float]:
    from server.bots.hand import BOMB_COST, PAIR_COST, ROCKET_COST, SINGLE_COST, TRIPLE_COST

    return SINGLE_COST, PAIR_COST, TRIPLE_COST, BOMB_COST, ROCKET_COST


def _chain_cost(width: int, start: int, length: int) -> float:
    key = (width, start, length)
    found = _CHAIN_COST.get(key)
    if found is None:
        from server.bots.hand import chain_cost

        found = _CHAIN_COST[key] = chain_cost(width, start, length)
    return found


def _base_cost(counts: tuple[int, ...]) -> float:
    """``server.bots.hand._base``'s cost alone: rocket, bombs, triples joined into airplanes
    with the cheapest kickers worth taking, pairs and singles."""
    single_cost, pair_cost, triple_cost, bomb_cost, rocket_cost = _tables()
    cost = 0.0
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
            cost += bomb_cost
    if counts[SJ] and counts[BJ]:
        singles = singles[:-2]
        cost += rocket_cost
    units: list[list[int]] = []
    for i in triples:
        if units and i <= ACE and units[-1][0] + units[-1][1] == i:
            units[-1][1] += 1
        else:
            units.append([i, 1])
    for start, length in reversed(units):
        s_gain = sum(single_cost[i] for i in singles[:length]) if len(singles) >= length else -1
        p_gain = sum(pair_cost[i] for i in pairs[:length]) if len(pairs) >= length else -1
        cost += triple_cost[start] if length == 1 else _chain_cost(3, start, length)
        if max(s_gain, p_gain) > 0.25 * length:
            if s_gain >= p_gain:
                singles = singles[length:]
            else:
                pairs = pairs[length:]
    for i in pairs:
        cost += pair_cost[i]
    for i in singles:
        cost += single_cost[i]
    return cost


def split_cost(counts: tuple[int, ...]) -> float:
    """The cost of the hand's best split (``server.bots.hand.hand_cost``; memoized)."""
    found = _COST_MEMO.get(counts)
    if found is not None:
        return found
    best = _base_cost(counts)
    for width, shortest in ((1, 5), (2, 3)):
        run = 0
        for i in range(ACE, -1, -1):
            run = run + 1 if counts[i] >= width else 0
            for length in range(shortest, run + 1):
                rest = list(counts)
                for j in range(i, i + length):
                    rest[j] -= width
                total = split_cost(tuple(rest)) + _chain_cost(width, i, length)
                if total < best - 1e-9:
                    best = total
    if len(_COST_MEMO) >= _COST_MEMO_LIMIT:
        _COST_MEMO.clear()
    _COST_MEMO[counts] = best
    return best
