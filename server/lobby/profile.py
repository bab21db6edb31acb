"""The player's own record and key: ``GetProfile`` (statistics and a page of matches) and
``NewPlayerKey`` (the old key stops working; the answer goes to the asking connection
only, as the welcome's key does)."""

from __future__ import annotations

from protocol.messages import PROFILE_PAGE, GetProfile, NewPlayerKey, PlayerKeyIssued
from server.edge.flood import HISTORY_COST
from server.edge.hub import Connection
from server.lobby.base import Lobby, Route, Routes
from server.lobby.sessions import Session
from server.players.identity import Identities
from server.players.profile import profile


class Profiles:
    def __init__(self, lobby: Lobby, identities: Identities) -> None:
        self.lobby = lobby
        self.identities = identities

    def routes(self) -> Routes:
        return {GetProfile: Route(self.get_profile), NewPlayerKey: Route(self.new_key)}

    async def get_profile(self, conn: Connection, session: Session, request: GetProfile) -> None:
        conn.bucket.spend(HISTORY_COST)
        player = session.player_id
        record = await self.lobby.store.player_record(player, request.offset, PROFILE_PAGE)
        conn.send(profile(player, session.name, record, request.offset))

    async def new_key(self, conn: Connection, session: Session, request: NewPlayerKey) -> None:
        key = await self.identities.replace(session.player_id)
        conn.send(PlayerKeyIssued(player_key=key))
