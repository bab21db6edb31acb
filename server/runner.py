"""The asyncio side of one room: apply a change, save it, then deliver what it caused; run
the clock and the bots. All game logic is in the sans-I/O ``Room``; this is wiring.

A change is applied under the room's lock, written to the store (state and journal, with a
compare-and-set on the version), and only then delivered: nobody hears of anything that
was not saved. If the write fails the room goes back to its last saved state and the
sender gets a retryable ``unavailable`` error; timers and bots try again shortly.

While the storage is down (``StoreHealth``) the room is paused: no change is applied
(each is refused as ``storage_unavailable``), its timers and bots wait, and everyone in it
is told (``Paused``); when the storage is back the clocks go on with the time they had
left when it went down (the deadlines move on by the pause), saved, and then everyone is
told (``Resumed`` and the clock's prompt).

After every change the runner looks at the room once: if the seat on turn is a bot's (or a
person's seat a bot took over) it schedules that bot; if the room is timed it sets a timer
for the stored absolute deadline. A timer that fires for a turn that has passed is refused
by the room and simply replaced. Likewise for a room nobody is connected to: a timer for
the moment it has been idle ``idle_timeout`` seconds (counted from the stored
``Room.idle_since``, so from before a restart), when the room ends as ``abandoned``; and for
a rematch waiting for its people, a timer for the end of its hold (``Room.hold_until``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from protocol.errors import ErrorCode, Refusal
from protocol.messages import Paused, Request, Resumed
from server.bots import decide
from server.bots.base import policy_for
from server.bots.pool import BotPool
from server.bots.simple import SimpleBot
from server.game.deal import RandomSource
from server.rooms.change import Actor, BotActor, Change, Delivery, RoomError
from server.rooms.room import Room
from server.rooms.steps import ClockStep, RequestStep, Step, step_record
from server.rooms.stored import room_from_stored, room_to_data
from server.settings import BOT_DELAYS
from server.store.base import RoomStore, RoomWrite, StoredRoom
from server.store.codec import pack, unpack
from server.store.errors import StoreConflict, StoreError, StoreFenced
from server.store.health import StoreHealth
from server.store.recent import RecentWrites

log = logging.getLogger(__name__)
#: Level of the bot that plays a person's seat after two timeouts or a departure.
TAKEOVER_LEVEL = "normal"
#: Refusals of a bot's request that only mean another change came first.
MOVED_ON = frozenset({ErrorCode.NOT_ALLOWED, ErrorCode.STALE, ErrorCode.NOT_YOUR_TURN})
#: Seconds before a timer or a bot tries again after the store refused a write.
RETRY_DELAY = 0.5
#: Steps saved as step records after a whole save, before the next whole save: the most a
#: load replays (``server/rooms/steps.py``).
TAIL_MAX = 16


class Outlet(Protocol):
    """Where a room's messages go: to the players' connections, wherever they are (a
    ``Hub`` alone reaches those connected to this process)."""

    def deliver(self, deliveries: Sequence[tuple[str, BaseModel]]) -> object:
        """Send each message to its player."""


class Presence(Protocol):
    """Told who entered and who left a room (the sessions part keeps where each player
    is)."""

    def moved(self, code: str, entered: list[str], left: list[str]) -> None: ...


@dataclass(slots=True)
class RunnerDeps:
    """What every runner of a process works with (the same for all its rooms)."""

    outlet: Outlet
    store: RoomStore
    rng: RandomSource
    #: Awaited once the room closed.
    on_closed: Callable[[Room], Coroutine[Any, Any, None]]
    clock: Callable[[], float] = time.time
    #: Told when another process took the room (a fenced write).
    on_lost: Callable[[Room], None] | None = None
    #: Seconds a room with no connected person lives (0: for ever).
    idle_timeout: float = 0.0
    #: Told of each change's newcomers and leavers.
    presence: Presence | None = None
    #: Where strong bots decide (None: inline, as every other level).
    bots: BotPool | None = None
    #: Told each bot decision's level and seconds (the metrics' histogram).
    bot_timer: Callable[[str, float], None] | None = None
    #: Whether the storage answers (None: not watched, a failed save is only refused).
    health: StoreHealth | None = None


def storage_down() -> RoomError:
    """The refusal of a change while the storage is down (the room is paused)."""
    return RoomError(
        ErrorCode.STORAGE_UNAVAILABLE, "the match is paused while the server saves it safely"
    )


class RoomRunner:
    """One room run here: ``room``, with ``deps``; ``saved``: the room is stored as it
    stands; ``fence``: this process's fencing token for it (its lease; 0 without)."""

    def __init__(self, room: Room, deps: RunnerDeps, saved: bool = False, fence: int = 0) -> None:
        self.room = room
        self.bots = deps.bots
        self.idle_timeout = deps.idle_timeout
        self.fence = fence
        self.on_lost = deps.on_lost
        self.bot_timer = deps.bot_timer
        self.outlet = deps.outlet
        self.presence = deps.presence
        self.store = deps.store
        self.rng = deps.rng
        self.clock = deps.clock
        self.on_closed = deps.on_closed
        self.health = deps.health
        self.lock = asyncio.Lock()
        #: When the room was paused for a storage outage; None while it runs.
        self.paused_since: float | None = None
        #: Whether ``room`` holds a change whose save is under way (or in doubt, the storage
        #: down): it may yet be undone, so what others are shown is the room as saved.
        self._unsaved = False
        self._saved_version = room.version if saved else -1
        self._saved_blob: bytes | None = pack(room_to_data(room)) if saved else None
        #: The step records saved since ``_saved_blob``, packed (a tenth of their size as
        #: objects): with it, the room as last saved. None until this runner saves the room
        #: whole (new, or loaded: the store may hold a tail it did not write).
        self._tail: list[bytes] | None = None
        #: The journal records of the last minute's writes: given back to a store that
        #: comes back with less (``write_back``).
        self._recent = RecentWrites()
        #: The rematch hold's timer.
        self._timer: asyncio.TimerHandle | None = None
        #: The match clock's timer, when it rings (wall clock), and when the clock runs out:
        #: the timer may ring before (see ``reschedule``).
        self._clock: asyncio.TimerHandle | None = None
        self._clock_rings_at = 0.0
        self._clock_due = 0.0
        self._bot: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopped = False
        #: Player id to the process they last came in through (see ``server.cluster.ops.apply_op``).
        self.via: dict[str, str] = {}

    @property
    def code(self) -> str:
        return self.room.code

    @property
    def stopped(self) -> bool:
        """Whether the room no longer runs here (let go, or the process closing)."""
        return self._stopped

    # --- changes ----------------------------------------------------------------------

    async def change(self, apply: Callable[[Room], Change | list[Delivery]]) -> list[Delivery]:
        """Apply ``apply`` to the room, save, deliver, reschedule. Raises RoomError or
        GameError when refused (nothing changed), RoomError(UNAVAILABLE) when not saved. A
        change that records nothing in the journal may give its deliveries alone."""
        self._check_running()  # (not waiting for the lock: a change in doubt may hold it)
        async with self.lock:
            self._check_running()
            before = self.room.members()
            change = apply(self.room)
            if isinstance(change, list):
                change = Change(change)
            return await self._made(before, change, self.clock())

    async def step(self, step: Step) -> list[Delivery]:
        """``change`` for a step (a request, a clock run out): saved as the step, not as
        the whole room, while the tail has room (``server/rooms/steps.py``)."""
        self._check_running()
        async with self.lock:
            self._check_running()
            before, now = self.room.members(), self.clock()
            return await self._made(before, step.apply(self.room, now, self.rng), now, step)

    def _check_running(self) -> None:
        """Refuse a change while the room is paused (nothing is applied)."""
        if self.paused_since is not None or (self.health is not None and self.health.down):
            raise storage_down()

    async def request(self, actor: Actor, request: Request) -> list[Delivery]:
        return await self.step(RequestStep(actor, request))

    async def _made(
        self, before: list[str], change: Change, now: float, step: Step | None = None
    ) -> list[Delivery]:
        """The room holds ``change`` (made at ``now``; ``before``: its members then): note
        who is connected (as every change does), save, tell who entered and left, deliver,
        reschedule."""
        self.room.note_presence(now)
        await self._save(change, None if step is None else (step, now))
        self._moved(before)
        self.outlet.deliver(change.deliveries)
        self.reschedule()
        return change.deliveries

    def _moved(self, before: list[str]) -> None:
        """Tell the presence who came in and who went out with the change just saved (a
        closed room has nobody in it)."""
        if self.presence is None:
            return
        room = self.room
        after = [] if room.closed is not None else room.members()
        if after != before:
            entered = [p for p in after if p not in before]
            left = [p for p in before if p not in after]
            if entered or left:
                self.presence.moved(room.code, entered, left)

    async def save_new(self) -> None:
        """Save a room not stored yet (with the journal records of a match started as it
        was built): the same write as every change's, built on no stored version. Raises
        the store's error as it is (``StoreConflict``: the code is another room's)."""
        async with self.lock:
            await self._write(Change(journal=self.room.take_journal()))

    async def compact(self) -> None:
        """Save the room whole if steps were saved since its last whole save, so that the
        process that takes it next replays none (a clean handover). A failure is only
        logged: the steps stay, and replay as after a crash."""
        async with self.lock:
            if not self._tail or self.room.closed is not None:
                return
            try:
                await self._write(Change())
            except StoreError as exc:
                log.info("room %s: not saved whole before the handover: %s", self.room.code, exc)

    async def _write(self, change: Change, step: tuple[Step, float] | None = None) -> None:
        """Write the room as it stands (``_prepare``) and take it as last saved."""
        write = self._prepare(change, step)
        await self.store.save_room(write)
        self._written(write)

    def _prepare(self, change: Change, step: tuple[Step, float] | None = None) -> RoomWrite:
        """The write of the room as it stands (state and journal) over the version last
        saved: ``step``, the step just applied (and when), alone while the tail has room,
        else the whole room. A closing room is always saved whole (its keys get their
        lifetime)."""
        room = self.room
        at = self.clock()
        room.saved(at)
        tail = self._tail
        record = None
        if step is not None and tail is not None and len(tail) < TAIL_MAX and not room.closed:
            record = pack(step_record(step[0], step[1], change, room.version, at))
        blob = None if record else pack(room_to_data(room))
        closed = room.closed is not None
        return RoomWrite(
            room.code,
            self._saved_version,
            room.version,
            blob,
            change.journal,
            closed,
            self.fence,
            room.worth_keeping,
            record,
        )

    def _written(self, write: RoomWrite) -> None:
        """``write`` is stored: the room as last saved is the room as it stands."""
        self._unsaved = False
        self._saved_version = write.version
        self._recent.add(write.expected, write.version, self.clock(), write.journal)
        if write.step is not None and self._tail is not None:
            self._tail.append(write.step)
        else:
            self._saved_blob, self._tail = write.state, []

    async def _save(self, change: Change, step: tuple[Step, float] | None = None) -> None:
        """Save the change just applied. When Redis cannot be reached the storage is down:
        the room pauses, and the change is in doubt (a write whose answer was lost may have
        been stored) until the storage is back. Then it is either found stored, and goes on
        to be sent as any saved change, or undone and refused (``storage_unavailable``)."""
        room = self.room
        began = self.clock()
        write = self._prepare(change, step)
        self._unsaved = True  # (until written, or undone)
        try:
            await self.store.save_room(write)
        except StoreError as exc:
            health = self.health
            if health is not None and not isinstance(exc, StoreConflict):
                health.failed(exc, began)  # (which pauses every room here, this one too)
                self.pause(began if health.down_since is None else health.down_since)
                if await self._found_stored(write, health):
                    self._written(write)
                    return
                self._revert()
                raise storage_down() from exc
            self._revert()
            if isinstance(exc, StoreFenced):
                log.warning("room %s: %s; another process runs it now", room.code, exc)
                self.stop()
                if self.on_lost is not None:
                    self.on_lost(room)
            elif isinstance(exc, StoreConflict):
                await self._conflict(exc)
            raise RoomError(
                ErrorCode.UNAVAILABLE, "the server cannot save right now: retry"
            ) from exc
        self._written(write)

    async def _found_stored(self, write: RoomWrite, health: StoreHealth) -> bool:
        """Once the storage is back, whether ``write`` (whose answer was lost) is stored:
        the room's state, or its last step record, is the write's. Waits for as many
        outages as it takes; False if the room stops running here meanwhile."""
        while True:
            await health.up()
            if self._stopped:
                return False
            try:
                stored = await self.store.load_room(write.code)
            except StoreError as exc:
                health.failed(exc)
                continue
            if stored is None:
                return False
            if write.state is not None:
                return bool(stored.state == unpack(write.state))
            tail = stored.tail
            return write.step is not None and bool(tail) and tail[-1] == unpack(write.step)

    # --- storage outages --------------------------------------------------------------

    def pause(self, since: float) -> None:
        """The storage went down at ``since``: stop the clock and the bots, and tell
        everyone in the room that the match is paused and safe (what they were shown was
        saved). Nothing else changes until ``resume``."""
        if self.paused_since is not None:
            self.paused_since = min(self.paused_since, since)
            return
        self.paused_since = since
        self._cancel()
        room = self.room
        if room.closed is None and not self._stopped:
            notice = Paused(code=room.code, since=since)
            self.outlet.deliver(room.to_everyone(notice))

    async def resume(self) -> None:
        """The storage is back: the room goes on, each running clock with the time it had
        left when the storage went down (the change saved before anyone hears of it). A
        save that fails again leaves it paused, as from the first time."""
        async with self.lock:
            since = self.paused_since
            if since is None or self._stopped:
                return
            try:  # (the store may have come back with less than it was given)
                current = await self.write_back()
            except StoreError as exc:
                if self.health is not None:
                    self.health.failed(exc)
                raise storage_down() from exc
            if not current:
                log.warning("room %s: written by another process during the outage", self.code)
                self.stop()
                if self.on_lost is not None:
                    self.on_lost(self.room)
                return
            now = self.clock()
            before = self.room.members()
            change = self.room.pause_over(now - since, now)
            change.deliveries[:0] = self.room.to_everyone(Resumed(code=self.room.code))
            self.paused_since = None
            try:
                await self._made(before, change, now)
            except RoomError:
                # still paused, the pause counting from its start: down again (the
                # storage's return resumes it), or the save refused (a conflict, settled by
                # now): tried again shortly, as nothing else would set its clock going
                self.paused_since = since
                if self.health is None or not self.health.down:
                    loop = asyncio.get_running_loop()
                    self._timer = loop.call_later(RETRY_DELAY, self._start, self._resume_again)
                raise

    async def _resume_again(self) -> None:
        with contextlib.suppress(Refusal):
            await self.resume()

    def stored(self, blob: bytes) -> None:
        """The room as it stands was saved whole by someone else (``blob``: as packed, with
        no journal record): the runner takes it as its last saved state."""
        self._saved_version, self._saved_blob = self.room.version, blob
        self._tail = []

    def as_saved(self) -> Room:
        """The room as it stands, but without a change whose save is under way or in doubt
        (which may yet be undone): what may be shown to anyone."""
        return self._last_saved() if self._unsaved else self.room

    def _last_saved(self) -> Room:
        """The room as last saved: the whole room, and the steps saved since."""
        if self._saved_blob is None:
            return self.room
        tail = [unpack(record) for record in self._tail or []]
        return room_from_stored(StoredRoom(unpack(self._saved_blob), tail))

    def _revert(self) -> None:
        """Back to the room as last saved."""
        self.room = self._last_saved()
        self._unsaved = False

    async def _conflict(self, exc: StoreConflict) -> None:
        """The store does not hold the version this runner last saved: it lost writes
        (they are written back) or another process wrote the room (it is loaded)."""
        try:
            if await self.write_back():
                return
        except StoreError:
            return
        log.warning("room %s: %s; reloading it", self.room.code, exc)
        await self._reload()

    async def write_back(self) -> bool:
        """Make the store hold the room as this runner last saved it: when the store came
        back with less (a Redis that lost its last writes, a replica promoted that had not
        had them), the whole room is written over the version it holds, with the journal
        records of every write it lost, fenced as every write is: the stored journal again
        holds every event anyone was sent. False when the store holds a later version than
        this runner saved (another process wrote it). Called under the lock, with nothing
        unsaved; raises ``StoreError`` when it could not."""
        stored = await self.store.load_room(self.room.code)
        held = -1 if stored is None else room_from_stored(stored).version
        if held == self._saved_version:
            return True
        if held > self._saved_version:
            return False
        room = self.room
        journal, whole = self._recent.since(held, self._saved_version)
        if not whole:
            # (versions written before this process ran the room, or too long ago)
            log.error(
                "room %s: the store lost writes whose journal records are not kept here;"
                " its journal misses them",
                room.code,
            )
        # (as last saved, at the time it was: a room taken over whose takeover is not
        # saved keeps its clock's time left from before, not from now)
        blob = pack(room_to_data(room))
        closed = room.closed is not None
        write = RoomWrite(
            room.code, held, room.version, blob, journal, closed, self.fence, room.worth_keeping
        )
        await self.store.save_room(write)
        if room.public and not closed:  # its listing may have been lost with it
            await self.store.add_watchable(room.code, self.clock())
        log.warning(
            "room %s: the store had lost versions %d to %d; written back",
            room.code,
            held + 1,
            room.version,
        )
        self._saved_version, self._saved_blob, self._tail = room.version, blob, []
        return True

    async def _reload(self) -> None:
        try:
            stored = await self.store.load_room(self.room.code)
        except StoreError:
            return
        if stored is not None:
            self.room = room_from_stored(stored)
            self._saved_version = self.room.version
            self._saved_blob = pack(room_to_data(self.room))
            self._tail = None  # the store's tail is not ours: save whole next

    # --- clock and bots ---------------------------------------------------------------

    def reschedule(self, delay: float | None = None) -> None:
        """Set the bot and the clock for the room as it now stands (after ``delay`` seconds
        at the earliest, when retrying).

        The clock's timer is kept when it rings no later than the new deadline: it then
        sets itself again for the rest (``_clock_rings``). Nearly every action moves the
        deadline on, and a timer made and cancelled each time lived for seconds, long
        enough to weigh on every young garbage collection (``server/edge/gc_pacing.py``)."""
        if self._stopped or self.paused_since is not None:
            self._cancel()
            return
        self._cancel(keep_clock=True)
        room = self.room
        if room.closed is not None:
            self._stop_clock()
            self._spawn(self.on_closed(room))
            return
        loop = asyncio.get_running_loop()
        idle_end = room.idle_deadline(self.idle_timeout)
        if idle_end is not None:
            wait = max(idle_end - self.clock(), delay or 0.0, 0.0)
            self._idle = loop.call_later(wait, self._start, self._idle_over)
        match = room.match
        if match is None:
            self._stop_clock()
            if room.hold_until is not None:
                wait = max(room.hold_until - self.clock(), delay or 0.0, 0.0)
                self._timer = loop.call_later(wait, self._start, self._hold_over)
            return
        turn = match.turn
        if turn is not None and room.bot_acts_for(turn):
            self._stop_clock()
            seat = room.seats[turn]
            wait = BOT_DELAYS[room.bot_speed] if seat.kind == "bot" else 0.0
            self._bot = loop.call_later(max(wait, delay or 0.0), self._start, self._bot_acts, turn)
            return
        if match.deadline is None:
            self._stop_clock()
            return
        now = self.clock()
        self._clock_due = due = max(match.deadline, now + (delay or 0.0))
        if self._clock is None or self._clock_rings_at > due:
            self._stop_clock()
            self._clock = loop.call_later(max(due - now, 0.0), self._clock_rings)
            self._clock_rings_at = due

    def _clock_rings(self) -> None:
        """The clock's timer: the clock runs out now, unless its deadline moved on since
        the timer was set (then it is set again for the rest)."""
        self._clock = None
        left = self._clock_due - self.clock()
        if left > 0:
            self._clock = asyncio.get_running_loop().call_later(left, self._clock_rings)
            self._clock_rings_at = self._clock_due
            return
        self._start(self._clock_ran_out)

    def _stop_clock(self) -> None:
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None

    def _cancel(self, keep_clock: bool = False) -> None:
        for handle in (self._timer, self._bot, self._idle):
            if handle is not None:
                handle.cancel()
        self._timer = self._bot = self._idle = None
        if not keep_clock:
            self._stop_clock()

    def stop(self) -> None:
        """Stop the clock and the bots for good (the room closed or the process is going
        down): changes still made, such as players disconnecting, set no new timer."""
        self._stopped = True
        self._cancel()
        # Not the task stopping it: the room's closing task stops its runner, then writes
        # the match into its people's histories (cancelled, that write was lost whenever it
        # had to wait for a connection to Redis).
        try:
            current = asyncio.current_task()
        except RuntimeError:  # no loop running
            current = None
        for task in list(self._tasks):
            if task is not current:
                task.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _start(self, job: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        self._spawn(job(*args))

    async def _clock_ran_out(self) -> None:
        try:
            await self.step(ClockStep())
        except Refusal as exc:
            log.debug("room %s: timer refused (%s)", self.code, exc)
            self._retry(exc)

    async def _hold_over(self) -> None:
        try:
            await self.change(lambda room: room.hold_over(self.clock(), self.rng))
        except Refusal as exc:
            log.debug("room %s: hold timer refused (%s)", self.code, exc)
            self._retry(exc)

    async def _idle_over(self) -> None:
        try:
            await self.change(lambda room: room.end_idle(self.clock(), self.idle_timeout))
        except Refusal as exc:
            log.debug("room %s: idle timer refused (%s)", self.code, exc)
            self._retry(exc)

    def _retry(self, exc: Refusal) -> None:
        """Set the timers again after a refused timer or bot (nothing is set while paused:
        the resume sets them)."""
        self.reschedule(RETRY_DELAY if exc.code == ErrorCode.UNAVAILABLE else None)

    async def _bot_acts(self, seat: int) -> None:
        room = self.room
        match = room.match
        if match is None or room.closed is not None:
            return
        level = room.seats[seat].level or TAKEOVER_LEVEL
        view = match.view_for(seat, self.clock())
        # A strong bot searches in the process pool; the loop serves other rooms meanwhile.
        started = time.perf_counter()
        if self.bots is not None:
            request = await self.bots.choose(level, view)
        else:
            request = decide(policy_for(level), view)
        if self.bot_timer is not None:
            self.bot_timer(level, time.perf_counter() - started)
        current = self.room.match
        if self._stopped or current is None or current.version != view.version:
            return  # the table moved on while the bot thought; the change rescheduled it
        if request is None or await self._bot_sends(seat, request):
            return
        fallback = decide(SimpleBot(), view)  # the policy's request was refused
        if fallback is None or not await self._bot_sends(seat, fallback):
            self.reschedule()  # both refused: let the clock or the next bot turn take over

    async def _bot_sends(self, seat: int, request: Request) -> bool:
        """Send a bot's request; False when the room refused it (another may be tried)."""
        try:
            await self.request(BotActor(seat), request)
        except Refusal as exc:
            if exc.code in (ErrorCode.UNAVAILABLE, ErrorCode.STORAGE_UNAVAILABLE):
                self._retry(exc)
                return True
            if exc.code in MOVED_ON:  # a change got in first (a resume, a timeout)
                log.debug("room %s: the table moved past seat %d's bot: %s", self.code, seat, exc)
                self.reschedule()
                return True
            log.exception("room %s: the bot in seat %d was refused %r", self.code, seat, request)
            return False
        return True
