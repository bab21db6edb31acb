"""A room stored as a snapshot and the steps since is the room: replaying the tail of step
records over any earlier snapshot rebuilds it exactly (``server/rooms/steps.py``)."""

from __future__ import annotations

import random
from typing import get_args

import msgpack
import pytest

from protocol.chat import ChatPhrase
from protocol.errors import Refusal
from protocol.messages import (
    BidRequest,
    Chat,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    Request,
    ResumeRequest,
    SeatBot,
    SetBotSpeed,
)
from server.bots import decide
from server.bots.base import policy_for
from server.rooms.room import BotActor, Clocks, Room
from server.rooms.steps import (
    ClockStep,
    RequestStep,
    Step,
    StepRecord,
    TailMismatch,
    step_from_data,
    step_record,
)
from server.rooms.stored import room_from_stored, room_to_data
from server.store.base import StoredRoom

NOW = 1000.0


def stored(data: object) -> dict[str, object]:
    """As the store gives it back: packed and unpacked (tuples become lists)."""
    out: dict[str, object] = msgpack.unpackb(msgpack.packb(data, use_bin_type=True), raw=False)
    return out


def a_room(rng: random.Random) -> Room:
    room = Room.create("ABCDE", "private", 3, "alice", "Alice", clocks=Clocks(15, 20, 10))
    room.join("bob", "Bob", NOW)
    room.handle("alice", SeatBot(level="easy"), NOW, rng)
    return room


def next_step(room: Room, pick: random.Random, now: float) -> Step:
    """What a table might do next: mostly the seat on turn acts (a bot's, or a person's by
    the normal policy), now and then its clock runs out, someone chats or resumes."""
    match = room.match
    if match is None:
        people = [s.player_id for s in room.seats if s.kind == "person" and not s.ready]
        return RequestStep(people[0] or "", ReadyRequest())
    roll = pick.random()
    if roll < 0.08:
        return ClockStep()
    if roll < 0.12:
        return RequestStep(
            pick.choice(["alice", "bob"]), Chat(phrase=pick.choice(get_args(ChatPhrase)))
        )
    if roll < 0.15:
        return RequestStep(pick.choice(["alice", "bob"]), ResumeRequest())
    turn = match.turn
    if turn is None:  # between deals: the people get ready
        waiting = [room.seats[i].player_id for i in range(3) if not match.ready[i]]
        person = next((p for p in waiting if p), None)
        return RequestStep(person, ReadyRequest()) if person else ClockStep()
    request = decide(policy_for("normal"), match.view_for(turn, now))
    assert request is not None
    seat = room.seats[turn]
    if seat.kind == "bot" or turn in room.bot_seats():
        return RequestStep(BotActor(turn), request)
    assert seat.player_id is not None
    return RequestStep(seat.player_id, request)


@pytest.mark.parametrize("seed", range(12))
def test_a_snapshot_and_its_tail_rebuild_the_room_at_every_step(seed: int) -> None:
    rng, pick = random.Random(seed), random.Random(1000 + seed)
    room = a_room(rng)
    snapshot, tail = stored(room_to_data(room)), list[StepRecord]()
    now, steps = NOW, 0
    while room.closed is None and steps < 400:
        now += pick.choice([0.5, 3.0, 25.0])  # sometimes past a clock
        step = next_step(room, pick, now)
        before = room_to_data(room)
        try:
            change = step.apply(room, now, rng)
        except Refusal:
            assert room_to_data(room) == before  # refused: nothing to save
            continue
        room.note_presence(now)
        steps += 1
        room.saved(now + 0.001)
        tail.append(stored(step_record(step, now, change, room.version, now + 0.001)))
        rebuilt = room_from_stored(StoredRoom(snapshot, tail))
        assert room_to_data(rebuilt) == stored(room_to_data(room)), f"step {steps}"
        if pick.random() < 0.1:  # a whole save drops the tail
            snapshot, tail = stored(room_to_data(room)), []
    assert steps > 50


def test_a_tail_that_does_not_follow_its_snapshot_is_refused() -> None:
    rng = random.Random(3)
    room = a_room(rng)
    snapshot = stored(room_to_data(room))
    step = RequestStep("alice", ReadyRequest())
    change = step.apply(room, NOW, rng)
    record = stored(step_record(step, NOW, change, room.version, NOW))
    with pytest.raises(TailMismatch):
        room_from_stored(StoredRoom(snapshot, [record, record]))


@pytest.mark.parametrize(
    "request_",
    [
        Chat(id=1, phrase="hello"),
        SeatBot(id=2, seat=1, level="strong"),
        SetBotSpeed(id=3, speed="fast"),
        ReadyRequest(id=4),
        ResumeRequest(id=5),
        BidRequest(id=6, value=3, version=7),
        PassRequest(id=7),
        PlayRequest(id=8, ranks=[3, 3, 17], version=9),
    ],
)
def test_every_room_request_is_stored_as_the_protocol_dumps_it(request_: Request) -> None:
    data = stored(RequestStep("alice", request_).to_data())
    assert data["request"] == request_.model_dump(mode="json")
    assert step_from_data(data) == RequestStep("alice", request_)
