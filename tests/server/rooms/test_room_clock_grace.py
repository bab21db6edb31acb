"""After a restart a room's running clock waits for the person it is for: it counts from their
return or from the end of a short grace, whichever comes first. Bots' seats and seats a bot
took over are not waited for, and the rule survives another restart during the grace."""

from __future__ import annotations

import random

from protocol.events import AwaitingReady, TurnStarted
from protocol.messages import ReadyRequest, SeatsChanged
from server.rooms.room import Clocks, Room, Seat
from server.rooms.stored import room_from_data, room_to_data

NOW = 1000.0
GRACE = 5.0


def table_of_three(rng: random.Random) -> Room:
    """Three persons playing: a 15 s bidding clock from NOW."""
    room = Room.create("ABCDE", "private", 3, "alice", "Alice", clocks=Clocks(15, 20, 10))
    room.join("bob", "Bob", NOW)
    room.join("carol", "Carol", NOW)
    for player in ("alice", "bob", "carol"):
        room.handle(player, ReadyRequest(), NOW, rng)
    return room


def after_restart(room: Room, saved_at: float, back: float) -> Room:
    """The room as a new process takes it over at ``back``, saved at ``saved_at``."""
    room.saved_at = saved_at
    again = room_from_data(room_to_data(room))
    again.all_disconnected()
    again.resume_clocks(back, grace=GRACE)
    return again


def player_on_turn(room: Room) -> str:
    assert room.match is not None and room.match.turn is not None
    player = room.seats[room.match.turn].player_id
    assert player is not None
    return player


def test_the_clock_runs_from_the_return_of_the_person_on_turn() -> None:
    rng = random.Random(3)
    room = table_of_three(rng)
    on_turn = player_on_turn(room)
    back = NOW + 4 + 30  # saved with 11 s left, down 30 s
    room = after_restart(room, NOW + 4, back)
    match = room.match
    assert match is not None and match.deadline == back + GRACE + 11
    # someone else coming back starts nothing
    other = next(p for p in ("alice", "bob", "carol") if p != on_turn)
    out = room.back(other, back + 0.5)
    assert [m for _, m in out if isinstance(m, TurnStarted)] == []
    assert match.deadline == back + GRACE + 11
    # the person on turn is back 1 s after the room: their 11 s from then
    version = room.version
    out = room.back(on_turn, back + 1)
    assert match.deadline == back + 1 + 11 and match.held is None
    assert room.version > version
    turns = [(p, m) for p, m in out if isinstance(m, TurnStarted)]
    assert {p for p, _ in turns} == {other, on_turn}  # everyone connected hears of it
    assert all(m.deadline == back + 12 and m.server_time == back + 1 for _, m in turns)
    assert any(isinstance(m, SeatsChanged) for _, m in out)
    view = room.view_for(on_turn, back + 1).table
    assert view is not None and view.turn is not None and view.turn.deadline == back + 12


def test_when_nobody_comes_back_the_clock_runs_after_the_grace() -> None:
    rng = random.Random(3)
    room = table_of_three(rng)
    on_turn = player_on_turn(room)
    back = NOW + 60
    room = after_restart(room, NOW + 4, back)
    assert room.match is not None and room.match.deadline == back + GRACE + 11
    late = back + GRACE + 3  # back after the grace: the clock has run 3 s already
    out = room.back(on_turn, late)
    assert [m for _, m in out if isinstance(m, TurnStarted)] == []
    assert room.match.deadline == back + GRACE + 11 and room.match.held is None


def test_a_restart_during_the_grace_does_not_lose_the_held_time() -> None:
    rng = random.Random(3)
    room = table_of_three(rng)
    on_turn = player_on_turn(room)
    first = NOW + 30
    room = after_restart(room, NOW + 4, first)  # 11 s held
    second = first + 2 + 40  # saved 2 s into the grace, then down again 40 s
    room = after_restart(room, first + 2, second)
    assert room.match is not None and room.match.deadline == second + GRACE + 11
    room.back(on_turn, second + 2)
    assert room.match.deadline == second + 2 + 11


def test_a_bots_turn_and_a_taken_over_seat_are_not_waited_for() -> None:
    rng = random.Random(3)
    room = table_of_three(rng)
    assert room.match is not None
    turn = room.match.turn
    assert turn is not None
    room.seats[turn] = Seat(kind="bot", name="bot", level="easy", ready=True)
    back = NOW + 30
    room = after_restart(room, NOW + 4, back)
    assert room.match is not None and room.match.held is None
    assert room.match.deadline == back + 11  # as before: no wait
    taken = table_of_three(rng)
    assert taken.match is not None and taken.match.turn is not None
    taken.match.bot_control[taken.match.turn] = True
    taken = after_restart(taken, NOW + 4, back)
    assert taken.match is not None and taken.match.held is None


def test_a_person_connected_already_is_not_waited_for() -> None:
    """A room taken over while its people are connected (no restart of theirs) runs at
    once; the hold is only for people who are away."""
    rng = random.Random(3)
    room = table_of_three(rng)
    room.saved_at = NOW + 4
    room.resume_clocks(NOW + 30, grace=GRACE)
    assert room.match is not None and room.match.held is None
    assert room.match.deadline == NOW + 30 + 11


def test_between_deals_the_pause_waits_for_every_person_not_ready() -> None:
    rng = random.Random(3)
    room = table_of_three(rng)
    match = room.match
    assert match is not None
    match.phase, match.deadline = "between_deals", NOW + 10
    match.ready = [True, False, False]  # alice was ready before the restart
    back = NOW + 40
    room = after_restart(room, NOW + 2, back)  # 8 s held
    assert room.match is not None and room.match.deadline == back + GRACE + 8
    out = room.back("alice", back + 0.2)
    assert [m for _, m in out if isinstance(m, AwaitingReady)] == []
    assert room.match.held == 8  # alice is ready: she is not waited for, bob and carol are
    out = room.back("bob", back + 0.5)
    assert [m for _, m in out if isinstance(m, AwaitingReady)] == []  # carol is still away
    out = room.back("carol", back + 1)
    awaiting = [m for _, m in out if isinstance(m, AwaitingReady)]
    assert awaiting and all(m.deadline == back + 9 for m in awaiting)
    assert room.match.deadline == back + 9
