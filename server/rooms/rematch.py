"""A rematch's seats: who keeps their seat, whose is held for them, and when the hold ends.

A rematch is a new room with a finished room's seats and settings (``Room.rematch``): its
bots as they were, the person who asked seated and ready, each other person's seat held for
them (``Seat.held``) until the room's ``hold_until``. A held person who asks too takes their
seat, ready; when the hold ends a private room's held seats are empty (anyone with the code
may join, the creator may seat a bot) and a quick match's get bots.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.errors import ErrorCode
from protocol.messages import RematchAsked, RoomMode
from server.rooms.change import Delivery, RoomError
from server.rooms.seating import Seat, bot_seat, empty_seats, held_seat, name_for


def rematch_seats(old: Sequence[Seat], mode: RoomMode, asker: str) -> tuple[list[Seat], list[int]]:
    """The seats of ``old``'s rematch, and the seats to give a bot (a person's who left
    during the match, unless the room is private: then the seat is empty)."""
    seats: list[Seat] = []
    bots: list[int] = []
    for i, s in enumerate(old):
        if s.kind == "bot":
            seats.append(Seat(kind="bot", name=s.name, level=s.level, ready=True))
        elif s.kind == "person" and s.player_id == asker:
            seats.append(
                Seat(kind="person", player_id=asker, name=s.name, connected=True, ready=True)
            )
        elif s.kind == "person" and s.left and mode != "private":
            seats.append(Seat())
            bots.append(i)
        elif s.kind == "person" and not s.left:
            seats.append(Seat(kind="person", player_id=s.player_id, name=s.name, held=True))
        else:
            seats.append(Seat())
    return seats, bots


def take_seat(seats: list[Seat], player_id: str, name: str, mode: RoomMode, started: bool) -> None:
    """A person asks for the rematch too: they take the seat held for them (or, in a private
    room before its match, the first empty one), ready; RoomError having changed nothing
    when the rematch went on without them."""
    seat = held_seat(seats, player_id)
    if seat is None:
        empty = empty_seats(seats)
        if mode != "private" or not empty or started:
            raise RoomError(ErrorCode.ROOM_FULL, "the rematch went on without you")
        seat = empty[0]
        name = name_for(seats, seat, name)
    else:
        name = seats[seat].name or name_for(seats, seat, name)
    seats[seat] = Seat(kind="person", player_id=player_id, name=name, connected=True, ready=True)


def hold_ends(seats: list[Seat], mode: RoomMode) -> None:
    """The hold is over: a private room's held seats empty, a quick match's get bots."""
    for i, s in enumerate(seats):
        if s.held:
            seats[i] = Seat() if mode == "private" else bot_seat(seats, i, "normal")


def invites(
    seats: Sequence[Seat], old_code: str, asker_seat: int, deadline: float, now: float
) -> list[Delivery]:
    """Tell each person whose seat is held that the person in ``asker_seat`` wants another
    match of ``old_code``, until ``deadline``."""
    msg = RematchAsked(
        code=old_code,
        seat=asker_seat,
        deadline=deadline,
        server_time=now,
        name=seats[asker_seat].name,
    )
    return [(s.player_id, msg) for s in seats if s.held and s.player_id]
