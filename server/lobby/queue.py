"""The quick-match queue: joining it (``QuickMatch``, with the player's skill, by which the
matcher forms tables of equals), leaving it (``LeaveQueue``), and the rooms of the matches
its matcher takes off it (``server/lobby/quick.py``), run by whichever process took them;
a match of two persons or more is rated (``server/players/ladder.py``)."""

from __future__ import annotations

import contextlib
import logging

from protocol.errors import ErrorCode
from protocol.messages import Error, LeaveQueue, Queued, QueueLeft, QuickMatch
from server.edge.hub import Connection
from server.lobby.base import Lobby, Route, Routes
from server.lobby.quick import Entry, QuickMatcher
from server.lobby.seating import Owner, Seating
from server.lobby.sessions import Session
from server.players.ladder import Ladder
from server.rooms.room import Room, RoomError
from server.store.errors import StoreError

log = logging.getLogger(__name__)


class Queue:
    def __init__(self, lobby: Lobby, seating: Seating, ladder: Ladder) -> None:
        self.lobby = lobby
        self.seating = seating
        self.ladder = ladder
        wait = lobby.settings.quick_match_wait
        self.matcher = QuickMatcher(lobby.store, wait, self.open_match, lobby.clock)

    def routes(self) -> Routes:
        return {
            QuickMatch: Route(self.join, locked=True),
            LeaveQueue: Route(self.leave, locked=True),
        }

    async def join(self, conn: Connection, session: Session, request: QuickMatch) -> None:
        lobby = self.lobby
        await lobby.require_free(session)
        # (the address: the room a match opens counts against its first person's caps)
        entry = {"name": session.name, "token": session.token, "address": conn.address}
        rating, _ = await self.ladder.rating_of(session.player_id)
        waiting = await lobby.store.enqueue(session.player_id, lobby.clock(), entry, rating.mu)
        if waiting == 0:
            raise RoomError(ErrorCode.ALREADY_QUEUED, "you are in the quick-match queue already")
        conn.send(Queued(wait=lobby.settings.quick_match_wait, waiting=waiting))

    async def leave(self, conn: Connection, session: Session, request: LeaveQueue) -> None:
        if not await self.lobby.store.leave_queue(session.player_id):
            raise RoomError(ErrorCode.NOT_QUEUED, "you are not in the quick-match queue")
        conn.send(QueueLeft())

    async def open_match(self, players: list[tuple[str, Entry]]) -> None:
        """Seat the people the matcher took off the queue, bots in the other seats, and
        start their timed 3-deal match; back at the head of the queue if it cannot."""
        lobby = self.lobby
        clocks, speed = lobby.clocks, lobby.bot_speed
        sessions = [
            lobby.sessions.of_player(pid) or Session(e["token"], pid, e["name"])
            for pid, e in players
        ]

        tiers = await self.ladder.tiers_of([x.player_id for x in sessions])

        def build(code: str) -> Room:
            people = [(x.player_id, x.name) for x in sessions]
            room = Room.quick(code, people, clocks, bot_speed=speed, tiers=tiers)
            room.start_match(lobby.clock(), lobby.rng)
            return room

        first, owner = quick_owner(players)
        try:
            if owner is not None:  # a room as any other, counted against its address
                await lobby.limits.new_room(owner.address)
            room = await self.seating.store_new_room(build, sessions, owner=owner)
        except RoomError as exc:
            capped = first if exc.code == ErrorCode.LIMIT_REACHED else None
            now = lobby.clock()
            for pid, entry in players:  # back in the queue, at its head; told if past a cap
                if pid == capped:
                    lobby.cluster.deliver([(pid, Error(code=exc.code, message=exc.message))])
                    continue
                with contextlib.suppress(StoreError):
                    rating, _ = await self.ladder.rating_of(pid)
                    joined = now - lobby.settings.quick_match_wait
                    await lobby.store.enqueue(pid, joined, entry, rating.mu)
            if capped is None:
                raise
            return
        try:  # (after the room is stored: a match whose start is not kept is not rated)
            await self.ladder.note_start(room, {pid: e.get("name", "") for pid, e in players})
        except StoreError as exc:
            log.warning("quick match %s: not rated, its start is not kept: %s", room.code, exc)


def quick_owner(players: list[tuple[str, Entry]]) -> tuple[str | None, Owner | None]:
    """Who a quick match's room counts against: its first person (the longest waiting)
    with a known address, and that address (None, None: queued without one)."""
    for pid, entry in players:
        if entry.get("address"):
            return pid, Owner(entry["address"])
    return None, None
