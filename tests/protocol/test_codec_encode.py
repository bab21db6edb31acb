"""``encode`` packs a message's fields as the model holds them: the same bytes as pydantic's
``model_dump(mode="json")`` packed, for every message kind and for every event of played
matches (the models hold plain data only; a value the codec cannot pack is refused)."""

from __future__ import annotations

import random
import time

import msgpack
import pytest
from pydantic import BaseModel

from protocol.codec import decode, decode_server, encode
from protocol.messages import ReadyRequest
from server.bots import decide, policy_for
from server.rooms.room import Room, Seat
from tests.web.test_js_codec import CLIENT_MESSAGES, SERVER_MESSAGES


def dumped(message: BaseModel) -> bytes:
    """The bytes of the codec as it was: pydantic's dump of the message, packed."""
    packed: bytes = msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)
    return packed


@pytest.mark.parametrize("message", SERVER_MESSAGES, ids=lambda m: type(m).__name__)
def test_every_server_message_kind_encodes_as_its_dump(message: BaseModel) -> None:
    assert encode(message) == dumped(message)
    assert decode_server(encode(message)) == message


@pytest.mark.parametrize("message", CLIENT_MESSAGES, ids=lambda m: type(m).__name__)
def test_every_client_message_kind_encodes_as_its_dump(message: BaseModel) -> None:
    assert encode(message) == dumped(message)
    assert decode(encode(message)) == message


def played_messages(seed: int) -> list[BaseModel]:
    """Every message a three-deal match between three people and a watcher delivers."""
    rng = random.Random(seed)
    room = Room.create(f"E{seed}", "private", 3, "p0", "p0")
    room.seats = [
        Seat(kind="person", player_id=f"p{i}", name=f"n{i}", connected=True, ready=True)
        for i in range(3)
    ]
    room.watchers = ["w"]
    sent: list[BaseModel] = [m for _, m in room.start_match(time.time(), rng)]
    while room.closed is None and room.match is not None:
        match = room.match
        seat = match.turn
        if seat is None:  # between deals: each person says ready
            for i in range(3):
                if not match.ready[i]:
                    sent += [
                        m
                        for _, m in room.handle(
                            f"p{i}", ReadyRequest(), time.time(), rng
                        ).deliveries
                    ]
            continue
        request = decide(policy_for("easy"), match.view_for(seat, time.time()))
        assert request is not None
        sent += [m for _, m in room.handle(f"p{seat}", request, time.time(), rng).deliveries]
        sent += [room.snapshot_for(f"p{seat}", time.time()), room.snapshot_for("w", time.time())]
    return sent


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_message_of_played_matches_encodes_as_its_dump(seed: int) -> None:
    messages = played_messages(seed)
    kinds = {type(m).__name__ for m in messages}
    assert {"DealStarted", "CardsPlayed", "Passed", "TurnStarted", "DealEnded"} <= kinds
    for message in messages:
        assert encode(message) == dumped(message), type(message).__name__


def test_a_value_the_protocol_does_not_hold_is_refused() -> None:
    class Odd(BaseModel):
        value: object

    with pytest.raises(TypeError):
        encode(Odd(value={1, 2}))
