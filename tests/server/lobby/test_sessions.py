"""A session remembers the room a room's notice last took the player out of, until they are
in a room again or leave by themselves: a request for a room after that notice may be their
first word since that room's end was lost on its way (``Table.to_room``)."""

from __future__ import annotations

from server.lobby.sessions import Sessions
from server.store.memory import MemoryRedis, MemoryStore


async def test_a_rooms_notice_that_the_player_is_out_is_remembered() -> None:
    sessions = Sessions(MemoryStore(MemoryRedis()))
    ann = await sessions.open("Ann", "p-ann")
    await sessions.enter(ann, "ROOM-A")
    await sessions.left("p-ann", "ROOM-A")  # type: ignore[misc]
    assert ann.room is None and ann.left_room == "ROOM-A"


async def test_a_notice_about_another_room_than_the_players_changes_nothing() -> None:
    sessions = Sessions(MemoryStore(MemoryRedis()))
    ann = await sessions.open("Ann", "p-ann")
    await sessions.enter(ann, "ROOM-B")
    assert sessions.left("p-ann", "ROOM-A") is None
    assert ann.room == "ROOM-B" and ann.left_room is None


async def test_a_room_entered_or_left_by_oneself_since_forgets_it() -> None:
    sessions = Sessions(MemoryStore(MemoryRedis()))
    ann = await sessions.open("Ann", "p-ann")
    for since in ("enter", "entered", "leave"):
        await sessions.enter(ann, "ROOM-A")
        await sessions.left("p-ann", "ROOM-A")  # type: ignore[misc]
        if since == "enter":
            await sessions.enter(ann, "ROOM-B")
        elif since == "entered":
            sessions.entered("p-ann", "ROOM-B")
        else:
            await sessions.leave(ann)
        assert ann.left_room is None, since
