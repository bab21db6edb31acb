"""Rooms a person opens, joins and leaves: a practice against bots, a private or public
room of friends (``StartPractice``, ``CreateRoom``, ``JoinRoom``, ``Leave``)."""

from __future__ import annotations

import logging

from protocol.messages import CreateRoom, JoinRoom, Leave, StartPractice
from server.cluster import ops
from server.edge.hub import Connection
from server.lobby.base import Lobby, Route, Routes
from server.lobby.limits import PRACTICE_BOTS
from server.lobby.seating import Owner, Seating
from server.lobby.sessions import Session
from server.rooms.room import Room
from server.store.errors import StoreError

log = logging.getLogger(__name__)


class Rooms:
    def __init__(self, lobby: Lobby, seating: Seating) -> None:
        self.lobby = lobby
        self.seating = seating

    def routes(self) -> Routes:
        return {
            StartPractice: Route(self.practice, locked=True),
            CreateRoom: Route(self.create, locked=True),
            JoinRoom: Route(self.join, locked=True),
            Leave: Route(self.leave, locked=True),
        }

    async def practice(self, conn: Connection, session: Session, request: StartPractice) -> None:
        """A practice room, the person against two bots of the level asked, dealt at once."""
        lobby = self.lobby
        await lobby.require_free(session)

        def build(code: str) -> Room:
            room = Room.create(
                code, "practice", request.deals, session.player_id, session.name,
                bot_speed=request.speed,
            )  # fmt: skip
            for seat in (1, 2):
                room.place_bot(seat, request.level)
            room.start_match(lobby.clock(), lobby.rng, first_bidder=0)
            return room

        strong = PRACTICE_BOTS if request.level == "strong" else 0
        await self.seating.open_room(session, build, Owner(conn.address, strong), secret=True)

    async def create(self, conn: Connection, session: Session, request: CreateRoom) -> None:
        """A timed room for friends, found by its code (or in the list, when public)."""
        lobby = self.lobby
        await lobby.require_free(session)
        clocks, speed = lobby.clocks, lobby.bot_speed
        await self.seating.open_room(
            session,
            lambda code: Room.create(
                code,
                "private",
                request.deals,
                session.player_id,
                session.name,
                clocks=clocks,
                public=request.public,
                bot_speed=speed,
                rated=request.rated,
            ),
            Owner(conn.address),
            secret=not request.public,
        )

    async def join(self, conn: Connection, session: Session, request: JoinRoom) -> None:
        await self.seating.enter(session, request.code, watch=False, address=conn.address)

    async def leave(self, conn: Connection, session: Session, request: Leave) -> None:
        code = self.lobby.require_room(session)
        await self.lobby.directory.route(code, ops.Leave(session.player_id))
        try:
            await self.lobby.sessions.leave(session)
        except StoreError:
            log.info("session of %s still names room %s", session.player_id, code)
