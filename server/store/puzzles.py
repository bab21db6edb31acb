"""Puzzles in Redis (issue 33): the puzzles, each once by its cards, with its rating; each
player's puzzle rating, record and attempt in progress; the puzzles cut from a player's own
lost deals, and their turning points.

The puzzles' keys share the hash tag ``{puzzles}`` (``Keys.puzzles``), so one script stores
a puzzle with its rating and its place by rating, only if its id is new: the same cards
found in two deals (or by two processes) are one puzzle, rated once. A puzzle holds cards
only (``PuzzleEntry``): no name, no match code, no seat of its match. A player's keys share
``{player:PID}`` with their other keys; the lobby's per-player lock runs one puzzle request
of a player at a time, so their attempt is read and written without a script. A rating
change of a puzzle is applied as a difference (many players rate one puzzle at once).
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from redis import exceptions as redis_errors

from server.players.rating import NEW, POINTS_BASE, POINTS_PER_MU, Rating
from server.store.codec import pack, unpack
from server.store.errors import StoreFailure
from server.store.redis_store import RedisStore

T = TypeVar("T")

#: Seconds an attempt in progress is kept after its last move.
ATTEMPT_TTL = 24 * 3600
#: Seconds a day's puzzle is kept (a UTC day, and the days either side of it).
DAILY_TTL = 3 * 86400
#: Seconds the marks of a player's own deals are kept after the last one written.
MARKS_TTL = 400 * 86400
#: Seconds a turning point is counted for ("this week" and a margin).
TURNING_KEEP = 30 * 86400

#: KEYS: data, skill, by points. ARGV: id, record, mu, sigma, shown. Stores the puzzle and
#: its rating unless the id is stored; 1 when new.
_ADD = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3] .. ' ' .. ARGV[4] .. ' 0')
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
return 1
"""

#: KEYS: skill, by points. ARGV: id, mu before, sigma before, mu after, sigma after, base
#: points, points per mu, the mu of the base. Applies the change as a difference; returns
#: the new "mu sigma n".
_RATE = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return false end
local mu, sigma, n = string.match(held, '(%S+) (%S+) (%S+)')
mu = tonumber(mu) + (tonumber(ARGV[4]) - tonumber(ARGV[2]))
sigma = tonumber(sigma) * (tonumber(ARGV[5]) / tonumber(ARGV[3]))
local now = string.format('%.17g %.17g %d', mu, sigma, tonumber(n) + 1)
redis.call('HSET', KEYS[1], ARGV[1], now)
local shown = tonumber(ARGV[6]) + tonumber(ARGV[7]) * (mu - tonumber(ARGV[8]))
redis.call('ZADD', KEYS[2], string.format('%.0f', shown), ARGV[1])
return now
"""


@dataclass(frozen=True, slots=True)
class PuzzleEntry:
    """A puzzle as stored: its canonical cards (``Puzzle.key``), the side to play, its one
    winning first move (card text, None: the pass), how many plays its win takes at least,
    and when it was first found."""

    key: str
    side: str
    answer: str | None
    min_plays: int
    added: float

    def to_data(self) -> dict[str, Any]:
        return {
            "k": self.key,
            "s": self.side,
            "a": self.answer,
            "n": self.min_plays,
            "t": self.added,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> PuzzleEntry:
        return cls(data["k"], data["s"], data["a"], int(data["n"]), float(data["t"]))


class StoredPuzzle(NamedTuple):
    """A puzzle and its rating (``attempts``: first attempts rated)."""

    id: str
    record: PuzzleEntry
    rating: Rating
    attempts: int


class PuzzlePlayer(NamedTuple):
    """A player's puzzle rating and record (first attempts tried and solved)."""

    rating: Rating
    tried: int
    solved: int


def _skill(raw: bytes | str) -> tuple[Rating, int]:
    text = raw.decode() if isinstance(raw, bytes) else raw
    mu, sigma, n = text.split()
    return Rating(float(mu), float(sigma)), int(n)


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class RedisPuzzles:
    """The puzzles and the players' puzzle records on the store's Redis."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.keys = store.keys
        self.redis = store.redis
        self._add = self.redis.register_script(_ADD)
        self._rate = self.redis.register_script(_RATE)

    async def _call(self, call: Awaitable[T]) -> T:
        try:
            return await call
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self.store._unavailable(str(exc)) from exc

    # --- the puzzles ------------------------------------------------------------------

    async def add_puzzle(self, pid: str, record: PuzzleEntry, rating: Rating, shown: int) -> bool:
        """Store the puzzle with its first rating unless its id is stored; whether new."""
        k = self.keys
        keys = [k.puzzles("data"), k.puzzles("skill"), k.puzzles("points")]
        args: list[str | bytes | int] = [pid, pack(record.to_data()), repr(rating.mu)]
        args += [repr(rating.sigma), shown]
        return bool(await self._call(self._add(keys=keys, args=args)))

    async def puzzle(self, pid: str) -> StoredPuzzle | None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(self.keys.puzzles("data"), pid)
            pipe.hget(self.keys.puzzles("skill"), pid)
            data, skill = await self._call(pipe.execute())
        if data is None or skill is None:
            return None
        rating, attempts = _skill(skill)
        return StoredPuzzle(pid, PuzzleEntry.from_data(dict(unpack(data))), rating, attempts)

    async def puzzle_count(self) -> int:
        return int(await self._call(self.redis.zcard(self.keys.puzzles("points"))))

    async def puzzles_near(self, shown: int, width: int, n: int) -> list[str]:
        """Up to ``n`` puzzle ids whose shown rating is within ``width`` of ``shown``, the
        lowest first."""
        found: Any = await self._call(
            self.redis.zrangebyscore(
                self.keys.puzzles("points"), shown - width, shown + width, start=0, num=n
            )
        )
        return [_text(x) for x in found]

    async def rate_puzzle(self, pid: str, before: Rating, after: Rating) -> None:
        """Apply one attempt's change (from ``before`` to ``after``) to the puzzle's
        rating, and move it by its shown points."""
        keys = [self.keys.puzzles("skill"), self.keys.puzzles("points")]
        args: list[str | int | float] = [pid, repr(before.mu), repr(before.sigma)]
        args += [repr(after.mu), repr(after.sigma), POINTS_BASE, repr(POINTS_PER_MU), repr(NEW.mu)]
        await self._call(self._rate(keys=keys, args=args))

    async def daily_puzzle(self, day: str, candidate: str) -> str:
        """The day's puzzle: the first candidate offered for ``day`` (by any process)."""
        key = self.keys.puzzles(f"daily:{day}")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(key, candidate, nx=True, ex=DAILY_TTL)
            pipe.get(key)
            _, chosen = await self._call(pipe.execute())
        return _text(chosen)

    async def puzzle_ids(self, low: int, high: int) -> list[str]:
        """Every puzzle id with a shown rating in ``low..high``, by rating then id."""
        found: Any = await self._call(
            self.redis.zrangebyscore(self.keys.puzzles("points"), low, high)
        )
        return [_text(x) for x in found]

    # --- a player's puzzles -----------------------------------------------------------

    async def puzzle_player(self, player: str) -> PuzzlePlayer:
        found: Any = await self._call(
            self.redis.hmget(
                self.keys.player(player, "puzzle_rating"), ["mu", "sigma", "tried", "solved"]
            )
        )
        mu, sigma, tried, solved = found
        rating = NEW if mu is None or sigma is None else Rating(float(mu), float(sigma))
        return PuzzlePlayer(rating, int(tried or 0), int(solved or 0))

    async def tried(self, player: str, ids: Sequence[str]) -> list[bool]:
        """Whether the player started each puzzle before."""
        if not ids:
            return []
        found: Any = await self._call(
            self.redis.zmscore(self.keys.player(player, "puzzles_tried"), list(ids))
        )
        return [score is not None for score in found]

    async def start_attempt(
        self, player: str, pid: str, attempt: dict[str, Any], now: float
    ) -> bool:
        """Keep the player's new attempt (it replaces one in progress) and mark the puzzle
        tried; whether it is their first at that puzzle."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self.keys.player(player, "puzzles_tried"), {pid: now}, nx=True)
            pipe.set(self.keys.player(player, "puzzle_attempt"), pack(attempt), ex=ATTEMPT_TTL)
            added, _ = await self._call(pipe.execute())
        return bool(added)

    async def attempt(self, player: str) -> dict[str, Any] | None:
        blob: Any = await self._call(self.redis.get(self.keys.player(player, "puzzle_attempt")))
        return None if blob is None else dict(unpack(blob))

    async def save_attempt(self, player: str, attempt: dict[str, Any]) -> None:
        key = self.keys.player(player, "puzzle_attempt")
        await self._call(self.redis.set(key, pack(attempt), ex=ATTEMPT_TTL))

    async def end_attempt(self, player: str, rated: Rating | None, solved: bool) -> None:
        """The attempt is over: dropped; a first attempt counts (tried, solved) and leaves
        the player's rating ``rated``."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(self.keys.player(player, "puzzle_attempt"))
            if rated is not None:
                key = self.keys.player(player, "puzzle_rating")
                pipe.hset(key, mapping={"mu": repr(rated.mu), "sigma": repr(rated.sigma)})
                pipe.hincrby(key, "tried", 1)
                pipe.hincrby(key, "solved", int(solved))
            await self._call(pipe.execute())

    async def note_own(self, player: str, ids: Sequence[str]) -> None:
        """Mark puzzles as cut from the player's own lost deals."""
        if not ids:
            return
        key = self.keys.player(player, "own_puzzles")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(key, *ids)
            pipe.expire(key, MARKS_TTL)
            await self._call(pipe.execute())

    async def is_own(self, player: str, pid: str) -> bool:
        key = self.keys.player(player, "own_puzzles")
        return bool(await self._call(self.redis.sismember(key, pid)))

    async def note_turning(self, player: str, marks: Sequence[str], when: float) -> None:
        """Note the player's turning points (``marks``: one name per decision, so noting a
        match twice counts it once), at ``when``; those older than ``TURNING_KEEP`` go."""
        if not marks:
            return
        key = self.keys.player(player, "turning")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(key, dict.fromkeys(marks, when))
            pipe.zremrangebyscore(key, "-inf", f"({when - TURNING_KEEP}")
            pipe.expire(key, MARKS_TTL)
            await self._call(pipe.execute())

    async def turning_since(self, player: str, since: float) -> int:
        key = self.keys.player(player, "turning")
        return int(await self._call(self.redis.zcount(key, since, "+inf")))
