"""A closed match goes into each of its players' records exactly once, even through a
crash (``Bookkeeping``).

The room's closing save is the one fact: the store marks the room's code pending before
that save (``RedisStore.save_room``), and the closed room and its journal hold all a record
needs. Settling a code reads them, works out each person's change (``MatchOutcome``, then
every ``Applier`` in turn), and applies it per player with the store's guard: one script
per player adds the match to their list and counters and its id to their applied set
together, or does nothing if the id is there (``PlayerStore.apply_match``). Only when
every player has it does the code leave the pending set. A process that dies anywhere in
between leaves the code pending, and whoever settles it next (the room's process right
after the save; any process at its start and every ``SETTLE_EVERY`` seconds:
``settle_pending``) applies what is missing, and nothing twice.

``Applier`` is the seam for what else a match changes per player: the statistics are one
(``StatsApplier``); a rating is another, given the whole outcome so it can weigh the
table, and its result (fields to set, ``PlayerUpdate.put``) is applied under the same
guard.

``RoomApplier`` is the seam for a change kept outside the player's record under its own
once-only guard (the rating and its ladder: ``Ladder.apply``): it runs on every settle of
the room, after the records and before the code leaves the pending set, so the same
crash-proof path applies it once per player.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from server.lobby.stores import PlayerStore, RecordStore
from server.players.outcome import MatchOutcome, stats_changes
from server.rooms.room import Room
from server.rooms.stored import room_from_stored
from server.store.errors import StoreError
from server.store.player_records import PlayerUpdate

log = logging.getLogger(__name__)

#: Matches a player's list keeps (the profile pages through them), the newest first.
MATCHES_KEPT = 500
#: Seconds between two looks at the pending matches (one the store failed to settle when
#: its room closed, or one left by a process that died while others run on).
SETTLE_EVERY = 60.0
#: Set (to anything but empty) in a test server's environment: the process kills itself
#: (SIGKILL) after a room's closing save, before its records, as a crash there would.
KILL_BEFORE_RECORDS = "DDZ_TEST_KILL_BEFORE_RECORDS"


@dataclass
class PlayerChange:
    """What appliers change for one player with one match: counters to raise
    (``add``), fields to set (``put``)."""

    add: dict[str, int] = field(default_factory=dict)
    put: dict[str, str] = field(default_factory=dict)


class Applier(Protocol):
    """One kind of change a match makes to its players' records."""

    async def changes(self, outcome: MatchOutcome) -> Mapping[str, PlayerChange]:
        """Player id to their change (a player left out: none of this kind)."""


class RoomApplier(Protocol):
    """A change a closed room makes beyond its players' records, applied once per player by
    its own guard (asking again changes nothing); raises ``StoreError`` when some of it is
    not applied, which keeps the room pending for the next settle."""

    async def apply(self, room: Room) -> None:
        """Apply what is not applied yet of a closed room's change."""


class StatsApplier:
    """The statistics of a profile: matches, deals by side, points, springs, bombs."""

    async def changes(self, outcome: MatchOutcome) -> Mapping[str, PlayerChange]:
        return {
            player: PlayerChange(add=stats_changes(outcome, seat))
            for seat, player in outcome.people.items()
        }


class BookkeepingStore(PlayerStore, RecordStore, Protocol):
    """What settling a match reads and writes."""


class Bookkeeping:
    """Settles closed matches into their players' records (see the module).
    ``forget_after``: seconds an applied match id is kept (past the room's lifetime, after
    which nobody can apply it again)."""

    def __init__(
        self,
        store: BookkeepingStore,
        clock: Callable[[], float],
        forget_after: float,
        appliers: Sequence[Applier] = (),
        room_appliers: Sequence[RoomApplier] = (),
    ) -> None:
        self.store = store
        self.clock = clock
        self.forget_after = forget_after
        self.appliers: list[Applier] = [StatsApplier(), *appliers]
        self.room_appliers: list[RoomApplier] = list(room_appliers)
        self.kill_before_records = bool(os.environ.get(KILL_BEFORE_RECORDS))

    async def updates(self, outcome: MatchOutcome) -> dict[str, PlayerUpdate]:
        """Each player's update, every applier's change merged."""
        merged = {player: PlayerChange() for player in outcome.people.values()}
        for applier in self.appliers:
            for player, change in (await applier.changes(outcome)).items():
                into = merged.get(player)
                if into is None:
                    continue  # not a person of this match
                for name, amount in change.add.items():
                    into.add[name] = into.add.get(name, 0) + amount
                into.put.update(change.put)
        return {
            player: PlayerUpdate(
                match=outcome.match_id,
                entry=outcome.entries[player],
                add=merged[player].add,
                put=merged[player].put,
                best=outcome.best_total(seat),
            )
            for seat, player in outcome.people.items()
        }

    async def apply(self, outcome: MatchOutcome) -> int:
        """Apply the match to each player's record not holding it yet; how many were."""
        now = self.clock()
        applied = 0
        for player, update in (await self.updates(outcome)).items():
            if await self.store.apply_match(
                player, update, now, MATCHES_KEPT, now - self.forget_after
            ):
                applied += 1
        return applied

    async def closed(self, room: Room) -> int:
        """A room run here just closed (saved): settle it."""
        if self.kill_before_records:
            os.kill(os.getpid(), signal.SIGKILL)
        return await self.settle_room(room)

    async def closed_here(self, room: Room) -> None:
        """``closed``, for the rooms' runtime: a room run here closed; its match goes into
        its people's records and a rated quick match's changes into their ratings (each
        applied once per player, however often asked); left pending for
        ``settle_pending`` when the store fails now."""
        try:
            await self.closed(room)
        except StoreError as exc:
            log.warning("room %s: its match is not in its records yet: %s", room.code, exc)

    async def settle_room(self, room: Room) -> int:
        """Settle a closed room (as stored): its records, then each ``RoomApplier``, then
        the code leaves the pending set (a failure anywhere before keeps it there)."""
        outcome = MatchOutcome.of(room, await self.store.read_log(room.code))
        applied = 0 if outcome is None else await self.apply(outcome)
        for room_applier in self.room_appliers:
            await room_applier.apply(room)
        await self.store.settled(room.code)
        return applied

    async def settle(self, code: str) -> int:
        """Settle a pending code from the store; a room not closed yet stays pending (its
        own close settles it), one gone or with no record leaves the set."""
        stored = await self.store.load_room(code)
        if stored is not None and not stored.closed:
            return 0
        room = None if stored is None else room_from_stored(stored)
        if room is None:
            await self.store.settled(code)
            return 0
        return await self.settle_room(room)

    async def settle_pending(self) -> int:
        """Settle every pending code (at a process's start: what a crash left); how many
        player records took a match."""
        applied = 0
        for code in await self.store.pending_matches():
            try:
                applied += await self.settle(code)
            except StoreError as exc:
                log.warning("room %s: its match is not in its records yet: %s", code, exc)
        if applied:
            log.info("%d player records took a match a crash had left pending", applied)
        return applied

    async def keep_settling(self, every: float = SETTLE_EVERY) -> None:
        """``settle_pending`` every ``every`` seconds, for good (cancel to stop)."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.settle_pending()
            except StoreError as exc:
                log.info("the pending matches could not be read: %s", exc)
