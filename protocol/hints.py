"""The order a hint offers the legal plays in (SPEC section 10).

``legal_plays`` gives every play from the smallest up, which is a fine order for bots and for
checking, but a poor first hint: on a lead it offers a single 3 out of ``3333``, and it
happily breaks a straight to answer a single. ``hint_plays`` gives exactly the same plays,
ordered as a club player would try them:

1. ordinary plays that break no bomb and not the rocket, then
2. bombs and the rocket, played whole, then
3. plays that break a bomb or the rocket (one joker of the two; some but not all cards of a
   rank held four times, or all four spent as a four with two);

and within each, first the plays that leave the rest of the hand in the fewest groups (so a
straight, a pair chain or an airplane is kept whole when another play answers), then in
``legal_plays``' own order (smallest first).

"Groups" counts what a club player counts when he says a hand "splits into five groups": the
fewest plays that use every card, as the normal bot's hand cost does (``server/bots/hand.py``),
but with every group worth one, so the count is an exact integer that the browser's copy of
this module (``hintPlays`` in ``server/web/static/js/rules.js``) reproduces to the play. The
split tries every straight (5+) and pair chain (3+) the hand holds, and groups what is left
into bombs, the rocket, triples (consecutive ones joined into airplanes) each taking as many
lone cards, else pairs, as it has triples, then pairs and singles.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.cards import Rank, rank_counts
from protocol.legal import legal_plays
from protocol.plays import ACE_INDEX, BJ_INDEX, SJ_INDEX, Play

Counts = tuple[int, ...]
"""Cards of each rank, 15 slots in ``Rank.index`` order."""

#: Chains (straights, pair chains) start at an index below this: 3..A.
_CHAIN_END = ACE_INDEX + 1
_MEMO: dict[Counts, int] = {}
_MEMO_LIMIT = 200_000


def _base_groups(counts: Counts) -> int:
    """Groups of a hand with no straight or pair chain taken out."""
    groups = 0
    singles = pairs = 0
    triples: list[int] = []
    for i in range(SJ_INDEX):
        c = counts[i]
        if c == 4:
            groups += 1  # a bomb
        elif c == 3:
            triples.append(i)
        elif c == 2:
            pairs += 1
        elif c == 1:
            singles += 1
    if counts[SJ_INDEX] and counts[BJ_INDEX]:
        groups += 1  # the rocket
    else:
        singles += counts[SJ_INDEX] + counts[BJ_INDEX]
    # Consecutive triples within 3..A fly together: the lengths of the airplanes.
    lengths: list[int] = []
    previous = -2
    for i in triples:
        if lengths and i == previous + 1 and i <= ACE_INDEX:
            lengths[-1] += 1
        else:
            lengths.append(1)
        previous = i
    # The highest first, each takes as many lone cards (else pairs) as it has triples.
    for n in reversed(lengths):
        groups += 1
        if singles >= n:
            singles -= n
        elif pairs >= n:
            pairs -= n
    return groups + pairs + singles


def hand_groups(counts: Counts) -> int:
    """The fewest groups the hand splits into (0 for no cards): the least, over every choice
    of straights and pair chains taken out, of those chains plus the rest's base groups."""
    found = _MEMO.get(counts)
    if found is not None:
        return found
    best = _base_groups(counts)
    for width, shortest in ((1, 5), (2, 3)):
        run = 0
        for start in range(ACE_INDEX, -1, -1):
            run = run + 1 if counts[start] >= width else 0
            if run < shortest:
                continue
            rest = list(counts)
            for i in range(start, start + shortest - 1):
                rest[i] -= width
            for i in range(start + shortest - 1, start + run):
                rest[i] -= width  # the chain from ``start``, one rank longer each time
                best = min(best, 1 + hand_groups(tuple(rest)))
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[counts] = best
    return best


def breaks_bomb_or_rocket(play: Play, hand: Iterable[Rank]) -> bool:
    """Whether ``play`` (from ``hand``) breaks a bomb of the hand (takes some of a rank held
    four times, or all four as anything but the bomb) or the rocket (one joker of the two)."""
    if play.is_bomb_like:
        return False
    held = rank_counts(hand)
    used = rank_counts(play.cards)
    if held[SJ_INDEX] and held[BJ_INDEX] and used[SJ_INDEX] + used[BJ_INDEX] == 1:
        return True
    return any(held[i] == 4 and used[i] for i in range(SJ_INDEX))


def hint_plays(hand: Iterable[Rank], to_beat: Play | None = None) -> list[Play]:
    """Exactly the plays of ``legal_plays(hand, to_beat)``, in the order a hint offers them
    (see the module doc): the ones that keep bombs, the rocket and chains whole first."""
    ranks = list(hand)
    plays = legal_plays(ranks, to_beat)
    counts = tuple(rank_counts(ranks))
    before = hand_groups(counts)

    def key(play: Play) -> tuple[int, int]:
        tier = 2 if breaks_bomb_or_rocket(play, ranks) else 1 if play.is_bomb_like else 0
        rest = list(counts)
        for r in play.cards:
            rest[r.index] -= 1
        return tier, hand_groups(tuple(rest)) - before

    return sorted(plays, key=key)  # stable: ties stay in legal_plays' order
