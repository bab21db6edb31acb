"""The rooms of one process, and the route to any room wherever it runs.

Each room is run by the one process that holds its lease in Redis (with a fencing token).
``RoomDirectory`` keeps this process's runners and their leases: it renews them a third of
the lease TTL apart, lets a room go whose lease was lost, takes over rooms whose process
died (their lease ran out), and on shutdown gives its leases up and tells the others to
take those rooms at once.

While the storage is down (``StoreHealth``) every room here is paused; when it is back
this process takes its leases again (those another process took meanwhile are left to
it: the fencing token stops this one from writing them) and every room goes on.

``route(code, RoomOp)`` takes a player's change to a room wherever it runs: here, to the
process holding its lease (a ``Forward`` through the relay, the ``Answer`` or typed refusal
coming back), or here after taking it over when nobody holds it. The same ``apply_op``
(``server/cluster/ops.py``) runs in every case, so a room behaves alike for players on any
process. What the rooms here tell the rest of the process (a room taken over, a room
closed) goes to the ``Events`` given at construction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

from protocol.errors import ErrorCode, Refusal, quoted
from server.bots.pool import BotPool
from server.cluster.leases import Leases
from server.cluster.messages import Adopt, Answer, Forward
from server.cluster.ops import RoomOp, apply_op, from_data, to_data
from server.cluster.relay import Relay, RelayTimeout
from server.game.deal import RandomSource
from server.metrics import Metrics
from server.rooms.change import Delivery, RoomError
from server.rooms.room import Room
from server.rooms.stored import room_from_stored, room_to_data
from server.runner import Outlet, Presence, RoomRunner, RunnerDeps
from server.settings import Settings
from server.store.base import Lease, RoomStore, RoomWrite
from server.store.codec import pack, unpack
from server.store.errors import StoreConflict, StoreError, StoreFenced, StoreUnavailable
from server.store.health import StoreHealth

log = logging.getLogger(__name__)

#: Tries at reaching a room that is changing process (its owner let it go meanwhile).
ROUTE_TRIES = 4
#: Seconds before asking again for a room whose process has just let it go.
MOVED_DELAY = 0.05
#: Rooms taken over per batch: one round trip for their leases, one for their states.
ADOPT_BATCH = 256
#: Seconds a handover waits for changes under way, then for the relay's outbox.
HAND_OVER_WAIT = 1.0
#: Seconds between a process's signs of life (``heartbeat``), and after how many without
#: one a process counts as dead when its rooms are taken over.
ALIVE_EVERY = 1.0
ALIVE_STALE = 3.0


async def _settled(runners: list[RoomRunner]) -> None:
    """Until no change is under way in these rooms (each change holds its room's lock)."""
    for runner in runners:
        async with runner.lock:
            pass


class Events(Protocol):
    """What the directory tells the rest of its process."""

    def adopted(self, runner: RoomRunner) -> None:
        """A room was taken over here (its players are to be called back)."""

    def let_go(self, runner: RoomRunner) -> None:
        """A room run here until now runs here no more, though it goes on (another process
        holds its lease): its players connected here are to be brought to it."""

    async def closed(self, room: Room) -> None:
        """A room run here closed."""


class RoomDirectory:
    """This process's rooms (``rooms``: code to runner) and the route to every other."""

    def __init__(
        self,
        node: str,
        settings: Settings,
        store: RoomStore,
        outlet: Outlet,
        presence: Presence,
        relay: Relay,
        events: Events,
        metrics: Metrics,
        rng: RandomSource,
        clock: Callable[[], float] = time.time,
        bots: BotPool | None = None,
        health: StoreHealth | None = None,
    ) -> None:
        #: This process's name in room leases (see ``App.node``).
        self.node = node
        self.settings = settings
        self.store = store
        self.leases = Leases(store, node, settings.lease_ttl)
        self.outlet = outlet
        self.presence = presence
        self.relay = relay
        self.events = events
        self.metrics = metrics
        self.rng = rng
        self.clock = clock
        self.bots = bots
        self.health = health
        self.rooms: dict[str, RoomRunner] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Set once the process is going down: it takes no room over and forwards nothing.
        self.closing = False
        #: Set while the process takes its stored rooms back at start (``Cluster.recover``):
        #: the lease keeper renews the leases of those back so far, and leaves the others
        #: to the recovery rather than look for orphans among them.
        self.recovering = False
        #: When the storage last came back after an outage (``clock``), if it did.
        self._back_at: float | None = None
        #: This node's last sign of life before this process started (its previous life's,
        #: killed or crashed), read once at start (``note_start``); None: none kept.
        self.previous_life: float | None = None
        #: When dead processes died, as their last signs of life said at the last takeover.
        self._deaths: list[float] = []
        #: What every runner here works with.
        self.runner_deps = RunnerDeps(
            outlet=outlet,
            store=store,
            rng=rng,
            on_closed=self._closed,
            clock=clock,
            on_lost=self.lost,
            idle_timeout=settings.idle_room_timeout,
            presence=presence,
            bots=bots,
            bot_timer=lambda level, seconds: metrics.bot_seconds.labels(level).observe(seconds),
            health=health,
        )
        if health is not None:
            health.watch(self.pause_all, self.resume_all)

    # --- running rooms ----------------------------------------------------------------

    def run(self, room: Room, saved: bool, fence: int) -> RoomRunner:
        """Run ``room`` here (with the fencing token of this process's lease). While the
        storage is down it is paused with every room here, and goes on with them: a room
        taken over then, whose takeover could not be saved, would otherwise be left
        without its clock and bots, the return of the storage resuming only paused rooms."""
        runner = RoomRunner(room, self.runner_deps, saved, fence)
        self.rooms[room.code] = runner
        health = self.health
        if health is not None and health.down_since is not None:
            runner.pause(health.down_since)
        return runner

    async def _closed(self, room: Room) -> None:
        """A room here closed (and its end is saved): it stops here, and its lease is given
        up at once, so that a request forwarded to it from another process finds nobody
        running it and is answered with the room as it closed, not "moved" until the lease
        ran out."""
        runner = self._drop(room)
        if runner is not None:
            with contextlib.suppress(StoreError):  # (then it runs out by itself)
                await self.leases.release({room.code: self._lease(runner)})
        await self.events.closed(room)

    def _lease(self, runner: RoomRunner) -> Lease:
        return Lease(self.node, runner.fence)

    async def open(self, room: Room) -> RoomRunner | None:
        """Run a new room here: take its code's lease, save it (as every change is saved,
        built on no stored version) and run it; None when the code is taken (another
        process's room, or a finished room's record). Its clock and bots are not set going
        yet (``RoomRunner.reschedule``)."""
        lease = await self.leases.acquire_one(room.code)
        if lease is None:
            return None  # the code is another process's room
        if await self.store.load_room(room.code) is not None:
            await self.leases.release({room.code: lease})
            return None  # the code of a finished room, kept for its record
        runner = RoomRunner(room, self.runner_deps, saved=False, fence=lease.fence)
        try:
            await runner.save_new()
        except StoreConflict:
            return None
        self.rooms[room.code] = runner
        return runner

    def lost(self, room: Room) -> None:
        """Stop running the room here: another process holds it now (this one's lease ran
        out, or was taken during a storage outage) or may take it. Its players connected
        here are brought to wherever it runs next (``Events.let_go``)."""
        runner = self._drop(room)
        if runner is not None:
            self.events.let_go(runner)

    def _drop(self, room: Room) -> RoomRunner | None:
        """Stop running the room here; its runner, if it ran here."""
        runner = self.rooms.pop(room.code, None)
        if runner is not None:
            runner.stop()
        return runner

    def states(self) -> list[str]:
        """Each room's state, for the metrics."""
        return [
            "waiting" if r.room.match is None else r.room.match.phase for r in self.rooms.values()
        ]

    # --- storage outages --------------------------------------------------------------

    def pause_all(self, since: float) -> None:
        """The storage went down at ``since``: every room here pauses."""
        for runner in list(self.rooms.values()):
            runner.pause(since)

    def resume_all(self, since: float, now: float) -> None:
        """The storage is back: take the leases again, then let every room go on."""
        self._back_at = self.clock()
        task = asyncio.ensure_future(self._resume_rooms())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resume_rooms(self) -> None:
        """Every paused room here goes on, once this process holds its lease again (it may
        have run out while the storage was down): a room another process took meanwhile
        is let go (its lease, and its fencing token, are that process's now). A failure
        leaves the rooms paused, the storage being down again."""
        runners = [r for r in self.rooms.values() if r.paused_since is not None]
        if not runners or self.closing:
            return
        try:
            leases = await self.leases.acquire([r.code for r in runners])
        except StoreError as exc:
            if self.health is None or not self.health.failed(exc):
                log.warning("could not take the leases of the paused rooms back: %s", exc)
            return
        for runner, lease in zip(runners, leases, strict=True):
            if self.rooms.get(runner.code) is not runner:
                continue  # let go or closed meanwhile
            if lease is None:
                log.warning("room %s: taken by another process during the outage", runner.code)
                self.lost(runner.room)
                continue
            runner.fence = max(runner.fence, lease.fence)
        await asyncio.gather(*(self._resume(r) for r in runners if self.rooms.get(r.code) is r))

    @staticmethod
    async def _resume(runner: RoomRunner) -> None:
        with contextlib.suppress(Refusal):  # (down again: it stays paused)
            await runner.resume()

    # --- leases and takeover ----------------------------------------------------------

    async def adopt(self, code: str) -> None:
        """Run a stored room that no live process runs (its lease is free, or this node's
        from before a restart); its people are disconnected until they come back."""
        await self.adopt_many([code])

    # --- when a dead process died ----------------------------------------------------

    async def note_start(self) -> None:
        """Read this node's last sign of life from before this process (its previous
        life's), before the heartbeat overwrites it."""
        self.previous_life = (await self.store.alive_stamps()).get(self.node)

    async def heartbeat(self) -> None:
        """Note this process alive every ``ALIVE_EVERY`` seconds (wall time): a process
        taking its rooms over after it dies reads when it did (``_died_at``)."""
        while True:
            if self.health is None or not self.health.down:
                try:
                    await self.store.note_alive(self.node, self.clock())
                except StoreError as exc:
                    if self.health is None or not self.health.failed(exc):
                        log.info("could not note this process alive: %s", exc)
            await asyncio.sleep(ALIVE_EVERY)

    async def _read_deaths(self) -> None:
        """When the dead processes died: every node's last sign of life older than
        ``ALIVE_STALE`` seconds, and this node's previous life's."""
        try:
            stamps = await self.store.alive_stamps()
        except StoreError:
            stamps = {}
        now = self.clock()
        deaths = {t for node, t in stamps.items() if node != self.node and t < now - ALIVE_STALE}
        if self.previous_life is not None:
            deaths.add(self.previous_life)
        self._deaths = sorted(deaths)

    def _died_at(self, saved_at: float | None) -> float | None:
        """When the process that last saved a room (at ``saved_at``) died, as near as the
        signs of life tell: the first death at or after that save (it was alive then); at
        most ``ALIVE_EVERY`` early, so a clock is given no less than it had. None: no
        death after the save is known (the room was handed over whole, or saved since)."""
        if saved_at is None:
            return None
        return next((t for t in self._deaths if t >= saved_at), None)

    async def adopt_many(self, codes: list[str]) -> int:
        """``adopt`` for many rooms: their leases in one round trip, their states in one
        more, and their takeover change saved in a third. Returns how many were taken
        over here."""
        codes = [code for code in dict.fromkeys(codes) if code not in self.rooms]
        if not codes or self.closing:
            return 0
        leases = await self.leases.acquire(codes)
        # None: another process runs it; already here: adopted meanwhile by another asker
        ours = {c: x for c, x in zip(codes, leases, strict=True) if x and c not in self.rooms}
        if not ours:
            return 0
        states = await self.store.load_rooms(list(ours))
        await self._read_deaths()
        adopted: list[RoomRunner] = []
        over: dict[str, Lease] = {}
        for (code, lease), stored in zip(ours.items(), states, strict=True):
            if code in self.rooms or self.closing:
                continue  # adopted meanwhile (the lease was this node's), or going down
            if stored is None or stored.closed:
                over[code] = lease
                continue
            adopted.append(self.run(room_from_stored(stored), saved=True, fence=lease.fence))
            self.metrics.room_takeovers.inc()
        await self._taken_over(adopted)  # first: it locks them before any await
        for code in over:
            await self.store.forget_active(code)
        await self.leases.release(over)
        return len(adopted)

    async def _taken_over(self, runners: list[RoomRunner]) -> None:
        """The takeover's change to rooms just run here, saved in one round trip: nobody
        is connected yet, and each clock gets back the time it had left when last saved,
        held until its seat's person is back or ``resume_grace`` has passed (whichever
        comes first), so time down does not count against a seat. What this would tell
        the players is not sent: each gets a snapshot on coming back (``Events.adopted``
        calls them back), which shows the new deadline. Then the rooms' clocks and bots
        are set going.

        Each room's lock is held from before anyone here can reach it (a player coming
        back) until it is saved; a room the batch could not save (moved on, fenced, Redis
        away) is saved through its runner (``_take_over_alone``)."""
        now = self.clock()
        writes: list[RoomWrite] = []
        for runner in runners:
            await runner.lock.acquire()  # free (the runner is new): no wait, no yield
            room = runner.room
            before = room.version
            self._take_over_change(room, now)
            room.saved(now)
            state = pack(room_to_data(room))
            writes.append(RoomWrite(room.code, before, room.version, state, fence=runner.fence))
        failed: list[RoomRunner] = []
        try:
            try:
                results: list[StoreError | None] = await self.store.save_rooms(writes)
            except StoreError as exc:
                results = [exc] * len(runners)
            doubted = [w for w, error in zip(writes, results, strict=True) if error is not None]
            stored = await self._stored_anyway(doubted)
            for runner, write, error in zip(runners, writes, results, strict=True):
                if (error is None or write.code in stored) and write.state is not None:
                    runner.stored(write.state)  # (before the lock lets a change in)
                    runner.reschedule()
                else:
                    failed.append(runner)
        finally:
            for runner in runners:
                runner.lock.release()
        for runner in failed:
            await self._take_over_alone(runner)
        for runner in runners:
            self.events.adopted(runner)

    def _take_over_change(self, room: Room, now: float) -> None:
        """What taking a room over changes (no journal record, nothing sent): nobody is
        connected yet, idle from ``now`` unless already, and each clock given back the time
        it had left when its process died (as its last sign of life says; else when the
        room was last saved)."""
        room.all_disconnected()
        down = self._died_at(room.saved_at)
        room.resume_clocks(now, grace=self.settings.resume_grace, down_since=down)
        room.note_presence(now)

    async def _take_over_alone(self, runner: RoomRunner) -> None:
        """Save the takeover of a room the batch could not save, through its runner: a
        conflict reloads the room (or writes back one the store lost writes of), and the
        change is made again over that. Whatever comes of it, the clock and the bots are set
        going for the room as it then stands (a paused room waits for the storage; one let
        go has neither)."""

        def take_over(room: Room) -> list[Delivery]:
            self._take_over_change(room, self.clock())
            return []

        for _ in range(2):  # (once more after a conflict, over the room as settled)
            try:
                await runner.change(take_over)
                break
            except Refusal:
                if runner.paused_since is not None or runner.stopped:
                    break
        runner.reschedule()

    async def _stored_anyway(self, writes: list[RoomWrite]) -> set[str]:
        """The codes of the takeover ``writes`` not answered as saved that the store holds
        all the same (an answer too late, a resent copy refused as a conflict): those rooms
        are saved, and a change waiting for them (a return) is made over what is stored."""
        if not writes:
            return set()
        try:
            held = await self.store.load_rooms([w.code for w in writes])
        except StoreError:
            return set()  # (left to the runner, which waits for the storage)
        return {
            w.code
            for w, room in zip(writes, held, strict=True)
            if room is not None and w.state is not None and room.state == unpack(w.state)
        }

    async def adopt_quietly(self, code: str) -> None:
        try:
            await self.adopt(code)
        except StoreError as exc:
            log.info("room %s: not taken over: %s", code, exc)

    async def adopt_orphans(self) -> None:
        """Take over the rooms whose process died (their lease ran out)."""
        others = [code for code in await self.store.active_rooms() if code not in self.rooms]
        await self.adopt_batches(await self.store.free_rooms(others))

    async def adopt_batches(self, codes: list[str]) -> None:
        """``adopt_many``, ``ADOPT_BATCH`` rooms at a time."""
        for start in range(0, len(codes), ADOPT_BATCH):
            await self.adopt_many(codes[start : start + ADOPT_BATCH])

    async def keep_leases(self) -> None:
        """Renew the lease of every room this process runs, a third of the TTL apart (a
        room whose lease is gone, this process having stalled past it, is let go), and
        take over the rooms nobody runs."""
        while True:
            await asyncio.sleep(self.leases.ttl / 3)
            if self.health is not None and self.health.down:
                continue  # (the rooms are paused; their leases are taken again after)
            leases = {c: self._lease(r) for c, r in self.rooms.items() if r.paused_since is None}
            began = self.clock()
            try:
                lost = await self.leases.renew(leases)
            except StoreError as exc:
                if self.health is None or not self.health.failed(exc, began):
                    log.warning("could not renew room leases: %s", exc)
                continue
            gone = [runner for code in lost if (runner := self.rooms.get(code)) is not None]
            await asyncio.gather(*(self._lease_lost(runner) for runner in gone))
            if self.recovering or self.just_back():
                continue
            try:
                await self.adopt_orphans()
            except StoreError as exc:
                if self.health is None or not self.health.failed(exc):
                    log.warning("could not look for rooms to take over: %s", exc)

    async def _lease_lost(self, runner: RoomRunner) -> None:
        """The room's lease was gone at its renewal: this process stalled past it and
        another may have taken the room over, or the store lost it with the room's last
        writes (a replica promoted that had missed them) and no call failed meanwhile to
        say so. When nobody holds it, it is taken again and the room written back, as after
        an outage (``RoomRunner.write_back``); let go otherwise, or when the store holds a
        later version of the room than this process saved."""
        code = runner.code
        try:
            lease = await self.leases.acquire_one(code)
            if lease is not None:
                async with runner.lock:
                    if self.rooms.get(code) is not runner:
                        return  # let go or closed meanwhile
                    runner.fence = lease.fence  # (the store's: it may have lost a later one)
                    try:
                        if await runner.write_back():
                            return
                    except StoreConflict as exc:
                        if isinstance(exc, StoreFenced):
                            raise
                        # Changed between the write-back's read and its write: a moment
                        # after a failover, reads may reach the new primary and writes the
                        # old one. The room's next save finds the store behind and writes
                        # it back then (``RoomRunner._conflict``).
                        return
                await self.leases.release({code: lease})
        except StoreUnavailable as exc:
            if self.health is not None and self.health.failed(exc):
                return  # paused: its lease is taken again as it resumes
            log.warning("room %s: could not take its lost lease again: %s", code, exc)
        except StoreError:
            pass  # fenced: another process holds a later lease
        log.warning("room %s: lease lost; another process may run it", code)
        self.lost(runner.room)

    def just_back(self) -> bool:
        """Whether the storage came back less than a lease TTL ago. Rooms whose lease ran
        out during the outage are then left to their own processes, which take them back
        as soon as they see the storage answer: taken over elsewhere, a room would move its
        people for nothing, and go on from what the storage kept when it lost writes its
        own process still holds."""
        back = self._back_at
        return back is not None and self.clock() - back < self.leases.ttl

    async def hand_over(self) -> None:
        """The process is going down: stop every room's clock and bots, save whole the rooms
        with steps in their tail (the next process then loads without replaying), give their
        leases up and tell the other processes to take them at once.

        Changes already under way finish first, and what they sent other processes is
        published, before a lease is given up: a room's next process must not send a
        player its next event before this one's last."""
        self.closing = True
        runners = list(self.rooms.values())
        for runner in runners:
            runner.stop()
        leases = {code: self._lease(r) for code, r in self.rooms.items()}
        self.rooms.clear()
        if not leases:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_settled(runners), HAND_OVER_WAIT)
        with contextlib.suppress(TimeoutError):  # (one batch of saves: group commit)
            await asyncio.wait_for(asyncio.gather(*(r.compact() for r in runners)), HAND_OVER_WAIT)
        await self.relay.flush(HAND_OVER_WAIT)
        try:
            await self.leases.release(leases)
        except StoreError as exc:
            log.warning("could not release room leases: %s", exc)
        self.relay.to_everyone(Adopt(codes=sorted(leases)))

    # --- reaching a room --------------------------------------------------------------

    async def route(self, code: str, op: RoomOp) -> None:
        """Apply ``op`` to room ``code`` wherever it runs: here, at the process holding its
        lease (forwarded), or here after taking it over when nobody holds it."""
        for _ in range(ROUTE_TRIES):
            runner = self.rooms.get(code)
            if runner is not None:
                await apply_op(runner, op, self.node, self.clock, self.settings.max_watchers)
                return
            if self.closing:
                break
            node = await self.leases.holder_node(code)
            if node is None or node == self.node:
                await self.adopt(code)
                if code not in self.rooms and await self.peek(code) is None:
                    raise RoomError(ErrorCode.NO_ROOM, f"no room with code {quoted(code)}")
                continue
            if not self.relay.listening:  # (its answer could not be heard: none is sent)
                raise RoomError(
                    ErrorCode.UNAVAILABLE, "this server is reconnecting to the others: retry"
                )
            self.metrics.forwarded.inc()
            forward = Forward(
                call=self.relay.next_call(),
                reply_to=self.node,
                code=code,
                op=to_data(op, self.node),
            )
            try:
                answer = await self.relay.call(node, forward)
            except RelayTimeout as exc:
                self.leases.forget_node(node)
                raise RoomError(
                    ErrorCode.UNAVAILABLE, "the room's server does not answer: retry"
                ) from exc
            if answer.outcome == "moved":
                self.leases.forget(code)
                await asyncio.sleep(MOVED_DELAY)
                continue
            if answer.outcome == "refused":
                if answer.error == ErrorCode.NO_ROOM:
                    self.leases.forget(code)  # over, or never there: nothing to remember
                raise RoomError(answer.error or ErrorCode.UNAVAILABLE, answer.message)
            return
        raise RoomError(ErrorCode.UNAVAILABLE, "the room is changing servers: retry")

    async def serve(self, forward: Forward) -> None:
        """Apply a change another process forwarded, and answer it (``moved`` when the
        room no longer runs here)."""
        runner = None if self.closing else self.rooms.get(forward.code)
        if runner is None:
            self.relay.answer(forward, Answer(call=forward.call, outcome="moved"))
            return
        try:
            op = from_data(forward.op, self.settings.max_frame)
            await apply_op(runner, op, forward.op.node, self.clock, self.settings.max_watchers)
        except Refusal as exc:
            answer = Answer(
                call=forward.call, outcome="refused", error=exc.code, message=exc.message
            )
            self.relay.answer(forward, answer)
        else:
            self.relay.answer(forward, Answer(call=forward.call, outcome="done"))

    async def peek(self, code: str, over: bool = False) -> Room | None:
        """The room as it stands (here: without a change still being saved) or as stored
        (run elsewhere); None when it is unknown, or over (unless ``over``: then as it
        closed, while the store keeps it)."""
        runner = self.rooms.get(code)
        if runner is not None:
            return runner.as_saved()  # (not a change still being saved: it may be undone)
        stored = await self.store.load_room(code)
        if stored is None or (stored.closed and not over):
            return None
        return room_from_stored(stored)

    async def has_member(self, code: str, player: str) -> bool:
        """Whether the room (as stored, when it runs elsewhere) has the player in it."""
        try:
            room = await self.peek(code)
        except StoreError:
            return False
        return room is not None and room.is_member(player)
