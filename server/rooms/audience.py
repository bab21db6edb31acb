"""Who a room's messages reach: every message a room sends is addressed here, so a hidden
card only ever goes to the seat that holds it.

The match addresses its messages to an audience (a seat, everyone, the watchers:
``server/game/match.py``); this turns each into player ids. A person whose seat is marked
disconnected is sent nothing: their snapshot brings them up to date when they come back,
and nothing is published for a connection that is not there. Watchers leave when their
connection ends, so every watcher is reached.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.events import Message
from server.game.match import EVERYONE, WATCHERS, Audience
from server.rooms.change import Delivery
from server.rooms.seating import Seat


def audience(seats: Sequence[Seat], watchers: Sequence[str]) -> list[str]:
    """Everyone who gets the room's public messages now: seated persons connected
    (anywhere) and watchers."""
    present = [
        s.player_id
        for s in seats
        if s.kind == "person" and s.connected and s.player_id and (s.held or not s.left)
    ]  # (a held seat is not the person's seat yet: whether it was left does not count)
    return present + list(watchers)


def to_everyone(seats: Sequence[Seat], watchers: Sequence[str], message: Message) -> list[Delivery]:
    return [(p, message) for p in audience(seats, watchers)]


def address(
    outgoing: list[tuple[Audience, Message]], seats: Sequence[Seat], watchers: Sequence[str]
) -> list[Delivery]:
    """Turn the match's audiences into player ids."""
    out: list[Delivery] = []
    everyone: list[str] | None = None  # (the same for every message of the change)
    for to, message in outgoing:
        if to == EVERYONE:
            if everyone is None:
                everyone = audience(seats, watchers)
            out.extend((p, message) for p in everyone)
        elif to == WATCHERS:
            out.extend((p, message) for p in watchers)
        else:
            seat = seats[to]
            if seat.kind == "person" and seat.player_id and seat.connected and not seat.left:
                out.append((seat.player_id, message))
    return out
