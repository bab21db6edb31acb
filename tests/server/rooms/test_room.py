"""The sans-I/O room: seats, joining, bots, readiness, watchers, leaving, and the order in
which a request is checked (room, phase, turn, version, rules)."""

from __future__ import annotations

import random

import pytest

from protocol.errors import ErrorCode
from protocol.events import DealStarted, TurnStarted
from protocol.messages import (
    BidRequest,
    Left,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    ResumeRequest,
    RoomClosed,
    SeatBot,
    SeatsChanged,
    SetBotSpeed,
)
from server.game.errors import GameError
from server.rooms.room import RESUME_FLOOR, BotActor, Clocks, Room, RoomError, Seat
from server.rooms.stored import room_from_data, room_to_data

NOW = 1000.0


def private_room() -> Room:
    return Room.create("ABCDE", "private", 3, "alice", "Alice", clocks=Clocks(15, 20, 10))


def full_room(rng: random.Random) -> Room:
    room = private_room()
    room.join("bob", "Bob", NOW)
    room.join("carol", "Carol", NOW)
    for player in ("alice", "bob", "carol"):
        room.handle(player, ReadyRequest(), NOW, rng)
    return room


def refused(code: ErrorCode, room: Room, *args: object) -> None:
    before = room_to_data(room)
    with pytest.raises((RoomError, GameError)) as exc:
        room.handle(*args)  # type: ignore[arg-type]
    assert exc.value.code == code
    assert room_to_data(room) == before


def test_the_creator_sits_in_seat_zero_and_others_join_the_empty_seats() -> None:
    room = private_room()
    out = room.join("bob", "Bob", NOW)
    assert room.seat_of("bob") == 1
    assert {p for p, m in out if isinstance(m, SeatsChanged)} == {"alice", "bob"}
    room.join("carol", "Carol", NOW)
    with pytest.raises(RoomError) as exc:
        room.join("dave", "Dave", NOW)
    assert exc.value.code == ErrorCode.ROOM_FULL
    with pytest.raises(RoomError) as exc:
        room.join("bob", "Bob", NOW)
    assert exc.value.code == ErrorCode.ALREADY_SEATED


def test_only_the_creator_seats_bots_and_only_in_empty_seats() -> None:
    rng = random.Random(1)
    room = private_room()
    room.join("bob", "Bob", NOW)
    refused(ErrorCode.NOT_ALLOWED, room, "bob", SeatBot(level="easy"), NOW, rng)
    room.handle("alice", SeatBot(level="easy"), NOW, rng)
    assert room.seats[2].kind == "bot"
    refused(ErrorCode.ROOM_FULL, room, "alice", SeatBot(level="easy"), NOW, rng)


def test_the_match_starts_when_three_seats_are_filled_and_all_are_ready() -> None:
    rng = random.Random(2)
    room = private_room()
    room.handle("alice", SeatBot(), NOW, rng)
    room.handle("alice", ReadyRequest(), NOW, rng)
    assert room.match is None  # seat 2 still empty
    room.join("bob", "Bob", NOW)
    out = room.handle("bob", ReadyRequest(), NOW, rng).deliveries
    assert room.match is not None
    hands = {p: m.hand for p, m in out if isinstance(m, DealStarted)}
    assert set(hands) == {"alice", "bob"}  # the bot's hand goes to no one
    assert hands["alice"] == room.match.deal.hands[0]
    assert room.seat_of("bob") == 2  # the bot took the first empty seat
    assert hands["bob"] == room.match.deal.hands[2]
    turn = next(m for _, m in out if isinstance(m, TurnStarted))
    assert turn.deadline == NOW + 15


def test_a_private_room_is_timed_and_a_practice_room_is_not() -> None:
    assert private_room().timed
    practice = Room.create("PRACT", "practice", 1, "alice", "Alice")
    assert not practice.timed
    with pytest.raises(RoomError) as exc:
        practice.join("bob", "Bob", NOW)
    assert exc.value.code == ErrorCode.NOT_ALLOWED


def test_requests_are_checked_phase_then_turn_then_version_then_rules() -> None:
    rng = random.Random(3)
    room = full_room(rng)
    assert room.match is not None
    turn = room.match.turn
    assert turn is not None
    on_turn = room.seats[turn].player_id
    other = room.seats[(turn + 1) % 3].player_id
    assert on_turn and other
    refused(ErrorCode.WRONG_PHASE, room, on_turn, PlayRequest(ranks=[3]), NOW, rng)
    refused(ErrorCode.NOT_YOUR_TURN, room, other, BidRequest(value=1), NOW, rng)
    refused(ErrorCode.STALE, room, on_turn, BidRequest(value=1, version=99), NOW, rng)
    refused(ErrorCode.BID_OUT_OF_RANGE, room, on_turn, BidRequest(value=5), NOW, rng)
    version = room.match.version
    room.handle(on_turn, BidRequest(value=1, version=version), NOW, rng)
    # the same request again is not applied twice: the turn has moved on
    refused(ErrorCode.NOT_YOUR_TURN, room, on_turn, BidRequest(value=1, version=version), NOW, rng)


def test_a_bot_acts_only_for_a_seat_a_bot_holds() -> None:
    rng = random.Random(4)
    room = full_room(rng)
    refused(ErrorCode.NOT_ALLOWED, room, BotActor(0), PassRequest(), NOW, rng)
    refused(ErrorCode.NOT_TAKEN_OVER, room, "alice", ResumeRequest(), NOW, rng)


def test_watchers_are_counted_and_get_no_hand() -> None:
    rng = random.Random(5)
    room = private_room()
    room.join("bob", "Bob", NOW)
    out = room.watch("walt")
    assert all(m.watchers == 1 for _, m in out if isinstance(m, SeatsChanged))
    assert {p for p, _ in out} == {"alice", "bob", "walt"}
    room.handle("alice", SeatBot(), NOW, rng)
    room.handle("alice", ReadyRequest(), NOW, rng)
    out = room.handle("bob", ReadyRequest(), NOW, rng).deliveries
    started = [m for p, m in out if p == "walt" and isinstance(m, DealStarted)]
    assert len(started) == 1 and started[0].hand is None
    view = room.view_for("walt", NOW)
    assert view.your_seat is None and view.table is not None and view.table.hand is None
    with pytest.raises(RoomError):
        room.watch("alice")


def test_leaving_before_the_match_empties_the_seat_and_unreadies_everyone() -> None:
    rng = random.Random(6)
    room = private_room()
    room.join("bob", "Bob", NOW)
    room.handle("alice", ReadyRequest(), NOW, rng)
    out = room.leave("bob")
    assert ("bob", Left()) in out
    assert room.seats[1].kind == "empty"
    assert not room.seats[0].ready


def test_leaving_during_the_match_hands_the_seat_to_a_bot() -> None:
    rng = random.Random(7)
    room = full_room(rng)
    room.leave("bob")
    assert 1 in room.bot_seats()
    assert room.closed is None
    room.watch("walt")
    room.leave("alice")
    out = room.leave("carol")
    assert room.closed == "everyone_left"
    assert ("walt", RoomClosed(reason="everyone_left")) in out


def test_a_practice_room_closes_when_its_person_leaves() -> None:
    room = Room.create("PRACT", "practice", 1, "alice", "Alice")
    room.leave("alice")
    assert room.closed == "everyone_left"
    with pytest.raises(RoomError) as exc:
        room.watch("walt")
    assert exc.value.code == ErrorCode.NO_ROOM


def test_only_the_creator_sets_the_bot_speed() -> None:
    rng = random.Random(8)
    room = private_room()
    room.join("bob", "Bob", NOW)
    refused(ErrorCode.NOT_ALLOWED, room, "bob", SetBotSpeed(speed="fast"), NOW, rng)
    room.handle("alice", SetBotSpeed(speed="fast"), NOW, rng)
    assert room.bot_speed == "fast"


def test_the_room_round_trips_through_plain_data() -> None:
    rng = random.Random(9)
    room = full_room(rng)
    room.watch("walt")
    assert room_to_data(room_from_data(room_to_data(room))) == room_to_data(room)


def test_a_resent_request_id_is_recognised_and_not_applied_twice() -> None:
    """A client that resends after a drop names the same request id: it is refused as a
    duplicate, whatever the request, and the room is unchanged."""
    rng = random.Random(10)
    room = private_room()
    room.join("bob", "Bob", NOW)
    room.handle("alice", ReadyRequest(id=7), NOW, rng)
    assert room.seats[0].last_request == 7
    refused(ErrorCode.DUPLICATE, room, "alice", ReadyRequest(id=7), NOW, rng)
    refused(ErrorCode.DUPLICATE, room, "alice", SeatBot(id=5), NOW, rng)
    room.handle("alice", SeatBot(id=8), NOW, rng)  # a new id is applied
    assert room.seats[2].kind == "bot"


def test_time_down_does_not_count_against_the_seat_on_turn() -> None:
    """Regression (issue 11, item 15): after a kill -9 and about 7 s down a player came
    back at "0s left" and was passed by the clock. A room that comes back gets at least
    the time its clock had left at the last save, from the moment it is back."""
    rng = random.Random(3)
    room = full_room(rng)  # dealt at NOW: a 15 s bidding clock
    match = room.match
    assert match is not None and match.deadline == NOW + 15
    room.saved_at = NOW + 4  # saved with 11 s left
    stored = room_from_data(room_to_data(room))
    assert stored.saved_at == NOW + 4
    back = NOW + 4 + 30  # 30 s down: the old deadline is long past
    out = stored.resume_clocks(back)
    assert stored.match is not None and stored.match.deadline == back + 11
    turns = [m for _, m in out if isinstance(m, TurnStarted)]
    assert {p for p, _ in out} == {"alice", "bob", "carol"}  # everyone is told
    assert turns[0].deadline == back + 11 and turns[0].server_time == back
    assert turns[0].seat == stored.match.turn


def test_a_clock_saved_nearly_run_out_comes_back_with_the_floor() -> None:
    rng = random.Random(3)
    room = full_room(rng)
    room.saved_at = NOW + 14.5  # half a second left when saved
    back = NOW + 20
    room.resume_clocks(back)
    assert room.match is not None and room.match.deadline == back + RESUME_FLOOR
    # a clock shorter than the floor gets its full length, no more
    short = Room.create("SHORT", "private", 3, "alice", "Alice", clocks=Clocks(2, 2, 2))
    short.join("bob", "Bob", NOW)
    short.join("carol", "Carol", NOW)
    for player in ("alice", "bob", "carol"):
        short.handle(player, ReadyRequest(), NOW, rng)
    short.saved_at = NOW + 2
    short.resume_clocks(NOW + 10)
    assert short.match is not None and short.match.deadline == NOW + 12


def test_a_quick_comeback_keeps_the_deadline_and_an_untimed_room_is_untouched() -> None:
    rng = random.Random(3)
    room = full_room(rng)
    room.saved_at = NOW + 1
    room.resume_clocks(NOW + 1)  # back at once: 14 s left, as it had
    assert room.match is not None and room.match.deadline == NOW + 15
    practice = Room.create("PRACT", "practice", 1, "alice", "Alice")
    practice.seats[1] = Seat(kind="bot", name="b1", level="easy", ready=True)
    practice.seats[2] = Seat(kind="bot", name="b2", level="easy", ready=True)
    practice.start_match(NOW, rng, first_bidder=0)
    version = practice.version
    assert practice.resume_clocks(NOW + 100) == [] and practice.version == version
