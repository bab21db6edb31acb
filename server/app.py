"""The server's lobby and dispatch: sessions, room codes, and routing each request.

Every request is checked in a fixed order: the frame (codec), the session (hello first), the
room, then the room's own checks (phase, turn, state version, rules). A refused request gets
an ``Error`` to its sender only, naming its request id, and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any

from protocol.codec import ProtocolError, decode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    ClientMessage,
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    Ping,
    Pong,
    StartPractice,
    Watch,
    Welcome,
)
from server.game.deal import RandomSource
from server.game.errors import GameError
from server.hub import Connection, Hub
from server.rooms.room import Clocks, Room, RoomError, Seat
from server.runner import RoomRunner
from server.sessions import Session, SessionRegistry
from server.settings import Settings

log = logging.getLogger(__name__)

#: Room code letters: no 0/O, 1/I/L, so a code read aloud is not mistaken.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
#: Close code for a connection whose session has connected again elsewhere.
CLOSE_REPLACED = 4000


class App:
    """One server process's rooms, sessions and connections."""

    def __init__(
        self,
        settings: Settings,
        rng: RandomSource | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.rng: RandomSource = rng if rng is not None else secrets.SystemRandom()
        self.clock = clock
        self.hub = Hub()
        self.sessions = SessionRegistry()
        self.rooms: dict[str, RoomRunner] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- connections ------------------------------------------------------------------

    def receive(self, conn: Connection, frame: bytes | str) -> None:
        """Handle one frame from a connection; every refusal is answered there."""
        request_id: int | None = None
        try:
            if not conn.bucket.take():
                raise ProtocolError(ErrorCode.RATE_LIMITED, "too many requests: slow down")
            message = decode(frame, self.settings.max_frame)
            request_id = message.id
            self._dispatch(conn, message)
        except ProtocolError as exc:
            conn.send(Error(code=exc.code, message=exc.message, request_id=exc.request_id))
        except (RoomError, GameError) as exc:
            conn.send(Error(code=exc.code, message=exc.message, request_id=request_id))

    def disconnected(self, conn: Connection) -> None:
        if not self.hub.remove(conn) or conn.player_id is None:
            return
        session = self.sessions.of_player(conn.player_id)
        runner = self._runner_of(session)
        if session is not None and runner is not None:
            runner.publish(runner.room.set_connected(session.player_id, False))

    # --- dispatch ---------------------------------------------------------------------

    def _dispatch(self, conn: Connection, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            self._hello(conn, message)
            return
        session = None if conn.player_id is None else self.sessions.of_player(conn.player_id)
        if session is None:
            raise RoomError(ErrorCode.NO_SESSION, "say hello first")
        if isinstance(message, Ping):
            conn.send(Pong(request_id=message.id))
        elif isinstance(message, StartPractice):
            self._start_practice(session, message)
        elif isinstance(message, CreateRoom):
            self._create_room(session, message)
        elif isinstance(message, JoinRoom):
            self._join(session, message.code)
        elif isinstance(message, Watch):
            self._watch(session, message.code)
        elif isinstance(message, Leave):
            runner = self._require_room(session)
            session.room = None
            runner.publish(runner.room.leave(session.player_id))
        else:
            runner = self._require_room(session)
            runner.request(session.player_id, message)

    def _hello(self, conn: Connection, hello: Hello) -> None:
        if conn.player_id is not None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "this connection has said hello already")
        if hello.version != PROTOCOL_VERSION:
            raise RoomError(
                ErrorCode.VERSION_MISMATCH,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.version}",
            )
        resumed = hello.token is not None
        if hello.token is not None:
            found = self.sessions.resume(hello.token)
            if found is None:
                raise RoomError(ErrorCode.BAD_TOKEN, "unknown or expired session token")
            session = found
        else:
            session = self.sessions.open(hello.name)
        for older in self.hub.bind(conn, session.player_id):
            older.player_id = None
            self._background(older.ws.close(CLOSE_REPLACED, "replaced by a newer connection"))
        runner = self._runner_of(session)
        if runner is None:
            session.room = None
        conn.send(
            Welcome(
                token=session.token,
                player_id=session.player_id,
                name=session.name,
                resumed=resumed,
                room=session.room,
            )
        )
        if runner is not None:
            now = self.clock()
            conn.send(runner.room.snapshot_for(session.player_id, now))
            runner.publish(runner.room.set_connected(session.player_id, True))

    # --- rooms ------------------------------------------------------------------------

    def _runner_of(self, session: Session | None) -> RoomRunner | None:
        if session is None or session.room is None:
            return None
        return self.rooms.get(session.room)

    def _require_room(self, session: Session) -> RoomRunner:
        runner = self._runner_of(session)
        if runner is None:
            raise RoomError(ErrorCode.NO_ROOM, "you are not in a room")
        return runner

    def _require_no_room(self, session: Session) -> None:
        if self._runner_of(session) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "leave your room first")

    def _new_code(self) -> str:
        while True:
            letters = (
                CODE_ALPHABET[self.rng.randrange(len(CODE_ALPHABET))] for _ in range(CODE_LENGTH)
            )
            code = "".join(letters)
            if code not in self.rooms:
                return code

    def _open(self, room: Room) -> RoomRunner:
        runner = RoomRunner(room, self.hub, self.rng, self._closed, self.clock)
        self.rooms[room.code] = runner
        return runner

    def _closed(self, room: Room) -> None:
        runner = self.rooms.pop(room.code, None)
        if runner is not None:
            runner.stop()
        for player_id in room.people() + room.watchers:
            session = self.sessions.of_player(player_id)
            if session is not None and session.room == room.code:
                session.room = None

    def _start_practice(self, session: Session, request: StartPractice) -> None:
        self._require_no_room(session)
        room = Room.create(
            self._new_code(),
            "practice",
            request.deals,
            session.player_id,
            session.name,
            bot_speed=request.speed,
        )
        for seat in (1, 2):
            room.seats[seat] = Seat(
                kind="bot", name=f"{request.level} bot {seat}", level=request.level, ready=True
            )
        now = self.clock()
        room.start_match(now, self.rng, first_bidder=0)
        session.room = room.code
        runner = self._open(room)
        runner.publish([(session.player_id, room.snapshot_for(session.player_id, now))])

    def _create_room(self, session: Session, request: CreateRoom) -> None:
        self._require_no_room(session)
        s = self.settings
        room = Room.create(
            self._new_code(),
            "private",
            request.deals,
            session.player_id,
            session.name,
            clocks=Clocks(bid=s.bid_timeout, play=s.play_timeout, ready=s.ready_timeout),
            public=request.public,
        )
        session.room = room.code
        runner = self._open(room)
        runner.publish([(session.player_id, room.snapshot_for(session.player_id, self.clock()))])

    def _find(self, code: str) -> RoomRunner:
        runner = self.rooms.get(code.strip().upper())
        if runner is None:
            raise RoomError(ErrorCode.NO_ROOM, f"no room with code {code.strip().upper()!r}")
        return runner

    def _join(self, session: Session, code: str) -> None:
        self._require_no_room(session)
        runner = self._find(code)
        out = runner.room.join(session.player_id, session.name, self.clock())
        session.room = runner.room.code
        snapshot = runner.room.snapshot_for(session.player_id, self.clock())
        runner.publish([(session.player_id, snapshot), *out])

    def _watch(self, session: Session, code: str) -> None:
        self._require_no_room(session)
        runner = self._find(code)
        out = runner.room.watch(session.player_id)
        session.room = runner.room.code
        snapshot = runner.room.snapshot_for(session.player_id, self.clock())
        runner.publish([(session.player_id, snapshot), *out])

    # --- shutdown ---------------------------------------------------------------------

    def stop(self) -> None:
        """Stop every room's timers and bots (the process is going down)."""
        for runner in self.rooms.values():
            runner.stop()
