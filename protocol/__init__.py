"""The shared language of the Dou Dizhu client and server: cards, plays, legal plays, and (in
submodules) the message schemas and codec. Pure: no I/O is imported here."""

from __future__ import annotations

from protocol.cards import Card, CardTextError, Rank, format_cards, parse_cards
from protocol.legal import legal_plays
from protocol.plays import InvalidPlayError, Kind, Play, classify

__all__ = [
    "Card",
    "CardTextError",
    "InvalidPlayError",
    "Kind",
    "Play",
    "Rank",
    "classify",
    "format_cards",
    "legal_plays",
    "parse_cards",
]
