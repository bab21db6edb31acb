"""A room's three seats: who sits where, their names, and who of them is reached.

A seat is empty, a person's or a bot's. A person's seat may be only held for them (a
rematch waits for them to ask too: ``Seat.held``), left (they left during the match, a bot
plays it on for them) or disconnected (theirs until they come back). The functions here
read and build seats; the room (``server/rooms/room.py``) decides when they change.

Display names are unique at a table: a person (or bot) whose name another seat has gets
"Ann (2)" (``unique_name``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from protocol.errors import ErrorCode
from protocol.messages import BotLevel, RoomMode, SeatView, Tier
from protocol.text import NAME_MAX
from server.rooms.change import RoomError

SeatKind = Literal["empty", "person", "bot"]


@dataclass
class Seat:
    kind: SeatKind = "empty"
    player_id: str | None = None
    name: str | None = None
    level: BotLevel | None = None
    connected: bool = False
    ready: bool = False
    left: bool = False  # the person left during the match; a bot plays on for them
    last_request: int = 0  # the person's last applied request id: a resent one is refused
    held: bool = False  # a rematch seat kept for this person until they ask too (or the hold ends)
    tier: str | None = None  # the person's rating tier as a quick match seated them (None: unrated)

    def to_data(self) -> dict[str, Any]:
        return dict(vars(self))

    @property
    def sits(self) -> bool:
        """A person seated here (present or not), not only held for them."""
        return self.kind == "person" and bool(self.player_id) and not self.held


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``... when another seat has it (letter case
    aside), cut so that it stays within ``NAME_MAX`` characters."""
    used = {t.casefold() for t in taken}
    if name.casefold() not in used:
        return name
    n = 2
    while True:
        suffix = f" ({n})"
        candidate = name[: NAME_MAX - len(suffix)].rstrip() + suffix
        if candidate.casefold() not in used:
            return candidate
        n += 1


def seat_of(seats: Sequence[Seat], player_id: str) -> int | None:
    """The seat of a seated person (not of one whose rematch seat is only held)."""
    for i, seat in enumerate(seats):
        if seat.sits and seat.player_id == player_id:
            return i
    return None


def held_seat(seats: Sequence[Seat], player_id: str) -> int | None:
    """The rematch seat held for this person, if any."""
    for i, seat in enumerate(seats):
        if seat.held and seat.player_id == player_id:
            return i
    return None


def empty_seats(seats: Sequence[Seat]) -> list[int]:
    return [i for i, s in enumerate(seats) if s.kind == "empty"]


def people(seats: Sequence[Seat]) -> list[str]:
    """Player ids of the persons seated (present or not; not those only held)."""
    return [s.player_id for s in seats if s.sits and s.player_id]


def seated(seats: Sequence[Seat]) -> list[str]:
    """Player ids of the persons seated and still in the room (present or not; not those
    who left, nor those whose seat is only held)."""
    return [s.player_id for s in seats if s.sits and s.player_id and not s.left]


def connected_people(seats: Sequence[Seat]) -> list[str]:
    """Player ids of the seated persons connected now: the ones who keep a room alive (a bot
    or a watcher does not)."""
    return [
        s.player_id
        for s in seats
        if s.kind == "person" and s.player_id and s.connected and not s.left
    ]


def name_for(seats: Sequence[Seat], seat: int, name: str) -> str:
    """``name`` made unique among the other seats' names."""
    taken = [s.name for i, s in enumerate(seats) if i != seat and s.name]
    return unique_name(name, taken)


def bot_seat(seats: Sequence[Seat], seat: int, level: BotLevel) -> Seat:
    """A bot for ``seat``, named for its level and seat (unique at the table), ready."""
    return Seat(
        kind="bot", name=name_for(seats, seat, f"{level} bot {seat}"), level=level, ready=True
    )


def seat_label(seats: Sequence[Seat], seat: int) -> str:
    """A seat as people read it: its name and its number as clients show it (S1..S3)."""
    name = seats[seat].name
    return f"{name} (S{seat + 1})" if name else f"S{seat + 1}"


def seat_views(seats: Sequence[Seat]) -> list[SeatView]:
    return [
        SeatView(
            kind=s.kind,
            name=s.name,
            level=s.level,
            connected=s.kind == "bot" or (s.connected and not s.left),
            ready=s.ready,
            tier=cast(Tier, s.tier) if s.kind == "person" and s.tier else None,
        )
        for s in seats
    ]


def sit_down(seats: list[Seat], player_id: str, name: str, mode: RoomMode, started: bool) -> None:
    """A person takes the first empty seat of a private room before its match, or RoomError
    having changed nothing."""
    if mode == "practice":
        raise RoomError(ErrorCode.NOT_ALLOWED, "a practice room has one person")
    if mode == "quick":
        raise RoomError(ErrorCode.NOT_ALLOWED, "a quick match seats only its own people")
    if held_seat(seats, player_id) is not None:
        raise RoomError(ErrorCode.NOT_ALLOWED, "your seat is held for you: ask for the rematch")
    empty = empty_seats(seats)
    if not empty or started:
        raise RoomError(ErrorCode.ROOM_FULL, "this room has no empty seat")
    seat = empty[0]
    name = name_for(seats, seat, name)
    seats[seat] = Seat(kind="person", player_id=player_id, name=name, connected=True)


def stand_up(seats: list[Seat], seat: int, mode: RoomMode, started: bool) -> None:
    """The person in ``seat`` leaves: before the match their seat empties (a quick match's
    gets a bot: it seats only its own people) and nobody is ready any more; during the
    match it is left, and a bot plays it on."""
    if started:
        seats[seat].left = True
        seats[seat].connected = False
        return
    seats[seat] = bot_seat(seats, seat, "normal") if mode == "quick" else Seat()
    for s in seats:
        if s.kind == "person":
            s.ready = False
