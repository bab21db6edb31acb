"""The club player's play: how the normal bot leads and answers, and how the strong bot's
rollouts play every seat (``server.bots.sim.club``), written once.

A decision reads a ``Table``: the seat's own rank counts, every seat's card count, and the
cards it cannot see (the other two hands together, which is all a seat can know of them).

- The hand is split into as few groups as it can be (``server.bots.hand``). A lead takes the
  low groups first (the longest of them first), keeps the groups nobody can beat for the end,
  and plays those first once at most one other group is left.
- An answer is the play that leaves the cheapest hand, made unless it spoils the hand (more
  readily when an opponent is near out; how readily is the ``Style``).
- Bombs and the rocket are kept until an opponent is near out or they win the deal.
- Card counting: a group nobody can beat with the unseen cards (and the opponents' card
  counts) is a sure winner.
- Team play as a farmer: it does not beat its partner without need, leads low to a partner
  about to go out, and blocks a landlord with one or two cards (no single or pair led to him;
  the highest single to stop him).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.cards import Rank
from protocol.legal import legal_plays_from_counts
from protocol.plays import Kind, Play
from server.bots.hand import (
    Counts,
    can_be_beaten,
    decompose,
    group_cost,
    hand_cost,
    minus,
)


@dataclass(frozen=True)
class Style:
    """How readily a club player answers, and which answers he weighs."""

    #: An answer is made when it changes the hand's cost by at most this much (a low group
    #: of the split lowers it by about 1, a 2 by 0.3; breaking a group raises it) ...
    allow: float
    #: ... by this much when an opponent has five cards or fewer ...
    allow_near: float
    #: ... and by this much for the farmer who answers the landlord last.
    allow_last: float
    #: The ordinary answers worth weighing, from all of them in hint order.
    weigh: Callable[[list[Play]], list[Play]]


class Table:
    """What one seat knows when it decides: see the module doc. (A plain class that works
    its seats out once: the rollouts build one for every move they make.)"""

    __slots__ = (
        "counts",
        "danger",
        "is_landlord",
        "landlord",
        "me",
        "next_seat",
        "opponent_max",
        "opponents",
        "partner",
        "sizes",
        "unseen",
    )

    def __init__(
        self, me: int, landlord: int, counts: Counts, sizes: Sequence[int], unseen: Counts
    ) -> None:
        self.me = me
        self.landlord = landlord
        self.counts = counts
        #: Cards each seat holds.
        self.sizes = sizes
        self.unseen = unseen
        self.is_landlord = me == landlord
        self.partner: int | None = None if self.is_landlord else 3 - me - landlord
        self.opponents = [s for s in range(3) if s != me] if self.is_landlord else [landlord]
        self.next_seat = (me + 1) % 3
        #: The fewest cards an opponent holds ...
        self.danger = min(sizes[s] for s in self.opponents)
        #: ... and the most: no opponent play is longer.
        self.opponent_max = max(sizes[s] for s in self.opponents)

    def sure(self, group: Play) -> bool:
        """No opponent can beat this group with an ordinary play (bombs aside)."""
        return group.is_bomb_like or not can_be_beaten(group, self.unseen, self.opponent_max)

    def loose_groups(self, counts: Counts) -> int:
        """Groups of a split that an opponent could beat."""
        return sum(1 for g in decompose(counts) if not self.sure(g))


# --- leading ---------------------------------------------------------------------------


def lead(table: Table) -> Play:
    """The group to lead (see the module doc)."""
    everything = legal_plays_from_counts(table.counts)
    size = table.sizes[table.me]
    out = [p for p in everything if len(p.cards) == size]
    if out:
        return max(out, key=lambda p: p.is_bomb_like)  # a last bomb doubles the score
    groups = decompose(table.counts)
    ordinary = [g for g in groups if not g.is_bomb_like]
    bombs = [g for g in groups if g.is_bomb_like]
    loose = [g for g in ordinary if not table.sure(g)]
    if len(loose) <= 1:
        # Cash the sure winners first, the longest first, bombs next, the loose one last.
        sure = sorted((g for g in ordinary if g not in loose), key=lambda g: -len(g.cards))
        return [*sure, *sorted(bombs, key=bomb_order), *loose][0]
    partner = table.partner
    sizes = table.sizes
    if partner is not None:
        short = sizes[partner]
        landlord_short = sizes[table.landlord] <= 2
        if short == 1 and not (landlord_short and table.next_seat == table.landlord):
            return everything[0]  # feed the partner the lowest single
        if short == 2 and table.next_seat == partner:
            pairs = [g for g in ordinary if g.kind is Kind.PAIR]
            if pairs:
                return min(pairs, key=lambda g: g.rank)
    # Opponents with one or two cards: lead nothing they can answer with all of them.
    short_hands = {sizes[s] for s in table.opponents if sizes[s] <= 2}
    if short_hands:
        safe = [g for g in ordinary if len(g.cards) not in short_hands]
        if safe:
            return min(safe, key=lead_order)
        if 1 in short_hands:
            # Nothing but singles: lead the highest, to hold the lead if it can.
            singles = [g for g in ordinary if g.kind is Kind.SINGLE]
            if singles:
                top = max(singles, key=lambda g: g.rank)
                low = [g for g in singles if g is not top]
                return low[0] if len(singles) == 2 and table.sure(top) and low else top
    choices = [g for g in loose if g not in bombs] or ordinary or groups
    return min(choices, key=lead_order)


def lead_order(group: Play) -> float:
    """Lead the low groups first, and of those the ones that shed more cards."""
    return group.rank.index - 0.6 * len(group.cards)


def bomb_order(group: Play) -> int:
    """Smaller bombs first, the rocket last."""
    return 99 if group.kind is Kind.ROCKET else group.rank


# --- answering -------------------------------------------------------------------------


def answer(table: Table, to_beat: Play, by: int, style: Style) -> Play | None:
    """The play over ``to_beat``, made by seat ``by``, or None to pass: one of the plays
    ``legal_plays_from_counts`` returns (the very object)."""
    answers = legal_plays_from_counts(table.counts, to_beat)
    if not answers:
        return None
    size = table.sizes[table.me]
    for p in answers:
        if len(p.cards) == size:
            return p
    ordinary = [p for p in answers if not p.is_bomb_like]
    bombs = [p for p in answers if p.is_bomb_like]
    before = hand_cost(table.counts)
    best: Play | None = None
    best_after = 0.0
    for p in style.weigh(ordinary):
        after = hand_cost(minus(table.counts, p.cards))
        if best is None or after < best_after - 1e-9:
            best, best_after = p, after
    if table.partner is not None and by == table.partner:
        return _over_partner(table, to_beat, ordinary, best, before, best_after)
    # An opponent's play.
    threat = table.danger
    if best is not None and to_beat.kind is Kind.SINGLE and threat == 1:
        return max(ordinary, key=lambda p: p.rank)  # stop him with the highest single
    if best is not None and to_beat.kind is Kind.PAIR and threat <= 2:
        return max(ordinary, key=lambda p: p.rank)
    if best is not None:
        allow = style.allow
        if threat <= 2:
            allow = 5.0
        elif threat <= 5:
            allow = style.allow_near
        elif not table.is_landlord and table.next_seat == table.landlord:
            allow = style.allow_last  # the last farmer to answer the landlord
        if best_after - before <= allow:
            return best
        if table.loose_groups(minus(table.counts, best.cards)) <= 1:
            return best
    if bombs:
        bomb = min(bombs, key=bomb_order)
        rest = minus(table.counts, bomb.cards)
        if (
            table.sizes[by] <= 4
            or threat <= 3
            or table.loose_groups(rest) <= 1
            or (to_beat.is_bomb_like is False and len(to_beat.cards) >= 6 and threat <= 8)
        ):
            return bomb
    return None


def _over_partner(
    table: Table,
    to_beat: Play,
    ordinary: list[Play],
    best: Play | None,
    before: float,
    best_after: float,
) -> Play | None:
    """The partner's play is winning the trick: beat it only when that helps the team."""
    landlord_cards = table.sizes[table.landlord]
    if (
        ordinary
        and table.next_seat == table.landlord
        and landlord_cards <= 2
        and len(to_beat.cards) <= landlord_cards
        and can_be_beaten(to_beat, table.unseen, landlord_cards)
    ):
        # The landlord, next, could beat the partner and go out: play over him high.
        return max(ordinary, key=lambda p: p.rank)
    if best is None or table.sizes[table.partner or 0] <= 2:
        return None
    if table.loose_groups(minus(table.counts, best.cards)) == 0:
        return best  # take the lead and go out
    if best_after - before <= -0.9 and group_cost(to_beat) > 0.9 and best.rank < Rank.KING:
        return best  # a free low group over a low play: shed it, the partner loses little
    return None
