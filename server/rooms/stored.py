"""A room as plain data, and back: what the store keeps of a room (``pack``ed by the
runner, ``server/store/codec.py``), and the room rebuilt from it.

``room_to_data`` gives a room's whole state as dicts, lists, numbers, strings and None;
``room_from_data`` builds the room again from it; ``room_from_stored`` does so from what the
store holds (``StoredRoom``: that data as last written whole, and the step records saved
since, replayed over it: ``server/rooms/steps.py``). Journal records not yet stored are no
part of it.
"""

from __future__ import annotations

from typing import Any

from server.game.match import Match
from server.rooms.room import Clocks, Room
from server.rooms.seating import Seat
from server.rooms.steps import replay_tail
from server.store.base import StoredRoom


def room_to_data(room: Room) -> dict[str, Any]:
    return {
        "code": room.code,
        "mode": room.mode,
        "deals": room.deals,
        "seats": [s.to_data() for s in room.seats],
        "creator": room.creator,
        "public": room.public,
        "clocks": None if room.clocks is None else dict(vars(room.clocks)),
        "bot_speed": room.bot_speed,
        "watchers": list(room.watchers),
        "match": None if room.match is None else room.match.to_data(),
        "closed": room.closed,
        "version": room.version,
        "idle_since": room.idle_since,
        "played": room.played,
        "saved_at": room.saved_at,
        "chat_times": [list(t) for t in room.chat_times],
        "rematch_of": room.rematch_of,
        "hold_until": room.hold_until,
        "rated": room.rated,
    }


def room_from_data(data: dict[str, Any]) -> Room:
    """The room ``room_to_data`` gave."""
    fields = dict(data)
    fields["seats"] = [Seat(**s) for s in data["seats"]]
    fields["clocks"] = None if data["clocks"] is None else Clocks(**data["clocks"])
    fields["watchers"] = list(data["watchers"])
    fields["chat_times"] = [list(t) for t in data.get("chat_times", [[], [], []])]
    fields["match"] = None if data["match"] is None else Match.from_data(data["match"])
    return Room(**fields)


def room_from_stored(stored: StoredRoom) -> Room:
    """The room as it stood at its last save: its whole state with its tail replayed.
    Raises ``TailMismatch`` for a tail that does not follow the state."""
    room = room_from_data(stored.state)
    replay_tail(room, stored.tail)
    return room
