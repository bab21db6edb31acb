"""The lobby's caps per client address: what one address may open (sessions, rooms,
strong-bot seats) and how often it may join by a code that names no room.

Counted in the store (``AddressCounts``: ``AddressStore`` in Redis), so they hold however
many server processes share it.
A refusal creates nothing and says which limit was reached and when to try again:
``LIMIT_REACHED`` for a cap, ``RATE_LIMITED`` for the wait after too many failed joins,
``BUSY`` when the strong bots' pool is full. Each refusal counts in
``ddz_limit_refusals{limit}``. A setting of 0 switches its cap off.

Per session, "one person, one place" (``Lobby.require_free``) already caps what a session
holds at one room or one queue entry.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from prometheus_client import Counter

from protocol.errors import ErrorCode
from server.bots.pool import BotPool
from server.lobby.stores import AddressCounts
from server.metrics import Metrics
from server.rooms.room import RoomError
from server.settings import Settings
from server.store.addresses import Claim

#: Seconds of the window ``new_sessions_per_address`` counts in.
SESSION_WINDOW = 60.0
#: Seconds of the window ``new_rooms_per_address`` counts in.
NEW_ROOMS_WINDOW = 3600.0
#: Seconds of the window ``failed_joins_per_address`` counts in, and the first wait.
MISS_WINDOW = 60.0
#: The longest wait after failed joins (the wait doubles while the guessing goes on).
LONGEST_WAIT = 24 * 3600.0
#: Seconds an address's set of open rooms outlives the last room it created.
OPEN_ROOMS_TTL = 24 * 3600.0
#: Seconds a claimed code may take to join the active set (its room being stored).
CLAIM_GRACE = 30.0
#: Reviews of finished matches one address may have computed in an hour, and the window.
REVIEWS_PER_HOUR = 12
REVIEW_WINDOW = 3600.0
#: Strong-bot seats of a strong practice room.
PRACTICE_BOTS = 2


#: Bytes Redis holds (``used_memory``, measured) for a session, and for a 9-deal match played
#: out (its state and journal), the most a room holds.
SESSION_BYTES = 500
MATCH_BYTES = 45_000
#: Bytes of an address's own keys (counters, open rooms, strong seats, waits).
ADDRESS_BYTES = 2_000


@dataclass(frozen=True)
class Bound:
    """The most one client address can make Redis hold, in bytes, by what holds it."""

    sessions: int  # new sessions a minute, each kept ``session_ttl``
    open_rooms: int  # its open rooms, each at most a played-out match
    closed_rooms: int  # rooms it created an hour, each kept ``finished_ttl`` after it ends
    own: int  # its counters

    @property
    def total(self) -> int:
        return self.sessions + self.open_rooms + self.closed_rooms + self.own


def redis_bound(settings: Settings) -> Bound | None:
    """What one address can make Redis hold under ``settings`` (None: a cap is off, so
    there is no bound)."""
    s = settings
    if min(s.new_sessions_per_address, s.open_rooms_per_address, s.new_rooms_per_address) <= 0:
        return None
    sessions = s.new_sessions_per_address * math.ceil(s.session_ttl / SESSION_WINDOW)
    kept = s.new_rooms_per_address * math.ceil(s.finished_ttl / NEW_ROOMS_WINDOW)
    return Bound(
        sessions=sessions * SESSION_BYTES,
        open_rooms=s.open_rooms_per_address * MATCH_BYTES,
        closed_rooms=kept * MATCH_BYTES,
        own=ADDRESS_BYTES,
    )


def _seconds(left: float) -> int:
    return max(1, math.ceil(left))


class LobbyLimits:
    """The caps of ``settings``, counted in ``addresses``."""

    def __init__(
        self,
        settings: Settings,
        addresses: AddressCounts,
        metrics: Metrics,
        clock: Callable[[], float] = time.time,
        bots: BotPool | None = None,
    ) -> None:
        self.settings = settings
        #: The strong bots' pool, whose full queue refuses new strong rooms and seats.
        self.bots = bots
        self.clock = clock
        self.addresses = addresses
        self.refusals = Counter(
            "ddz_limit_refusals",
            "requests refused by a cap per client address, a wait, or a full bot pool",
            ["limit"],
            registry=metrics.registry,
        )

    def _refuse(self, limit: str, code: ErrorCode, message: str) -> RoomError:
        self.refusals.labels(limit).inc()
        return RoomError(code, message)

    async def new_session(self, address: str) -> None:
        """Count a new session for the address, or refuse it (``LIMIT_REACHED``)."""
        cap = self.settings.new_sessions_per_address
        if cap <= 0:
            return
        left = await self.addresses.count(address, "sessions", cap, SESSION_WINDOW)
        if left:
            raise self._refuse(
                "new_sessions",
                ErrorCode.LIMIT_REACHED,
                f"too many new sessions from your address ({cap} a minute): retry in"
                f" {_seconds(left)} s, or resume yours with its token",
            )

    def strong_pool(self) -> None:
        """Refuse a new strong room or seat while the strong bots' queue is full."""
        if self.bots is not None and self.bots.busy():
            raise self._refuse(
                "bot_queue",
                ErrorCode.BUSY,
                "the strong bots are at capacity: retry in a minute, or choose another level",
            )

    async def new_review(self, address: str) -> None:
        """Count a review about to be computed (the solver's work, seconds of a core per
        deal) in the address's hourly window, or refuse (``LIMIT_REACHED``)."""
        left = await self.addresses.count(address, "reviews", REVIEWS_PER_HOUR, REVIEW_WINDOW)
        if left:
            raise self._refuse(
                "reviews",
                ErrorCode.LIMIT_REACHED,
                f"too many reviews from your address ({REVIEWS_PER_HOUR} an hour): retry in"
                f" {_seconds(left)} s",
            )

    async def new_room(self, address: str) -> None:
        """Count a room about to be created in the address's hourly window, or refuse."""
        cap = self.settings.new_rooms_per_address
        if cap <= 0:
            return
        left = await self.addresses.count(address, "new-rooms", cap, NEW_ROOMS_WINDOW)
        if left:
            raise self._refuse(
                "new_rooms",
                ErrorCode.LIMIT_REACHED,
                f"too many new rooms from your address ({cap} an hour): retry in"
                f" {_seconds(left)} s",
            )

    async def claim(self, address: str, code: str, *, new_room: bool, strong: int) -> None:
        """Count an open room under ``code`` (``new_room``) and/or ``strong`` strong-bot
        seats in it against the address's caps, or refuse (``LIMIT_REACHED``), counting
        nothing."""
        s = self.settings
        if s.open_rooms_per_address <= 0 and (s.strong_bots_per_address <= 0 or not strong):
            return
        claim = await self.addresses.claim(
            address,
            code,
            new_room=new_room,
            strong=strong,
            room_cap=s.open_rooms_per_address,
            strong_cap=s.strong_bots_per_address,
            now=self.clock(),
            ttl=OPEN_ROOMS_TTL,
            grace=CLAIM_GRACE,
        )
        if claim == Claim.ROOMS:
            raise self._refuse(
                "open_rooms",
                ErrorCode.LIMIT_REACHED,
                f"your address has {s.open_rooms_per_address} open rooms, the most it may:"
                " leave one, or retry when one ends",
            )
        if claim == Claim.STRONG:
            raise self._refuse(
                "strong_bots",
                ErrorCode.LIMIT_REACHED,
                f"your address has strong bots in {s.strong_bots_per_address} seats of open"
                f" rooms, the most it may (a strong practice takes {PRACTICE_BOTS}): retry"
                " when one of those rooms ends, or choose another level",
            )

    async def release(self, address: str, code: str, *, room: bool, strong: int = 0) -> None:
        """Give back a claim whose room (or seat) was not made after all."""
        s = self.settings
        if s.open_rooms_per_address <= 0 and (s.strong_bots_per_address <= 0 or not strong):
            return
        await self.addresses.release(address, code, room=room, strong=strong)

    async def may_join(self, address: str) -> None:
        """Refuse a join or watch by code (``RATE_LIMITED``) while the address must wait
        after too many codes that named no room."""
        if self.settings.failed_joins_per_address <= 0:
            return
        left = await self.addresses.blocked(address)
        if left:
            raise self._refuse(
                "failed_joins",
                ErrorCode.RATE_LIMITED,
                f"too many codes from your address named no room: wait {_seconds(left)} s",
            )

    async def missed(self, address: str) -> str:
        """Count a code that named no room; what to add to the refusal (the wait it
        starts, if any)."""
        cap = self.settings.failed_joins_per_address
        if cap <= 0:
            return ""
        wait = await self.addresses.missed(address, cap, MISS_WINDOW, LONGEST_WAIT)
        if not wait:
            return ""
        self.refusals.labels("failed_joins").inc()
        return f"; too many such codes from your address: wait {_seconds(wait)} s"
