"""Watching, and what a match leaves: its replay for who played or watched it, the
players' histories, the rematch; on the in-memory stores, with a match played out by the
rooms' own tests' helper and stored as a closed room."""

from __future__ import annotations

import random
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    GetHistory,
    GetReplay,
    History,
    ReadyRequest,
    Rematch,
    RematchAsked,
    ReplayData,
    Snapshot,
    Watch,
)
from server.game.journal import Record
from server.lobby.player_replay import WATCHED_MAX
from server.rooms.change import Change
from server.rooms.room import Room
from server.rooms.stored import room_to_data
from server.store.base import RoomWrite
from server.store.codec import pack
from tests.server.lobby.harness import FakeConn, LobbyProcess, lobby
from tests.server.rooms.test_room import NOW, private_room
from tests.server.rooms.test_room_social import finish


def played_with_journal(rng: random.Random) -> tuple[Room, list[Record]]:
    """A played-out private match of alice, bob and carol, watched by walt, with the
    journal its saves would have written (each change's records, in order)."""
    room = private_room()
    journal: list[Record] = []
    handle = room.handle

    def recorded(*args: Any) -> Change:
        change = handle(*args)
        journal.extend(change.journal)
        return change

    room.handle = recorded  # type: ignore[method-assign]
    room.join("bob", "Bob", NOW)
    room.join("carol", "Carol", NOW)
    for player in ("alice", "bob", "carol"):
        room.handle(player, ReadyRequest(), NOW, rng)
    room.watch("walt")
    finish(room, rng)
    assert room.closed == "match_over"
    return room, journal


async def finished(lob: LobbyProcess) -> Room:
    """That match stored closed (as its process saves it) and recorded in the histories."""
    room, journal = played_with_journal(random.Random(9))
    await lob.store.save_room(
        RoomWrite(
            room.code,
            -1,
            room.version,
            pack(room_to_data(room)),
            journal,
            closed=True,
        )
    )
    await lob.store.note_watched(room.code, "walt", WATCHED_MAX)
    await lob.app.bookkeeping.settle_room(room)
    return room


async def as_player(lob: LobbyProcess, player: str) -> tuple[FakeConn, str]:
    """A connection of the stored session of ``player`` (its token)."""
    token = f"token-of-{player}"
    await lob.store.save_session(token, {"player_id": player, "name": player, "room": ""})
    conn, welcome = await lob.hello(player, token=token)
    assert welcome.player_id == player
    return conn, token


async def test_a_watcher_sees_the_room_and_is_remembered_for_its_replay() -> None:
    async with lobby() as lob:
        ann_conn, ann = await lob.hello("Ann")
        await lob.send(ann_conn, CreateRoom(public=True))
        code = lob.room_of(ann.player_id)
        assert code is not None
        walt_conn, walt = await lob.hello("Walt")
        await lob.send(walt_conn, Watch(code=code))
        assert lob.last(walt.player_id, Snapshot).room.code == code
        assert walt.player_id in lob.app.rooms[code].room.watchers
        assert await lob.store.has_watched(code, walt.player_id)


async def test_the_replay_is_for_who_played_or_watched() -> None:
    async with lobby() as lob:
        room = await finished(lob)
        for player in ("bob", "walt"):
            conn, _ = await as_player(lob, player)
            replay = await lob.say(conn, GetReplay(code=room.code.lower()))
            assert isinstance(replay, ReplayData) and replay.code == room.code
            assert replay.ended == "match_over" and replay.deals
        stranger, _ = await lob.hello("Eve")
        refusal = await lob.refused(stranger, GetReplay(code=room.code))
        assert refusal.code == ErrorCode.NO_ROOM


async def test_each_player_has_the_match_in_their_history() -> None:
    async with lobby() as lob:
        room = await finished(lob)
        conn, _ = await as_player(lob, "carol")
        history = await lob.say(conn, GetHistory())
        assert isinstance(history, History)
        (entry,) = history.entries
        assert entry.code == room.code and entry.result in ("won", "lost")
        lob.store.data.players["carol"].matches.insert(0, pack({"not": "an entry"}))
        again = await lob.say(conn, GetHistory())
        assert isinstance(again, History) and again.entries == [entry]  # unreadable: skipped


async def test_the_first_to_ask_opens_the_rematch_and_the_next_takes_a_seat_in_it() -> None:
    async with lobby() as lob:
        room = await finished(lob)
        alice, _ = await as_player(lob, "alice")
        bob, _ = await as_player(lob, "bob")
        await lob.send(alice, Rematch(code=room.code))
        code = lob.room_of("alice")
        assert code is not None and code != room.code
        assert lob.last("bob", RematchAsked)
        await lob.send(bob, Rematch(code=room.code))
        assert lob.room_of("bob") == code
        assert await lob.store.rematch_room(room.code) == code
        walt, _ = await as_player(lob, "walt")  # watched, did not play
        refusal = await lob.refused(walt, Rematch(code=room.code))
        assert refusal.code == ErrorCode.NO_ROOM
