"""Opening, joining and leaving rooms, and the caps per client address that count them,
on the in-memory stores."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    CreateRoom,
    Hello,
    JoinRoom,
    Leave,
    ListRooms,
    RoomList,
    SeatsChanged,
    Snapshot,
    StartPractice,
)
from tests.server.lobby.harness import FakeConn, lobby

AWAY = "198.51.100.7"


async def test_a_practice_is_dealt_at_once_against_two_bots() -> None:
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        await lob.send(conn, StartPractice(level="easy"))
        snapshot = lob.last(ann.player_id, Snapshot)
        code = snapshot.room.code
        assert lob.room_of(ann.player_id) == code and code in lob.app.rooms
        room = lob.app.rooms[code].room
        assert [s.kind for s in room.seats] == ["person", "bot", "bot"]
        assert room.match is not None
        assert len(code.replace("-", "")) == 10  # unlisted: a long code


async def test_a_friend_joins_by_the_code_as_typed() -> None:
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        await lob.send(conn, CreateRoom())
        code = lob.room_of(ann.player_id)
        assert code is not None
        bo_conn, bo = await lob.hello("Bo")
        typed = code.lower().replace("-", " ")
        await lob.send(bo_conn, JoinRoom(code=typed))
        assert lob.room_of(bo.player_id) == code
        assert lob.last(bo.player_id, Snapshot).room.code == code
        assert lob.last(ann.player_id, SeatsChanged)  # Ann sees Bo sit down


async def test_one_room_at_a_time_and_leave_frees_the_person() -> None:
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        await lob.send(conn, CreateRoom())
        again = await lob.refused(conn, StartPractice())
        assert again.code == ErrorCode.ALREADY_SEATED
        await lob.send(conn, Leave())
        assert lob.room_of(ann.player_id) is None
        stored = await lob.store.load_session(ann.token)
        assert stored is not None and stored["room"] == ""
        assert (await lob.refused(conn, Leave())).code == ErrorCode.NO_ROOM


async def test_a_public_room_is_listed_at_once_a_private_one_never() -> None:
    async with lobby() as lob:
        ann_conn, ann = await lob.hello("Ann")
        bo_conn, _ = await lob.hello("Bo")
        empty = await lob.say(bo_conn, ListRooms())
        assert isinstance(empty, RoomList) and empty.rooms == []
        await lob.send(ann_conn, CreateRoom(public=True))
        cy_conn, _ = await lob.hello("Cy")
        await lob.send(cy_conn, CreateRoom())
        listed = await lob.say(bo_conn, ListRooms())  # within the list's second: still fresh
        assert isinstance(listed, RoomList)
        assert [r.code for r in listed.rooms] == [lob.room_of(ann.player_id)]


async def test_a_code_naming_no_room_counts_and_too_many_make_the_address_wait() -> None:
    async with lobby(failed_joins_per_address=2) as lob:
        conn, _ = await lob.hello("Ann")
        first = await lob.refused(conn, JoinRoom(code="ZZZZZ"))
        assert first.code == ErrorCode.NO_ROOM and "wait" not in first.message
        second = await lob.refused(conn, JoinRoom(code="YYYYY"))
        assert second.code == ErrorCode.NO_ROOM and "wait 60 s" in second.message
        blocked = await lob.refused(conn, JoinRoom(code="XXXXX"))
        assert blocked.code == ErrorCode.RATE_LIMITED
        other, _ = await lob.hello("Bo", address=AWAY)  # another address: no wait
        assert (await lob.refused(other, JoinRoom(code="XXXXX"))).code == ErrorCode.NO_ROOM
        lob.clock.now += 61
        assert (await lob.refused(conn, JoinRoom(code="XXXXX"))).code == ErrorCode.NO_ROOM


async def test_an_address_past_its_open_rooms_is_refused_until_one_closes() -> None:
    async with lobby(open_rooms_per_address=1) as lob:
        ann_conn, _ = await lob.hello("Ann")
        bo_conn, bo = await lob.hello("Bo")
        await lob.send(ann_conn, CreateRoom())
        refusal = await lob.refused(bo_conn, CreateRoom())
        assert refusal.code == ErrorCode.LIMIT_REACHED
        assert lob.room_of(bo.player_id) is None and len(lob.app.rooms) == 1
        await lob.send(ann_conn, Leave())  # the last person: the room closes
        await lob.send(bo_conn, CreateRoom())
        assert lob.room_of(bo.player_id) is not None


async def test_new_sessions_and_new_rooms_are_counted_per_address_and_window() -> None:
    async with lobby(new_sessions_per_address=2, new_rooms_per_address=1) as lob:
        conn, ann = await lob.hello("Ann")
        await lob.hello("Bo")
        third = await lob.refused(FakeConn(), _hello("Cy"))
        assert third.code == ErrorCode.LIMIT_REACHED
        await lob.send(conn, CreateRoom())
        await lob.send(conn, Leave())
        again = await lob.refused(conn, CreateRoom())
        assert again.code == ErrorCode.LIMIT_REACHED and "an hour" in again.message
        lob.clock.now += 3601
        await lob.hello("Cy")  # the windows are over
        await lob.send(conn, CreateRoom())
        assert lob.room_of(ann.player_id) is not None


def _hello(name: str) -> Hello:
    return Hello(name=name, version=PROTOCOL_VERSION)


async def test_a_join_sent_again_to_the_room_one_sits_in_is_answered_with_a_snapshot() -> None:
    # a join the room took, whose answer was lost (refused as unavailable), is sent again:
    # the person is answered as on a reconnect, not told to leave their own room
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        await lob.send(conn, CreateRoom())
        code = lob.room_of(ann.player_id)
        assert code is not None
        bo_conn, bo = await lob.hello("Bo")
        await lob.send(bo_conn, JoinRoom(code=code))
        before = len(lob.hub.got[bo.player_id])
        await lob.send(bo_conn, JoinRoom(code=code.lower()))
        again = [m for m in lob.hub.got[bo.player_id][before:] if isinstance(m, Snapshot)]
        assert again and again[-1].room.code == code
        seats = [s.player_id for s in lob.app.rooms[code].room.seats]
        assert seats.count(bo.player_id) == 1
        # another room is still refused while the person sits in this one
        other_conn, cy = await lob.hello("Cy")
        await lob.send(other_conn, CreateRoom())
        other = lob.room_of(cy.player_id)
        assert other is not None
        refused = await lob.refused(bo_conn, JoinRoom(code=other))
        assert refused.code == ErrorCode.ALREADY_SEATED
