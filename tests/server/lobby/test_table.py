"""Requests for the table go to the person's room: chat reaches the others; a strong bot
in a seat counts against the address's strong seats."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    Chat,
    ChatSaid,
    CreateRoom,
    JoinRoom,
    PassRequest,
    ReadyRequest,
    SeatBot,
    SeatsChanged,
)
from tests.server.lobby.harness import lobby


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
