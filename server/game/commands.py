"""Commands into the game: what a seat (or the clock) asks the match to do."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.cards import Rank

# An action (``Bid``, ``Pass``, ``PlayCards``) may say what its sender saw: ``seen``, the
# match's version (refused as stale once it has moved on), and ``by_person`` (refused while
# a bot holds the seat). Neither is journalled: a replayed action was accepted already.


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid 1, 2 or 3 for the landlord's seat."""

    seat: int
    value: int
    seen: int | None = None
    by_person: bool = False


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: no bid while bidding, no play while following a trick."""

    seat: int
    seen: int | None = None
    by_person: bool = False


@dataclass(frozen=True, slots=True)
class PlayCards:
    """Play these ranks; the server picks the physical cards."""

    seat: int
    ranks: tuple[Rank, ...]
    seen: int | None = None
    by_person: bool = False


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat's clock ran out: apply its default action (SPEC section 8)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Ready:
    """The seat is ready for the next deal."""

    seat: int


@dataclass(frozen=True, slots=True)
class ReadyTimeout:
    """The time between deals ran out: start the next deal."""


@dataclass(frozen=True, slots=True)
class Resume:
    """The person takes their seat back from the bot, from their next turn."""

    seat: int


Action = Bid | Pass | PlayCards
"""A seat's move in the deal (by its person, or by a bot for it)."""
Command = Bid | Pass | PlayCards | Timeout | Ready | ReadyTimeout | Resume
