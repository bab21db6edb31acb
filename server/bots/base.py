"""The bot interface: a policy reads one seat's ``TableView`` and returns a request.

A bot is given no hidden card: the view it reads is the very one a person in that seat gets.
``decide`` turns a view into the request a person would send (bid, pass, play or ready);
``policy_for`` makes a level's policy. The levels themselves need nothing from here.
"""

from __future__ import annotations

import random
from typing import Protocol

from protocol.cards import Rank
from protocol.events import TableView
from protocol.messages import BidRequest, PassRequest, PlayRequest, ReadyRequest, Request
from server.bots.easy import EasyBot
from server.bots.normal import NormalBot
from server.bots.strong import StrongBot


class BotPolicy(Protocol):
    """What every bot level implements."""

    def bid(self, view: TableView) -> int:
        """0 to pass, or a bid above the highest so far."""
        ...

    def play(self, view: TableView) -> tuple[Rank, ...] | None:
        """The ranks to play, or None to pass (only when the seat may pass)."""
        ...


def decide(policy: BotPolicy, view: TableView) -> Request | None:
    """The request the seat sends now, or None when the table does not wait for it."""
    seat = view.viewer_seat
    if view.phase == "between_deals":
        return None if seat is None or view.ready[seat] else ReadyRequest()
    turn = view.turn
    if turn is None or turn.seat != seat:
        return None
    if turn.action == "bid":
        value = policy.bid(view)
        if value == 0:
            return PassRequest(version=turn.version)
        return BidRequest(value=value, version=turn.version)
    ranks = policy.play(view)
    if ranks is None:
        return PassRequest(version=turn.version)
    return PlayRequest(ranks=[int(r) for r in ranks], version=turn.version)


def policy_for(level: str, rng: random.Random | None = None) -> BotPolicy:
    """The policy of a bot level. ``rng`` seeds the levels that draw at random (easy); without
    one they draw from a generator seeded by the view, so every level is a function of the
    view it is given."""
    if level == "easy":
        return EasyBot(rng)
    if level == "normal":
        return NormalBot(rng)
    if level == "strong":
        return StrongBot(seed=None if rng is None else rng.randrange(2**31))
    raise ValueError(f"unknown bot level {level!r}")
