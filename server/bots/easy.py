"""The easy bot: plays like a beginner. Always legal and plausible, and easy to beat.

It bids on a few high cards, more or less at random; leads the smallest single or pair (now
and then another small play); answers with the smallest play that beats the table, but now
and then passes when it could play; bombs only when its hand is nearly out; and pays no
attention to its partner or to the cards that are out.

Randomness comes from an injected ``random.Random``; without one, each decision draws from a
generator seeded by the view itself, so the bot stays a pure function of what its seat sees.
"""

from __future__ import annotations

import random
import zlib

from protocol.cards import Rank
from protocol.events import TableView
from protocol.legal import legal_plays
from protocol.plays import Kind, Play
from server.bots.view import hand_ranks, table_play

#: Kinds a beginner leads; the rest (chains of pairs, airplanes, four with two) he misses.
_BEGINNER_LEADS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.TRIPLE_SINGLE, Kind.STRAIGHT)


def view_seed(view: TableView) -> int:
    """A seed that depends on the view only (the seat's hand and the public history)."""
    text = repr(
        (
            view.viewer_seat,
            view.deal_no,
            sorted(view.hand or ()),
            view.bids,
            [(p.seat, p.cards) for p in view.plays],
            view.passes,
        )
    )
    return zlib.crc32(text.encode())


class EasyBot:
    """A beginner: the smallest play that beats, small leads, random slips."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng

    def _random(self, view: TableView) -> random.Random:
        return self._rng if self._rng is not None else random.Random(view_seed(view))

    def bid(self, view: TableView) -> int:
        """Bid one above the highest so far on a hand with some high cards, at random."""
        rng = self._random(view)
        hand = hand_ranks(view)
        highest = max([0] + [b for _, b in view.bids])
        may_pass = view.turn is None or view.turn.may_pass
        high = sum(1 for r in hand if r >= Rank.TWO)
        high += 2 * sum(1 for r in set(hand) if hand.count(r) == 4)
        keen = 0.7 if high >= 4 else 0.35 if high >= 2 else 0.05
        if highest < 3 and rng.random() < keen:
            return rng.randint(highest + 1, min(3, highest + 2))
        return 0 if may_pass else highest + 1

    def play(self, view: TableView) -> tuple[Rank, ...] | None:
        """A small lead, or the smallest answer; sometimes a pass."""
        rng = self._random(view)
        hand = hand_ranks(view)
        to_beat = table_play(view)
        plays = legal_plays(hand, to_beat)
        for p in plays:
            if len(p.cards) == len(hand):
                return p.cards  # even a beginner sees he can go out
        if to_beat is None:
            return self._lead(plays, rng).cards
        ordinary = [p for p in plays if not p.is_bomb_like]
        if ordinary:
            if rng.random() < 0.2:
                return None
            if len(ordinary) > 1 and rng.random() < 0.25:
                return ordinary[1].cards
            return ordinary[0].cards
        if plays and len(hand) <= 6 and rng.random() < 0.5:
            return plays[0].cards
        return None

    @staticmethod
    def _lead(plays: list[Play], rng: random.Random) -> Play:
        """Mostly the lowest single or pair; sometimes another simple play of a low rank."""
        lowest = min(p.rank for p in plays)
        small = [p for p in plays if p.rank == lowest and p.kind in (Kind.SINGLE, Kind.PAIR)]
        if small and rng.random() < 0.7:
            return small[-1]  # the pair when there is one
        simple = [p for p in plays if p.kind in _BEGINNER_LEADS and p.rank <= lowest + 3]
        return rng.choice(simple) if simple else plays[0]
