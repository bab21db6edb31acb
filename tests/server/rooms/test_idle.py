"""Idle rooms (issue 11): a room with no connected person for the idle-room timeout ends as
``abandoned``; bots and watchers keep nobody company; anyone back in time keeps it; the idle
moment is saved with the room, so a restart does not reset it."""

from __future__ import annotations

import random

import pytest

from protocol.errors import ErrorCode
from protocol.messages import BidRequest, ReadyRequest, RoomClosed, SeatBot
from server.game.journal import close_reason, replay
from server.rooms.room import Clocks, Room, RoomError, Seat
from server.rooms.stored import room_from_data, room_to_data

NOW = 1000.0
TIMEOUT = 300.0


def private_room() -> Room:
    return Room.create("ABCDE", "private", 3, "alice", "Alice", clocks=Clocks(15, 20, 10))


def practice_room(rng: random.Random) -> Room:
    room = Room.create("PRACT", "practice", 1, "alice", "Alice")
    for seat in (1, 2):
        room.seats[seat] = Seat(kind="bot", name=f"easy bot {seat}", level="easy", ready=True)
    room.start_match(NOW, rng, first_bidder=0)
    return room


def goes(room: Room, player: str, now: float) -> None:
    """The player's connection drops; the runtime notes who is still here."""
    room.set_connected(player, False)
    room.note_presence(now)


def comes_back(room: Room, player: str, now: float) -> None:
    room.set_connected(player, True)
    room.note_presence(now)


def not_ended(room: Room, now: float) -> None:
    before = room_to_data(room)
    with pytest.raises(RoomError) as exc:
        room.end_idle(now, TIMEOUT)
    assert exc.value.code == ErrorCode.NOT_ALLOWED
    assert room_to_data(room) == before


def test_a_room_is_idle_from_the_moment_its_last_person_went() -> None:
    room = private_room()
    room.join("bob", "Bob", NOW)
    room.note_presence(NOW)
    assert room.idle_since is None
    goes(room, "alice", NOW + 1)
    assert room.idle_since is None  # bob is still here
    goes(room, "bob", NOW + 2)
    assert room.idle_since == NOW + 2
    assert room.idle_deadline(TIMEOUT) == NOW + 2 + TIMEOUT
    not_ended(room, NOW + 2 + TIMEOUT - 0.001)
    room.watch("walt")
    out = room.end_idle(NOW + 2 + TIMEOUT, TIMEOUT).deliveries
    assert room.closed == "abandoned"
    assert ("walt", RoomClosed(reason="abandoned")) in out
    assert room.idle_deadline(TIMEOUT) is None


def test_someone_back_before_the_timeout_keeps_the_room() -> None:
    room = private_room()
    goes(room, "alice", NOW)
    comes_back(room, "alice", NOW + TIMEOUT - 1)
    assert room.idle_since is None
    not_ended(room, NOW + TIMEOUT)
    goes(room, "alice", NOW + TIMEOUT + 5)  # the clock starts again from zero
    not_ended(room, NOW + TIMEOUT + 6)
    room.end_idle(NOW + 2 * TIMEOUT + 5, TIMEOUT)
    assert room.closed == "abandoned"


def test_watchers_and_bots_do_not_keep_a_room_alive() -> None:
    rng = random.Random(1)
    room = practice_room(rng)
    room.watch("walt")
    goes(room, "alice", NOW)
    assert room.connected_people() == []
    assert room.idle_since == NOW
    room.end_idle(NOW + TIMEOUT, TIMEOUT)
    assert room.closed == "abandoned"


def test_a_match_whose_people_all_left_or_went_ends_as_abandoned_in_its_journal() -> None:
    """Bob left (a bot plays his seat), Alice's connection dropped: the bots would play on
    for nobody. The room ends; its journal says so, and still replays."""
    rng = random.Random(2)
    room = private_room()
    room.join("bob", "Bob", NOW)
    records = room.handle("alice", SeatBot(level="easy"), NOW, rng).journal
    records += room.handle("alice", ReadyRequest(), NOW, rng).journal
    records += room.handle("bob", ReadyRequest(), NOW, rng).journal
    assert room.match is not None
    room.leave("bob")
    goes(room, "alice", NOW + 1)
    records += room.end_idle(NOW + 1 + TIMEOUT, TIMEOUT).journal
    assert room.closed == "abandoned"
    assert close_reason(records) == "abandoned"
    *_, (_, match, _) = replay(records)
    assert match.to_data() == room.match.to_data()


def test_a_room_someone_is_in_is_not_ended() -> None:
    room = private_room()
    room.note_presence(NOW)
    not_ended(room, NOW + 10 * TIMEOUT)


def test_no_timeout_means_a_room_never_idles_out() -> None:
    room = private_room()
    goes(room, "alice", NOW)
    assert room.idle_deadline(0) is None
    with pytest.raises(RoomError):
        room.end_idle(NOW + 10 * TIMEOUT, 0)


def test_the_idle_moment_survives_a_round_trip_through_plain_data() -> None:
    """A room taken over after a crash ends on time, not a whole timeout after the restart."""
    room = private_room()
    goes(room, "alice", NOW)
    again = room_from_data(room_to_data(room))
    assert again.idle_since == NOW
    again.all_disconnected()
    again.note_presence(NOW + 200)  # the restart keeps the earlier moment
    assert again.idle_deadline(TIMEOUT) == NOW + TIMEOUT


def test_people_connected_at_a_crash_are_idle_from_the_takeover() -> None:
    room = private_room()
    room.note_presence(NOW)
    again = room_from_data(room_to_data(room))
    again.all_disconnected()
    again.note_presence(NOW + 50)
    assert again.idle_since == NOW + 50


def test_a_closed_room_is_worth_keeping_only_for_a_match_a_person_played() -> None:
    rng = random.Random(3)
    waiting = private_room()
    waiting.leave("alice")
    assert waiting.closed == "everyone_left" and not waiting.worth_keeping
    untouched = practice_room(rng)
    goes(untouched, "alice", NOW)
    untouched.end_idle(NOW + TIMEOUT, TIMEOUT)
    assert not untouched.worth_keeping  # dealt, but nobody moved: nothing to replay
    given_up = practice_room(rng)
    given_up.leave("alice")
    # issue 34: a dealt match its person gave up is in their history (unfinished)
    assert given_up.closed == "everyone_left" and given_up.worth_keeping
    played = practice_room(rng)
    played.handle("alice", BidRequest(value=1), NOW, rng)
    assert played.played
    goes(played, "alice", NOW)
    played.end_idle(NOW + TIMEOUT, TIMEOUT)
    assert played.worth_keeping
    assert room_from_data(room_to_data(played)).played
