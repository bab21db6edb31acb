"""Again, after a match (``Rematch``): a new room with the finished room's seats and
settings, opened by the first of its players to ask; the others take the seats held for
them there."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import Rematch
from server.cluster import ops
from server.edge.hub import Connection
from server.lobby.base import Lobby, Route, Routes
from server.lobby.codes import normalize
from server.lobby.seating import CODE_TRIES, Owner, Seating
from server.lobby.sessions import Session
from server.rooms.room import Room, RoomError
from server.rooms.stored import room_from_stored


class Rematches:
    def __init__(self, lobby: Lobby, seating: Seating) -> None:
        self.lobby = lobby
        self.seating = seating

    def routes(self) -> Routes:
        return {Rematch: Route(self.rematch, locked=True)}

    async def rematch(self, conn: Connection, session: Session, request: Rematch) -> None:
        """Take a seat in the rematch of the match in room ``request.code``, or open the
        rematch (the first to ask) with the same seats and settings. Only who played in it
        may ask, once it is over."""
        lobby = self.lobby
        await lobby.require_free(session)
        code = normalize(request.code)
        data = await lobby.store.load_room(code)
        old = None if data is None else room_from_stored(data)
        if old is None or session.player_id not in old.people():
            raise RoomError(ErrorCode.NO_ROOM, f"no match of yours in room {code!r}")
        if old.closed is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match in this room is not over")
        if old.closed != "match_over":
            raise RoomError(
                ErrorCode.NOT_ALLOWED, f"that match did not end ({old.closed}): start a new one"
            )
        for _ in range(CODE_TRIES):
            current = await lobby.store.rematch_room(code)
            if current is not None:
                try:
                    again = ops.Again(session.player_id, session.name)
                    await self.seating.seat(session, current, again)
                    return
                except RoomError as exc:
                    if exc.code != ErrorCode.NO_ROOM:
                        raise
                    # that rematch room is gone (everyone left it): open another
            if await self._open(session, old, current, conn.address):
                return
        raise RoomError(ErrorCode.UNAVAILABLE, "the rematch is being opened: retry")

    async def _open(self, session: Session, old: Room, replacing: str | None, address: str) -> bool:
        """Open the rematch of ``old`` (counted against the asker's address as any new
        room) and tell the others; False when another asker opened one first (this one is
        left at once, and the asker takes a seat in theirs)."""
        lobby = self.lobby
        strong = sum(1 for s in old.seats if s.kind == "bot" and s.level == "strong")
        owner = Owner(address, strong)
        if owner.strong:
            lobby.limits.strong_pool()
        await lobby.limits.new_room(address)
        now = lobby.clock()
        wait = lobby.settings.rematch_wait

        def build(code: str) -> Room:
            return Room.rematch(old, code, session.player_id, now, lobby.rng, wait)

        seating = self.seating
        room = await seating.store_new_room(build, [session], secret=not old.public, owner=owner)
        if not await lobby.store.claim_rematch(old.code, room.code, replacing):
            await lobby.directory.route(room.code, ops.Leave(session.player_id))
            await lobby.sessions.leave_quietly(session)
            return False
        lobby.cluster.deliver(room.invites(session.player_id, now))
        return True
