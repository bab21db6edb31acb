"""The lobby's caps per client address, over real sockets to a real server on a real Redis
(issue 11): one client address cannot open rooms or sessions without end, guess its way
into strangers' private rooms, fill the room list, or keep the strong bots' pool busy.

A second client address is another loopback address (127.0.0.2): the whole 127/8 is this
machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from websockets.asyncio.client import connect

from protocol.errors import ErrorCode
from protocol.events import BidMade, Passed, TableView
from protocol.messages import (
    PROTOCOL_VERSION,
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    Left,
    ListRooms,
    PassRequest,
    Request,
    RoomList,
    SeatBot,
    SeatsChanged,
    ServerMessage,
    Snapshot,
    StartPractice,
    Watch,
    Welcome,
)
from server.bots import pool
from server.lobby import listing
from server.lobby.codes import ALPHABET
from tests.redis_server import unique_prefix
from tests.server.bots.helpers import play_view
from tests.server.wire import RunningServer, WireClient, from_address, running_server, wire_client

HOME, AWAY = "127.0.0.1", "127.0.0.2"


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 5.0) -> None:
    """Wait until ``check`` holds (polled), or fail."""
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.02)


async def answer(client: WireClient, request: Request) -> ServerMessage:
    """Send ``request``; its answer: the first snapshot, error, or room list."""
    await client.send(request)
    while True:
        message = await client.recv()
        if isinstance(message, Snapshot | Error | RoomList | Left):
            return message


def refused(message: ServerMessage, code: ErrorCode) -> Error:
    assert isinstance(message, Error), message
    assert message.code == code, message
    return message


def seconds_to_wait(error: Error) -> int:
    """The seconds a refusal tells the client to wait (``... N s``)."""
    found = re.search(r"(\d+) s\b", error.message)
    assert found is not None, error.message
    return int(found.group(1))


@contextlib.asynccontextmanager
async def clients(url: str, n: int, source: str = HOME) -> AsyncIterator[list[WireClient]]:
    """``n`` clients with a session each, all from ``source``."""
    async with contextlib.AsyncExitStack() as stack:
        yield [
            (await stack.enter_async_context(wire_client(url, f"p{i}", source=source)))[0]
            for i in range(n)
        ]


async def hello(url: str, source: str, token: str | None = None) -> ServerMessage:
    """The answer to a hello from ``source`` (a welcome, or a refusal)."""
    async with connect(url, **from_address(source)) as ws:
        client = WireClient(ws)
        await client.send(Hello(name="guest", version=PROTOCOL_VERSION, token=token))
        return await client.recv()


async def stored_rooms(srv: RunningServer) -> list[str]:
    return await srv.app.store.active_rooms()


# --- open rooms and new sessions ----------------------------------------------------------


async def test_one_address_past_its_open_rooms_is_refused_and_nothing_is_stored(
    redis_url: str,
) -> None:
    async with (
        running_server(redis_url, open_rooms_per_address=3) as srv,
        clients(srv.url, 4) as home,
        clients(srv.url, 1, source=AWAY) as (away,),
    ):
        for client in home[:3]:
            assert isinstance(await answer(client, CreateRoom(deals=3)), Snapshot)
        error = refused(await answer(home[3], CreateRoom(deals=3)), ErrorCode.LIMIT_REACHED)
        assert "3 open rooms" in error.message and "retry" in error.message
        assert len(await stored_rooms(srv)) == 3  # nothing created for the refusal
        refused(await answer(home[3], StartPractice(level="easy")), ErrorCode.LIMIT_REACHED)

        # another address is not affected
        assert isinstance(await answer(away, CreateRoom(deals=3)), Snapshot)

        # a room that ends frees a place
        assert isinstance(await answer(home[0], Leave()), Left)
        await eventually(lambda: _count(stored_rooms(srv), 3))
        assert isinstance(await answer(home[3], CreateRoom(deals=3)), Snapshot)


async def _count(rooms: Awaitable[list[str]], n: int) -> bool:
    return len(await rooms) == n


async def test_the_caps_hold_across_server_processes_sharing_one_redis(redis_url: str) -> None:
    prefix = unique_prefix()
    async with (
        running_server(redis_url, key_prefix=prefix, open_rooms_per_address=2) as one,
        running_server(redis_url, key_prefix=prefix, open_rooms_per_address=2) as two,
        clients(one.url, 2) as (a, c),
        clients(two.url, 1) as (b,),
    ):
        assert isinstance(await answer(a, CreateRoom(deals=3)), Snapshot)
        assert isinstance(await answer(b, CreateRoom(deals=3)), Snapshot)
        refused(await answer(c, CreateRoom(deals=3)), ErrorCode.LIMIT_REACHED)


async def test_new_sessions_past_the_cap_per_address_are_refused(redis_url: str) -> None:
    async with running_server(redis_url, new_sessions_per_address=3) as srv:
        welcomes = [await hello(srv.url, HOME) for _ in range(3)]
        assert all(isinstance(w, Welcome) for w in welcomes)
        error = refused(await hello(srv.url, HOME), ErrorCode.LIMIT_REACHED)
        assert "new sessions" in error.message and 0 < seconds_to_wait(error) <= 60
        # a session already held comes back with its token, and another address is free
        first = welcomes[0]
        assert isinstance(first, Welcome)
        resumed = await hello(srv.url, HOME, token=first.token)
        assert isinstance(resumed, Welcome) and resumed.resumed
        assert isinstance(await hello(srv.url, AWAY), Welcome)


# --- guessing private room codes -------------------------------------------------------------

LONG_CODE = re.compile(f"[{ALPHABET}]{{5}}-[{ALPHABET}]{{5}}")


async def test_private_rooms_have_long_codes_that_join_as_shown_or_as_typed(
    redis_url: str,
) -> None:
    async with running_server(redis_url) as srv, clients(srv.url, 4) as (host, ann, bo, pub):
        snapshot = await answer(host, CreateRoom(deals=3))
        assert isinstance(snapshot, Snapshot)
        code = snapshot.room.code
        assert LONG_CODE.fullmatch(code), code
        joined = await answer(ann, JoinRoom(code=code))
        assert isinstance(joined, Snapshot) and joined.room.code == code
        typed = code.lower().replace("-", " ")  # read aloud and typed back
        joined = await answer(bo, JoinRoom(code=typed))
        assert isinstance(joined, Snapshot) and joined.room.code == code
        listed = await answer(pub, CreateRoom(deals=3, public=True))
        assert isinstance(listed, Snapshot) and len(listed.room.code) == 5  # listed anyway


async def test_codes_that_name_no_room_past_the_limit_must_wait_and_the_wait_doubles(
    redis_url: str,
) -> None:
    async with (
        running_server(redis_url, failed_joins_per_address=3) as srv,
        clients(srv.url, 1) as (guesser,),
        clients(srv.url, 1, source=AWAY) as (other,),
    ):
        for guess in ("AAAAA-AAAAA", "BBBBB-BBBBB"):
            refused(await answer(guesser, JoinRoom(code=guess)), ErrorCode.NO_ROOM)
        third = refused(await answer(guesser, Watch(code="CCCCC-CCCCC")), ErrorCode.NO_ROOM)
        assert seconds_to_wait(third) == 60
        first_wait = refused(
            await answer(guesser, JoinRoom(code="DDDDD-DDDDD")), ErrorCode.RATE_LIMITED
        )
        assert 55 <= seconds_to_wait(first_wait) <= 60
        # another address guesses on its own account
        refused(await answer(other, JoinRoom(code="EEEEE-EEEEE")), ErrorCode.NO_ROOM)

        # The wait runs out (its key removed, as a minute passing would) and the guessing
        # goes on: the next wait is twice as long.
        keys = srv.app.store.keys
        await srv.app.store.redis.delete(keys.address(HOME, "blocked"))
        for guess in ("FFFFF-FFFFF", "GGGGG-GGGGG", "HHHHH-HHHHH"):
            refused(await answer(guesser, JoinRoom(code=guess)), ErrorCode.NO_ROOM)
        second_wait = refused(
            await answer(guesser, JoinRoom(code="JJJJJ-JJJJJ")), ErrorCode.RATE_LIMITED
        )
        assert 115 <= seconds_to_wait(second_wait) <= 120


# --- the public list ----------------------------------------------------------------------


async def test_the_list_shows_a_room_with_people_ahead_of_many_empty_rooms_of_one_address(
    redis_url: str,
) -> None:
    flood = listing.LIST_LIMIT + 5
    async with (
        running_server(
            redis_url, open_rooms_per_address=0, new_sessions_per_address=0, new_rooms_per_address=0
        ) as srv,
        clients(srv.url, 2, source=AWAY) as (real, viewer),
    ):
        room = await answer(real, CreateRoom(deals=3, public=True))
        assert isinstance(room, Snapshot)
        for i in range(flood):  # throwaway rooms, newer than the real one, left empty
            async with wire_client(srv.url, f"spam{i}") as (spammer, _):
                assert isinstance(await answer(spammer, CreateRoom(deals=3, public=True)), Snapshot)

        async def all_gone() -> bool:
            rooms = [r.room for r in srv.app.rooms.values() if r.code != room.room.code]
            return len(rooms) == flood and not any(r.seats[0].connected for r in rooms)

        await eventually(all_gone)
        shown = await answer(viewer, ListRooms())
        assert isinstance(shown, RoomList)
        assert shown.rooms[0].code == room.room.code  # people first
        assert len(shown.rooms) == 1 + listing.LIST_PER_ADDRESS  # few of one address


# --- strong bots --------------------------------------------------------------------------


async def test_a_third_strong_practice_room_is_refused_with_a_cap_of_four(redis_url: str) -> None:
    async with (
        running_server(redis_url, strong_bots_per_address=4, bot_queue_limit=0) as srv,
        clients(srv.url, 4) as (first, second, third, fourth),
    ):
        for client in (first, second):  # two strong seats each
            assert isinstance(await answer(client, StartPractice(level="strong")), Snapshot)
        error = refused(await answer(third, StartPractice(level="strong")), ErrorCode.LIMIT_REACHED)
        assert "strong" in error.message and "4 seats" in error.message
        assert len(await stored_rooms(srv)) == 2
        assert isinstance(await answer(third, StartPractice(level="normal")), Snapshot)
        # a strong bot seated in a private room is one more seat: refused too
        assert isinstance(await answer(fourth, CreateRoom(deals=3)), Snapshot)
        await fourth.send(SeatBot(level="strong"))
        refused(await fourth.recv_type(Error), ErrorCode.LIMIT_REACHED)
        # ending a strong practice gives its seats back
        assert isinstance(await answer(first, Leave()), Left)
        await fourth.send(SeatBot(level="strong"))
        changed = await fourth.recv_type(SeatsChanged)
        assert [s.level for s in changed.seats].count("strong") == 1


class SlowBot:
    """Holds a pool worker for two seconds (a picklable test policy)."""

    def bid(self, view: TableView) -> int:
        time.sleep(2.0)
        return 3

    def play(self, view: TableView) -> None:
        time.sleep(2.0)
        return None


def lead_view() -> TableView:
    return play_view(
        seat=0, hand="33 44 5 6 7 8 99 10 J QQ K A 22 SJ BJ", landlord=0, card_counts=[20, 17, 17]
    )


async def test_a_full_bot_queue_refuses_a_new_strong_room_and_running_tables_play_on(
    redis_url: str,
) -> None:
    async with (
        running_server(redis_url, bot_queue_limit=1, bot_workers=1) as srv,
        clients(srv.url, 2) as (player, newcomer),
    ):
        table = await answer(player, StartPractice(level="strong", speed="instant"))
        assert isinstance(table, Snapshot)
        bots = srv.app.bots
        held = asyncio.create_task(bots.choose("strong", lead_view(), factory=SlowBot, budget=3))
        try:
            await eventually(lambda: _full(bots))
            error = refused(await answer(newcomer, StartPractice(level="strong")), ErrorCode.BUSY)
            assert "capacity" in error.message and "retry" in error.message
            assert len(await stored_rooms(srv)) == 1

            # The table still gets its bots' moves: a decision that cannot be queued is
            # made inline at the normal level, long before the pool frees up.
            await player.send(PassRequest())
            bot = await _next_bot_action(player)
            assert bot.seat == 1 and bots.in_flight() == 1
        finally:
            await held


async def _full(bots: pool.BotPool) -> bool:
    return bots.busy()


async def _next_bot_action(client: WireClient) -> Any:
    while True:
        message = await client.recv(timeout=1.5)
        if isinstance(message, BidMade | Passed) and message.seat != 0:
            return message
