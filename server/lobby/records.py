"""What a match leaves: its replay for who played or watched it (``GetReplay``), and each
person's history of matches (``GetHistory``: their player's, whatever the session), from
the players' records (``server/players/bookkeeping.py`` writes them)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import GetHistory, GetReplay, History
from server.edge.flood import HISTORY_COST, reply_cost
from server.edge.hub import Connection, send_frames
from server.lobby import history
from server.lobby.base import Lobby, Route, Routes
from server.lobby.codes import normalize
from server.lobby.player_replay import ReplayCache, replay_data
from server.lobby.sessions import Session
from server.players.profile import entries_of
from server.rooms.room import RoomError
from server.rooms.stored import room_from_stored


class Records:
    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.replays = ReplayCache()

    def routes(self) -> Routes:
        return {GetReplay: Route(self.get_replay), GetHistory: Route(self.get_history)}

    async def get_replay(self, conn: Connection, session: Session, request: GetReplay) -> None:
        """Send the replay as encoded once, and charge the asker for its size."""
        payload = await self.replay(session.player_id, request.code)
        conn.bucket.spend(reply_cost(len(payload)))  # (what it sends, in tokens)
        send_frames(conn, [payload])

    async def get_history(self, conn: Connection, session: Session, request: GetHistory) -> None:
        conn.bucket.spend(HISTORY_COST)
        conn.send(await self.history(session.player_id))

    async def replay(self, player: str, code: str) -> bytes:
        """The replay of a closed room's match, for who played or watched it, encoded
        (once per match: ``ReplayCache``)."""
        store = self.lobby.store
        code = normalize(code)
        data = await store.load_room(code)
        if data is None:
            raise RoomError(ErrorCode.NO_ROOM, f"no match of yours in room {code}")
        room = room_from_stored(data)
        room.check_replay(player, watched=await store.has_watched(code, player))
        key = self.replays.key(data.state)
        built = self.replays.get(key)
        if built is None:
            built = self.replays.put(key, replay_data(room, await store.read_log(code)))
        return built

    async def history(self, player: str) -> History:
        """The player's last ``HISTORY_LENGTH`` matches."""
        record = await self.lobby.store.player_record(player, 0, history.HISTORY_LENGTH)
        return History(entries=entries_of(player, record.matches))
