"""What every bot level reads first from its seat's ``TableView``: its hand and the play to
beat."""

from __future__ import annotations

from protocol.cards import Rank, card_rank
from protocol.events import TableView
from protocol.plays import Play, classify


def hand_ranks(view: TableView) -> list[Rank]:
    """The viewer's own hand as sorted ranks."""
    if view.hand is None:
        raise ValueError("a bot needs a seat's view, not a spectator's")
    return sorted(card_rank(c) for c in view.hand)


def table_play(view: TableView) -> Play | None:
    """The play to beat, or None when the seat leads."""
    if view.last_play is None:
        return None
    return classify(card_rank(c) for c in view.last_play.cards)
