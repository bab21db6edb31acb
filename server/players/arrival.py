"""A hello's person: which lasting player, and which session of theirs (``Arrivals``).

- a session token resumes that session (when a key comes too, it must be the same
  player's, else the key decides); a player without a key yet gets one;
- a key without a live token resumes the player's last session if it lives, else opens a
  new one for them (another device, a token expired): the same player, their record;
- neither: a new player, whose key the welcome carries, once.

A new session, of a new player or not, counts against the caps of its address
(``LobbyLimits.new_session``), before anything is made.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ErrorCode
from protocol.messages import Hello
from server.lobby.limits import LobbyLimits
from server.lobby.sessions import Session, Sessions
from server.players.identity import Identities, Known
from server.rooms.room import RoomError


@dataclass(frozen=True)
class Arrival:
    """``resumed``: an existing session goes on; ``returning``: an existing player (their
    connections elsewhere are replaced); ``issued``: a key made now, for the welcome."""

    session: Session
    resumed: bool
    returning: bool
    issued: str | None = None


class Arrivals:
    def __init__(self, sessions: Sessions, identities: Identities, limits: LobbyLimits) -> None:
        self.sessions = sessions
        self.identities = identities
        self.limits = limits

    async def arrive(self, hello: Hello, address: str) -> Arrival:
        """The session a hello opens or resumes (see the module); refused as
        ``bad_key`` or ``bad_token``, or by the caps, having made nothing."""
        known = None if hello.player_key is None else await self.identities.prove(hello.player_key)
        if hello.token is not None:
            session = await self.sessions.resume(hello.token)
            if session is None and known is None:
                raise RoomError(ErrorCode.BAD_TOKEN, "unknown or expired session token")
            if session is not None and known is None:
                issued = await self.identities.key_for(session.player_id)
                return Arrival(session, resumed=True, returning=True, issued=issued)
            if session is not None and known is not None and session.player_id == known.player_id:
                if hello.name != session.name and session.room is None:
                    # a new name outside any room: the player's next session is under it
                    return await self._new_session(hello, known.player_id, address)
                if known.session != session.token:
                    await self.identities.note_session(known.player_id, session.token)
                return Arrival(session, resumed=True, returning=True)
        if known is not None:
            return await self._by_key(hello, known, address)
        await self.limits.new_session(address)
        player_id, key = await self.identities.new_player()
        session = await self.sessions.open(hello.name, player_id)
        await self.identities.note_session(player_id, session.token)
        return Arrival(session, resumed=False, returning=False, issued=key)

    async def _by_key(self, hello: Hello, known: Known, address: str) -> Arrival:
        """The known player's last session if it lives, else a new one of theirs."""
        if known.session is not None:
            session = await self.sessions.resume(known.session)
            if session is not None and session.player_id == known.player_id:
                return Arrival(session, resumed=True, returning=True)
        return await self._new_session(hello, known.player_id, address)

    async def _new_session(self, hello: Hello, player_id: str, address: str) -> Arrival:
        """A new session of a known player, under the hello's name."""
        await self.limits.new_session(address)
        session = await self.sessions.open(hello.name, player_id)
        await self.identities.note_session(player_id, session.token)
        return Arrival(session, resumed=False, returning=True)
