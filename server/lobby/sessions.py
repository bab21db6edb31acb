"""Sessions: a secret token stands for a player, so a person comes back to the same seat
after a dropped connection or a server restart.

A token is 32 random bytes from ``secrets``; the player id is public (others never see the
token). The player id is a lasting player's (``server/players/``): a session is one stay of
that player, and a new session (another device, a token expired) is opened for the same id
when they prove their key. Sessions live in Redis with a TTL refreshed on use; this process
keeps the sessions of the players connected to it.

Which room a player is in (``Session.room``) is written here only: by the lobby before it
asks a room to take the player in and after the player leaves (``enter``, ``leave``), and on
the rooms' own notices (``entered``, ``left``: from a room run here, or relayed from the
room's process), which say who came in and who went out with each change, and who was in a
room that closed.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from protocol.text import safe_name
from server.lobby.stores import SessionStore
from server.store.errors import StoreError

log = logging.getLogger(__name__)


@dataclass
class Session:
    token: str
    player_id: str
    name: str
    room: str | None = None
    #: The room a room's notice last took the player out of (kept here, not stored): a
    #: request for a room after that notice may be the person's first word since a closed
    #: room's end was lost on its way to them.
    left_room: str | None = field(default=None, compare=False)

    def fields(self) -> dict[str, str]:
        return {"player_id": self.player_id, "name": self.name, "room": self.room or ""}


class Sessions:
    """Opening, resuming and updating sessions; a cache of the connected players' ones."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._by_player: dict[str, Session] = {}

    async def open(self, name: str, player_id: str) -> Session:
        """A new session of ``player_id`` with a fresh secret token, saved before use."""
        session = Session(token=secrets.token_urlsafe(32), player_id=player_id, name=name)
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

    async def enter(self, session: Session, room: str) -> None:
        """Name ``room`` in the session, before the room is asked to take the player in: a
        session naming a room that does not have them is read as no room (``free``)."""
        session.room, session.left_room = room, None
        await self.store.save_session(session.token, session.fields())

    async def leave(self, session: Session) -> None:
        """The player is in no room (written to the store too)."""
        session.room, session.left_room = None, None
        await self.store.save_session(session.token, session.fields())

    async def leave_quietly(self, session: Session) -> None:
        """As ``leave``; when the store cannot be written, the stale room it keeps is read
        as no room later (the room does not have the player)."""
        session.room = None
        with contextlib.suppress(StoreError):
            await self.store.save_session(session.token, session.fields())

    def free(self, session: Session) -> None:
        """The room the session names does not have the player: no room, here (the store
        keeps the stale name until the next write, read as no room)."""
        session.room = None

    def entered(self, player_id: str, room: str) -> None:
        """A room's notice: the player (connected here) is in ``room`` now."""
        session = self._by_player.get(player_id)
        if session is not None:
            session.room, session.left_room = room, None

    def left(self, player_id: str, room: str) -> Coroutine[Any, Any, None] | None:
        """A room's notice: the player is no longer in ``room`` (left, gone, or it
        closed). If their session here still names it, it names none now, and the write
        of that to the store is returned (for the caller to await or run)."""
        session = self._by_player.get(player_id)
        if session is None or session.room != room:
            return None
        session.left_room = room
        return self.leave_quietly(session)

    def of_player(self, player_id: str) -> Session | None:
        return self._by_player.get(player_id)

    def room_of(self, player_id: str) -> str | None:
        """The room of a player connected here (None: none, or not connected here)."""
        session = self._by_player.get(player_id)
        return None if session is None else session.room

    def forget(self, player_id: str) -> None:
        """Drop a player no longer connected here from the cache (Redis keeps the session)."""
        self._by_player.pop(player_id, None)
