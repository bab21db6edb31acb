"""Playing a match out through one lobby process's requests, for the lasting player's tests
(on the in-memory stores)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from protocol.codec import encode
from protocol.messages import CreateRoom, JoinRoom, ReadyRequest, Request
from server.app import App
from server.bots import decide
from server.bots.simple import SimpleBot
from tests.server.lobby.harness import FakeConn, LobbyProcess

#: Seconds a test waits for what a room does in the background (its close's records).
WAIT = 10.0


async def table_of_three(
    lob: LobbyProcess, names: tuple[str, ...] = ("Ann", "Bo", "Cy")
) -> tuple[str, dict[str, FakeConn], dict[str, str]]:
    """Three new players at a private table of 1 deal, all ready (the match started):
    its code, their connections by player id, and their keys by player id."""
    conns: dict[str, FakeConn] = {}
    keys: dict[str, str] = {}
    for name in names:
        conn, welcome = await lob.hello(name)
        assert welcome.player_key is not None
        conns[welcome.player_id] = conn
        keys[welcome.player_id] = welcome.player_key
    host, *guests = conns
    await lob.send(conns[host], CreateRoom(deals=3))
    code = lob.room_of(host)
    assert code is not None
    for guest in guests:
        await lob.send(conns[guest], JoinRoom(code=code))
    for player in conns:
        await say_quietly(lob, conns[player], ReadyRequest())
    return code, conns, keys


async def say_quietly(lob: LobbyProcess, conn: FakeConn, request: Request) -> None:
    await lob.app.receive(conn, encode(request))  # type: ignore[arg-type]


async def play_out(lob: LobbyProcess, code: str, conns: dict[str, FakeConn]) -> None:
    """Each person plays their turns (the simple bot's choice) until the room closes; the
    room's bots play theirs (a seat whose person left)."""
    runner = lob.app.rooms[code]
    number = 1000
    deadline = time.monotonic() + WAIT * 6
    while runner.room.closed is None:
        assert time.monotonic() < deadline, "the match did not end"
        room = runner.room
        match = room.match
        assert match is not None
        now = lob.clock()
        if match.turn is not None and room.bot_acts_for(match.turn):
            await asyncio.sleep(0.001)  # the room's bot is on it
            continue
        if match.turn is None:
            for seat, s in enumerate(room.seats):
                if s.player_id and not s.left and not match.ready[seat]:
                    number += 1
                    await say_quietly(lob, conns[s.player_id], ReadyRequest(id=number))
            continue
        request: Any = decide(SimpleBot(), match.view_for(match.turn, now))
        player = room.seats[match.turn].player_id
        assert request is not None and player is not None
        number += 1
        await say_quietly(lob, conns[player], request.model_copy(update={"id": number}))


async def settled(app: App, code: str) -> None:
    """Wait until the closed room's records are written (its code leaves the pending set)."""
    deadline = time.monotonic() + WAIT
    while code in app.store.data.pending:  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise AssertionError(f"room {code} is still pending")
        await asyncio.sleep(0.001)
