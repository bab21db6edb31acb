"""Who a room sends to: watchers leave when their connection ends, a room has at most so
many watchers, and a person whose seat is marked disconnected is sent nothing until they
come back (their snapshot then brings them up to date).

Issue 11, item 5: watchers who dropped stayed in the room for ever, and every message was
still addressed (and published) to each of them and to disconnected players."""

from __future__ import annotations

import random

import pytest

from protocol.errors import ErrorCode
from protocol.events import DealStarted
from protocol.messages import Left, ReadyRequest, RoomClosed, SeatsChanged, SetBotSpeed
from server.rooms.room import Clocks, Room, RoomError
from server.rooms.stored import room_to_data

NOW = 1000.0


def room_of_three() -> Room:
    room = Room.create("ABCDE", "private", 3, "alice", "Alice", clocks=Clocks(15, 20, 10))
    room.join("bob", "Bob", NOW)
    room.join("carol", "Carol", NOW)
    return room


def started(room: Room, rng: random.Random) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for player in ("alice", "bob", "carol"):
        out += room.handle(player, ReadyRequest(), NOW, rng).deliveries
    return out


def test_a_watcher_whose_connection_ends_leaves_the_room() -> None:
    room = room_of_three()
    room.watch("walt")
    version = room.version
    out = room.gone("walt")
    assert "walt" not in room.watchers and not room.is_member("walt")
    assert room.version == version + 1  # saved: the stored room forgets them too
    counts = {p: m.watchers for p, m in out if isinstance(m, SeatsChanged)}
    assert counts == {"alice": 0, "bob": 0, "carol": 0}


def test_a_seated_person_whose_connection_ends_keeps_the_seat() -> None:
    room = room_of_three()
    room.gone("bob")
    assert room.seat_of("bob") == 1 and room.is_member("bob")
    assert not room.seats[1].connected


def test_watch_and_drop_many_times_leaves_the_room_as_it_was() -> None:
    room = room_of_three()
    before = room_to_data(room) | {"version": 0}
    for i in range(500):
        room.watch(f"w{i}")
        room.gone(f"w{i}")
    assert room_to_data(room) | {"version": 0} == before


def test_the_watcher_after_the_cap_is_refused() -> None:
    room = room_of_three()
    for i in range(3):
        room.watch(f"w{i}", max_watchers=3)
    before = room_to_data(room)
    with pytest.raises(RoomError) as exc:
        room.watch("late", max_watchers=3)
    assert exc.value.code == ErrorCode.ROOM_FULL
    assert exc.value.message == "this room has 3 watchers"
    assert room_to_data(room) == before
    room.watch("w1", max_watchers=3)  # watching again is no new watcher
    room.gone("w0")
    room.watch("late", max_watchers=3)  # a place freed
    room.watch("more", max_watchers=0)  # 0: no cap


def test_a_disconnected_person_is_sent_nothing() -> None:
    rng = random.Random(1)
    room = room_of_three()
    room.watch("walt")
    room.gone("carol")
    out = room.handle("alice", SetBotSpeed(speed="fast"), NOW, rng).deliveries
    assert {p for p, _ in out} == {"alice", "bob", "walt"}
    out = room.gone("bob")
    assert {p for p, _ in out} == {"alice", "walt"}


def test_a_disconnected_seat_is_dealt_no_hand_until_it_comes_back() -> None:
    rng = random.Random(2)
    room = room_of_three()
    room.handle("alice", ReadyRequest(), NOW, rng)
    room.handle("bob", ReadyRequest(), NOW, rng)
    room.gone("bob")
    out = room.handle("carol", ReadyRequest(), NOW, rng).deliveries
    dealt = {p for p, m in out if isinstance(m, DealStarted)}
    assert dealt == {"alice", "carol"}
    room.set_connected("bob", True)
    view = room.view_for("bob", NOW)  # the snapshot they get on coming back
    assert view.table is not None and view.table.hand is not None


def test_a_person_who_leaves_still_hears_they_left() -> None:
    rng = random.Random(3)
    room = room_of_three()
    started(room, rng)
    out = room.leave("bob")
    assert ("bob", Left()) in out
    assert all(p != "bob" for p, m in out if not isinstance(m, Left))


def test_a_closing_room_tells_only_those_connected() -> None:
    room = Room.create("PRACT", "private", 3, "alice", "Alice")
    room.join("bob", "Bob", NOW)
    room.watch("walt")
    room.gone("bob")
    room.leave("bob")
    out = room.leave("alice")
    assert {p for p, m in out if isinstance(m, RoomClosed)} == {"walt"}
