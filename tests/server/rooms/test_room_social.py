"""The sans-I/O room and issue 14: names unique at a table, quick chat and its limit, a
rematch's seats and readiness, and who may have a finished match's replay."""

from __future__ import annotations

import random

import pytest

from protocol.chat import PHRASES, TEXT
from protocol.errors import ErrorCode
from protocol.events import DealStarted
from protocol.messages import (
    CLIENT_ADAPTER,
    Chat,
    PassRequest,
    ReadyRequest,
    RematchAsked,
    SeatBot,
    SeatsChanged,
)
from server.game.errors import GameError
from server.rooms.chat import CHAT_PER_MINUTE, CHAT_WINDOW
from server.rooms.room import (
    BotActor,
    Clocks,
    Room,
    RoomError,
)
from server.rooms.seating import unique_name
from server.rooms.stored import room_from_data, room_to_data
from tests.server.rooms.test_room import NOW, full_room, private_room, refused

HOLD = 30.0


def finish(room: Room, rng: random.Random) -> None:
    """Play the match out with every seat's bot (the room's own checks throughout)."""
    from server.bots import decide
    from server.bots.simple import SimpleBot

    now = NOW
    while room.closed is None:
        match = room.match
        assert match is not None
        now += 1
        if match.turn is None:  # between deals: each person says ready (bots are)
            for seat in room.seats:
                if seat.player_id and not match.ready[room.seats.index(seat)]:
                    room.handle(seat.player_id, ReadyRequest(), now, rng)
            continue
        request = decide(SimpleBot(), match.view_for(match.turn, now))
        assert request is not None
        seat = room.seats[match.turn]
        actor = seat.player_id if seat.kind == "person" else BotActor(match.turn)
        assert actor is not None
        room.handle(actor, request, now, rng)


# --- names --------------------------------------------------------------------------


def test_a_name_another_seat_has_gets_a_number() -> None:
    room = Room.create("ABCDE", "private", 3, "root1", "root", clocks=Clocks(15, 20, 10))
    room.join("root2", "root", NOW)
    room.join("root3", "ROOT", NOW)
    assert [s.name for s in room.seats] == ["root", "root (2)", "ROOT (3)"]


def test_a_unique_name_stays_within_the_name_length() -> None:
    long = "x" * 24
    assert unique_name(long, [long]) == "x" * 20 + " (2)"
    assert unique_name("Ann", ["Ann", "Ann (2)"]) == "Ann (3)"
    assert unique_name("Ann", ["Bob"]) == "Ann"


def test_bots_seated_by_the_creator_have_names_of_their_own() -> None:
    rng = random.Random(1)
    room = private_room()
    room.handle("alice", SeatBot(level="easy"), NOW, rng)
    room.handle("alice", SeatBot(level="easy"), NOW, rng)
    names = [s.name for s in room.seats]
    assert len(set(names)) == 3 and names[1:] == ["easy bot 1", "easy bot 2"]


def test_a_quick_match_makes_its_people_s_names_unique() -> None:
    room = Room.quick("QUICK", [("a", "Ann"), ("b", "Ann")], Clocks(15, 20, 10))
    assert [s.name for s in room.seats] == ["Ann", "Ann (2)", "normal bot 2"]


# --- quick chat ---------------------------------------------------------------------


def test_every_phrase_has_a_text_and_a_bad_phrase_id_is_no_message() -> None:
    assert set(TEXT) == set(PHRASES)
    with pytest.raises(ValueError):
        CLIENT_ADAPTER.validate_python({"type": "chat", "phrase": "you stink"})


def test_a_phrase_goes_to_every_seat_here_and_the_watchers() -> None:
    rng = random.Random(2)
    room = full_room(rng)
    room.watch("walt")
    out = room.handle("bob", Chat(phrase="well_played"), NOW, rng).deliveries
    assert {p for p, _ in out} == {"alice", "bob", "carol", "walt"}
    assert {(m.seat, m.phrase) for _, m in out} == {(1, "well_played")}  # type: ignore[attr-defined]


def test_chat_is_limited_per_seat_per_minute_and_a_refusal_sends_nothing() -> None:
    rng = random.Random(3)
    room = full_room(rng)
    for i in range(CHAT_PER_MINUTE):
        room.handle("alice", Chat(phrase="hurry_up"), NOW + i, rng)
    refused(ErrorCode.RATE_LIMITED, room, "alice", Chat(phrase="oops"), NOW + 10, rng)
    with pytest.raises(RoomError) as exc:
        room.handle("alice", Chat(phrase="oops"), NOW + 10, rng)
    assert "a minute" in exc.value.message and "the next in 50 s" in exc.value.message
    room.handle("bob", Chat(phrase="oops"), NOW + 10, rng)  # another seat has its own
    assert room.handle("alice", Chat(phrase="oops"), NOW + CHAT_WINDOW, rng)  # a minute on


def test_watchers_and_bots_do_not_chat() -> None:
    rng = random.Random(4)
    room = full_room(rng)
    room.watch("walt")
    refused(ErrorCode.NOT_ALLOWED, room, "walt", Chat(phrase="hello"), NOW, rng)
    refused(ErrorCode.NO_ROOM, room, "stranger", Chat(phrase="hello"), NOW, rng)
    room.leave("bob")  # a bot plays bob's seat now
    refused(ErrorCode.NOT_ALLOWED, room, BotActor(1), Chat(phrase="hello"), NOW, rng)


def test_chat_changes_nothing_at_the_table() -> None:
    rng = random.Random(5)
    room = full_room(rng)
    assert room.match is not None
    version = room.match.version
    said = room.handle("carol", Chat(phrase="good_luck"), NOW, rng)
    assert room.match.version == version and said.journal == []


# --- rematch ------------------------------------------------------------------------


def finished_private(rng: random.Random) -> Room:
    room = full_room(rng)
    room.watch("walt")
    finish(room, rng)
    assert room.closed == "match_over"
    return room


def test_a_rematch_keeps_the_seats_and_settings_and_holds_the_others_seats() -> None:
    rng = random.Random(6)
    old = finished_private(rng)
    room = Room.rematch(old, "NEWCD", "bob", NOW, rng, HOLD)
    assert (room.mode, room.deals, room.clocks, room.public) == ("private", 3, old.clocks, False)
    assert [s.name for s in room.seats] == [s.name for s in old.seats]
    assert room.seat_of("bob") == 1 and room.seats[1].ready
    assert room.held_seat("alice") == 0 and room.held_seat("carol") == 2
    assert room.people() == ["bob"] and room.match is None
    assert room.hold_until == NOW + HOLD and room.rematch_of == old.code
    invites = room.invites("bob", NOW)
    assert {p for p, _ in invites} == {"alice", "carol"}
    assert all(isinstance(m, RematchAsked) and m.seat == 1 for _, m in invites)
    assert all(isinstance(m, RematchAsked) and m.name == old.seats[1].name for _, m in invites)
    assert {p for p, _ in room.handle("bob", Chat(phrase="one_more"), NOW, rng).deliveries} == {
        "bob"
    }


def test_the_rematch_starts_when_the_same_three_are_ready() -> None:
    rng = random.Random(7)
    room = Room.rematch(finished_private(rng), "NEWCD", "bob", NOW, rng, HOLD)
    out = room.again("carol", "Carol", NOW + 1, rng).deliveries
    assert room.match is None
    assert [m for p, m in out if p == "alice" and isinstance(m, RematchAsked)]
    with pytest.raises(RoomError) as exc:
        room.again("carol", "Carol", NOW + 1, rng)
    assert exc.value.code == ErrorCode.ALREADY_SEATED
    with pytest.raises(RoomError) as exc:
        room.join("dave", "Dave", NOW)  # no empty seat: alice's is held
    assert exc.value.code == ErrorCode.ROOM_FULL
    out = room.again("alice", "Alice", NOW + 2, rng).deliveries
    assert room.match is not None and room.hold_until is None
    assert {p for p, m in out if isinstance(m, DealStarted)} == {"alice", "bob", "carol"}


def test_when_the_hold_ends_a_private_rematch_seat_is_free_for_anyone() -> None:
    rng = random.Random(8)
    room = Room.rematch(finished_private(rng), "NEWCD", "bob", NOW, rng, HOLD)
    with pytest.raises(RoomError):
        room.hold_over(NOW + HOLD - 1, rng)  # a stale timer
    room.again("alice", "Alice", NOW + 1, rng)
    out = room.hold_over(NOW + HOLD, rng).deliveries
    assert room.seats[2].kind == "empty" and room.held_seat("carol") is None
    assert any(isinstance(m, SeatsChanged) for _, m in out)
    room.handle("bob", SeatBot(level="easy"), NOW + HOLD, rng)  # bob asked first: creator
    assert room.match is not None and room.seats[2].kind == "bot"


def test_someone_who_leaves_the_rematch_frees_the_seat() -> None:
    rng = random.Random(9)
    room = Room.rematch(finished_private(rng), "NEWCD", "bob", NOW, rng, HOLD)
    room.again("alice", "Alice", NOW, rng)
    room.leave("alice")
    assert room.seats[0].kind == "empty" and not room.seats[1].ready
    room.join("dave", "Alice", NOW)  # anyone with the code; the name is kept unique
    assert room.seat_of("dave") == 0 and room.seats[0].name == "Alice"
    with pytest.raises(RoomError) as exc:
        room.again("alice", "Alice", NOW + 1, rng)
    assert exc.value.code == ErrorCode.ROOM_FULL


def test_a_practice_rematch_starts_at_once_with_the_same_bots() -> None:
    rng = random.Random(10)
    old = Room.create("PRACT", "practice", 1, "alice", "Alice")
    for seat in (1, 2):
        old.place_bot(seat, "easy")
    old.start_match(NOW, rng, first_bidder=0)
    finish(old, rng)
    room = Room.rematch(old, "PRAC2", "alice", NOW, rng, HOLD)
    assert room.match is not None and room.match.deal.first_bidder == 0
    assert [(s.kind, s.level) for s in room.seats] == [(s.kind, s.level) for s in old.seats]


def test_a_quick_rematch_gives_a_bot_the_seats_still_held_when_the_hold_ends() -> None:
    rng = random.Random(11)
    old = Room.quick("QUICK", [("a", "Ann"), ("b", "Bob")], Clocks(15, 20, 10))
    old.start_match(NOW, rng)
    finish(old, rng)
    room = Room.rematch(old, "QUIC2", "b", NOW, rng, HOLD)
    assert room.held_seat("a") == 0 and room.seats[2].kind == "bot"
    with pytest.raises(RoomError) as exc:
        room.join("stranger", "Eve", NOW)
    assert exc.value.code == ErrorCode.NOT_ALLOWED
    room.hold_over(NOW + HOLD, rng)
    assert room.seats[0].kind == "bot" and room.match is not None


def test_the_rematch_round_trips_through_plain_data() -> None:
    rng = random.Random(12)
    room = Room.rematch(finished_private(rng), "NEWCD", "bob", NOW, rng, HOLD)
    room.handle("bob", Chat(phrase="hello"), NOW, rng)
    assert room_to_data(room_from_data(room_to_data(room))) == room_to_data(room)


# --- replay permission --------------------------------------------------------------


def test_the_replay_is_for_who_played_or_watched_once_the_room_is_closed() -> None:
    rng = random.Random(13)
    room = full_room(rng)
    room.watch("walt")
    room.watch("wendy")
    with pytest.raises(RoomError) as exc:
        room.check_replay("alice")
    assert exc.value.code == ErrorCode.WRONG_PHASE and "not over" in exc.value.message
    room.gone("walt")  # watched a while, then went: the store remembers (``watched``)
    finish(room, rng)
    for player in ("alice", "bob", "carol", "wendy"):
        room.check_replay(player)
    room.check_replay("walt", watched=True)
    for stranger in ("walt", "stranger"):
        with pytest.raises(RoomError) as exc:
            room.check_replay(stranger)
        assert exc.value.code == ErrorCode.NO_ROOM


def test_a_stranger_is_refused_before_the_end_as_after() -> None:
    rng = random.Random(14)
    room = full_room(rng)
    with pytest.raises(RoomError) as exc:
        room.check_replay("stranger")
    assert exc.value.code == ErrorCode.NO_ROOM
    with pytest.raises((RoomError, GameError)):
        room.handle("stranger", PassRequest(), NOW, rng)


def test_a_turn_refusal_names_the_seat_as_people_read_it() -> None:
    rng = random.Random(15)
    room = full_room(rng)
    assert room.match is not None and room.match.turn is not None
    other = room.seats[(room.match.turn + 1) % 3].player_id
    with pytest.raises(GameError) as exc:  # (the match checks the turn)
        room.handle(other, PassRequest(), NOW, rng)  # type: ignore[arg-type]
    name = room.seats[room.match.turn].name
    assert exc.value.message == f"it is {name} (S{room.match.turn + 1})'s turn"
