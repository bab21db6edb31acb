"""This process's part in running rooms across processes: ``Cluster``.

It owns the room directory (the rooms run here, their leases, takeover and handover, the
route to a room run elsewhere) and the relay (Redis pub/sub between processes), and it is
the one place that handles what the relay brings:

- a ``Forward``: a change to a room run here (``RoomDirectory.serve`` applies and answers);
- ``Adopt``: rooms given up by a process going down, taken over at once;
- for a player connected here: a ``PlayerFrame`` (to their sockets), ``EnteredRoom`` and
  ``LeftRoom`` (to the sessions part), ``Replaced`` (they connected again elsewhere: close
  the older connections), ``Rejoin`` (their room has a new process: come back to it).

The rooms run here reach players through it (``deliver``, ``moved``): those connected here
through the hub and the sessions part (``Places``), the others through the relay.

It starts and stops this process's part in the cluster: the relay, the lease keeper, the
takeover of every stored room at start (``recover``), and the handover at shutdown.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from protocol.codec import frame_type
from protocol.errors import ErrorCode, Refusal
from protocol.messages import Paused, Resumed, RoomClosed, Snapshot
from server.bots.pool import BotPool
from server.cluster import ops
from server.cluster.directory import ADOPT_BATCH, RoomDirectory
from server.cluster.messages import (
    Adopt,
    EnteredRoom,
    Forward,
    LeftRoom,
    PlayerFrame,
    PlayerFrames,
    PlayerMessage,
    Rejoin,
    Replaced,
)
from server.cluster.relay import Relay
from server.edge.hub import Connection, Hub
from server.game.deal import RandomSource
from server.metrics import Metrics
from server.rooms.room import Room
from server.rooms.stored import room_from_stored
from server.runner import RoomRunner
from server.settings import Settings
from server.store.base import ClusterStore
from server.store.errors import StoreError
from server.store.health import StoreHealth

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds between tries at bringing a player back into their room: the first pause, and
#: the longest (doubling between).
RECALL_FIRST, RECALL_LONGEST = 0.1, 2.0
#: Refusals of a return that may pass when tried again (the room changing process, the
#: storage down).
RECALL_AGAIN = frozenset({ErrorCode.UNAVAILABLE, ErrorCode.STORAGE_UNAVAILABLE})

#: Close code for a connection whose session has connected again elsewhere.
CLOSE_REPLACED = 4000


class Places(Protocol):
    """Which room each player connected here is in (the lobby's sessions), told of the
    rooms' comings and goings."""

    def room_of(self, player: str) -> str | None:
        """The room of a player connected here (None: none, or not connected here)."""

    def entered(self, player: str, room: str) -> None:
        """The player is in ``room`` now."""

    def left(self, player: str, room: str) -> Coroutine[Any, Any, None] | None:
        """The player is no longer in ``room``; the store write that notes it, if any."""


def as_it_closed(room: Room, player: str, now: float) -> list[BaseModel]:
    """What a member of a closed room gets when the room's last word to them was lost: the
    room as it closed (its result, when its match ended), then that it closed."""
    return [room.snapshot_for(player, now), RoomClosed.model_validate({"reason": room.closed})]


class Cluster:
    """The rooms of process ``node`` and its links to the other processes. ``closed`` is
    told of each room run here that closes (after its players have been told)."""

    def __init__(
        self,
        node: str,
        settings: Settings,
        store: ClusterStore,
        hub: Hub,
        sessions: Places,
        metrics: Metrics,
        rng: RandomSource,
        clock: Callable[[], float] = time.time,
        closed: Callable[[Room], Awaitable[None]] | None = None,
        bots: BotPool | None = None,
        health: StoreHealth | None = None,
    ) -> None:
        self.node = node
        self.clock = clock
        self.hub = hub
        self.sessions = sessions
        self._closed = closed
        self.store = store
        self._tasks: set[asyncio.Task[object]] = set()
        #: The players being brought back into a room (``recall``), and whether to try
        #: once more after the try under way.
        self._recalls: dict[tuple[str, str], bool] = {}
        #: The players here told by this process that their room (run elsewhere) paused.
        self._paused_here: dict[str, str] = {}
        #: The players being brought back into their room after a gap in what it sent them
        #: (their hello here: ``connected`` until ``returned``; the link to the other
        #: processes back: ``resync``): what a room sends them before their snapshot is
        #: not passed on (``_from_snapshot``).
        self._returning: set[str] = set()
        self.health = health
        self._lease_task: asyncio.Task[None] | None = None
        self._alive_task: asyncio.Task[None] | None = None
        self.relay = Relay(store, node, settings.forward_timeout, self, health)
        self.directory = RoomDirectory(
            node, settings, store, self, self, self.relay, self, metrics, rng, clock, bots, health
        )
        if health is not None:
            health.watch(self.storage_down, self.storage_back)

    @property
    def rooms(self) -> dict[str, RoomRunner]:
        return self.directory.rooms

    # --- start and stop -----------------------------------------------------------------

    async def start(self) -> None:
        """Hear the other processes, and renew the leases of the rooms run here from now on
        (also while ``recover`` brings thousands back: those back early keep theirs)."""
        await self.relay.start()
        try:
            await self.directory.note_start()  # (before the heartbeat overwrites it)
        except StoreError as exc:
            log.info("this node's last sign of life is not known: %s", exc)
        self._alive_task = asyncio.ensure_future(self.directory.heartbeat())
        self._lease_task = asyncio.ensure_future(self.directory.keep_leases())

    async def recover(self) -> int:
        """Take back every unfinished stored room and set its clock and bots going, a batch
        at a time (``ADOPT_BATCH``: one round trip for their leases, one for their states).
        Each running clock gets back the time it had left when last saved. Returns how many
        rooms run here then."""
        started = time.monotonic()
        self.directory.recovering = True
        try:
            codes = await self._until_answered(self.store.active_rooms)
            for start in range(0, len(codes), ADOPT_BATCH):
                batch = codes[start : start + ADOPT_BATCH]
                await self._until_answered(partial(self.directory.adopt_many, batch))
        finally:
            self.directory.recovering = False
        count = len(self.rooms)
        rooms = "room" if count == 1 else "rooms"
        log.info("recovered %d %s in %.1f s", count, rooms, time.monotonic() - started)
        return count

    async def _until_answered(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, made again while the storage cannot be reached (a process started
        during a failover waits for it, rather than end), each time it answers again."""
        pause = RECALL_FIRST
        while True:
            try:
                return await call()
            except StoreError as exc:
                if self.health is None or not self.health.failed(exc):
                    log.warning("rooms not taken back yet: %s", exc)
            if self.health is not None:
                await self.health.up()
            await asyncio.sleep(pause)
            pause = min(pause * 2, RECALL_LONGEST)

    @property
    def closing(self) -> bool:
        """Whether the process is going down (its rooms' next processes take them over)."""
        return self.directory.closing

    def going_down(self) -> None:
        """From now on, take no room over and forward nothing."""
        self.directory.closing = True

    async def stop(self) -> None:
        """Stop renewing leases, give every room here up to the other processes, and stop
        the relay."""
        self.going_down()
        if self._lease_task is not None:
            self._lease_task.cancel()
        if self._alive_task is not None:
            self._alive_task.cancel()
        await self.directory.hand_over()
        await self.relay.stop()

    def _background(self, coro: Coroutine[Any, Any, object]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- players connected here ---------------------------------------------------------

    async def connected(self, player: str, resumed: bool, returning: bool = False) -> None:
        """A player said hello here: hear what rooms elsewhere send them, and (a resumed
        session) close their connections at other processes. ``returning``: their hello
        brings them back into a room (``returned`` when it is over). Until their snapshot
        comes, nothing their room sends them is passed on: their seat may still be marked
        connected (their last process went down without a word, or its word is late), so
        the room sends to it, and what it sent them while they were connected nowhere is
        lost; what they would get before the snapshot would follow a gap (a deal's first
        bid, the deal's start unseen). The snapshot shows all of it."""
        if returning:
            self._returning.add(player)
        await self.relay.watch_player(player)
        if resumed:
            self.relay.to_player(player, Replaced(node=self.node))

    def returned(self, player: str) -> None:
        """The hello that brought the player back is over (their snapshot sent, or their
        return left to ``recall``): all their rooms send them is passed on again."""
        self._returning.discard(player)

    def _from_snapshot(self, player: str, kinds: Sequence[str | None]) -> int:
        """For a message list to ``player`` of these kinds: the index from which it is
        passed on (its length: none of it), skipping what comes before a returning
        player's snapshot (see ``connected``)."""
        if player not in self._returning:
            return 0
        for at, kind in enumerate(kinds):
            if kind == "snapshot":
                self._returning.discard(player)
                return at
        return len(kinds)

    async def disconnected(self, player: str) -> None:
        """The player's last connection here ended."""
        await self.relay.unwatch_player(player)

    def replace(self, older: Connection) -> None:
        """Close a connection whose player connected again (here or elsewhere); it no
        longer speaks for them, so its closing marks nobody disconnected."""
        player = older.player_id
        if self.hub.remove(older) and player is not None:
            self._background(self.relay.unwatch_player(player))  # none of theirs left here
        older.player_id = None
        older.ws.close(CLOSE_REPLACED, "replaced by a newer connection")

    def recall(self, player: str, code: str) -> None:
        """Bring a player connected here back into room ``code`` wherever it runs (it has a
        new process, or their return could not reach it): they get a fresh snapshot and
        the others hear they are back. While the room cannot be reached (its process
        changing, the storage down) it is tried again, until the room answers, the player
        is no longer connected here or in that room, or the process goes down. One try at
        a time per player and room; asked again meanwhile, it goes once more after (the
        room may have moved since that try)."""
        key = (player, code)
        if key in self._recalls:
            self._recalls[key] = True
            return
        self._recalls[key] = False
        self._background(self._recall(player, code))

    def _wanted(self, player: str, code: str) -> bool:
        """Whether a player is still to be brought back into room ``code``."""
        return (
            not self.closing
            and self.sessions.room_of(player) == code
            and self.hub.connected(player)
        )

    def _let_go(self, player: str) -> bool:
        """Whether a player connected here is in no room now (their room let them go)."""
        return (
            not self.closing
            and self.sessions.room_of(player) is None
            and self.hub.connected(player)
        )

    async def _recall(self, player: str, code: str) -> None:
        key = (player, code)
        pause = RECALL_FIRST
        try:
            while self._wanted(player, code):
                self._recalls[key] = False
                try:
                    await self.directory.route(code, ops.Back(player))
                except Refusal as exc:
                    if exc.code not in RECALL_AGAIN:
                        log.info("room %s: %s not brought back: %s", code, player, exc)
                        if self._paused_here.get(player) == code:
                            del self._paused_here[player]  # (no room to go on)
                        if exc.code == ErrorCode.NO_ROOM:
                            await self.show_closed(player, code)
                        return
                except StoreError as exc:
                    if self.health is not None:  # (said in the log once, by the health)
                        self.health.failed(exc)
                else:
                    if not self._recalls[key]:
                        self._went_on(player, code)
                        return
                    continue
                if self.health is not None:
                    await self.health.up()
                await asyncio.sleep(pause)
                pause = min(pause * 2, RECALL_LONGEST)
        finally:
            del self._recalls[key]
            held = player in self._returning  # (what the room sent them was held back)
            self._returning.discard(player)  # (their snapshot came, or none will)
            if self._paused_here.get(player) == code and not self._wanted(player, code):
                del self._paused_here[player]
            if held and self._let_go(player):
                # their snapshot never came, and the room let them go meanwhile: its end
                # may be among what was held back
                self._background(self.show_closed(player, code, held=True))

    async def show_closed(self, player: str, code: str, held: bool = False) -> bool:
        """The player's room closed, and what it last sent them was lost on the way (their
        session here still names it), or held back while their snapshot was awaited
        (``held``: the notice that the room let them go came through, its end did not; or
        came before a request for the room, the person's first word since):
        they get the room as it closed (its result, when its match ended) and that it
        closed, and their session names it no more. Whether it was so (and shown)."""
        try:
            stored = await self.store.load_room(code)
        except StoreError:
            return False  # (their next hello finds the room over)
        if stored is None or not stored.closed:
            return False
        if not (self._let_go(player) if held else self._wanted(player, code)):
            return False
        room = room_from_stored(stored)
        if room.closed is None or not room.is_member(player):
            return False
        self.hub.deliver(
            [(player, message) for message in as_it_closed(room, player, self.clock())]
        )
        self._left(player, code)
        return True

    def _went_on(self, player: str, code: str) -> None:
        """The player's room answered their return: if this process told them it paused
        (and the storage answers), it tells them it goes on."""
        paused = self.health is not None and self.health.down
        if self._paused_here.get(player) == code and not paused:
            del self._paused_here[player]
            self.hub.deliver([(player, Resumed(code=code))])

    # --- what the rooms run here send (runner's Outlet and Presence) -----------------------

    def deliver(self, deliveries: Sequence[tuple[str, BaseModel]]) -> None:
        """Each message to its player: here through the hub, else through the relay (the
        frame encoded once, here)."""
        if self._returning:
            deliveries = self._after_snapshots(deliveries)
        elsewhere: dict[str, list[bytes]] = {}
        for player, frame in self.hub.deliver(deliveries):
            elsewhere.setdefault(player, []).append(frame)
        for player, frames in elsewhere.items():
            self.relay.to_player(player, PlayerFrames(frames=frames))

    def _after_snapshots(
        self, deliveries: Sequence[tuple[str, BaseModel]]
    ) -> list[tuple[str, BaseModel]]:
        """``deliveries`` but what comes before a returning player's snapshot."""
        kept: list[tuple[str, BaseModel]] = []
        for player, message in deliveries:
            if player in self._returning:
                if not isinstance(message, Snapshot):
                    continue
                self._returning.discard(player)
            kept.append((player, message))
        return kept

    def moved(self, code: str, entered: list[str], left: list[str]) -> None:
        """Who came into room ``code`` and who left it: the sessions part of the process
        each is connected to is told (here, or through the relay)."""
        for player in entered:
            if self.hub.connected(player):
                self.sessions.entered(player, code)
            else:
                self.relay.to_player(player, EnteredRoom(code=code))
        for player in left:
            if self.hub.connected(player):
                self._left(player, code)
            else:
                self.relay.to_player(player, LeftRoom(code=code))

    def _left(self, player: str, code: str) -> None:
        write = self.sessions.left(player, code)
        if write is not None:
            self._background(write)

    # --- what the directory tells (its Events) --------------------------------------------

    def adopted(self, runner: RoomRunner) -> None:
        """A room taken over here: its players connected here come back to it at once;
        those connected elsewhere are told to ask it for a fresh snapshot."""
        code = runner.code
        for player in runner.room.members():
            if self.hub.connected(player):
                self.recall(player, code)
            else:
                self.relay.to_player(player, Rejoin(code=code))

    def let_go(self, runner: RoomRunner) -> None:
        """A room run here until now runs elsewhere (or is free to be taken): its players
        connected here are brought to it; those connected elsewhere hear from the process
        that takes it (``Rejoin``)."""
        code = runner.code
        self.directory.leases.forget(code)
        for player in runner.room.members():
            if self.hub.connected(player) and self.sessions.room_of(player) == code:
                self.recall(player, code)

    async def closed(self, room: Room) -> None:
        if self._closed is not None:
            await self._closed(room)

    def storage_down(self, since: float) -> None:
        """The storage went down: each player here in a room run by another process is told
        that their match is paused (that process's own notice cannot come through Redis).
        The rooms run here tell their people themselves."""
        players = {conn.player_id for conn in self.hub.all if conn.player_id is not None}
        for player in sorted(players):
            code = self.sessions.room_of(player)
            if code is not None and code not in self.rooms:
                self.hub.deliver([(player, Paused(code=code, since=since))])
                self._paused_here[player] = code

    def storage_back(self, since: float, now: float) -> None:
        """The storage is back: each player told here that their match paused is brought
        back into their room (what it sent meanwhile may have been lost) and, once it
        answers, told here that it goes on. Its own process may never say so: it may not
        have seen the outage at all, and what it says may be lost on the way."""
        for player, code in list(self._paused_here.items()):
            self.recall(player, code)

    # --- what the relay brings (its Inbox) -------------------------------------------------

    def for_player(self, player: str, message: PlayerMessage) -> None:
        """Something for a player connected here, from a room run elsewhere."""
        if isinstance(message, PlayerFrames | PlayerFrame):
            frames = message.frames if isinstance(message, PlayerFrames) else [message.frame]
            if player in self._returning:
                frames = frames[self._from_snapshot(player, [frame_type(f) for f in frames]) :]
            if frames:
                self.hub.send_frames(player, frames)
        elif isinstance(message, EnteredRoom):
            self.sessions.entered(player, message.code)
        elif isinstance(message, LeftRoom):
            self._left(player, message.code)
        elif isinstance(message, Replaced):
            if message.node != self.node:
                for older in self.hub.connections(player):
                    self.replace(older)
        else:  # Rejoin: the room has a new process, whatever was remembered
            self.directory.leases.forget(message.code)
            self.recall(player, message.code)

    def forwarded(self, message: Forward) -> None:
        self._background(self.directory.serve(message))

    def adopt(self, message: Adopt) -> None:
        for code in message.codes:
            self.directory.leases.forget(code)  # its process is going: not the holder now
            self._background(self.directory.adopt_quietly(code))

    def resync(self) -> None:
        """The link to the other processes dropped: a frame for a player here may have been
        lost, so each player here in a room run elsewhere gets a fresh snapshot, and
        nothing from before it (see ``connected``)."""
        for conn in list(self.hub.all):
            player = conn.player_id
            room = None if player is None else self.sessions.room_of(player)
            if player is not None and room is not None and room not in self.rooms:
                self._returning.add(player)
                self.recall(player, room)
