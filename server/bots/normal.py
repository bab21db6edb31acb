"""The normal bot: plays like a decent club player. Deterministic: a function of the view.

- Bidding by hand strength: high cards, bombs, and the cost of the hand's best split into
  groups (``server.bots.hand``): fewer, higher groups bid higher.
- Play: the hand is split into as few groups as it can be; a lead takes the low groups first
  (the longest of them first), keeps the groups nobody can beat for the end, and plays those
  first once at most one other group is left. An answer is the play that leaves the cheapest
  hand, made unless it spoils the hand (more readily when an opponent is near out).
- Bombs and the rocket are kept until an opponent is near out or they win the deal.
- Card counting: the cards not in its hand and not yet played are what the others hold;
  a group nobody can beat with them (and their card counts) is a sure winner.
- Team play as a farmer: it does not beat its partner without need, leads low to a partner
  about to go out, and blocks a landlord with one or two cards (no single or pair led to him;
  the highest single to stop him).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from protocol.cards import Rank
from protocol.events import TableView
from protocol.legal import legal_plays
from protocol.plays import Kind, Play
from server.bots.base import hand_ranks, table_play
from server.bots.hand import (
    Counts,
    can_be_beaten,
    counts_of,
    decompose,
    group_cost,
    hand_cost,
    minus,
    outstanding,
)

#: Answers the bot weighs at most (in hint order, smallest first); more only with kickers.
_MAX_ANSWERS = 60


@dataclass(frozen=True)
class _Seat:
    """What the bot works out once per decision from the view."""

    me: int
    landlord: int
    counts: Counts
    hand: list[Rank]
    unseen: Counts
    card_counts: list[int]

    @property
    def is_landlord(self) -> bool:
        return self.me == self.landlord

    @property
    def partner(self) -> int | None:
        if self.is_landlord:
            return None
        return 3 - self.me - self.landlord

    @property
    def opponents(self) -> list[int]:
        if self.is_landlord:
            return [s for s in range(3) if s != self.me]
        return [self.landlord]

    @property
    def next_seat(self) -> int:
        return (self.me + 1) % 3

    @property
    def danger(self) -> int:
        """The fewest cards an opponent holds."""
        return min(self.card_counts[s] for s in self.opponents)

    @property
    def opponent_max(self) -> int:
        """The most cards an opponent holds: no opponent play is longer."""
        return max(self.card_counts[s] for s in self.opponents)

    def sure(self, group: Play) -> bool:
        """No opponent can beat this group with an ordinary play (bombs aside)."""
        return group.is_bomb_like or not can_be_beaten(group, self.unseen, self.opponent_max)

    def loose_groups(self, counts: Counts) -> int:
        """Groups of a split that an opponent could beat."""
        return sum(1 for g in decompose(counts) if not self.sure(g))


class NormalBot:
    """Club-player heuristics over the best split of the hand; see the module doc."""

    #: An answer is made when it changes the hand's cost by at most this much (a low group
    #: of the split lowers it by about 1, a 2 by 0.3; breaking a group raises it) ...
    allow = 0.3
    #: ... by this much when an opponent has five cards or fewer ...
    allow_near = 0.8
    #: ... and by this much for the farmer who answers the landlord last. (Tuned in mirror
    #: matches on the arena: answering more readily won 0.52-0.56 of deals against the more
    #: cautious settings -0.45/0.35/-0.3; going further gained nothing.)
    allow_last = 0.4

    def __init__(self, rng: random.Random | None = None) -> None:
        # Deterministic: the generator is accepted for a uniform interface, and unused.
        self._rng = rng

    # --- bidding ---------------------------------------------------------------------

    @staticmethod
    def strength(hand: list[Rank]) -> float:
        """Bid strength of a 17-card hand: high cards and bombs, less the split's cost."""
        counts = counts_of(hand)
        high = 4.0 * counts[Rank.BIG_JOKER.index] + 3.0 * counts[Rank.SMALL_JOKER.index]
        high += 2.0 * counts[Rank.TWO.index] + 0.5 * counts[Rank.ACE.index]
        high += 4.0 * sum(1 for c in counts[:13] if c == 4)
        return high - hand_cost(counts)

    def bid(self, view: TableView) -> int:
        """Bid by strength: the stronger the hand, the higher; never above what it is worth."""
        hand = hand_ranks(view)
        highest = max([0] + [b for _, b in view.bids])
        may_pass = view.turn is None or view.turn.may_pass
        score = self.strength(hand)
        wanted = (
            3 if score >= BID_THREE else 2 if score >= BID_TWO else 1 if score >= BID_ONE else 0
        )
        if wanted > highest:
            return wanted
        return 0 if may_pass else highest + 1

    # --- play ------------------------------------------------------------------------

    def play(self, view: TableView) -> tuple[Rank, ...] | None:
        hand = hand_ranks(view)
        if view.landlord is None or view.viewer_seat is None:
            raise ValueError("no landlord yet: nothing to play")
        seat = _Seat(
            me=view.viewer_seat,
            landlord=view.landlord,
            counts=counts_of(hand),
            hand=hand,
            unseen=outstanding(view),
            card_counts=list(view.card_counts),
        )
        to_beat = table_play(view)
        if to_beat is None:
            return self._lead(seat).cards
        assert view.last_play is not None
        answer = self._answer(seat, to_beat, view.last_play.seat)
        return None if answer is None else answer.cards

    # --- leading ---------------------------------------------------------------------

    def _lead(self, seat: _Seat) -> Play:
        counts = seat.counts
        everything = legal_plays(seat.hand)
        out = [p for p in everything if len(p.cards) == len(seat.hand)]
        if out:
            return max(out, key=lambda p: p.is_bomb_like)  # a last bomb doubles the score
        groups = decompose(counts)
        ordinary = [g for g in groups if not g.is_bomb_like]
        bombs = [g for g in groups if g.is_bomb_like]
        loose = [g for g in ordinary if not seat.sure(g)]
        if len(loose) <= 1:
            # Cash the sure winners first, the longest first, bombs next, the loose one last.
            sure = sorted((g for g in ordinary if g not in loose), key=lambda g: -len(g.cards))
            return [*sure, *sorted(bombs, key=_bomb_order), *loose][0]
        partner = seat.partner
        if partner is not None:
            short = seat.card_counts[partner]
            landlord_short = seat.card_counts[seat.landlord] <= 2
            if short == 1 and not (landlord_short and seat.next_seat == seat.landlord):
                return _single(min(seat.hand))  # feed the partner a low single
            if short == 2 and seat.next_seat == partner:
                pairs = [g for g in ordinary if g.kind is Kind.PAIR]
                if pairs:
                    return min(pairs, key=lambda g: g.rank)
        # Opponents with one or two cards: lead nothing they can answer with all of them.
        short_hands = {seat.card_counts[s] for s in seat.opponents if seat.card_counts[s] <= 2}
        if short_hands:
            safe = [g for g in ordinary if len(g.cards) not in short_hands]
            if safe:
                return min(safe, key=_lead_order)
            if 1 in short_hands:
                # Nothing but singles: lead the highest, to hold the lead if it can.
                singles = [g for g in ordinary if g.kind is Kind.SINGLE]
                if singles:
                    top = max(singles, key=lambda g: g.rank)
                    low = [g for g in singles if g is not top]
                    return low[0] if len(singles) == 2 and seat.sure(top) and low else top
        choices = [g for g in loose if g not in bombs] or ordinary or groups
        return min(choices, key=_lead_order)

    # --- answering -------------------------------------------------------------------

    def _answer(self, seat: _Seat, to_beat: Play, by: int) -> Play | None:
        answers = legal_plays(seat.hand, to_beat)
        if not answers:
            return None
        for p in answers:
            if len(p.cards) == len(seat.hand):
                return p
        ordinary = [p for p in answers if not p.is_bomb_like]
        bombs = [p for p in answers if p.is_bomb_like]
        before = hand_cost(seat.counts)
        best: Play | None = None
        best_after = 0.0
        for p in _weighed(ordinary):
            after = hand_cost(minus(seat.counts, p.cards))
            if best is None or after < best_after - 1e-9:
                best, best_after = p, after
        partner_played = seat.partner is not None and by == seat.partner
        if partner_played:
            return self._over_partner(seat, to_beat, ordinary, best, before, best_after)
        # An opponent's play.
        threat = seat.danger
        if best is not None and to_beat.kind is Kind.SINGLE and threat == 1:
            return max(ordinary, key=lambda p: p.rank)  # stop him with the highest single
        if best is not None and to_beat.kind is Kind.PAIR and threat <= 2:
            return max(ordinary, key=lambda p: p.rank)
        if best is not None:
            allow = self.allow
            if threat <= 2:
                allow = 5.0
            elif threat <= 5:
                allow = self.allow_near
            elif not seat.is_landlord and seat.next_seat == seat.landlord:
                allow = self.allow_last  # the last farmer to answer the landlord
            if best_after - before <= allow:
                return best
            if seat.loose_groups(minus(seat.counts, best.cards)) <= 1:
                return best
        if bombs:
            bomb = min(bombs, key=_bomb_order)
            rest = minus(seat.counts, bomb.cards)
            if (
                seat.card_counts[by] <= 4
                or threat <= 3
                or seat.loose_groups(rest) <= 1
                or (to_beat.is_bomb_like is False and len(to_beat.cards) >= 6 and threat <= 8)
            ):
                return bomb
        return None

    def _over_partner(
        self,
        seat: _Seat,
        to_beat: Play,
        ordinary: list[Play],
        best: Play | None,
        before: float,
        best_after: float,
    ) -> Play | None:
        """The partner's play is winning the trick: beat it only when that helps the team."""
        landlord_cards = seat.card_counts[seat.landlord]
        if (
            ordinary
            and seat.next_seat == seat.landlord
            and landlord_cards <= 2
            and len(to_beat.cards) <= landlord_cards
            and can_be_beaten(to_beat, seat.unseen, landlord_cards)
        ):
            # The landlord, next, could beat the partner and go out: play over him high.
            return max(ordinary, key=lambda p: p.rank)
        if best is None or seat.card_counts[seat.partner or 0] <= 2:
            return None
        if seat.loose_groups(minus(seat.counts, best.cards)) == 0:
            return best  # take the lead and go out
        if best_after - before <= -0.9 and group_cost(to_beat) > 0.9 and best.rank < Rank.KING:
            return best  # a free low group over a low play: shed it, the partner loses little
        return None


def _single(rank: Rank) -> Play:
    return Play(Kind.SINGLE, rank, (rank,))


def _lead_order(group: Play) -> float:
    """Lead the low groups first, and of those the ones that shed more cards."""
    return group.rank.index - 0.6 * len(group.cards)


def _bomb_order(group: Play) -> int:
    """Smaller bombs first, the rocket last."""
    return 99 if group.kind is Kind.ROCKET else group.rank


def _weighed(plays: list[Play]) -> list[Play]:
    """The answers worth weighing: all of them, or when kickers make too many, the first
    few of each main part."""
    if len(plays) <= _MAX_ANSWERS:
        return plays
    seen: dict[tuple[Kind, Rank], int] = {}
    kept: list[Play] = []
    for p in plays:
        n = seen.get((p.kind, p.rank), 0)
        if n < 6:
            kept.append(p)
        seen[(p.kind, p.rank)] = n + 1
    return kept


#: Bid thresholds on ``NormalBot.strength``.
BID_ONE = -1.0
BID_TWO = 1.0
BID_THREE = 3.0
