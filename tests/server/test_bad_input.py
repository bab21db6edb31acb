"""Bad input over a real socket: each is answered with its documented error code, to the
sender only, and leaves the connection and the room as they were."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter

import msgpack

from protocol.cards import Rank, card_rank
from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.events import LandlordChosen, TurnStarted
from protocol.messages import (
    BidRequest,
    Error,
    JoinRoom,
    PassRequest,
    Ping,
    PlayRequest,
    Pong,
    Snapshot,
    StartPractice,
)
from tests.server.wire import WireClient, running_server, wire_client


async def expect_error(client: WireClient, code: ErrorCode) -> Error:
    error = await client.recv_type(Error)
    assert error.code == code, error
    return error


async def still_answers(client: WireClient) -> None:
    rid = await client.send(Ping())
    pong = await client.recv_type(Pong)
    assert pong.request_id == rid


async def test_garbage_bytes_text_frames_and_unknown_types_are_refused(redis_url: str) -> None:
    async with running_server(redis_url) as srv, wire_client(srv.url) as (client, _):
        await client.send_raw(b"\xc1\xff\x00garbage")
        await expect_error(client, ErrorCode.MALFORMED)
        await client.send_raw("a text frame")
        await expect_error(client, ErrorCode.MALFORMED)
        await client.send_raw(msgpack.packb([1, 2, 3]))
        await expect_error(client, ErrorCode.MALFORMED)
        await client.send_raw(msgpack.packb({"type": "teleport", "id": 9}))
        error = await expect_error(client, ErrorCode.UNKNOWN_TYPE)
        assert error.request_id == 9
        await client.send_raw(msgpack.packb({"type": "play", "id": 10, "ranks": "333"}))
        error = await expect_error(client, ErrorCode.MALFORMED)
        assert error.request_id == 10
        await still_answers(client)


async def test_a_frame_over_the_size_limit_is_refused_and_the_connection_stays(
    redis_url: str,
) -> None:
    async with (
        running_server(redis_url, max_frame=1024) as srv,
        wire_client(srv.url) as (client, _),
    ):
        await client.send_raw(msgpack.packb({"type": "ping", "id": 1, "pad": "x" * 5000}))
        await expect_error(client, ErrorCode.TOO_LARGE)
        await still_answers(client)


async def test_a_flood_is_told_once_then_refused_unanswered_and_the_connection_stays(
    redis_url: str,
) -> None:
    # Once a refusal per refused frame: a flood of pings drew 617k rate_limited replies.
    async with (
        running_server(redis_url, rate_limit=1.0, rate_burst=5) as srv,
        wire_client(srv.url) as (client, _),
    ):
        flood = [await client.send(Ping()) for _ in range(20)]
        last = await ping_until_answered(client)
        replies = client.received[1:]  # after the welcome
        limited = [m for m in replies if isinstance(m, Error)]
        pongs = [m for m in replies if isinstance(m, Pong) and m.request_id in flood]
        assert [e.code for e in limited] == [ErrorCode.RATE_LIMITED]  # told once
        assert 4 <= len(pongs) <= 6  # the burst (less the hello's token), and no more
        assert len(limited) + len(pongs) < len(flood)
        assert last.request_id not in flood


async def ping_until_answered(client: WireClient) -> Pong:
    """Ping every 100 ms until a ping is answered (the bucket has a token again)."""
    async with asyncio.timeout(5):
        while True:
            rid = await client.send(Ping())
            with contextlib.suppress(TimeoutError):
                while True:
                    message = await client.recv(timeout=0.1)
                    if isinstance(message, Pong) and message.request_id == rid:
                        return message


async def test_requests_before_hello_are_refused(redis_url: str) -> None:
    async with running_server(redis_url) as srv:
        from websockets.asyncio.client import connect

        async with connect(srv.url) as ws:
            client = WireClient(ws)
            await client.send(Ping())
            await expect_error(client, ErrorCode.NO_SESSION)


async def test_a_wrong_room_code_is_refused(redis_url: str) -> None:
    async with running_server(redis_url) as srv, wire_client(srv.url) as (client, _):
        rid = await client.send(JoinRoom(code="ZZZZZ"))
        error = await expect_error(client, ErrorCode.NO_ROOM)
        assert error.request_id == rid
        await still_answers(client)


async def test_wrong_turn_wrong_phase_and_cards_not_held_change_nothing(redis_url: str) -> None:
    async with running_server(redis_url) as srv, wire_client(srv.url) as (client, _):
        await client.send(StartPractice(deals=1, level="easy", speed="slow"))
        snapshot: Snapshot = await client.recv_type(Snapshot)
        table = snapshot.room.table
        assert table is not None and table.turn is not None and table.turn.seat == 0
        version = srv.app.rooms[snapshot.room.code].room.version

        await client.send(PlayRequest(ranks=[3]))
        await expect_error(client, ErrorCode.WRONG_PHASE)
        await client.send(BidRequest(value=4))
        await expect_error(client, ErrorCode.BID_OUT_OF_RANGE)
        assert srv.app.rooms[snapshot.room.code].room.version == version

        await client.send(BidRequest(value=3))  # landlord at once: my lead
        landlord: LandlordChosen = await client.recv_type(LandlordChosen)
        held = Counter(card_rank(c) for c in [*(table.hand or []), *landlord.kitty])
        # a single of a rank I do not hold; when my 20 cards hold every rank, a pair of one
        # I hold once (at least ten ranks are held once then)
        missing = next((r for r in Rank if held[r] == 0), None)
        if missing is not None:
            not_held = [int(missing)]
        else:
            once = next(r for r in Rank if held[r] == 1 and r < Rank.SMALL_JOKER)
            not_held = [int(once)] * 2
        await client.recv_type(TurnStarted)
        room = srv.app.rooms[snapshot.room.code].room
        version = room.version
        await client.send(PlayRequest(ranks=not_held))
        error = await expect_error(client, ErrorCode.CARDS_NOT_HELD)
        assert "hold" in error.message
        await client.send(PassRequest())
        await expect_error(client, ErrorCode.LEADER_MUST_PLAY)
        assert room.version == version
        await still_answers(client)


async def test_acting_out_of_turn_is_refused(redis_url: str) -> None:
    async with running_server(redis_url) as srv, wire_client(srv.url) as (client, _):
        await client.send(StartPractice(deals=1, level="easy", speed="slow"))
        await client.recv_type(Snapshot)
        await client.send(PassRequest())  # seat 0 passes; a slow bot bids next
        await client.send(BidRequest(value=2))
        await expect_error(client, ErrorCode.NOT_YOUR_TURN)
        await still_answers(client)


def test_encoded_requests_are_binary_msgpack_maps() -> None:
    frame = encode(Ping(id=3))
    assert isinstance(frame, bytes)
    assert msgpack.unpackb(frame) == {"type": "ping", "id": 3}
