"""The server's lobby and dispatch: sessions, room codes, routing each request, and bringing
every unfinished match back after a restart.

Every request is checked in a fixed order: the frame (codec), the rate, the session (hello
first), the room, then the room's own checks (phase, turn, state version, rules). A refused
request gets an ``Error`` to its sender only, naming its request id, and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import time
from collections.abc import Callable, Coroutine
from typing import Any, cast

from protocol.codec import ProtocolError, decode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    BotSpeed,
    ClientMessage,
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    LeaveQueue,
    ListRooms,
    Ping,
    Pong,
    Queued,
    QueueLeft,
    QuickMatch,
    RoomList,
    RoomSummary,
    StartPractice,
    Watch,
    Welcome,
)
from server.bots import pool
from server.game.deal import RandomSource
from server.game.errors import GameError
from server.hub import Connection, Hub
from server.metrics import Metrics
from server.quick import QuickMatcher
from server.rooms.room import Clocks, Delivery, Room, RoomError, Seat
from server.runner import RoomRunner
from server.sessions import Session, Sessions
from server.settings import BOT_DELAYS, Settings
from server.store.redis_store import RedisStore, StoreConflict, StoreError, pack

log = logging.getLogger(__name__)

#: Room code letters: no 0/O, 1/I/L, so a code read aloud is not mistaken.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
#: Close code for a connection whose session has connected again elsewhere.
CLOSE_REPLACED = 4000
#: Tries at a fresh room code when one is taken (by a room of another process).
CODE_TRIES = 8
#: Most rooms a room list names.
LIST_LIMIT = 50


def unavailable(exc: Exception) -> RoomError:
    return RoomError(ErrorCode.UNAVAILABLE, "the server cannot save right now: retry")


class App:
    """One server process's rooms, sessions and connections."""

    def __init__(
        self,
        settings: Settings,
        store: RedisStore,
        rng: RandomSource | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.store = store
        self.rng: RandomSource = rng if rng is not None else secrets.SystemRandom()
        self.clock = clock
        self.metrics = Metrics(lambda: len(self.hub.all), self._room_states)
        self.hub = Hub(self.metrics.observe_events)
        self.sessions = Sessions(store)
        self.rooms: dict[str, RoomRunner] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: This process's name in room leases: its listening address, which no other live
        #: process can share, so a process restarted in its place takes its rooms back
        #: at once instead of waiting for their leases to run out.
        self.node = f"{socket.gethostname()}:{settings.port}"
        self._lease_task: asyncio.Task[None] | None = None
        self.matcher = QuickMatcher(store, settings.quick_match_wait, self._open_quick, clock)

    # --- start and stop ---------------------------------------------------------------

    async def start(self) -> None:
        """Bring back every unfinished room, then start matching the quick-match queue."""
        await pool.warm_up()  # the strong bot's search processes, before the first decision
        await self.recover()
        self.matcher.start()
        self._lease_task = asyncio.ensure_future(self._keep_leases())

    async def close(self) -> None:
        """Stop matching and every room's clock and bots, and give up their leases so that
        another process may run them at once (the process is going down)."""
        await self.matcher.stop()
        if self._lease_task is not None:
            self._lease_task.cancel()
        self.stop()
        pool.shutdown()
        leases = {code: f"{self.node}:{r.fence}" for code, r in self.rooms.items()}
        if leases:
            try:
                await self.store.renew_leases(leases, 0)
            except StoreError as exc:
                log.warning("could not release room leases: %s", exc)

    async def recover(self) -> int:
        """Load every unfinished room from the store and set its clock and bots going; the
        time spent down counts against the seat on turn. Returns how many came back."""
        for code in await self.store.active_rooms():
            await self._adopt(code)
        log.info("recovered %d rooms", len(self.rooms))
        return len(self.rooms)

    async def _adopt(self, code: str) -> None:
        """Run a stored room that no live process runs (its lease is free, or this node's
        from before a restart); its people are disconnected until they come back."""
        if code in self.rooms:
            return
        fence = await self.store.acquire_lease(code, self.node, self.settings.lease_ttl)
        if fence == 0:
            return  # another process runs it
        data = await self.store.load_room(code)
        if data is None or data.get("closed") is not None:
            await self.store.forget_active(code)
            await self.store.renew_leases({code: f"{self.node}:{fence}"}, 0)
            return
        runner = self._runner(Room.from_data(data), saved=True, fence=fence)
        with contextlib.suppress(RoomError, GameError):
            await runner.change(lambda r: r.all_disconnected())

    async def _adopt_orphans(self) -> None:
        """Take over the rooms whose process died (their lease ran out)."""
        for code in await self.store.active_rooms():
            if code not in self.rooms and await self.store.lease_holder(code) is None:
                await self._adopt(code)

    def stop(self) -> None:
        """Stop every room's timers and bots (the process is going down)."""
        for runner in self.rooms.values():
            runner.stop()

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- connections ------------------------------------------------------------------

    async def receive(self, conn: Connection, frame: bytes | str) -> None:
        """Handle one frame from a connection; every refusal is answered there."""
        started = time.perf_counter()
        request_id: int | None = None
        kind, outcome = "invalid", "ok"
        try:
            message = decode(frame, self.settings.max_frame)
            request_id, kind = message.id, message.type
            if not conn.bucket.take():
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED, "too many requests: slow down", request_id
                )
            await self._dispatch(conn, message)
        except ProtocolError as exc:
            outcome = "refused"
            conn.send(Error(code=exc.code, message=exc.message, request_id=exc.request_id))
        except (RoomError, GameError) as exc:
            outcome = "unavailable" if exc.code == ErrorCode.UNAVAILABLE else "refused"
            conn.send(Error(code=exc.code, message=exc.message, request_id=request_id))
        except StoreError as exc:
            outcome = "unavailable"
            error = unavailable(exc)
            conn.send(Error(code=error.code, message=error.message, request_id=request_id))
        if outcome == "unavailable":
            self.metrics.redis_errors.inc()
        self.metrics.requests.labels(kind, outcome).inc()
        self.metrics.latency.labels(kind).observe(time.perf_counter() - started)

    def _room_states(self) -> list[str]:
        return [
            "waiting" if r.room.match is None else r.room.match.phase for r in self.rooms.values()
        ]

    async def disconnected(self, conn: Connection) -> None:
        if not self.hub.remove(conn) or conn.player_id is None:
            return
        session = self.sessions.of_player(conn.player_id)
        self.sessions.forget(conn.player_id)
        try:
            await self.store.leave_queue(conn.player_id)  # only a present person is matched
        except StoreError as exc:
            log.info("could not take %s off the queue: %s", conn.player_id, exc)
        runner = self._runner_of(session)
        if session is not None and runner is not None:
            player = session.player_id
            try:
                await runner.change(lambda room: room.set_connected(player, False))
            except (RoomError, GameError) as exc:
                log.info("room %s: could not mark %s disconnected: %s", runner.code, player, exc)

    # --- dispatch ---------------------------------------------------------------------

    async def _dispatch(self, conn: Connection, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            await self._hello(conn, message)
            return
        session = None if conn.player_id is None else self.sessions.of_player(conn.player_id)
        if session is None:
            raise RoomError(ErrorCode.NO_SESSION, "say hello first")
        if isinstance(message, Ping):
            conn.send(Pong(request_id=message.id))
        elif isinstance(message, ListRooms):
            conn.send(await self._room_list())
        elif isinstance(message, QuickMatch):
            await self._join_queue(conn, session)
        elif isinstance(message, LeaveQueue):
            if not await self.store.leave_queue(session.player_id):
                raise RoomError(ErrorCode.NOT_QUEUED, "you are not in the quick-match queue")
            conn.send(QueueLeft())
        elif isinstance(message, StartPractice):
            await self._start_practice(session, message)
        elif isinstance(message, CreateRoom):
            await self._create_room(session, message)
        elif isinstance(message, JoinRoom):
            await self._enter(session, message.code, watch=False)
        elif isinstance(message, Watch):
            await self._enter(session, message.code, watch=True)
        elif isinstance(message, Leave):
            runner = self._require_room(session)
            await runner.change(lambda room: room.leave(session.player_id))
            session.room = None
            try:
                await self.sessions.set_room(session, None)
            except StoreError:
                log.info("session of %s still names room %s", session.player_id, runner.code)
        else:
            await self._require_room(session).request(session.player_id, message)

    async def _hello(self, conn: Connection, hello: Hello) -> None:
        if conn.player_id is not None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "this connection has said hello already")
        if hello.version != PROTOCOL_VERSION:
            raise RoomError(
                ErrorCode.VERSION_MISMATCH,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.version}",
            )
        if hello.token is not None:
            found = await self.sessions.resume(hello.token)
            if found is None:
                raise RoomError(ErrorCode.BAD_TOKEN, "unknown or expired session token")
            session = found
        else:
            session = await self.sessions.open(hello.name)
        for older in self.hub.bind(conn, session.player_id):
            older.player_id = None
            self._background(older.ws.close(CLOSE_REPLACED, "replaced by a newer connection"))
        runner = self._runner_of(session)
        if runner is not None and not runner.room.is_member(session.player_id):
            runner = None
            session.room = None
        player = session.player_id
        seat = None if runner is None else runner.room.seat_of(player)
        last_request = 0 if runner is None or seat is None else runner.room.seats[seat].last_request
        conn.send(
            Welcome(
                token=session.token,
                player_id=player,
                name=session.name,
                resumed=hello.token is not None,
                room=session.room,
                last_request_id=last_request,
            )
        )
        if runner is not None:
            await self._rejoin(conn, runner, player)

    async def _rejoin(self, conn: Connection, runner: RoomRunner, player: str) -> None:
        """A resumed player gets their snapshot (showing them connected) and the others
        learn they are back. If that cannot be saved they still get the snapshot."""

        def back(room: Room) -> list[Delivery]:
            out = room.set_connected(player, True)
            others = [(p, m) for p, m in out if p != player]
            return [(player, room.snapshot_for(player, self.clock())), *others]

        try:
            await runner.change(back)
        except RoomError:
            conn.send(runner.room.snapshot_for(player, self.clock()))
            raise

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

    async def _require_free(self, session: Session) -> None:
        """One person, one place: not in a room, not in the queue."""
        if self._runner_of(session) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "leave your room first")
        if await self.store.is_queued(session.player_id):
            raise RoomError(ErrorCode.ALREADY_QUEUED, "leave the quick-match queue first")

    def _new_code(self) -> str:
        while True:
            letters = (
                CODE_ALPHABET[self.rng.randrange(len(CODE_ALPHABET))] for _ in range(CODE_LENGTH)
            )
            code = "".join(letters)
            if code not in self.rooms:
                return code

    def _runner(self, room: Room, saved: bool, fence: int) -> RoomRunner:
        runner = RoomRunner(
            room, self.hub, self.store, self.rng, self._closed, self.clock, saved, fence, self._lost
        )
        runner.bot_timer = lambda level, seconds: self.metrics.bot_seconds.labels(level).observe(
            seconds
        )
        self.rooms[room.code] = runner
        return runner

    def _lost(self, room: Room) -> None:
        """Another process holds the room now (this one's lease ran out): let it go."""
        runner = self.rooms.pop(room.code, None)
        if runner is not None:
            runner.stop()

    async def _keep_leases(self) -> None:
        """Renew the lease of every room this process runs, a third of the TTL apart; a room
        whose lease is gone (this process stalled past it) is let go."""
        ttl = self.settings.lease_ttl
        while True:
            await asyncio.sleep(ttl / 3)
            leases = {code: f"{self.node}:{r.fence}" for code, r in self.rooms.items()}
            try:
                lost = await self.store.renew_leases(leases, ttl) if leases else []
            except StoreError as exc:
                log.warning("could not renew room leases: %s", exc)
                continue
            for code in lost:
                runner = self.rooms.get(code)
                if runner is not None:
                    log.warning("room %s: lease lost; another process may run it", code)
                    self._lost(runner.room)
            try:
                await self._adopt_orphans()
            except StoreError as exc:
                log.warning("could not look for rooms to take over: %s", exc)

    async def _closed(self, room: Room) -> None:
        runner = self.rooms.pop(room.code, None)
        if runner is not None:
            runner.stop()
        for player_id in room.people() + room.watchers:
            session = self.sessions.of_player(player_id)
            if session is not None and session.room == room.code:
                try:
                    await self.sessions.set_room(session, None)
                except StoreError:
                    session.room = None  # a stale room in Redis is ignored on resume

    async def _open_room(self, session: Session, build: Callable[[str], Room]) -> None:
        """Build a room under a fresh code, store it, seat the session in it, and send the
        creator a snapshot."""
        await self._store_new_room(build, [session])

    async def _store_new_room(self, build: Callable[[str], Room], sessions: list[Session]) -> Room:
        """Store a new room under a fresh code (when another process holds the code, try
        another), name it in its people's sessions, run it, and send them snapshots."""
        for _ in range(CODE_TRIES):
            room = build(self._new_code())
            # The sessions name the room first: if the room is then not saved, a session
            # naming a room that does not exist is read as no room at all.
            for session in sessions:
                await self.sessions.set_room(session, room.code)
            try:
                fence = await self.store.acquire_lease(
                    room.code, self.node, self.settings.lease_ttl
                )
                if fence == 0:
                    continue  # the code is another process's room
                if await self.store.load_room(room.code) is not None:
                    await self.store.renew_leases({room.code: f"{self.node}:{fence}"}, 0)
                    continue  # the code of a finished room, kept for its record
                await self.store.save_room(
                    room.code,
                    -1,
                    room.version,
                    pack(room.to_data()),
                    room.take_journal(),
                    fence=fence,
                )
                if room.public:
                    await self.store.add_watchable(room.code, self.clock())
            except StoreConflict:
                continue
            except StoreError as exc:
                for session in sessions:
                    session.room = None
                raise unavailable(exc) from exc
            runner = self._runner(room, saved=True, fence=fence)
            now = self.clock()
            self.hub.deliver([(s.player_id, room.snapshot_for(s.player_id, now)) for s in sessions])
            runner.reschedule()
            return room
        for session in sessions:
            session.room = None
        raise RoomError(ErrorCode.UNAVAILABLE, "no free room code: retry")

    # --- quick match and the list of live rooms ---------------------------------------

    async def _join_queue(self, conn: Connection, session: Session) -> None:
        await self._require_free(session)
        entry = {"name": session.name, "token": session.token}
        waiting = await self.store.enqueue(session.player_id, self.clock(), entry)
        if waiting == 0:
            raise RoomError(ErrorCode.ALREADY_QUEUED, "you are in the quick-match queue already")
        conn.send(Queued(wait=self.settings.quick_match_wait, waiting=waiting))

    async def _open_quick(self, players: list[tuple[str, dict[str, str]]]) -> None:
        """Seat the people the matcher took off the queue, bots in the other seats, and
        start their timed 3-deal match."""
        s = self.settings
        clocks = Clocks(bid=s.bid_timeout, play=s.play_timeout, ready=s.ready_timeout)
        sessions = [
            self.sessions.of_player(pid) or Session(e["token"], pid, e["name"])
            for pid, e in players
        ]

        def build(code: str) -> Room:
            people = [(x.player_id, x.name) for x in sessions]
            room = Room.quick(code, people, clocks, bot_speed=self._bot_speed)
            room.start_match(self.clock(), self.rng)
            return room

        try:
            await self._store_new_room(build, sessions)
        except RoomError:
            now = self.clock()
            for pid, entry in players:  # back in the queue, at its head
                with contextlib.suppress(StoreError):
                    await self.store.enqueue(pid, now - s.quick_match_wait, entry)
            raise

    async def _room_list(self) -> RoomList:
        summaries: list[RoomSummary] = []
        for code in await self.store.watchable(LIST_LIMIT):
            runner = self.rooms.get(code)
            if runner is not None:
                room = runner.room
            else:
                data = await self.store.load_room(code)
                if data is None:
                    continue
                room = Room.from_data(data)
            if room.closed is not None:
                continue
            summaries.append(
                RoomSummary(
                    code=room.code,
                    mode=room.mode,
                    deals=room.deals,
                    deal_no=room.match.deal_no if room.match else 0,
                    seats=[seat.name or "" for seat in room.seats],
                    watchers=len(room.watchers),
                )
            )
        return RoomList(rooms=summaries)

    async def _start_practice(self, session: Session, request: StartPractice) -> None:
        await self._require_free(session)

        def build(code: str) -> Room:
            room = Room.create(
                code, "practice", request.deals, session.player_id, session.name,
                bot_speed=request.speed,
            )  # fmt: skip
            for seat in (1, 2):
                room.seats[seat] = Seat(
                    kind="bot", name=f"{request.level} bot {seat}", level=request.level, ready=True
                )
            room.start_match(self.clock(), self.rng, first_bidder=0)
            return room

        await self._open_room(session, build)

    async def _create_room(self, session: Session, request: CreateRoom) -> None:
        await self._require_free(session)
        s = self.settings
        clocks = Clocks(bid=s.bid_timeout, play=s.play_timeout, ready=s.ready_timeout)
        await self._open_room(
            session,
            lambda code: Room.create(
                code,
                "private",
                request.deals,
                session.player_id,
                session.name,
                clocks=clocks,
                public=request.public,
                bot_speed=self._bot_speed,
            ),
        )

    @property
    def _bot_speed(self) -> BotSpeed:
        speed = self.settings.bot_speed
        return cast(BotSpeed, speed) if speed in BOT_DELAYS else "normal"

    def _find(self, code: str) -> RoomRunner:
        runner = self.rooms.get(code.strip().upper())
        if runner is None:
            raise RoomError(ErrorCode.NO_ROOM, f"no room with code {code.strip().upper()!r}")
        return runner

    async def _enter(self, session: Session, code: str, watch: bool) -> None:
        """Join a room's empty seat, or watch it; the newcomer gets a snapshot first."""
        await self._require_free(session)
        runner = self._find(code)
        player, name, now = session.player_id, session.name, self.clock()

        def enter(room: Room) -> list[Delivery]:
            out = room.watch(player) if watch else room.join(player, name, now)
            return [(player, room.snapshot_for(player, now)), *out]

        await self.sessions.set_room(session, runner.code)  # first: see _open_room
        try:
            await runner.change(enter)
        except (RoomError, GameError):
            session.room = None
            raise
