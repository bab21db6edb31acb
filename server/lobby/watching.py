"""Watching: the list of live rooms anyone may watch (``ListRooms``), and watching one
(``Watch``: a seat-less place at the table that sees no hidden card)."""

from __future__ import annotations

import time

from protocol.messages import ListRooms, RoomList, Watch
from server.edge.hub import Connection
from server.lobby import listing
from server.lobby.base import Lobby, Route, Routes
from server.lobby.seating import Seating
from server.lobby.sessions import Session
from server.rooms.stored import room_from_stored


class Watching:
    def __init__(self, lobby: Lobby, seating: Seating) -> None:
        self.lobby = lobby
        self.seating = seating
        #: The room list last built: when (monotonic), after how many listed rooms opened
        #: here, and the list (it is the same for everyone for a moment).
        self._list: tuple[float, int, RoomList] | None = None

    def routes(self) -> Routes:
        return {
            ListRooms: Route(self.list_rooms),
            Watch: Route(self.watch, locked=True),
        }

    async def watch(self, conn: Connection, session: Session, request: Watch) -> None:
        await self.seating.enter(session, request.code, watch=True, address=conn.address)

    async def list_rooms(self, conn: Connection, session: Session, request: ListRooms) -> None:
        conn.send(await self.room_list())

    async def room_list(self) -> RoomList:
        """The live rooms anyone may watch, those with people first (``listing``); built at
        most once per ``LIST_FRESH`` seconds by this process, and again at once when a
        listed room opened here since."""
        now, opened = time.monotonic(), self.seating.listed_opened
        if self._list is not None:
            built, seen, rooms = self._list
            if now - built < listing.LIST_FRESH and seen == opened:
                return rooms
        candidates: list[listing.Listed] = []
        for stored in await self.lobby.limits.addresses.listed(listing.LIST_SCAN):
            runner = self.lobby.directory.rooms.get(stored.code)
            if runner is not None:
                room = runner.room
            elif stored.data is not None:
                room = room_from_stored(stored.data)
            else:
                continue
            if room.closed is not None:
                continue
            candidates.append(
                listing.Listed(
                    listing.summary(room), listing.present(room), stored.created, stored.origin
                )
            )
        rooms = RoomList(rooms=listing.choose(candidates))
        self._list = (now, opened, rooms)
        return rooms
