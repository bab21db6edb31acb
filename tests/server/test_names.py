"""Names over a real socket: a hello with a name that is not printable text is refused,
malformed, with a message that does not repeat it, and opens no session; a name is stored
stripped; a name stored before names were checked comes back printable.

Issue 11, item 10: a name holding terminal escapes was accepted and shown to everyone."""

from __future__ import annotations

import msgpack
from websockets.asyncio.client import connect

from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    CreateRoom,
    Error,
    Hello,
    ListRooms,
    RoomList,
    Snapshot,
    Welcome,
)
from tests.server.wire import WireClient, running_server, wire_client

TERMINAL_ATTACK = "\x1b]0;pwned\x07\x1b[2J"


async def test_a_hello_with_terminal_escapes_in_the_name_is_refused_and_stores_nothing(
    redis_url: str,
) -> None:
    async with running_server(redis_url) as srv, connect(srv.url) as ws:
        client = WireClient(ws)
        hello = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": TERMINAL_ATTACK}
        await client.send_raw(msgpack.packb(hello))
        error = await client.recv_type(Error)
        assert error.code == ErrorCode.MALFORMED and error.request_id == 1
        assert "\x1b" not in error.message and "pwned" not in error.message
        sessions = srv.app.store.keys.session("*")
        assert await srv.app.store.redis.keys(sessions) == []
        await client.send(Hello(name="Ann", version=PROTOCOL_VERSION))  # may try again
        assert (await client.recv()).type == "welcome"


async def test_a_name_is_stored_and_shown_without_the_spaces_around_it(redis_url: str) -> None:
    async with running_server(redis_url) as srv:
        async with wire_client(srv.url, "  Ann  ") as (ann, welcome):
            assert welcome.name == "Ann"
            await ann.send(CreateRoom(public=True))
            await ann.recv_type(Snapshot)
            async with wire_client(srv.url, "Bob") as (bob, _):
                await bob.send(ListRooms())
                listed = await bob.recv_type(RoomList)
                assert listed.rooms[0].seats[0] == "Ann"


async def test_a_name_stored_before_names_were_checked_comes_back_printable(
    redis_url: str,
) -> None:
    async with running_server(redis_url) as srv:
        async with wire_client(srv.url, "Ann") as (_, welcome):
            token = welcome.token
        fields = {"player_id": welcome.player_id, "name": "Ann" + TERMINAL_ATTACK, "room": ""}
        await srv.app.store.save_session(token, fields)
        async with wire_client(srv.url, "Ann", token=token) as (_, back):
            assert back.resumed and back.name == "Ann]0;pwned[2J"


async def test_a_name_is_normalised_before_it_is_checked_and_kept(redis_url: str) -> None:
    """Issue 35: "Ａｄｍｉｎ" (full-width), "Admin" with U+FE0F, and a name followed by 72
    spaces were kept as sent. Now each is kept as the name it reads as; a full-width bot's
    name is refused as the bot's name it is."""
    async with running_server(redis_url) as srv:
        sent_and_kept = [
            ("Ａｄｍｉｎ", "Admin"),
            ("Admin\ufe0f", "Admin"),
            ("Ann" + " " * 72, "Ann"),
        ]
        for sent, kept in sent_and_kept:
            async with connect(srv.url) as ws:  # as sent: not through this side's Hello
                client = WireClient(ws)
                hello = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": sent}
                await client.send_raw(msgpack.packb(hello))
                assert (await client.recv_type(Welcome)).name == kept
        async with connect(srv.url) as ws:
            client = WireClient(ws)
            for bad in ("ＮＯＲＭＡＬ ＢＯＴ １", "Admin\u3164"):
                hello = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": bad}
                await client.send_raw(msgpack.packb(hello))
                error = await client.recv_type(Error)
                assert error.code == ErrorCode.MALFORMED and bad not in error.message
