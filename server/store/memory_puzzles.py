"""``RedisPuzzles``' in-memory twin (``MemoryPuzzles``), for tests without Redis: the same
answers over the ``MemoryRedis`` of a ``MemoryStore`` (shared by one test's "processes"),
down when it is down. An attempt is kept until replaced or ended: a retry's Redis TTL is not
played (the lobby goes by ``Attempt.until`` on either store)."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.players.rating import NEW, Rating, points
from server.store.errors import StoreUnavailable
from server.store.memory import MemoryRedis, MemoryStore
from server.store.puzzles import (
    ATTEMPT_TTL,
    TURNING_KEEP,
    Attempt,
    PuzzleEntry,
    PuzzlePlayer,
    Started,
    StoredPuzzle,
)


@dataclass
class _Puzzles:
    """What ``RedisPuzzles`` keeps, for one ``MemoryRedis``."""

    entries: dict[str, PuzzleEntry] = field(default_factory=dict)
    skill: dict[str, tuple[Rating, int]] = field(default_factory=dict)
    shown: dict[str, int] = field(default_factory=dict)
    daily: dict[str, str] = field(default_factory=dict)
    players: dict[str, PuzzlePlayer] = field(default_factory=dict)
    tried: dict[str, dict[str, float]] = field(default_factory=dict)
    attempts: dict[str, Attempt] = field(default_factory=dict)
    own: dict[str, set[str]] = field(default_factory=dict)
    turning: dict[str, dict[str, float]] = field(default_factory=dict)


_PUZZLES: weakref.WeakKeyDictionary[MemoryRedis, _Puzzles] = weakref.WeakKeyDictionary()


class MemoryPuzzles:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.data = _PUZZLES.setdefault(store.data, _Puzzles())

    def _up(self) -> None:
        if self.store.data.down:
            raise StoreUnavailable("the memory store is down")

    async def add_puzzle(self, pid: str, entry: PuzzleEntry, rating: Rating, shown: int) -> bool:
        self._up()
        if pid in self.data.entries:
            return False
        self.data.entries[pid] = entry
        self.data.skill[pid] = (rating, 0)
        self.data.shown[pid] = shown
        return True

    async def puzzle(self, pid: str) -> StoredPuzzle | None:
        self._up()
        entry = self.data.entries.get(pid)
        if entry is None:
            return None
        rating, attempts = self.data.skill[pid]
        return StoredPuzzle(pid, entry, rating, attempts)

    async def puzzle_count(self) -> int:
        self._up()
        return len(self.data.shown)

    def _by_points(self, low: float, high: float) -> list[str]:
        # (Redis orders equal scores by member)
        ranked = sorted(self.data.shown.items(), key=lambda item: (item[1], item[0]))
        return [pid for pid, s in ranked if low <= s <= high]

    async def puzzles_near(self, shown: int, width: int, n: int) -> list[str]:
        self._up()
        return self._by_points(shown - width, shown + width)[:n]

    async def rate_puzzle(self, pid: str, before: Rating, after: Rating) -> None:
        self._up()
        held = self.data.skill.get(pid)
        if held is None:
            return
        rating, n = held
        now = Rating(rating.mu + after.mu - before.mu, rating.sigma * (after.sigma / before.sigma))
        self.data.skill[pid] = (now, n + 1)
        self.data.shown[pid] = points(now)

    async def daily_puzzle(self, day: str, candidate: str) -> str:
        self._up()
        return self.data.daily.setdefault(day, candidate)

    async def puzzle_ids(self, low: int, high: int) -> list[str]:
        self._up()
        return self._by_points(low, high)

    async def puzzle_player(self, player: str) -> PuzzlePlayer:
        self._up()
        return self.data.players.get(player, PuzzlePlayer(NEW, 0, 0))

    async def tried(self, player: str, ids: Sequence[str]) -> list[bool]:
        self._up()
        held = self.data.tried.get(player, {})
        return [pid in held for pid in ids]

    async def start_attempt(self, player: str, pid: str, now: float) -> Started:
        self._up()
        held = self.data.tried.setdefault(player, {})
        first = pid not in held
        held.setdefault(pid, now)
        self.data.attempts[player] = Attempt(pid, 0, [], first, now + ATTEMPT_TTL)
        return Started(first, pid in self.data.own.get(player, set()))

    async def attempt(self, player: str) -> Attempt | None:
        self._up()
        return self.data.attempts.get(player)

    def _at(self, player: str, pid: str, step: int) -> Attempt | None:
        found = self.data.attempts.get(player)
        return found if found is not None and (found.puzzle, found.step) == (pid, step) else None

    async def advance_attempt(
        self, player: str, pid: str, step: int, moves: list[Any], now: float
    ) -> bool:
        self._up()
        found = self._at(player, pid, step)
        if found is None:
            return False
        until = now + ATTEMPT_TTL
        self.data.attempts[player] = Attempt(pid, step + 1, list(moves), found.rated, until)
        return True

    async def end_attempt(
        self, player: str, pid: str, step: int, rated: Rating | None, solved: bool
    ) -> bool:
        self._up()
        if self._at(player, pid, step) is None:
            return False
        del self.data.attempts[player]
        if rated is not None:
            was = self.data.players.get(player, PuzzlePlayer(NEW, 0, 0))
            self.data.players[player] = PuzzlePlayer(rated, was.tried + 1, was.solved + solved)
        return True

    async def note_own(self, player: str, ids: Sequence[str]) -> None:
        self._up()
        if ids:
            self.data.own.setdefault(player, set()).update(ids)

    async def is_own(self, player: str, pid: str) -> bool:
        self._up()
        return pid in self.data.own.get(player, set())

    async def note_turning(self, player: str, marks: Sequence[str], when: float) -> None:
        self._up()
        if not marks:
            return
        held = self.data.turning.setdefault(player, {})
        held.update(dict.fromkeys(marks, when))
        for old in [m for m, t in held.items() if t < when - TURNING_KEEP]:
            del held[old]

    async def turning_since(self, player: str, since: float) -> int:
        self._up()
        return sum(t >= since for t in self.data.turning.get(player, {}).values())
