"""The player's own record and key: ``GetProfile`` (statistics, rating and its history, a page
of matches) and ``NewPlayerKey`` (the old key stops working; the answer goes to the asking
connection only, as the welcome's key does); ``GetPublicProfile``: what anyone may see of a
player on the ladder, by their public tag (no matches, id, key or token)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    PROFILE_PAGE,
    GetProfile,
    GetPublicProfile,
    NewPlayerKey,
    PlayerKeyIssued,
)
from server.edge.flood import HISTORY_COST
from server.edge.hub import Connection
from server.lobby.base import Lobby, Route, Routes
from server.lobby.puzzles import Puzzles
from server.lobby.sessions import Session
from server.players.identity import Identities
from server.players.keys import public_tag
from server.players.ladder import Ladder
from server.players.profile import profile, public_profile
from server.rooms.room import RoomError


class Profiles:
    def __init__(
        self, lobby: Lobby, identities: Identities, ladder: Ladder, puzzles: Puzzles | None = None
    ) -> None:
        self.lobby = lobby
        self.identities = identities
        self.ladder = ladder
        self.puzzles = puzzles

    def routes(self) -> Routes:
        return {
            GetProfile: Route(self.get_profile),
            NewPlayerKey: Route(self.new_key),
            GetPublicProfile: Route(self.get_public_profile),
        }

    async def get_profile(self, conn: Connection, session: Session, request: GetProfile) -> None:
        conn.bucket.spend(HISTORY_COST)
        player = session.player_id
        record = await self.lobby.store.player_record(player, request.offset, PROFILE_PAGE)
        rating = await self.ladder.view_of(player)
        mine = profile(player, session.name, record, request.offset, rating)
        history = await self.ladder.history_of(player)
        puzzles = None if self.puzzles is None else await self.puzzles.record(player)
        conn.send(mine.model_copy(update={"rating_history": history, "puzzles": puzzles}))

    async def get_public_profile(
        self, conn: Connection, session: Session, request: GetPublicProfile
    ) -> None:
        conn.bucket.spend(HISTORY_COST)
        found = await self.ladder.find(request.tag)
        if found is None and public_tag(session.player_id) == request.tag:
            found = session.player_id, session.name
        if found is None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "no player on the ladder has that tag")
        player, name = found
        record = await self.lobby.store.player_record(player, 0, 1)  # (its matches unread)
        rating = await self.ladder.view_of(player)
        history = await self.ladder.history_of(player)
        conn.send(public_profile(request.tag, name, record, rating, history))

    async def new_key(self, conn: Connection, session: Session, request: NewPlayerKey) -> None:
        key = await self.identities.replace(session.player_id)
        conn.send(PlayerKeyIssued(player_key=key))
