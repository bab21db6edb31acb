"""The lobby's in-memory twins, for tests without Redis: ``MemoryAddresses``, the counts per
client address as ``AddressStore``'s scripts keep them, ``MemoryRatings``, the ratings and
the ladder as ``RedisRatings``' scripts keep them, and ``MemoryServerStore``, the
``MemoryStore`` the whole server can run on (it answers the health check too).

They share what one test's "processes" share: the ``MemoryRedis`` of their store (its
clock, its rooms and active set), and the counts of one ``MemoryAddresses`` given to each.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.store.addresses import Claim, Listed
from server.store.memory import MemoryRedis, MemoryStore
from server.store.ratings import (
    RATED_KEEP,
    RATING_LOG,
    LadderRead,
    LoggedRating,
    Ranked,
    StoredRating,
)


@dataclass
class _Window:
    """A counter that starts its window at its first count (Redis: INCR, then PEXPIRE)."""

    count: int = 0
    ends: float = 0.0


@dataclass
class _Address:
    windows: dict[str, _Window] = field(default_factory=dict)
    #: Open rooms: code to when claimed; the set lives ``ttl`` after the last claim.
    rooms: dict[str, float] = field(default_factory=dict)
    strong: dict[str, int] = field(default_factory=dict)
    held_until: float = 0.0
    misses: _Window = field(default_factory=_Window)
    strikes: int = 0
    strikes_until: float = 0.0
    blocked_until: float = 0.0


class MemoryAddresses:
    """The ``AddressCounts`` of every client address, over ``store``'s ``MemoryRedis``."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._addresses: dict[str, _Address] = {}
        #: Listed room code to the address it was created from.
        self.origins: dict[str, str] = {}

    @property
    def clock(self) -> Callable[[], float]:
        return self.store.data.clock

    def _of(self, address: str) -> _Address:
        held = self._addresses.setdefault(address, _Address())
        if held.held_until and held.held_until <= self.clock():
            held.rooms.clear()
            held.strong.clear()
            held.held_until = 0.0
        return held

    async def count(self, address: str, part: str, limit: int, window: float) -> float:
        now = self.clock()
        counter = self._of(address).windows.setdefault(part, _Window())
        if counter.ends <= now:
            counter.count, counter.ends = 0, now + window
        counter.count += 1
        return 0.0 if counter.count <= limit else counter.ends - now

    async def claim(
        self,
        address: str,
        code: str,
        *,
        new_room: bool,
        strong: int,
        room_cap: int,
        strong_cap: int,
        now: float,
        ttl: float,
        grace: float,
    ) -> Claim:
        held = self._of(address)
        for dead in self._closed(held, now - grace):
            held.rooms.pop(dead, None)
            held.strong.pop(dead, None)
        if new_room and room_cap > 0 and len(held.rooms) >= room_cap:
            return Claim.ROOMS
        if strong > 0 and strong_cap > 0 and sum(held.strong.values()) + strong > strong_cap:
            return Claim.STRONG
        if new_room:
            held.rooms[code] = now
        if strong > 0:
            held.strong[code] = held.strong.get(code, 0) + strong
        if new_room or strong > 0:
            held.held_until = self.clock() + max(1, int(ttl))
        return Claim.OK

    def _closed(self, held: _Address, before: float) -> list[str]:
        """The codes whose rooms are closed: out of the active set, and stored (so closed)
        or claimed before ``before`` (so never stored)."""
        data = self.store.data
        return [
            code
            for code in sorted(set(held.rooms) | set(held.strong))
            if code not in data.active
            and (code in data.rooms or held.rooms.get(code, before) <= before)
        ]

    async def release(self, address: str, code: str, *, room: bool, strong: int = 0) -> None:
        held = self._of(address)
        if room:
            held.rooms.pop(code, None)
            held.strong.pop(code, None)
        elif held.strong.get(code, 0) - strong <= 0:
            held.strong.pop(code, None)
        else:
            held.strong[code] -= strong

    async def blocked(self, address: str) -> float:
        return max(0.0, self._of(address).blocked_until - self.clock())

    async def missed(self, address: str, limit: int, window: float, longest: float) -> float:
        now = self.clock()
        held = self._of(address)
        misses = held.misses
        if misses.ends <= now:
            misses.count, misses.ends = 0, now + window
        misses.count += 1
        if misses.count < limit:
            return 0.0
        held.misses = _Window()
        if held.strikes_until <= now:
            held.strikes = 0
        held.strikes += 1
        wait: float = min(window * 2.0 ** (held.strikes - 1), longest)
        held.blocked_until = now + wait
        held.strikes_until = now + 2 * wait
        return wait

    async def set_origin(self, code: str, address: str) -> None:
        self.origins[code] = address

    async def listed(self, scan: int) -> list[Listed]:
        data = self.store.data
        newest = sorted(data.watchable.items(), key=lambda item: -item[1])[:scan]
        return [
            Listed(code, created, await self.store.load_room(code), self.origins.get(code, ""))
            for code, created in newest
        ]


@dataclass
class _Ratings:
    """What ``RedisRatings`` keeps, for one ``MemoryRedis``."""

    ratings: dict[str, dict[str, Any]] = field(default_factory=dict)
    applied: dict[str, dict[str, float]] = field(default_factory=dict)
    starts: dict[str, dict[str, Any]] = field(default_factory=dict)
    top: dict[str, float] = field(default_factory=dict)
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    logs: dict[str, list[LoggedRating]] = field(default_factory=dict)
    shown: dict[str, float] = field(default_factory=dict)


_RATINGS: weakref.WeakKeyDictionary[MemoryRedis, _Ratings] = weakref.WeakKeyDictionary()


class MemoryRatings:
    """``RedisRatings``' twin over ``store``'s ``MemoryRedis`` (shared by the stores of one
    test's "processes")."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.data = _RATINGS.setdefault(store.data, _Ratings())

    async def rating(self, player_id: str) -> StoredRating | None:
        found = self.data.ratings.get(player_id)
        if found is None:
            return None
        return StoredRating(found["mu"], found["sigma"], found["matches"])

    async def apply(
        self,
        player_id: str,
        code: str,
        before: tuple[float, float],
        after: tuple[float, float],
        name: str,
        now: float,
    ) -> tuple[bool, StoredRating]:
        applied = self.data.applied.setdefault(player_id, {})
        done = code in applied
        if not done:
            held = self.data.ratings.setdefault(
                player_id, {"mu": before[0], "sigma": before[1], "matches": 0}
            )
            held["mu"] = held["mu"] + (after[0] - before[0])
            held["sigma"] = held["sigma"] * (after[1] / before[1])
            held["matches"] += 1
            held["name"] = name
            applied[code] = now
            log = self.data.logs.setdefault(player_id, [])
            log.append(LoggedRating(held["mu"], held["sigma"], now))
            del log[:-RATING_LOG]
            for old in [c for c, t in applied.items() if t < now - RATED_KEEP]:
                del applied[old]
        stored = await self.rating(player_id)
        assert stored is not None
        return not done, stored

    async def history(self, player_id: str) -> list[LoggedRating]:
        return list(self.data.logs.get(player_id, []))

    async def save_start(self, code: str, start: dict[str, Any]) -> None:
        self.data.starts[code] = dict(start)

    async def load_start(self, code: str) -> dict[str, Any] | None:
        found = self.data.starts.get(code)
        return None if found is None else dict(found)

    async def set_ladder(
        self, player_id: str, score: float, entry: dict[str, Any], shown: float
    ) -> None:
        self.data.top[player_id] = score
        self.data.players[player_id] = dict(entry)
        self.data.shown[player_id] = shown

    async def ladder(
        self, n: int, player_id: str, shown: Callable[[dict[str, Any]], float]
    ) -> LadderRead:
        for pid, entry in self.data.players.items():  # (held before the ladder ranked so)
            self.data.shown.setdefault(pid, shown(entry))
        # (Redis orders equal scores by member, the higher first under ZREVRANGE)
        ranked = self.data.shown
        order = sorted(ranked.items(), key=lambda item: (item[1], item[0]), reverse=True)
        top = [Ranked(pid, s, dict(self.data.players.get(pid, {}))) for pid, s in order[:n]]
        ids = [pid for pid, _ in order]
        rank = ids.index(player_id) + 1 if player_id in ranked else None
        return LadderRead(top, rank, ranked.get(player_id), len(order))


class MemoryServerStore(MemoryStore):
    """A ``MemoryStore`` for the whole server: it also answers the health check."""

    async def ping(self) -> bool:
        return not self.data.down
