"""Sessions: a secret token stands for a player, so a person comes back to the same seat
after a dropped connection or a server restart.

A token is 32 random bytes from ``secrets``; the player id is public (others never see the
token). Sessions live in Redis with a TTL refreshed on use; this process keeps the sessions
of the players connected to it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from protocol.text import safe_name
from server.store.redis_store import RedisStore


@dataclass
class Session:
    token: str
    player_id: str
    name: str
    room: str | None = None

    def fields(self) -> dict[str, str]:
        return {"player_id": self.player_id, "name": self.name, "room": self.room or ""}


class Sessions:
    """Opening, resuming and updating sessions; a cache of the connected players' ones."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self._by_player: dict[str, Session] = {}

    async def open(self, name: str) -> Session:
        """A new session with a fresh secret token and player id, saved before use."""
        session = Session(
            token=secrets.token_urlsafe(32), player_id="p" + secrets.token_hex(6), name=name
        )
        await self.store.save_session(session.token, session.fields())
        self._by_player[session.player_id] = session
        return session

    async def resume(self, token: str) -> Session | None:
        """The session of a token, or None when it is unknown or expired."""
        fields = await self.store.load_session(token)
        if fields is None:
            return None
        session = self._by_player.get(fields["player_id"])
        if session is None or session.token != token:
            # a name stored before names were checked is made printable (others see it)
            session = Session(token, fields["player_id"], safe_name(fields["name"]))
            self._by_player[session.player_id] = session
        session.room = fields["room"] or None
        return session

    async def reload_room(self, session: Session) -> None:
        """Read the session's room from the store again: a request of the same person on
        another connection (maybe another process) may have changed it."""
        fields = await self.store.load_session(session.token)
        if fields is not None:
            session.room = fields["room"] or None

    async def set_room(self, session: Session, room: str | None) -> None:
        session.room = room
        await self.store.save_session(session.token, session.fields())

    def of_player(self, player_id: str) -> Session | None:
        return self._by_player.get(player_id)

    def forget(self, player_id: str) -> None:
        """Drop a player no longer connected here from the cache (Redis keeps the session)."""
        self._by_player.pop(player_id, None)
