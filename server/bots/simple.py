"""A plain, legal bot: bids on a few high cards, leads its smallest group, answers with the
smallest play that beats the table, and keeps bombs for a short hand."""

from __future__ import annotations

from protocol.cards import Rank
from protocol.events import TableView
from protocol.legal import legal_plays
from protocol.plays import Kind, Play
from server.bots.view import hand_ranks, table_play


def _strength(hand: list[Rank]) -> int:
    """A rough count of winners: jokers, 2s, aces and bombs."""
    score = sum(2 if r >= Rank.SMALL_JOKER else 1 for r in hand if r >= Rank.TWO)
    return score + sum(1 for r in set(hand) if hand.count(r) == 4) * 2


class SimpleBot:
    """The smallest play that beats the table; lead the longest low group."""

    def bid(self, view: TableView) -> int:
        highest = max([0] + [b for _, b in view.bids])
        may_pass = view.turn is None or view.turn.may_pass
        wanted = min(3, _strength(hand_ranks(view)) // 2)
        if wanted > highest:
            return wanted
        return 0 if may_pass else highest + 1

    def play(self, view: TableView) -> tuple[Rank, ...] | None:
        hand = hand_ranks(view)
        to_beat = table_play(view)
        plays = legal_plays(hand, to_beat)
        if to_beat is None:
            return self._lead(plays).cards
        ordinary = [p for p in plays if not p.is_bomb_like]
        if ordinary:
            return ordinary[0].cards
        if plays and len(hand) <= 6:
            return plays[0].cards
        return None

    @staticmethod
    def _lead(plays: list[Play]) -> Play:
        """Among plays of the lowest main rank, the one that sheds the most cards without
        breaking a bomb into kickers."""
        lowest = min(p.rank for p in plays)
        candidates = [
            p
            for p in plays
            if p.rank == lowest and p.kind not in (Kind.FOUR_TWO_SINGLES, Kind.FOUR_TWO_PAIRS)
        ] or [plays[0]]
        return max(candidates, key=lambda p: (len(p.cards), -sum(p.cards)))
