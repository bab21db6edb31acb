"""What every lobby handler works with (``Lobby``), and how a request finds its handler
(``Route``, in the table ``Routes`` that ``App`` reads).

A handler takes the connection that asked, the asker's session and the request. It answers
the connection directly (``conn.send``) or changes rooms, whose players hear of it through
the cluster part; a refusal is raised (``Refusal``) and answered by ``App.receive``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from protocol.errors import ErrorCode
from protocol.messages import BotSpeed, Request
from server.cluster.directory import RoomDirectory
from server.cluster.node import Cluster
from server.edge.hub import Connection
from server.game.deal import RandomSource
from server.lobby.limits import LobbyLimits
from server.lobby.sessions import Session, Sessions
from server.lobby.stores import LobbyStore
from server.rooms.room import Clocks, RoomError
from server.settings import BOT_DELAYS, Settings

#: A request's handler: the connection that asked, the asker's session, the request.
Handler = Callable[[Connection, Session, Any], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Route:
    """How requests of one type are handled. ``locked``: the request puts its person in or
    out of a room or the queue, so it runs under their lobby lock (one such request of a
    person at a time, wherever their connections are: ``server/lobby/player_lock.py``)."""

    handle: Handler
    locked: bool = False


Routes = dict[type[Request], Route]


@dataclass(frozen=True, slots=True)
class Lobby:
    """The parts the lobby's handlers share, and the checks they make alike."""

    settings: Settings
    store: LobbyStore
    sessions: Sessions
    limits: LobbyLimits
    cluster: Cluster
    rng: RandomSource
    clock: Callable[[], float]

    @property
    def directory(self) -> RoomDirectory:
        return self.cluster.directory

    @property
    def clocks(self) -> Clocks:
        """The turn clocks of a timed room, from the settings."""
        s = self.settings
        return Clocks(bid=s.bid_timeout, play=s.play_timeout, ready=s.ready_timeout)

    @property
    def bot_speed(self) -> BotSpeed:
        speed = self.settings.bot_speed
        return cast(BotSpeed, speed) if speed in BOT_DELAYS else "normal"

    def require_room(self, session: Session) -> str:
        if session.room is None:
            raise RoomError(ErrorCode.NO_ROOM, "you are not in a room")
        return session.room

    async def require_free(self, session: Session) -> None:
        """One person, one place: not in a room, not in the queue. A session naming a room
        that does not have them (a join that was never answered, then not applied) is
        free. One refused as seated is brought back into their room (its snapshot follows):
        a request that seated them may have been answered as not done."""
        if session.room is not None:
            if await self.directory.has_member(session.room, session.player_id):
                self.cluster.recall(session.player_id, session.room)
                raise RoomError(ErrorCode.ALREADY_SEATED, "leave your room first")
            self.sessions.free(session)
        if await self.store.is_queued(session.player_id):
            raise RoomError(ErrorCode.ALREADY_QUEUED, "leave the quick-match queue first")


def unavailable() -> RoomError:
    """The refusal of a request the store did not take (retryable)."""
    return RoomError(ErrorCode.UNAVAILABLE, "the server cannot save right now: retry")


def storage_away() -> RoomError:
    """The refusal of a request the store did not take during an outage (retryable)."""
    return RoomError(
        ErrorCode.STORAGE_UNAVAILABLE, "the server cannot reach its storage: wait a moment"
    )
