"""Every request finds its handler in one table; those that put a person in or out of a
room or the queue run under the person's lobby lock."""

from __future__ import annotations

import typing

from protocol.errors import ErrorCode
from protocol.messages import (
    ClientMessage,
    CreateRoom,
    Hello,
    JoinRoom,
    Leave,
    LeaveQueue,
    PlayRequest,
    QuickMatch,
    Rematch,
    StartPractice,
    Watch,
)
from tests.server.lobby.harness import FakeConn, lobby

PLACES = {StartPractice, CreateRoom, JoinRoom, Watch, QuickMatch, LeaveQueue, Leave, Rematch}


def client_messages() -> set[type]:
    union = typing.get_args(ClientMessage)[0]
    return set(typing.get_args(union))


async def test_every_request_but_hello_has_one_route() -> None:
    async with lobby() as lob:
        assert set(lob.app.routes) == client_messages() - {Hello}


async def test_requests_that_seat_or_unseat_run_under_the_lobby_lock() -> None:
    async with lobby() as lob:
        locked = {kind for kind, route in lob.app.routes.items() if route.locked}
        assert locked == PLACES


async def test_a_request_before_hello_is_refused() -> None:
    async with lobby() as lob:
        conn = FakeConn()
        lob.app.hub.add(conn)  # type: ignore[arg-type]
        for request in (CreateRoom(), PlayRequest(version=0, ranks=[3])):
            refusal = await lob.refused(conn, request)
            assert refusal.code == ErrorCode.NO_SESSION
        assert lob.app.rooms == {}


async def test_a_locked_request_waits_for_the_persons_other_one() -> None:
    """While another request of the same person holds their lock, a seating request is
    refused as busy (retryable) and seats nobody."""
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        lob.app.player_locks.wait = 0.01
        key = lob.store.keys.lobby_lock(ann.player_id)
        assert await lob.store.take_lock(key, "elsewhere", 15.0)
        refusal = await lob.refused(conn, CreateRoom())
        assert refusal.code == ErrorCode.BUSY
        assert lob.room_of(ann.player_id) is None and lob.app.rooms == {}
