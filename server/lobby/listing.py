"""The list of live rooms anyone may watch (``ListRooms``): which rooms it shows, in what
order.

Rooms with people in them come first: by people seated and connected, then watchers, then
the newest. At most ``per_origin`` rooms created from one client address are shown, so
rooms one client opens (even with a connection sitting in each) cannot push everyone
else's off the list. Quick matches have no origin and no such cap.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from protocol.messages import RoomSummary
from server.rooms.room import Room

#: Most rooms a room list names.
LIST_LIMIT = 50
#: Most rooms of one client address a room list names.
LIST_PER_ADDRESS = 5
#: Newest live rooms read to choose the list from.
LIST_SCAN = 200
#: Seconds a process reuses the list it built (it is the same for everyone).
LIST_FRESH = 1.0


@dataclass(frozen=True)
class Listed:
    """A live listed room, as the list weighs it."""

    summary: RoomSummary
    present: int  # people seated and connected
    created: float
    origin: str  # the client address that created it ("": none, a quick match)


def present(room: Room) -> int:
    """People seated in the room and connected now."""
    return sum(1 for s in room.seats if s.kind == "person" and s.connected and not s.left)


def summary(room: Room) -> RoomSummary:
    return RoomSummary(
        code=room.code,
        mode=room.mode,
        deals=room.deals,
        deal_no=room.match.deal_no if room.match else 0,
        seats=[seat.name or "" for seat in room.seats],
        watchers=len(room.watchers),
    )


def choose(
    rooms: list[Listed], limit: int = LIST_LIMIT, per_origin: int = LIST_PER_ADDRESS
) -> list[RoomSummary]:
    """The rooms the list shows, in order (see the module's docstring)."""
    ordered = sorted(rooms, key=lambda r: (-r.present, -r.summary.watchers, -r.created))
    shown: list[RoomSummary] = []
    per: Counter[str] = Counter()
    for room in ordered:
        if room.origin and per_origin > 0:
            if per[room.origin] >= per_origin:
                continue
            per[room.origin] += 1
        shown.append(room.summary)
        if len(shown) >= limit:
            break
    return shown
