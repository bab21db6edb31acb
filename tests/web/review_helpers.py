"""Finished matches whose review is known, kept where a test server finds them: a practice
room of the page's player against two bots, whose one deal is thrown away on purpose by a
scripted seat (``tests/server/analysis/helpers.Thrower``: a won position given away, best
play by everyone after), saved closed as its process would have saved it."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

from protocol.messages import PassRequest, PlayRequest, ReadyRequest, Request
from server.bots import decide
from server.bots.simple import SimpleBot
from server.game.commands import Pass, PlayCards
from server.lobby.codes import new_code
from server.rooms.change import BotActor
from server.rooms.room import Room
from server.rooms.stored import room_to_data
from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.redis_store import RedisStore
from tests.server.analysis.helpers import Thrower


@dataclass
class Finished:
    """A closed room and every journal record of its match."""

    room: Room
    journal: list[Any]
    thrower: Thrower


def thrown_match(player_id: str, name: str, seed: int, cards: int = 24) -> Finished:
    """A one-deal practice match of ``player_id`` (seat 0) against two bots, just ended,
    played by the bots and, from ``cards`` cards left on, by a ``Thrower``."""
    rng = random.Random(seed)
    room = Room.create(new_code(rng, True), "practice", 1, player_id, name, bot_speed="instant")
    for seat in (1, 2):
        room.place_bot(seat, "normal")
    now = time.time() - 600
    room.start_match(now, rng, first_bidder=0)
    journal = room.take_journal()
    thrower = Thrower(cards=cards)
    while room.closed is None:
        match = room.match
        assert match is not None
        now += 1
        if match.turn is None:  # between deals: the person says ready (bots are)
            journal += room.handle(player_id, ReadyRequest(), now, rng).journal
            continue
        seat = match.turn
        request: Request | None = None
        if match.phase == "playing":
            command = thrower(match, seat)
            if isinstance(command, Pass):
                request = PassRequest()
            elif isinstance(command, PlayCards):
                request = PlayRequest(ranks=[int(r) for r in command.ranks])
        if request is None:
            request = decide(SimpleBot(), match.view_for(seat, now))
        assert request is not None
        actor: Any = player_id if seat == 0 else BotActor(seat)
        journal += room.handle(actor, request, now, rng).journal
    return Finished(room, journal, thrower)


def keep_finished(redis_url: str, prefix: str, rooms: list[Finished]) -> None:
    """Save closed ``rooms`` under a server's key ``prefix`` (marked pending: a server
    starting on that prefix puts them in their players' records). In a thread of its own:
    Playwright's sync API holds this one's event loop."""
    failure: list[BaseException] = []

    async def keep() -> None:
        store = await RedisStore.connect(redis_url, 3600.0, 3600.0, prefix=prefix)
        try:
            for f in rooms:
                data = pack(room_to_data(f.room))
                write = RoomWrite(f.room.code, -1, f.room.version, data, f.journal, closed=True)
                await store.save_room(write)
        finally:
            await store.close()

    def run() -> None:
        try:
            asyncio.run(keep())
        except BaseException as exc:  # (raised again in the caller's thread)
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    if failure:
        raise failure[0]


def keep_puzzle(redis_url: str, prefix: str, key: str, side: str, answer: str, plays: int) -> str:
    """Add a puzzle (its canonical ``key``, the side to play, its one winning move) under a
    server's key ``prefix``, as the miner would; its id."""
    from server.analysis.puzzles import puzzle_id
    from server.players.puzzle_rating import seed, shown
    from server.store.puzzles import PuzzleEntry, RedisPuzzles

    async def keep() -> None:
        store = await RedisStore.connect(redis_url, 3600.0, 3600.0, prefix=prefix)
        try:
            rating = seed(plays)
            entry = PuzzleEntry(key, side, answer, plays, 0.0)
            await RedisPuzzles(store).add_puzzle(puzzle_id(key), entry, rating, shown(rating))
        finally:
            await store.close()

    _in_thread(keep)
    return puzzle_id(key)


def _in_thread(job: Any) -> None:
    """Run the coroutine function ``job`` to its end in a thread of its own (Playwright's
    sync API holds this thread's event loop)."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(job())
        except BaseException as exc:  # (raised again in the caller's thread)
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    if failure:
        raise failure[0]
