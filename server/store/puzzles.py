"""Puzzles in Redis (issue 33): the puzzles, each once by its cards, with its rating; each
player's puzzle rating, record and attempt in progress; the puzzles cut from a player's own
lost deals, and their turning points.

The puzzles' keys share the hash tag ``{puzzles}`` (``Keys.puzzles``), so one script stores
a puzzle with its rating and its place by rating, only if its id is new: the same cards
found in two deals (or by two processes) are one puzzle, rated once. A puzzle holds cards
only (``PuzzleEntry``): no name, no match code, no seat of its match. A player's keys share
``{player:PID}`` with their other keys: an attempt moves on or ends by a script, only from
the step it was read at, so two moves of one player at once (two tabs) apply one. A rated
attempt (a first) is kept until it is counted, with the time it runs out (``until``): one
left unanswered fails when the lobby next sees it, so waiting it out dodges nothing, across
restarts too; a retry counts nothing and expires. A rating change of a puzzle is applied as
a difference (many players rate one puzzle at once).
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

#: Seconds an attempt in progress may go without a move: then it is over, and a rated one
#: counts as failed (``Attempt.until``; counted when next seen: ``server/lobby/puzzles.py``).
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

#: KEYS: tried, attempt, own puzzles. ARGV: id, now, attempt TTL, empty moves, until. Starts
#: the player's attempt at the puzzle (replacing any in progress), rated when it is their
#: first; returns {first (1/0), own (1/0)}: whether the puzzle was cut from their own lost
#: deal is read here, in the same round trip. A rated attempt is kept until it is counted
#: (``until``: when it is failed if unanswered); a retry, which counts nothing, expires.
_START = """
local first = redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'step', 0, 'moves', ARGV[4], 'rated', first,
    'until', ARGV[5])
if first == 0 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return {first, redis.call('SISMEMBER', KEYS[3], ARGV[1])}
"""

#: KEYS: attempt. ARGV: id, step, moves, attempt TTL, until. Moves the attempt on from
#: ``step`` to the next with ``moves``, only if it is at ``step`` of puzzle ``id``; 1 when it
#: did. A rated one stays until counted (an attempt stored before ``until`` was: its TTL
#: goes), a retry expires.
_ADVANCE = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'step') ~= ARGV[2]
then return 0 end
redis.call('HSET', KEYS[1], 'step', tonumber(ARGV[2]) + 1, 'moves', ARGV[3], 'until', ARGV[5])
if redis.call('HGET', KEYS[1], 'rated') == '1' then redis.call('PERSIST', KEYS[1])
else redis.call('EXPIRE', KEYS[1], ARGV[4]) end
return 1
"""

#: KEYS: attempt, puzzle rating. ARGV: id, step, rated (1/0), mu, sigma, solved (1/0).
#: Ends the attempt only if it is at ``step`` of puzzle ``id``; a rated one leaves the
#: player's rating and counts. 1 when it ended it.
_END = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'step') ~= ARGV[2]
then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[3] == '1' then
    redis.call('HSET', KEYS[2], 'mu', ARGV[4], 'sigma', ARGV[5])
    redis.call('HINCRBY', KEYS[2], 'tried', 1)
    redis.call('HINCRBY', KEYS[2], 'solved', tonumber(ARGV[6]))
end
return 1
"""


@dataclass(frozen=True, slots=True)
class Attempt:
    """A player's attempt in progress: the puzzle, how many moves of theirs it has made,
    every move so far (``[seat, ranks or None]``), whether it is rated (their first), and
    when it runs out unanswered (``ATTEMPT_TTL`` after its start or last move; infinity for
    one stored before this was kept)."""

    puzzle: str
    step: int
    moves: list[Any]
    rated: bool
    until: float

    def expired(self, now: float) -> bool:
        """Whether it ran out: over, and failed if rated."""
        return now >= self.until


class Started(NamedTuple):
    """An attempt started: whether it is the player's first at the puzzle (rated), and
    whether the puzzle was cut from their own lost deal."""

    first: bool
    own: bool


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
        self._start = self.redis.register_script(_START)
        self._advance = self.redis.register_script(_ADVANCE)
        self._end = self.redis.register_script(_END)

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

    async def start_attempt(self, player: str, pid: str, now: float) -> Started:
        """Start the player's attempt at puzzle ``pid`` (it replaces one in progress) and
        mark it tried: whether it is their first at it (the one rated), and whether the
        puzzle is their own (one round trip for both)."""
        keys = [
            self.keys.player(player, "puzzles_tried"),
            self.keys.player(player, "puzzle_attempt"),
            self.keys.player(player, "own_puzzles"),
        ]
        args: list[str | float | bytes] = [pid, now, ATTEMPT_TTL, pack([]), now + ATTEMPT_TTL]
        first, own = await self._call(self._start(keys=keys, args=args))
        return Started(bool(first), bool(own))

    async def attempt(self, player: str) -> Attempt | None:
        found: Any = await self._call(
            self.redis.hmget(
                self.keys.player(player, "puzzle_attempt"),
                ["id", "step", "moves", "rated", "until"],
            )
        )
        pid, step, moves, rated, until = found
        if pid is None or step is None or moves is None:
            return None
        ends = float("inf") if until is None else float(until)
        return Attempt(_text(pid), int(step), list(unpack(moves)), _text(rated) == "1", ends)

    async def advance_attempt(
        self, player: str, pid: str, step: int, moves: list[Any], now: float
    ) -> bool:
        """Move the attempt on from ``step`` with ``moves`` (all of them so far), at ``now``
        (it runs out ``ATTEMPT_TTL`` later), only if it is still at ``step`` of ``pid`` (a
        move of the player's elsewhere meanwhile: not)."""
        keys = [self.keys.player(player, "puzzle_attempt")]
        args: list[str | int | float | bytes] = [pid, step, pack(moves), ATTEMPT_TTL]
        args.append(now + ATTEMPT_TTL)
        return bool(await self._call(self._advance(keys=keys, args=args)))

    async def end_attempt(
        self, player: str, pid: str, step: int, rated: Rating | None, solved: bool
    ) -> bool:
        """End the attempt at ``step`` of ``pid`` (only then: whether it did); a first
        attempt counts (tried, solved) and leaves the player's rating ``rated``."""
        keys = [
            self.keys.player(player, "puzzle_attempt"),
            self.keys.player(player, "puzzle_rating"),
        ]
        mu, sigma = ("0", "0") if rated is None else (repr(rated.mu), repr(rated.sigma))
        args: list[str | int] = [pid, step, int(rated is not None), mu, sigma, int(solved)]
        return bool(await self._call(self._end(keys=keys, args=args)))

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
