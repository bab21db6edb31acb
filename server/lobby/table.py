"""Requests for the table of the person's room, sent to the room wherever it runs: bids,
passes and plays, ready, chat, the bots' speed, a bot in a seat. A strong bot counts
against the caps of the asker's address first."""

from __future__ import annotations

import contextlib

from protocol.errors import ErrorCode, Refusal
from protocol.messages import (
    BidRequest,
    Chat,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    Request,
    ResumeRequest,
    SeatBot,
    SetBotSpeed,
)
from server.cluster import ops
from server.cluster.directory import RoomDirectory
from server.edge.hub import Connection
from server.lobby.base import Lobby, Route, Routes
from server.lobby.sessions import Session
from server.store.errors import StoreError


class Table:
    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.directory: RoomDirectory = lobby.directory  # (most requests: one lookup fewer)

    def routes(self) -> Routes:
        to_room = Route(self.to_room)
        return {
            PlayRequest: to_room,
            PassRequest: to_room,
            BidRequest: to_room,
            ReadyRequest: to_room,
            ResumeRequest: to_room,
            Chat: to_room,
            SetBotSpeed: to_room,
            SeatBot: Route(self.seat_bot),
        }

    async def to_room(self, conn: Connection, session: Session, request: Request) -> None:
        """A request for the person's room, to the room. When the room has closed and its
        end did not reach them (their process, or its link to the room's, was down), the
        room as it closed answers the request, as it would their hello; so too when only
        the notice that the room let them go reached them (once: the next such request is
        refused as in no room)."""
        left, session.left_room = session.left_room, None
        if session.room is None and left is not None:
            shown = await self.lobby.cluster.show_closed(session.player_id, left, held=True)
            if shown:
                return
        code = self.lobby.require_room(session)
        try:
            await self.directory.route(code, ops.Ask(session.player_id, request))
        except Refusal as exc:
            closed = exc.code == ErrorCode.NO_ROOM
            if not closed or not await self.lobby.cluster.show_closed(session.player_id, code):
                raise

    async def seat_bot(self, conn: Connection, session: Session, request: SeatBot) -> None:
        """A bot in a seat of one's private room. A strong one is refused while the strong
        bots' pool is full, counted against the address's strong-bot seats, and given back
        if the room refuses it."""
        if request.level != "strong":
            await self.to_room(conn, session, request)
            return
        limits = self.lobby.limits
        code = self.lobby.require_room(session)
        limits.strong_pool()
        await limits.claim(conn.address, code, new_room=False, strong=1)
        try:
            await self.lobby.directory.route(code, ops.Ask(session.player_id, request))
        except Refusal as exc:
            if exc.code != ErrorCode.UNAVAILABLE:  # unanswered: it may have been seated
                with contextlib.suppress(StoreError):
                    await limits.release(conn.address, code, room=False, strong=1)
            raise
