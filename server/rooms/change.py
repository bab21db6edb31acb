"""What a room's change is made of: who asked for it, what it sends, what it records.

A room's operation returns a ``Change``: the messages to deliver, each to one player id
(``Delivery``), and the journal records it made (``server/game/journal.py``), which the
store appends to the room's log before anything is delivered. A refused operation raises a
``Refusal`` (``RoomError`` here, ``GameError`` from the game) having changed nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.errors import Refusal
from protocol.events import Message
from server.game.journal import Record


class RoomError(Refusal):
    """A request the lobby or the room refuses before the game sees it."""


@dataclass(frozen=True, slots=True)
class BotActor:
    """A bot acting for a seat (a bot's seat, or a person's seat taken over)."""

    seat: int


Actor = str | BotActor
"""Who sends a request: a person's player id, or a bot for a seat."""
Delivery = tuple[str, Message]
"""A message for one player id."""


@dataclass(slots=True)
class Change:
    """What one operation did to a room: ``deliveries`` to send once it is saved, and the
    ``journal`` records to store with it."""

    deliveries: list[Delivery] = field(default_factory=list)
    journal: list[Record] = field(default_factory=list)
