"""Requests for the table go to the person's room: chat reaches the others; a strong bot
in a seat counts against the address's strong seats."""

from __future__ import annotations

import asyncio

import pytest

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    Chat,
    ChatSaid,
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    PassRequest,
    ReadyRequest,
    SeatBot,
    SeatsChanged,
    Snapshot,
    Welcome,
)
from server.cluster import ops
from server.rooms.change import RoomError
from tests.server.cluster.harness import until
from tests.server.lobby.harness import FakeConn, lobby


async def test_a_table_request_outside_a_room_is_refused() -> None:
    async with lobby() as lob:
        conn, _ = await lob.hello("Ann")
        for request in (PassRequest(version=0), ReadyRequest(), Chat(phrase="hello")):
            assert (await lob.refused(conn, request)).code == ErrorCode.NO_ROOM


async def test_chat_reaches_the_others_at_the_table() -> None:
    async with lobby() as lob:
        ann_conn, ann = await lob.hello("Ann")
        await lob.send(ann_conn, CreateRoom())
        code = lob.room_of(ann.player_id)
        assert code is not None
        bo_conn, bo = await lob.hello("Bo")
        await lob.send(bo_conn, JoinRoom(code=code))
        await lob.send(ann_conn, Chat(phrase="hello"))
        said = lob.last(bo.player_id, ChatSaid)
        assert said.seat == 0 and said.phrase == "hello"


async def test_strong_bots_count_against_the_addresses_strong_seats() -> None:
    async with lobby(strong_bots_per_address=1) as lob:
        conn, ann = await lob.hello("Ann")
        await lob.send(conn, CreateRoom())
        await lob.send(conn, SeatBot(level="strong"))
        assert lob.last(ann.player_id, SeatsChanged)
        refusal = await lob.refused(conn, SeatBot(level="strong"))
        assert refusal.code == ErrorCode.LIMIT_REACHED
        code = lob.room_of(ann.player_id)
        assert code is not None
        seats = lob.app.rooms[code].room.seats
        assert [s.level for s in seats if s.kind == "bot"] == ["strong"]
        await lob.send(conn, SeatBot(level="easy"))  # other levels are not counted
        assert [s.kind for s in seats] == ["person", "bot", "bot"]


async def test_a_request_from_a_person_whose_return_the_room_has_not_taken_brings_them_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a restart the room marks its people away until each comes back, and sends a
    seat marked away nothing. Ann's hello could not bring her back at once (the room was
    out of reach for a moment): she has the room as it stands, and her return is tried again.
    Her own request gets there first: it brings her back (her snapshot), so she hears what it
    caused (in a match: her own bid, not only the later ones)."""
    async with lobby() as lob:
        ann_conn, ann = await lob.hello("Ann")
        await lob.send(ann_conn, CreateRoom())
        code = lob.room_of(ann.player_id)
        assert code is not None
        runner = lob.app.rooms[code]
        await runner.change(lambda room: room.all_disconnected())  # (as a takeover does)
        route = lob.app.directory.route
        reachable = asyncio.Event()

        async def out_of_reach(room: str, op: ops.RoomOp) -> None:
            if isinstance(op, ops.Back) and not reachable.is_set():
                raise RoomError(ErrorCode.UNAVAILABLE, "the room is changing servers: retry")
            await route(room, op)

        monkeypatch.setattr(lob.app.directory, "route", out_of_reach)
        conn = FakeConn()
        lob.app.hub.add(conn)  # type: ignore[arg-type]
        hello = Hello(name="Ann", version=PROTOCOL_VERSION, token=ann.token)
        await lob.app.receive(conn, encode(hello))  # type: ignore[arg-type]
        welcome, snapshot, refused = conn.sent
        assert isinstance(welcome, Welcome) and welcome.room == code
        assert isinstance(snapshot, Snapshot) and isinstance(refused, Error)
        got = lob.hub.got[ann.player_id]
        got.clear()
        try:
            await lob.send(conn, Chat(phrase="hello"))

            back, said = got
            assert isinstance(back, Snapshot) and back.room.seats[0].connected
            assert isinstance(said, ChatSaid) and said.seat == 0
            assert runner.room.seats[0].connected
        finally:
            reachable.set()  # the return tried again is made, and ends
            before = len(got)
            await until(lambda: any(isinstance(m, Snapshot) for m in got[before:]))
