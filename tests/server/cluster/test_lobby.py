"""The lobby (``App``) over the in-memory store and relay, two processes sharing it, the
caps per address off: sessions, creating and joining rooms, leaving, refusals, resuming
on another process. No sockets, no Redis."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    Chat,
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    PassRequest,
    ReadyRequest,
    RoomClosed,
    Snapshot,
    Watch,
    Welcome,
)
from server.app import App
from server.rooms.change import Change
from server.rooms.room import Room
from server.settings import Settings
from server.store.memory import MemoryRedis
from server.store.memory_lobby import MemoryAddresses, MemoryServerStore
from tests.server.cluster.harness import overhear, until
from tests.server.lobby.harness import FakeConn, LobbyHub

NO_CAPS = {
    "new_sessions_per_address": 0,
    "open_rooms_per_address": 0,
    "new_rooms_per_address": 0,
    "failed_joins_per_address": 0,
    "strong_bots_per_address": 0,
}


@contextlib.asynccontextmanager
async def apps(n: int) -> AsyncIterator[list[tuple[App, LobbyHub]]]:
    redis = MemoryRedis()
    made = []
    for i in range(n):
        settings = Settings(port=9000 + i, **NO_CAPS)  # type: ignore[arg-type]
        hub = LobbyHub()
        store = MemoryServerStore(redis)
        app = App(settings, store, random.Random(i), hub=hub, addresses=MemoryAddresses(store))
        await app.relay.start()
        app.accepting = True
        made.append((app, hub))
    try:
        yield made
    finally:
        for app, _ in made:
            await app.matcher.stop()
            await app.directory.hand_over()
            await app.relay.stop(flush=0.1)


async def say(app: App, conn: FakeConn, message: Any) -> BaseModel:
    """Send a request; the app's direct answer to it (the last thing sent this connection)."""
    before = len(conn.sent)
    await app.receive(conn, encode(message))  # type: ignore[arg-type]
    assert len(conn.sent) > before, "no answer"
    return conn.sent[-1]


async def hello(app: App, name: str, token: str | None = None) -> tuple[FakeConn, Welcome]:
    conn = FakeConn()
    app.hub.add(conn)  # type: ignore[arg-type]
    welcome = await say(app, conn, Hello(name=name, version=PROTOCOL_VERSION, token=token))
    assert isinstance(welcome, Welcome)
    return conn, welcome


async def test_a_new_room_is_named_in_the_session_and_its_snapshot_sent() -> None:
    async with apps(1) as [(a, hub)]:
        conn, ann = await hello(a, "Ann")
        await a.receive(conn, encode(CreateRoom()))  # type: ignore[arg-type]
        (snapshot,) = hub.got[ann.player_id]
        assert isinstance(snapshot, Snapshot)
        code = snapshot.room.code
        session = a.sessions.of_player(ann.player_id)
        assert session is not None and session.room == code
        stored = await a.store.load_session(ann.token)
        assert stored is not None and stored["room"] == code
        assert code in a.rooms


async def ann_opens(a: App) -> tuple[FakeConn, Welcome, str]:
    """Ann says hello at ``a`` and creates a room: her connection, welcome, and the code."""
    conn, ann = await hello(a, "Ann")
    await a.receive(conn, encode(CreateRoom()))  # type: ignore[arg-type]
    code = a.sessions.of_player(ann.player_id).room  # type: ignore[union-attr]
    assert code is not None
    return conn, ann, code


async def test_joining_a_room_run_on_another_process() -> None:
    async with apps(2) as [(a, hub_a), (b, hub_b)]:
        _, ann, code = await ann_opens(a)
        bo_conn, bo = await hello(b, "Bo")

        await b.receive(bo_conn, encode(JoinRoom(code=code)))  # type: ignore[arg-type]

        assert not [m for m in bo_conn.sent if isinstance(m, Error)]
        await until(lambda: any(isinstance(m, Snapshot) for m in hub_b.got[bo.player_id]))
        assert b.sessions.of_player(bo.player_id).room == code  # type: ignore[union-attr]
        assert code in a.rooms and code not in b.rooms
        await until(lambda: len(hub_a.got[ann.player_id]) > 1)  # Ann sees Bo sit down


async def test_refusals_are_answered_to_the_sender_and_change_nothing() -> None:
    async with apps(1) as [(a, hub)]:
        conn, ann = await hello(a, "Ann")
        unknown = await say(a, conn, JoinRoom(code="ZZZZZ"))
        assert isinstance(unknown, Error) and unknown.code == ErrorCode.NO_ROOM
        idle = await say(a, conn, PassRequest(version=0))
        assert isinstance(idle, Error) and idle.code == ErrorCode.NO_ROOM
        await a.receive(conn, b"\xc1")  # type: ignore[arg-type]
        assert isinstance(conn.sent[-1], Error) and conn.sent[-1].code == ErrorCode.MALFORMED
        assert a.sessions.of_player(ann.player_id).room is None  # type: ignore[union-attr]
        assert a.rooms == {} and hub.got == {}


async def test_one_room_at_a_time_and_leaving_frees_the_player() -> None:
    async with apps(1) as [(a, hub)]:
        conn, ann = await hello(a, "Ann")
        await a.receive(conn, encode(CreateRoom()))  # type: ignore[arg-type]
        again = await say(a, conn, CreateRoom())
        assert isinstance(again, Error) and again.code == ErrorCode.ALREADY_SEATED

        await a.receive(conn, encode(Leave()))  # type: ignore[arg-type]

        assert a.sessions.of_player(ann.player_id).room is None  # type: ignore[union-attr]
        stored = await a.store.load_session(ann.token)
        assert stored is not None and stored["room"] == ""
        before = len(hub.got[ann.player_id])
        await a.receive(conn, encode(CreateRoom()))  # type: ignore[arg-type]
        assert isinstance(hub.got[ann.player_id][before], Snapshot)


async def test_a_player_connecting_again_elsewhere_resumes_and_the_old_connection_closes() -> None:
    async with apps(2) as [(a, hub_a), (b, hub_b)]:
        old, ann = await hello(a, "Ann")
        await a.receive(old, encode(CreateRoom()))  # type: ignore[arg-type]
        code = a.sessions.of_player(ann.player_id).room  # type: ignore[union-attr]

        _, again = await hello(b, "Ann", token=ann.token)

        assert again.resumed and again.room == code and again.player_id == ann.player_id
        await until(lambda: any(isinstance(m, Snapshot) for m in hub_b.got[ann.player_id]))
        await until(lambda: old.ws.closed is not None)  # replaced
        assert not hub_a.connected(ann.player_id)


async def test_a_room_stored_though_its_save_was_answered_as_lost_is_brought_to_its_creator() -> (
    None
):
    """Redis took the new room's first save but its answer was lost: the creator is refused
    (retryable), then brought into the room once it is found stored; asking again is
    refused as seated, with the room's snapshot, never a second room."""
    async with apps(1) as [(a, hub)]:
        conn, ann = await hello(a, "Ann")
        a.store.data.lose_answers = True
        refused = await say(a, conn, CreateRoom())
        assert isinstance(refused, Error) and refused.code == ErrorCode.UNAVAILABLE
        a.store.data.lose_answers = a.store.data.down = False  # Redis answers again

        await until(lambda: any(isinstance(m, Snapshot) for m in hub.got[ann.player_id]))
        snapshot = next(m for m in hub.got[ann.player_id] if isinstance(m, Snapshot))
        code = snapshot.room.code
        assert snapshot.room.your_seat == 0 and code in a.rooms
        hub.got[ann.player_id].clear()

        again = await say(a, conn, CreateRoom())
        assert isinstance(again, Error) and again.code == ErrorCode.ALREADY_SEATED
        await until(lambda: any(isinstance(m, Snapshot) for m in hub.got[ann.player_id]))
        assert await a.store.active_rooms() == [code]


async def test_what_a_room_sent_before_a_returning_player_is_back_does_not_come_before_their_snapshot(  # noqa: E501
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bo's process went down (a rolling restart): it tells no room that he is gone, so his
    seat is still marked connected, and what the room sends him meanwhile is published for
    a connection that is no longer there. He says hello to another process, which hears his
    channel from then on; a change the room made before it took his return (Ann's chat
    here; in a match, the next deal's first bid, whose deal he never saw start) is not
    passed on to him before his snapshot, which shows it: his snapshot comes first."""
    async with apps(3) as [(a, hub_a), (b, hub_b), (c, _)]:
        ann_conn, bo, code = await bo_joins_then_his_process_stops(a, hub_a, c)

        heard = overhear(monkeypatch, b.cluster)
        peek = b.directory.peek

        async def chat_first(room: str, over: bool = False) -> Room | None:
            # Ann chats once Bo's channel is heard at b, before b asks the room for his return
            await a.receive(ann_conn, encode(Chat(phrase="hello")))  # type: ignore[arg-type]
            await until(lambda: any(player == bo.player_id for player, _ in heard))
            return await peek(room, over)

        monkeypatch.setattr(b.directory, "peek", chat_first)
        _, again = await hello(b, "Bo", token=bo.token)

        assert again.resumed and again.room == code
        await until(lambda: bool(hub_b.got[bo.player_id]))
        first = hub_b.got[bo.player_id][0]
        assert isinstance(first, Snapshot), first
        assert first.room.seats[0].connected and first.room.seats[1].connected


async def test_a_returning_player_gets_their_snapshot_first_from_a_room_run_where_they_return(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As above, Bo coming back to the process that runs his room: what it sends his seat
    (still marked connected) before it takes his return does not come before his snapshot."""
    async with apps(2) as [(a, hub_a), (c, _)]:
        ann_conn, bo, code = await bo_joins_then_his_process_stops(a, hub_a, c)
        peek = a.directory.peek

        async def chat_first(room: str, over: bool = False) -> Room | None:
            await a.receive(ann_conn, encode(Chat(phrase="hello")))  # type: ignore[arg-type]
            return await peek(room, over)

        monkeypatch.setattr(a.directory, "peek", chat_first)
        _, again = await hello(a, "Bo", token=bo.token)

        assert again.resumed and again.room == code
        first = hub_a.got[bo.player_id][0]
        assert isinstance(first, Snapshot), first


async def bo_joins_then_his_room_closes_unheard(a: Any, hub_a: Any, b: Any) -> tuple[Any, Any, str]:
    """Ann opens a room at ``a``, Bo joins it from ``b``, and the room closes (abandoned)
    while nothing ``a`` sends reaches ``b``. Bo's connection, his welcome, and the code."""
    _, ann, code = await ann_opens(a)
    bo_conn, bo = await hello(b, "Bo")
    await b.receive(bo_conn, encode(JoinRoom(code=code)))
    await until(lambda: len(hub_a.got[ann.player_id]) > 1)  # Ann sees Bo come in
    memory = a.store.data
    memory.drop = lambda channel, data: True  # (b's link down: nothing reaches it)

    def abandoned(room: Room) -> Change:
        room.all_disconnected()
        room.note_presence(a.clock())
        return room.end_idle(a.clock() + 3600.0, 60.0)

    await a.directory.rooms[code].change(abandoned)
    await until(lambda: code not in a.rooms)
    memory.drop = lambda channel, data: False
    return bo_conn, bo, code


async def test_a_request_to_a_room_that_closed_unheard_gets_it_as_it_closed() -> None:
    """Bo plays from another process than his room's, and the room's end does not reach
    him (his process heard nothing the room's sent meanwhile): his next request finds the
    room closed. He gets the room as it closed and that it closed, as a hello would have
    shown him, not "no room with code" for the room he was just playing in."""
    async with apps(2) as [(a, hub_a), (b, hub_b)]:
        bo_conn, bo, code = await bo_joins_then_his_room_closes_unheard(a, hub_a, b)
        memory = a.store.data  # type: ignore[attr-defined]
        await until(lambda: code not in memory.leases)  # (given up on closing)
        assert b.sessions.of_player(bo.player_id).room == code  # type: ignore[union-attr]
        before = len(hub_b.got[bo.player_id])

        await b.receive(bo_conn, encode(ReadyRequest()))  # type: ignore[arg-type]

        snapshot, closed = hub_b.got[bo.player_id][before:]
        assert isinstance(snapshot, Snapshot) and snapshot.room.code == code
        assert snapshot.room.your_seat == 1
        assert isinstance(closed, RoomClosed) and closed.reason == "abandoned"
        assert not [m for m in bo_conn.sent if isinstance(m, Error)]
        await until(lambda: b.sessions.of_player(bo.player_id).room is None)  # type: ignore[union-attr]


async def test_a_request_after_only_the_notice_of_a_closed_room_came_gets_it_as_it_closed() -> None:
    """The notice that Bo's room let him go reached his process, its end did not: his next
    request for the room gets the room as it closed and that it closed (not "you are not in
    a room" with no word of how it ended); a second one is refused as in no room."""
    async with apps(2) as [(a, hub_a), (b, hub_b)]:
        bo_conn, bo, code = await bo_joins_then_his_room_closes_unheard(a, hub_a, b)
        await b.sessions.left(bo.player_id, code)  # (the notice alone came through)
        before = len(hub_b.got[bo.player_id])

        await b.receive(bo_conn, encode(ReadyRequest()))  # type: ignore[arg-type]

        snapshot, closed = hub_b.got[bo.player_id][before:]
        assert isinstance(snapshot, Snapshot) and snapshot.room.code == code
        assert isinstance(closed, RoomClosed) and closed.reason == "abandoned"
        assert not [m for m in bo_conn.sent if isinstance(m, Error)]

        await b.receive(bo_conn, encode(ReadyRequest()))  # type: ignore[arg-type]

        (error,) = [m for m in bo_conn.sent if isinstance(m, Error)]
        assert error.code == ErrorCode.NO_ROOM
        assert len(hub_b.got[bo.player_id]) == before + 2


async def bo_joins_then_his_process_stops(
    a: Any, hub_a: Any, c: Any, watching: bool = False
) -> tuple[Any, Any, str]:
    """Ann creates a room at ``a``, Bo joins it (or watches it) from ``c``, then ``c`` stops
    (SIGTERM: the rooms handed over, none here; then the sockets closed). Ann's connection,
    Bo's welcome, and the room's code."""
    ann_conn, ann = await hello(a, "Ann")
    await a.receive(ann_conn, encode(CreateRoom()))
    code = a.sessions.of_player(ann.player_id).room
    bo_old, bo = await hello(c, "Bo")
    await c.receive(bo_old, encode(Watch(code=code) if watching else JoinRoom(code=code)))
    await until(lambda: len(hub_a.got[ann.player_id]) > 1)  # Ann sees Bo come in
    await c.close()
    await c.disconnected(bo_old)
    return ann_conn, bo, code


@pytest.mark.parametrize("watching", [False, True], ids=["seated", "watching"])
async def test_a_player_back_just_after_their_room_closed_gets_it_as_it_closed(
    watching: bool,
) -> None:
    """Bo's process stopped, and his room closed before he said hello again: he is told
    the room he is coming back to, then gets it as it closed, and that it closed (not a
    welcome to no room, as if it had vanished without an end)."""
    async with apps(2) as [(a, hub_a), (c, _)]:
        ann_conn, bo, code = await bo_joins_then_his_process_stops(a, hub_a, c, watching)
        await a.disconnected(ann_conn)

        def abandoned(room: Room) -> Change:  # (Bo's seat, his process gone, seen away)
            room.all_disconnected()
            room.note_presence(a.clock())
            return room.end_idle(a.clock() + 3600.0, 60.0)

        await a.directory.rooms[code].change(abandoned)
        await until(lambda: code not in a.rooms)

        conn = FakeConn()
        a.hub.add(conn)  # type: ignore[arg-type]
        back = Hello(name="Bo", version=PROTOCOL_VERSION, token=bo.token)
        await a.receive(conn, encode(back))  # type: ignore[arg-type]

        again, snapshot, closed = conn.sent
        assert isinstance(again, Welcome) and again.resumed
        assert again.room == code  # (so a snapshot follows)
        assert isinstance(snapshot, Snapshot) and snapshot.room.code == code
        assert snapshot.room.your_seat == (None if watching else 1)
        assert isinstance(closed, RoomClosed) and closed.reason == "abandoned"
        assert a.sessions.of_player(bo.player_id).room is None  # type: ignore[union-attr]
        stored = await a.store.load_session(bo.token)
        assert stored is not None and stored["room"] == ""  # shown once, not at every hello
        await a.receive(conn, encode(CreateRoom()))  # type: ignore[arg-type]
        assert not [m for m in conn.sent if isinstance(m, Error)]  # free for a new room
