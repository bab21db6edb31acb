"""The server's lobby and dispatch: sessions, room codes, routing each request, and bringing
every unfinished match back after a restart.

Several processes may share one Redis. A player may be connected to any of them; each
room runs on one, and a change a player asks of their room is a ``RoomOp`` that the cluster
part (``server/cluster/``) routes to wherever the room runs; it also brings here what rooms
run elsewhere send the players connected here.

Every request is checked in a fixed order: the rate (before the frame is read), the frame
(codec), the session (hello first), the room, then the room's own checks (phase, turn, state
version, rules). A refused request gets an ``Error`` to its sender only, naming its request
id, and changes nothing; only frames over the rate are answered once a burst, not each.
What a client opens (sessions, rooms, strong bots) and its codes naming no room count
against the caps of its address (``server/limits.py``), in Redis, across processes.

After a match (issue 14): ``Rematch`` opens (or takes a seat in) a new room with the
finished room's seats and settings; ``GetReplay`` rebuilds a closed room's match from its
journal for who played or watched it (``server/player_replay.py``); ``GetHistory`` reads
the player's last matches, written here when a room closes (``server/history.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, cast

from protocol.codec import ProtocolError, decode
from protocol.errors import ErrorCode, Refusal, quoted
from protocol.messages import (
    PROTOCOL_VERSION,
    BidRequest,
    BotSpeed,
    ClientMessage,
    CreateRoom,
    Error,
    GetHistory,
    GetReplay,
    Hello,
    History,
    HistoryEntry,
    JoinRoom,
    Leave,
    LeaveQueue,
    ListRooms,
    PassRequest,
    Ping,
    PlayRequest,
    Pong,
    Queued,
    QueueLeft,
    QuickMatch,
    Rematch,
    Request,
    RoomList,
    SeatBot,
    StartPractice,
    Watch,
    Welcome,
)
from server import history, listing
from server.bots.pool import BotPool
from server.cluster.directory import ADOPT_BATCH
from server.cluster.node import Cluster
from server.cluster.ops import RoomOp
from server.codes import new_code, normalize
from server.flood import HISTORY_COST, Verdict, reply_cost
from server.game.deal import RandomSource
from server.hub import Connection, Hub, send_frames
from server.limits import PRACTICE_BOTS, LobbyLimits
from server.metrics import Metrics
from server.os_random import OsRandom
from server.player_lock import PlayerLocks
from server.player_replay import WATCHED_MAX, ReplayCache, replay_data
from server.quick import QuickMatcher
from server.rooms.room import Clocks, Room, RoomError
from server.runner import RoomRunner
from server.sessions import Session, Sessions
from server.settings import BOT_DELAYS, Settings
from server.store.redis_store import RedisStore, StoreError

log = logging.getLogger(__name__)

#: Close code for a connection whose session has connected again elsewhere.
CLOSE_REPLACED = 4000
#: Close reason (code 1008) for a connection refused too often (``server.flood``).
FLOOD_REASON = "too many refused frames"
#: Tries at a fresh room code when one is taken (by a room of another process).
CODE_TRIES = 8
#: Requests that put a person in a room or the queue, or out of one: one at a time each.
LOBBY_REQUESTS = (
    StartPractice,
    CreateRoom,
    JoinRoom,
    Watch,
    QuickMatch,
    LeaveQueue,
    Leave,
    Rematch,
)


#: Bids, passes and plays: most of the requests, sent straight to the room.
GAME_ACTIONS = (BidRequest, PassRequest, PlayRequest)


def unavailable(exc: Exception) -> RoomError:
    return RoomError(ErrorCode.UNAVAILABLE, "the server cannot save right now: retry")


@dataclass(frozen=True)
class Owner:
    """Who a new room counts against: the client address it is created from, and the
    strong-bot seats it starts with."""

    address: str
    strong: int = 0


def quick_owner(players: list[tuple[str, dict[str, str]]]) -> tuple[str | None, Owner | None]:
    """Who a quick match's room counts against: its first person (the longest waiting)
    with a known address, and that address (None, None: queued without one)."""
    for pid, entry in players:
        if entry.get("address"):
            return pid, Owner(entry["address"])
    return None, None


class App:
    """One server process's rooms, sessions and connections."""

    def __init__(
        self,
        settings: Settings,
        store: RedisStore,
        rng: RandomSource | None = None,
        clock: Callable[[], float] = time.time,
        hub: Hub | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.rng: RandomSource = rng if rng is not None else OsRandom()
        self.clock = clock
        self.metrics = Metrics(lambda: len(self.hub.all), lambda: self.cluster.directory.states())
        self.hub = hub if hub is not None else Hub()
        self.hub.observe = self.metrics.observe_event
        self.sessions = Sessions(store)
        #: The strong bots' process pool, sized by the settings.
        self.bots = BotPool(settings.bot_workers, settings.bot_queue_limit)
        self.limits = LobbyLimits(settings, store, self.metrics, clock, self.bots)
        #: The room list last built, and when (it is the same for everyone for a moment).
        self._list: tuple[float, RoomList] | None = None
        self.player_locks = PlayerLocks(store)
        self.replays = ReplayCache()
        self._tasks: set[asyncio.Task[None]] = set()
        #: This process's name in room leases: its listening address, which no other live
        #: process can share, so a process restarted in its place takes its rooms back
        #: at once instead of waiting for their leases to run out.
        self.node = f"{socket.gethostname()}:{settings.port}"
        self._lease_task: asyncio.Task[None] | None = None
        #: Whether connections are taken (from ``start``'s first step on).
        self.accepting = False
        self.matcher = QuickMatcher(store, settings.quick_match_wait, self._open_quick, clock)
        self.cluster = Cluster(
            self.node,
            settings,
            store,
            self.hub,
            self.sessions,
            self.metrics,
            self.rng,
            clock,
            closed=self._record_history,
            bots=self.bots,
        )
        self.directory = self.cluster.directory
        self.relay = self.cluster.relay

    @property
    def rooms(self) -> dict[str, RoomRunner]:
        """The rooms this process runs, by code."""
        return self.directory.rooms

    # --- start and stop ---------------------------------------------------------------

    async def start(self) -> None:
        """Bring back every unfinished room, then start matching the quick-match queue.

        The transport listens before this (``/healthz`` answers during recovery) and takes
        players once ``accepting``: from the relay's start on, while the rooms come back (a
        player whose room is not back yet brings it back first). The leases are renewed
        from the start too, so that rooms taken back early do not lose their leases while
        thousands of others are still loading."""
        self.metrics.watch_gc()
        await self.relay.start()
        self.accepting = True
        self._lease_task = asyncio.ensure_future(self.directory.keep_leases())
        # the strong bot's search processes start meanwhile, before the first decision
        await asyncio.gather(self.bots.warm_up(), self.recover())
        self.matcher.start()

    async def close(self) -> None:
        """Stop matching and every room's clock and bots, and give up their leases so that
        another process may run them at once (the process is going down)."""
        self.directory.closing = True
        self.metrics.unwatch_gc()
        await self.matcher.stop()
        if self._lease_task is not None:
            self._lease_task.cancel()
        self.bots.shutdown()
        await self.directory.hand_over()
        await self.relay.stop()

    async def recover(self) -> int:
        """Load every unfinished room from the store and set its clock and bots going, a
        batch at a time (``ADOPT_BATCH``: one round trip for their leases, one for their
        states). Each running clock gets back the time it had left when last saved. Returns
        how many came back."""
        codes = await self.store.active_rooms()
        started = time.monotonic()
        self.directory.recovering = True
        try:
            for start in range(0, len(codes), ADOPT_BATCH):
                await self.directory.adopt_many(codes[start : start + ADOPT_BATCH])
        finally:
            self.directory.recovering = False
        count = len(self.rooms)
        rooms = "room" if count == 1 else "rooms"
        log.info("recovered %d %s in %.1f s", count, rooms, time.monotonic() - started)
        return len(self.rooms)

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- connections ------------------------------------------------------------------

    async def receive(self, conn: Connection, frame: bytes | str) -> None:
        """Handle one frame from a connection. It costs a token before it is read: without
        one it is refused unread, answered once a burst (``server.flood``). A connection
        refused too often is closed; every other refusal is answered."""
        if conn.dropped is not None:
            return  # closing: what it still sends is not read
        started = time.perf_counter()
        guard = conn.guard
        if not guard.charge(time.monotonic()):
            self.metrics.requests.refused_unread()
            verdict = guard.over_rate(time.monotonic())
            if verdict is Verdict.ANSWER:
                conn.send(
                    Error(code=ErrorCode.RATE_LIMITED, message="too many requests: slow down")
                )
            elif verdict is Verdict.CLOSE:
                conn.drop("flood", FLOOD_REASON, cut=True)
            return
        request_id: int | None = None
        kind, outcome = "invalid", "ok"
        try:
            message = decode(frame, self.settings.max_frame)
            request_id, kind = message.id, message.type
            await self._dispatch(conn, message)
        except (Refusal, StoreError) as exc:
            # (handled in a call of its own: a local here naming the error would be held by
            # its traceback, which holds this frame: a cycle per refusal for the collector)
            outcome = self._refused(conn, exc, request_id)
        if outcome == "unavailable":
            self.metrics.redis_errors.inc()
        self.metrics.request_done(kind, outcome, time.perf_counter() - started)

    def _refused(self, conn: Connection, exc: Refusal | StoreError, request_id: int | None) -> str:
        """Answer a refused request (or close a connection refused too often); its
        outcome for the metrics."""
        refusal = unavailable(exc) if isinstance(exc, StoreError) else exc
        outcome = "unavailable" if refusal.code == ErrorCode.UNAVAILABLE else "refused"
        if isinstance(refusal, ProtocolError) and conn.guard.refuse(time.monotonic()):
            conn.drop("flood", FLOOD_REASON, cut=True)  # a bad frame too many
        else:
            rid = request_id if refusal.request_id is None else refusal.request_id
            conn.send(Error(code=refusal.code, message=refusal.message, request_id=rid))
        return outcome

    async def disconnected(self, conn: Connection) -> None:
        if not self.hub.remove(conn) or conn.player_id is None:
            return
        player = conn.player_id
        session = self.sessions.of_player(player)
        self.sessions.forget(player)
        await self.cluster.disconnected(player)
        if self.directory.closing:
            return  # the rooms' next processes mark everyone disconnected on takeover
        try:
            await self.store.leave_queue(player)  # only a present person is matched
        except StoreError as exc:
            log.info("could not take %s off the queue: %s", player, exc)
        if self.hub.connected(player):
            # Connected here again meanwhile (their new connection's hello may already have
            # marked them back): a late "gone" would leave their seat marked away, and a
            # room sends nothing to a seat marked away.
            return
        if session is not None and session.room is not None:
            try:
                await self.directory.route(session.room, RoomOp("gone", player))
            except (Refusal, StoreError) as exc:
                log.info("room %s: could not mark %s disconnected: %s", session.room, player, exc)

    # --- dispatch ---------------------------------------------------------------------

    async def _dispatch(self, conn: Connection, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            await self._hello(conn, message)
            return
        session = None if conn.player_id is None else self.sessions.of_player(conn.player_id)
        if session is None:
            raise RoomError(ErrorCode.NO_SESSION, "say hello first")
        if not isinstance(message, LOBBY_REQUESTS):
            await self._handle(conn, session, message)
            return
        # One lobby request of a person at a time, wherever their connections are: each
        # checks that they are free, then seats them (see server/player_lock.py).
        async with self.player_locks.hold(session.player_id):
            await self.sessions.reload_room(session)
            await self._handle(conn, session, message)

    async def _handle(self, conn: Connection, session: Session, message: ClientMessage) -> None:
        if isinstance(message, GAME_ACTIONS):  # (most requests: not past every lobby kind)
            await self._to_room(session, message)
        elif isinstance(message, Ping):
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
            await self._start_practice(session, message, conn.address)
        elif isinstance(message, CreateRoom):
            await self._create_room(session, message, conn.address)
        elif isinstance(message, JoinRoom):
            await self._enter(session, message.code, watch=False, address=conn.address)
        elif isinstance(message, Watch):
            await self._enter(session, message.code, watch=True, address=conn.address)
        elif isinstance(message, Leave):
            code = self._require_room(session)
            await self.directory.route(code, RoomOp("leave", session.player_id))
            try:
                await self.sessions.leave(session)
            except StoreError:
                log.info("session of %s still names room %s", session.player_id, code)
        elif isinstance(message, Rematch):
            await self._rematch(session, message.code, conn.address)
        elif isinstance(message, GetReplay):
            payload = await self._player_replay(session.player_id, message.code)
            conn.bucket.spend(reply_cost(len(payload)))  # (what it sends, in tokens)
            send_frames(conn, [payload])
        elif isinstance(message, GetHistory):
            conn.bucket.spend(HISTORY_COST)
            conn.send(await self._history(session.player_id))
        elif isinstance(message, SeatBot) and message.level == "strong":
            await self._seat_strong_bot(session, message, conn.address)
        else:
            await self._to_room(session, message)

    async def _to_room(self, session: Session, request: Request) -> None:
        """A request for the person's room (a game action, ready, chat...), to the room."""
        code = self._require_room(session)
        await self.directory.route(code, RoomOp("request", session.player_id, request=request))

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
            await self.limits.new_session(conn.address)
            session = await self.sessions.open(hello.name)
        player = session.player_id
        for older in self.hub.bind(conn, player):
            self.cluster.replace(older)
        # a resumed session may have older connections elsewhere: they are closed
        await self.cluster.connected(player, resumed=hello.token is not None)
        room = None if session.room is None else await self.directory.peek(session.room)
        if room is None or room.closed is not None or not room.is_member(player):
            room = None
            self.sessions.free(session)
        seat = None if room is None else room.seat_of(player)
        last_request = 0 if room is None or seat is None else room.seats[seat].last_request
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
        if room is not None:
            try:
                await self.directory.route(room.code, RoomOp("back", player))
            except RoomError as exc:
                if exc.code != ErrorCode.UNAVAILABLE:
                    raise
                # its process cannot be reached yet: the stored picture, until it can
                conn.send(room.snapshot_for(player, self.clock()))
                raise

    # --- rooms ------------------------------------------------------------------------

    def _require_room(self, session: Session) -> str:
        if session.room is None:
            raise RoomError(ErrorCode.NO_ROOM, "you are not in a room")
        return session.room

    async def _require_free(self, session: Session) -> None:
        """One person, one place: not in a room, not in the queue. A session naming a room
        that does not have them (a join that was never answered, then not applied) is
        free."""
        if session.room is not None:
            if await self.directory.has_member(session.room, session.player_id):
                raise RoomError(ErrorCode.ALREADY_SEATED, "leave your room first")
            self.sessions.free(session)
        if await self.store.is_queued(session.player_id):
            raise RoomError(ErrorCode.ALREADY_QUEUED, "leave the quick-match queue first")

    def _new_code(self, secret: bool) -> str:
        """A code no room here has: long (unguessable) for a room found only by its code."""
        while True:
            code = new_code(self.rng, secret)
            if code not in self.rooms:
                return code

    async def _open_room(
        self, session: Session, build: Callable[[str], Room], owner: Owner, secret: bool
    ) -> None:
        """Build a room under a fresh code (long when ``secret``), store it, seat the session
        in it, and send the creator a snapshot; counted against the caps of the owner's
        address first, and refused having created nothing when past one."""
        if owner.strong:
            self.limits.strong_pool()
        await self.limits.new_room(owner.address)
        await self._store_new_room(build, [session], secret, owner)

    async def _store_new_room(
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
        for _ in range(CODE_TRIES):
            code = self._new_code(secret)
            if owner is not None:
                await self.limits.claim(owner.address, code, new_room=True, strong=owner.strong)
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
            self.sessions.free(session)
        raise RoomError(ErrorCode.UNAVAILABLE, "no free room code: retry")

    async def _unclaim(self, owner: Owner, code: str) -> None:
        try:
            await self.limits.release(owner.address, code, room=True, strong=owner.strong)
        except StoreError:  # its room is not in the active set: the next claim drops it
            log.info("room %s: its claim on %s stays until the next", code, owner.address)

    async def _try_store(
        self, room: Room, sessions: list[Session], owner: Owner | None
    ) -> Room | None:
        """Store and run a new room; None when its code is taken (try another)."""
        # The sessions name the room first: if the room is then not saved, a session
        # naming a room that does not exist is read as no room at all.
        for session in sessions:
            await self.sessions.enter(session, room.code)
        runner = None
        try:
            runner = await self.directory.open(room)
            if runner is None:
                return None  # the code is taken
            if room.public:
                self._list = None  # shown at once in this process's list
                if owner is not None:  # the list shows few rooms of one address
                    await self.limits.addresses.set_origin(room.code, owner.address)
                await self.store.add_watchable(room.code, self.clock())
        except StoreError as exc:
            for session in sessions:
                self.sessions.free(session)
            if runner is not None:  # saved and run, unlisted: its clocks end it when idle
                runner.reschedule()
            raise unavailable(exc) from exc
        now = self.clock()
        self.cluster.moved(room.code, [s.player_id for s in sessions], [])
        self.cluster.deliver([(s.player_id, room.snapshot_for(s.player_id, now)) for s in sessions])
        runner.reschedule()
        return room

    # --- quick match and the list of live rooms ---------------------------------------

    async def _join_queue(self, conn: Connection, session: Session) -> None:
        await self._require_free(session)
        # (the address: the room a match opens counts against its first person's caps)
        entry = {"name": session.name, "token": session.token, "address": conn.address}
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

        first, owner = quick_owner(players)
        try:
            if owner is not None:  # a room as any other, counted against its address
                await self.limits.new_room(owner.address)
            await self._store_new_room(build, sessions, owner=owner)
        except RoomError as exc:
            capped = first if exc.code == ErrorCode.LIMIT_REACHED else None
            now = self.clock()
            for pid, entry in players:  # back in the queue, at its head; told if past a cap
                if pid == capped:
                    self.cluster.deliver([(pid, Error(code=exc.code, message=exc.message))])
                    continue
                with contextlib.suppress(StoreError):
                    await self.store.enqueue(pid, now - s.quick_match_wait, entry)
            if capped is None:
                raise

    async def _room_list(self) -> RoomList:
        """The live rooms anyone may watch, those with people first (``listing``); built at
        most once per ``LIST_FRESH`` seconds by this process."""
        now = time.monotonic()
        if self._list is not None and now - self._list[0] < listing.LIST_FRESH:
            return self._list[1]
        candidates: list[listing.Listed] = []
        for stored in await self.limits.addresses.listed(listing.LIST_SCAN):
            runner = self.rooms.get(stored.code)
            if runner is not None:
                room = runner.room
            elif stored.data is not None:
                room = Room.from_data(stored.data)
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
        self._list = (now, rooms)
        return rooms

    async def _start_practice(self, session: Session, request: StartPractice, address: str) -> None:
        await self._require_free(session)

        def build(code: str) -> Room:
            room = Room.create(
                code, "practice", request.deals, session.player_id, session.name,
                bot_speed=request.speed,
            )  # fmt: skip
            for seat in (1, 2):
                room.place_bot(seat, request.level)
            room.start_match(self.clock(), self.rng, first_bidder=0)
            return room

        strong = PRACTICE_BOTS if request.level == "strong" else 0
        await self._open_room(session, build, Owner(address, strong), secret=True)

    async def _create_room(self, session: Session, request: CreateRoom, address: str) -> None:
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
            Owner(address),
            secret=not request.public,
        )

    async def _seat_strong_bot(self, session: Session, request: SeatBot, address: str) -> None:
        """A strong bot in a seat of one's private room: refused while the strong bots'
        pool is full, counted against the address's strong-bot seats, and given back if
        the room refuses it."""
        code = self._require_room(session)
        self.limits.strong_pool()
        await self.limits.claim(address, code, new_room=False, strong=1)
        try:
            await self.directory.route(code, RoomOp("request", session.player_id, request=request))
        except Refusal as exc:
            if exc.code != ErrorCode.UNAVAILABLE:  # unanswered: it may have been seated
                with contextlib.suppress(StoreError):
                    await self.limits.release(address, code, room=False, strong=1)
            raise

    @property
    def _bot_speed(self) -> BotSpeed:
        speed = self.settings.bot_speed
        return cast(BotSpeed, speed) if speed in BOT_DELAYS else "normal"

    async def _enter(self, session: Session, code: str, watch: bool, address: str) -> None:
        """Join a room's empty seat, or watch it; the newcomer gets a snapshot first. A code
        that names no room counts against the address's failed joins (past their limit it
        must wait before the next)."""
        await self.limits.may_join(address)
        await self._require_free(session)
        code = normalize(code)
        if code not in self.rooms and await self.directory.peek(code) is None:
            wait = await self.limits.missed(address)
            raise RoomError(ErrorCode.NO_ROOM, f"no room with code {quoted(code)}{wait}")
        await self.sessions.enter(session, code)  # first: see _open_room
        op = RoomOp("watch" if watch else "join", session.player_id, name=session.name)
        try:
            await self.directory.route(code, op)
        except Refusal as exc:
            if exc.code == ErrorCode.UNAVAILABLE:
                # Unanswered: the room's process may have taken them in (their snapshot then
                # comes from it). The session keeps naming the room; the next request that
                # needs them free looks at the stored room to know.
                raise
            await self.sessions.leave_quietly(session)
            raise
        if watch:  # remembered for the replay, once the match is over
            try:
                await self.store.note_watched(code, session.player_id, WATCHED_MAX)
            except StoreError as exc:
                log.info("room %s: %s watched, unrecorded: %s", code, session.player_id, exc)

    # --- after a match: rematch, replay, history --------------------------------------

    async def _rematch(self, session: Session, code: str, address: str) -> None:
        """Again, after the match in room ``code``: take a seat in its rematch, or open the
        rematch (the first to ask) with the same seats and settings. Only who played in
        it may ask, once it is over."""
        await self._require_free(session)
        code = normalize(code)
        data = await self.store.load_room(code)
        old = None if data is None else Room.from_data(data)
        if old is None or session.player_id not in old.people():
            raise RoomError(ErrorCode.NO_ROOM, f"no match of yours in room {code!r}")
        if old.closed is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match in this room is not over")
        if old.closed != "match_over":
            raise RoomError(
                ErrorCode.NOT_ALLOWED, f"that match did not end ({old.closed}): start a new one"
            )
        for _ in range(CODE_TRIES):
            current = await self.store.rematch_room(code)
            if current is not None:
                try:
                    await self._enter_rematch(session, current)
                    return
                except RoomError as exc:
                    if exc.code != ErrorCode.NO_ROOM:
                        raise
                    # that rematch room is gone (everyone left it): open another
            if await self._open_rematch(session, old, current, address):
                return
        raise RoomError(ErrorCode.UNAVAILABLE, "the rematch is being opened: retry")

    async def _enter_rematch(self, session: Session, code: str) -> None:
        """Take the seat held for this person in the rematch room ``code``, ready."""
        await self.sessions.enter(session, code)  # first: see _open_room
        try:
            await self.directory.route(code, RoomOp("again", session.player_id, name=session.name))
        except Refusal as exc:
            if exc.code == ErrorCode.UNAVAILABLE:
                raise  # unanswered: as in _enter
            await self.sessions.leave_quietly(session)
            raise

    async def _open_rematch(
        self, session: Session, old: Room, replacing: str | None, address: str
    ) -> bool:
        """Open the rematch of ``old`` (counted against the asker's address as any new
        room) and tell the others; False when another asker opened one first (this one is
        left at once, and the asker takes a seat in theirs)."""
        strong = sum(1 for s in old.seats if s.kind == "bot" and s.level == "strong")
        owner = Owner(address, strong)
        if owner.strong:
            self.limits.strong_pool()
        await self.limits.new_room(address)
        now = self.clock()
        wait = self.settings.rematch_wait

        def build(code: str) -> Room:
            return Room.rematch(old, code, session.player_id, now, self.rng, wait)

        room = await self._store_new_room(build, [session], secret=not old.public, owner=owner)
        if not await self.store.claim_rematch(old.code, room.code, replacing):
            await self.directory.route(room.code, RoomOp("leave", session.player_id))
            await self.sessions.leave_quietly(session)
            return False
        self.cluster.deliver(room.invites(session.player_id, now))
        return True

    async def _player_replay(self, player: str, code: str) -> bytes:
        """The replay of a closed room's match, for who played or watched it, encoded
        (once per match: ``ReplayCache``)."""
        code = normalize(code)
        data = await self.store.load_room(code)
        if data is None:
            raise RoomError(ErrorCode.NO_ROOM, f"no match of yours in room {code}")
        room = Room.from_data(data)
        room.check_replay(player, watched=await self.store.has_watched(code, player))
        key = self.replays.key(data)
        built = self.replays.get(key)
        if built is None:
            built = self.replays.put(key, replay_data(room, await self.store.read_log(code)))
        return built

    async def _history(self, player: str) -> History:
        entries: list[HistoryEntry] = []
        for data in await self.store.history(player, history.HISTORY_LENGTH):
            try:
                entries.append(HistoryEntry.model_validate(data))
            except ValueError:
                log.info("a history entry of %s does not read: skipped", player)
        return History(entries=entries)

    async def _record_history(self, room: Room) -> None:
        """Put a closed room's match at the head of its people's histories."""
        try:
            await self.store.push_history(
                history.entries(room, self.clock()), history.HISTORY_LENGTH
            )
        except StoreError as exc:
            log.warning("room %s: its match is in no history: %s", room.code, exc)
