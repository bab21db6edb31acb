"""Putting people in rooms: a new room opened under a fresh code (practice, a private or
public room, a quick match, a rematch), or a room entered by its code (join, watch).

A new room counts against the caps of the address it is created from before it is made,
and is refused having created nothing when past one. The people's sessions name a room
before the room is asked to take them in: a session naming a room that does not have them
is read as no room at all (``Sessions.free``), never the other way round.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from protocol.errors import ErrorCode, Refusal, quoted
from server.cluster import ops
from server.lobby.base import Lobby, unavailable
from server.lobby.codes import new_code, normalize
from server.lobby.player_replay import WATCHED_MAX
from server.lobby.sessions import Session
from server.rooms.room import Room, RoomError
from server.store.errors import StoreError

log = logging.getLogger(__name__)

#: Tries at a fresh room code when one is taken (by a room of another process).
CODE_TRIES = 8


@dataclass(frozen=True)
class Owner:
    """Who a new room counts against: the client address it is created from, and the
    strong-bot seats it starts with."""

    address: str
    strong: int = 0


class Seating:
    """Opens rooms and takes people into them, for every lobby handler."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        #: Listed rooms opened here so far: a room list built before the last is stale.
        self.listed_opened = 0

    async def open_room(
        self, session: Session, build: Callable[[str], Room], owner: Owner, secret: bool
    ) -> None:
        """Build a room under a fresh code (long when ``secret``), store it, seat the session
        in it, and send the creator a snapshot; counted against the caps of the owner's
        address first, and refused having created nothing when past one."""
        limits = self.lobby.limits
        if owner.strong:
            limits.strong_pool()
        await limits.new_room(owner.address)
        await self.store_new_room(build, [session], secret, owner)

    async def store_new_room(
        self,
        build: Callable[[str], Room],
        sessions: list[Session],
        secret: bool = False,
        owner: Owner | None = None,
    ) -> Room:
        """Store a new room under a fresh code (when another process holds the code, try
        another), name it in its people's sessions, run it, and send them snapshots. A room
        with an ``owner`` is claimed among its address's open rooms before it is made, and
        the claim given back if it is not."""
        limits = self.lobby.limits
        for _ in range(CODE_TRIES):
            code = self._new_code(secret)
            if owner is not None:
                await limits.claim(owner.address, code, new_room=True, strong=owner.strong)
            try:
                room = await self._try_store(build(code), sessions, owner)
            except BaseException:
                if owner is not None:
                    await self._unclaim(owner, code)
                raise
            if room is not None:
                return room
            if owner is not None:
                await self._unclaim(owner, code)
        for session in sessions:
            self.lobby.sessions.free(session)
        raise RoomError(ErrorCode.UNAVAILABLE, "no free room code: retry")

    def _new_code(self, secret: bool) -> str:
        """A code no room here has: long (unguessable) for a room found only by its code."""
        while True:
            code = new_code(self.lobby.rng, secret)
            if code not in self.lobby.directory.rooms:
                return code

    async def _unclaim(self, owner: Owner, code: str) -> None:
        try:
            await self.lobby.limits.release(owner.address, code, room=True, strong=owner.strong)
        except StoreError:  # its room is not in the active set: the next claim drops it
            log.info("room %s: its claim on %s stays until the next", code, owner.address)

    async def _try_store(
        self, room: Room, sessions: list[Session], owner: Owner | None
    ) -> Room | None:
        """Store and run a new room; None when its code is taken (try another)."""
        lobby = self.lobby
        for session in sessions:  # first: see the module's docstring
            await lobby.sessions.enter(session, room.code)
        runner = None
        try:
            runner = await lobby.directory.open(room)
            if runner is None:
                return None  # the code is taken
            if room.public:
                self.listed_opened += 1  # shown at once in this process's list
                if owner is not None:  # the list shows few rooms of one address
                    await lobby.limits.addresses.set_origin(room.code, owner.address)
                await lobby.store.add_watchable(room.code, lobby.clock())
        except StoreError as exc:
            if runner is not None:  # saved and run, unlisted: its clocks end it when idle
                runner.reschedule()
            # The room may be stored though the answer was lost (or the replicas were late):
            # its people here are brought into it once the storage answers, if it is (their
            # sessions keep naming it, read as no room if it is not).
            for session in sessions:
                lobby.cluster.recall(session.player_id, room.code)
            raise unavailable() from exc
        now = lobby.clock()
        lobby.cluster.moved(room.code, [s.player_id for s in sessions], [])
        lobby.cluster.deliver(
            [(s.player_id, room.snapshot_for(s.player_id, now)) for s in sessions]
        )
        runner.reschedule()
        return room

    async def enter(self, session: Session, code: str, watch: bool, address: str) -> None:
        """Join a room's empty seat, or watch it; the newcomer gets a snapshot first. A code
        that names no room counts against the address's failed joins (past their limit it
        must wait before the next)."""
        lobby = self.lobby
        await lobby.limits.may_join(address)
        code = normalize(code)
        if session.room == code and await lobby.directory.has_member(code, session.player_id):
            # the same request again, after one the room took but whose answer was lost
            # (refused as unavailable): answered as a reconnect is, with a fresh snapshot
            await lobby.directory.route(code, ops.Back(session.player_id))
            return
        await lobby.require_free(session)
        if code not in lobby.directory.rooms and await lobby.directory.peek(code) is None:
            wait = await lobby.limits.missed(address)
            raise RoomError(ErrorCode.NO_ROOM, f"no room with code {quoted(code)}{wait}")
        op = ops.Watch(session.player_id) if watch else ops.Join(session.player_id, session.name)
        await self.seat(session, code, op)
        if watch:  # remembered for the replay, once the match is over
            try:
                await lobby.store.note_watched(code, session.player_id, WATCHED_MAX)
            except StoreError as exc:
                log.info("room %s: %s watched, unrecorded: %s", code, session.player_id, exc)

    async def seat(self, session: Session, code: str, op: ops.Join | ops.Watch | ops.Again) -> None:
        """Name room ``code`` in the session, then ask the room to take the person in."""
        await self.lobby.sessions.enter(session, code)  # first: see the module's docstring
        try:
            await self.lobby.directory.route(code, op)
        except Refusal as exc:
            if exc.code == ErrorCode.UNAVAILABLE:
                # Unanswered: the room's process may have taken them in (their snapshot then
                # comes from it). The session keeps naming the room; the next request that
                # needs them free looks at the stored room to know.
                raise
            await self.lobby.sessions.leave_quietly(session)
            raise
