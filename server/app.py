"""One server process: its connections' sessions, and each request to its handler.

Several processes may share one store. A player may be connected to any of them; each room
runs on one, and a change a player asks of their room is a ``RoomOp`` that the cluster
part (``server/cluster/``) routes to wherever the room runs; it also brings here what rooms
run elsewhere send the players connected here, and takes every unfinished room back at
start (``Cluster.recover``).

Every request is checked in a fixed order: the rate (before the frame is read), the frame
(codec), the session (hello first), then its handler's checks, found by the request's type
in one table (``Routes``: the lobby's request families in ``server/lobby/``), and the
room's own (phase, turn, state version, rules). A refused request gets an ``Error`` to its
sender only, naming its request id, and changes nothing; only frames over the rate are
answered once a burst, not each. What a client opens (sessions, rooms, strong bots) and its
codes naming no room count against the caps of its address (``server/lobby/limits.py``),
in the store, across processes.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable

from protocol.codec import ProtocolError, decode
from protocol.errors import ErrorCode, Refusal
from protocol.messages import PROTOCOL_VERSION, ClientMessage, Error, Hello, Ping, Pong, Welcome
from server.analysis.export import ExportError, read_export
from server.bots.pool import BotPool
from server.cluster import ops
from server.cluster.node import RECALL_AGAIN, Cluster, as_it_closed
from server.edge.flood import Verdict
from server.edge.hub import Connection, Hub
from server.game.deal import RandomSource
from server.lobby.base import Lobby, Route, Routes, storage_away, unavailable
from server.lobby.limits import LobbyLimits
from server.lobby.player_lock import PlayerLocks
from server.lobby.profile import Profiles
from server.lobby.puzzle_mining import Miner
from server.lobby.puzzles import Puzzles
from server.lobby.queue import Queue
from server.lobby.records import Records
from server.lobby.rematch import Rematches
from server.lobby.reviews import Reviewer, Reviews
from server.lobby.rooms import Rooms
from server.lobby.seating import Seating
from server.lobby.sessions import Session, Sessions
from server.lobby.stores import AddressCounts, ServerStore, puzzle_store
from server.lobby.table import Table
from server.lobby.watching import Watching
from server.metrics import Metrics
from server.os_random import OsRandom
from server.players.arrival import Arrival, Arrivals
from server.players.bookkeeping import Bookkeeping
from server.players.identity import Identities
from server.players.ladder import Ladder, rating_store
from server.rooms.room import RoomError
from server.runner import RoomRunner
from server.settings import Settings
from server.store.errors import StoreError
from server.store.health import StoreHealth

log = logging.getLogger(__name__)

#: Close reason (code 1008) for a connection refused too often (``server.edge.flood``).
FLOOD_REASON = "too many refused frames"


class App:
    """One server process's rooms, sessions and connections. ``addresses``: the counts per
    client address (``AddressStore`` on the store's Redis)."""

    def __init__(
        self,
        settings: Settings,
        store: ServerStore,
        rng: RandomSource | None = None,
        clock: Callable[[], float] = time.time,
        hub: Hub | None = None,
        *,
        addresses: AddressCounts,
    ) -> None:
        self.settings = settings
        self.store = store
        self.rng: RandomSource = rng if rng is not None else OsRandom()
        self.clock = clock
        self.metrics = Metrics(lambda: len(self.hub.all), lambda: self.cluster.directory.states())
        self.hub = hub if hub is not None else Hub()
        self.hub.observe = self.metrics.observe_event
        #: Whether the store answers: while it does not, every room here is paused.
        self.health = StoreHealth(store.ping, clock)
        self.metrics.watch_storage(self.health)
        self.sessions = Sessions(store)
        self.identities = Identities(store, clock)
        #: The strong bots' process pool, sized by the settings.
        self.bots = BotPool(settings.bot_workers, settings.bot_queue_limit)
        self.limits = LobbyLimits(settings, addresses, self.metrics, clock, self.bots)
        self.player_locks = PlayerLocks(store)
        self.arrivals = Arrivals(self.sessions, self.identities, self.limits)
        #: Closed matches into their players' records, once (``appliers``: more changes).
        self.bookkeeping = Bookkeeping(store, clock, 2 * settings.finished_ttl + 86400)
        self._settling: asyncio.Task[None] | None = None
        #: This process's name in room leases: its listening address, which no other live
        #: process can share, so a process restarted in its place takes its rooms back
        #: at once instead of waiting for their leases to run out.
        self.node = f"{socket.gethostname()}:{settings.port}"
        #: Whether connections are taken (from ``start``'s first step on).
        self.accepting = False
        self.cluster = Cluster(
            self.node,
            settings,
            store,
            self.hub,
            self.sessions,
            self.metrics,
            self.rng,
            clock,
            closed=self.bookkeeping.closed_here,
            bots=self.bots,
            health=self.health,
        )
        self.directory = self.cluster.directory
        self.relay = self.cluster.relay
        lobby = Lobby(settings, store, self.sessions, self.limits, self.cluster, self.rng, clock)
        seating = Seating(lobby)
        self.records = Records(lobby)
        #: Reviews of finished matches, computed in a process of their own.
        self.reviewer = Reviewer(settings.review_seconds, settings.review_niceness)
        #: Ratings: read, noted as a quick match starts, applied as it ends; the ladder.
        self.ladder = Ladder(lobby, rating_store(store))
        # a closed room's rating changes go the records' crash-proof way: applied as the
        # room closes here, or by whichever process settles the room after a crash
        self.bookkeeping.room_appliers.append(self.ladder)
        #: Puzzles: played against the solver, mined from closed matches in the background
        #: (in the review process), and from the bots' self-play at the start when asked.
        puzzles = puzzle_store(store)
        self.puzzles = Puzzles(lobby, puzzles)
        self.miner = Miner(
            store,
            puzzles,
            self.reviewer,
            settings.puzzle_mine_seconds,
            clock,
            nodes=settings.puzzle_mine_nodes or None,
        )
        self.bookkeeping.room_appliers.append(self.miner)
        self.queue = Queue(lobby, seating, self.ladder)
        self.matcher = self.queue.matcher
        self.matcher.health = self.health
        #: Each request type to its handler.
        self.routes: Routes = {
            Ping: Route(self._ping),
            **Table(lobby).routes(),
            **Rooms(lobby, seating).routes(),
            **Watching(lobby, seating).routes(),
            **self.queue.routes(),
            **Rematches(lobby, seating).routes(),
            **self.records.routes(),
            **Reviews(lobby, self.reviewer).routes(),
            **Profiles(lobby, self.identities, self.ladder, self.puzzles).routes(),
            **self.puzzles.routes(),
            **self.ladder.routes(),
        }

    @property
    def rooms(self) -> dict[str, RoomRunner]:
        """The rooms this process runs, by code."""
        return self.directory.rooms

    # --- start and stop ---------------------------------------------------------------

    async def start(self) -> None:
        """Bring back every unfinished room, then start matching the quick-match queue.

        The transport listens before this (``/healthz`` answers during recovery) and takes
        players once ``accepting``: from the cluster part's start on, while the rooms come
        back (a player whose room is not back yet brings it back first)."""
        self.metrics.watch_gc()
        self.health.start()  # (when Redis last answered: where an outage's pause begins)
        await self.cluster.start()
        self.accepting = True
        # the strong bot's search processes start meanwhile, before the first decision
        # (unless they are to start with it: a server that may never seat a strong bot)
        if self.settings.bot_pool_start == "warm":
            await asyncio.gather(self.bots.warm_up(), self.cluster.recover())
        else:
            await self.cluster.recover()
        # matches a crash left between their room's closing save and their records (a store
        # that fails now leaves them to the next settle: it must not stop the start)
        try:
            await self.bookkeeping.settle_pending()
        except StoreError as exc:
            log.warning("the pending matches are left to the next settle: %s", exc)
        self._settling = asyncio.ensure_future(self.bookkeeping.keep_settling())
        self.matcher.start()
        if self.settings.puzzle_mine_journal:
            self._queue_export(self.settings.puzzle_mine_journal)
        if self.settings.puzzle_seed_deals:
            self.miner.queue_seed(self.settings.puzzle_seed_deals, self.rng.randrange(2**31))
        self.miner.start()

    def _queue_export(self, path: str) -> None:
        """Queue the matches of a journal export for mining; a bad line is said in the log
        (with how many matches before it were queued), and ends the reading there."""
        if self.settings.puzzle_mine_seconds <= 0:
            log.warning("the journal export %s is not mined: --puzzle-mine-seconds is 0", path)
            return
        queued = 0
        try:
            with open(path, encoding="utf-8") as lines:
                for journal in read_export(lines):
                    self.miner.queue_exported(journal)
                    queued += 1
        except (OSError, UnicodeDecodeError, ExportError) as exc:
            log.error("the journal export %s: %s (matches queued before it: %d)", path, exc, queued)
            return
        log.info("the journal export %s: %d matches queued for puzzle mining", path, queued)

    async def close(self) -> None:
        """Stop matching and every room's clock and bots, and give up their leases so that
        another process may run them at once (the process is going down)."""
        self.cluster.going_down()
        self.metrics.unwatch_gc()
        await self.matcher.stop()
        if self._settling is not None:
            self._settling.cancel()
        await self.miner.close()
        # the rooms first: the bot pool's shutdown waits for its workers (1-3 s measured
        # while they start), which the seat on turn's clock would count
        await self.cluster.stop()
        self.health.close()
        self.player_locks.close()
        self.bots.shutdown()
        self.reviewer.shutdown()

    # --- connections ------------------------------------------------------------------

    async def receive(self, conn: Connection, frame: bytes | str) -> None:
        """Handle one frame from a connection. It costs a token before it is read: without
        one it is refused unread, answered once a burst (``server.edge.flood``). A connection
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
        refusal: Refusal
        if isinstance(exc, StoreError):  # (a failed call tells the health; during an outage
            # the request is refused as the rooms' are: wait for the storage)
            refusal = storage_away() if self.health.failed(exc) else unavailable()
        else:
            refusal = exc
        waiting = (ErrorCode.UNAVAILABLE, ErrorCode.STORAGE_UNAVAILABLE)
        outcome = "unavailable" if refusal.code in waiting else "refused"
        if isinstance(refusal, ProtocolError) and conn.guard.refuse(time.monotonic()):
            conn.drop("flood", FLOOD_REASON, cut=True)  # a bad frame too many
        else:
            rid = request_id if refusal.request_id is None else refusal.request_id
            conn.send(Error(code=refusal.code, message=refusal.message, request_id=rid))
        return outcome

    async def _dispatch(self, conn: Connection, message: ClientMessage) -> None:
        if self.health.down and not isinstance(message, Ping):
            # every request but a ping needs the storage: refused at once while it is known
            # down (a stopped Redis would hold each call for its timeouts, seconds)
            raise storage_away()
        if isinstance(message, Hello):
            await self._hello(conn, message)
            return
        session = None if conn.player_id is None else self.sessions.of_player(conn.player_id)
        if session is None:
            raise RoomError(ErrorCode.NO_SESSION, "say hello first")
        route = self.routes[type(message)]
        if not route.locked:
            await route.handle(conn, session, message)
            return
        # One lobby request of a person at a time, wherever their connections are: each
        # checks that they are free, then seats them (see server/lobby/player_lock.py).
        async with self.player_locks.hold(session.player_id):
            await self.sessions.reload_room(session)
            await route.handle(conn, session, message)

    async def _ping(self, conn: Connection, session: Session, ping: Ping) -> None:
        conn.send(Pong(request_id=ping.id))

    async def disconnected(self, conn: Connection) -> None:
        if not self.hub.remove(conn) or conn.player_id is None:
            return
        player = conn.player_id
        session = self.sessions.of_player(player)
        self.sessions.forget(player)
        await self.cluster.disconnected(player)
        if self.cluster.closing:
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
                await self.directory.route(session.room, ops.Gone(player))
            except (Refusal, StoreError) as exc:
                log.info("room %s: could not mark %s disconnected: %s", session.room, player, exc)

    # --- sessions ---------------------------------------------------------------------

    async def _hello(self, conn: Connection, hello: Hello) -> None:
        """Open a session, or resume one by its token or its player's key (closing the
        player's older connections, here or elsewhere: ``server/players/arrival.py``), and
        bring the person back to their room."""
        if conn.player_id is not None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "this connection has said hello already")
        if hello.version != PROTOCOL_VERSION:
            raise RoomError(
                ErrorCode.VERSION_MISMATCH,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.version}",
            )
        arrival = await self.arrivals.arrive(hello, conn.address)
        session = arrival.session
        player = session.player_id
        for older in self.hub.bind(conn, player):
            self.cluster.replace(older)
        # a returning player may have older connections elsewhere: they are closed
        await self.cluster.connected(
            player, resumed=arrival.returning, returning=session.room is not None
        )
        try:
            await self._welcome(conn, arrival)
        finally:
            self.cluster.returned(player)

    async def _welcome(self, conn: Connection, arrival: Arrival) -> None:
        """Welcome the person, and bring them back into the room their session names."""
        session = arrival.session
        player = session.player_id
        named = session.room
        room = None if named is None else await self.directory.peek(named, over=True)
        if room is not None and not room.is_member(player):
            room = None
        ended = None  # their room, closed while its end to them was lost on the way
        if room is not None and room.closed is not None:
            ended, room = room, None
        if room is None:
            self.sessions.free(session)
        seat = None if room is None else room.seat_of(player)
        last_request = 0 if room is None or seat is None else room.seats[seat].last_request
        conn.send(
            Welcome(
                token=session.token,
                player_id=player,
                name=session.name,
                resumed=arrival.resumed,
                room=named if ended is not None else session.room,
                last_request_id=last_request,
                player_key=arrival.issued,
            )
        )
        if ended is not None:  # (its snapshot follows, as the welcome says, then its end)
            for message in as_it_closed(ended, player, self.clock()):
                conn.send(message)
            await self.sessions.leave_quietly(session)  # (shown once: stored as no room)
        if room is not None:
            try:
                await self.directory.route(room.code, ops.Back(player))
            except (RoomError, StoreError) as exc:
                if isinstance(exc, RoomError) and exc.code not in RECALL_AGAIN:
                    raise
                # its process cannot be reached yet (or the storage is down): the picture
                # as stored until it can, and the return tried again until it is made
                conn.send(room.snapshot_for(player, self.clock()))
                self.cluster.recall(player, room.code)
                raise
