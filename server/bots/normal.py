"""The normal bot: plays like a decent club player. Deterministic: a function of the view.

- Bidding by hand strength: high cards, bombs, and the cost of the hand's best split into
  groups (``server.bots.hand``): fewer, higher groups bid higher.
- Play: the club player's heuristics (``server.bots.club``) on what the seat can see: its
  hand, the card counts, and the cards not in its hand and not yet played.
"""

from __future__ import annotations

import random

from protocol.cards import Rank
from protocol.events import TableView
from protocol.plays import Kind, Play
from server.bots.club import Style, Table, answer, lead
from server.bots.hand import counts_of, hand_cost, outstanding
from server.bots.view import hand_ranks, table_play

#: Answers the bot weighs at most (in hint order, smallest first); more only with kickers.
_MAX_ANSWERS = 60


def weigh_answers(plays: list[Play]) -> list[Play]:
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


#: Tuned in mirror matches on the arena: answering more readily won 0.52-0.56 of deals
#: against the more cautious settings of the strong bot's rollouts (``sim.ROLLOUT_STYLE``);
#: going further gained nothing.
STYLE = Style(allow=0.3, allow_near=0.8, allow_last=0.4, weigh=weigh_answers)

#: Bid thresholds on ``NormalBot.strength``.
BID_ONE = -1.0
BID_TWO = 1.0
BID_THREE = 3.0


class NormalBot:
    """Club-player heuristics over the best split of the hand; see the module doc."""

    def __init__(self, rng: random.Random | None = None) -> None:
        # Deterministic: the generator is accepted for a uniform interface, and unused.
        self._rng = rng

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

    def play(self, view: TableView) -> tuple[Rank, ...] | None:
        """The club player's lead or answer (None: pass)."""
        hand = hand_ranks(view)
        if view.landlord is None or view.viewer_seat is None:
            raise ValueError("no landlord yet: nothing to play")
        table = Table(
            me=view.viewer_seat,
            landlord=view.landlord,
            counts=counts_of(hand),
            sizes=list(view.card_counts),
            unseen=outstanding(view),
        )
        to_beat = table_play(view)
        if to_beat is None:
            return lead(table).cards
        assert view.last_play is not None
        made = answer(table, to_beat, view.last_play.seat, STYLE)
        return None if made is None else made.cards
