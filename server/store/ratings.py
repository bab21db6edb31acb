"""Ratings in Redis: each player's (applied once per match), the ratings a rated quick match
started from, and the ladder.

A player's rating and the codes of the matches already applied to it share the hash tag
``{player:PID}`` (``Keys.rating``, ``Keys.rated``), so one script checks the code and
changes the rating: a match's change applied twice (a replay after a crash, two processes)
changes it once. The change is applied as a difference from the rating the match started
from, so a change applied late (after a later match's) is not lost either. The ladder's two
keys share ``{ladder}``, read by one script; a player's ladder entry is set from their
rating after each apply (setting it again is harmless, so a crash between the two heals at
the player's next rated match).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from redis import exceptions as redis_errors

from server.store.codec import pack, unpack
from server.store.errors import StoreFailure
from server.store.redis_store import RedisStore

#: Seconds a match's code stays in its players' applied sets: well past ``--finished-ttl``
#: (7 days), after which nothing can apply the match again (its room and start are gone).
RATED_KEEP = 30 * 86400

#: Ratings kept in a player's rating log: the profile's graph of their last rated matches.
RATING_LOG = 50

#: KEYS: rating, rated, rating log. ARGV: code, now, mu and sigma before, mu and sigma
#: after, name, keep seconds, log length. Applies the change unless ``code`` was applied
#: already, and logs the rating it leaves ("mu sigma when"); returns {applied (1/0), mu,
#: sigma, matches} as they are now.
_APPLY = """
local applied = 0
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    local mu = tonumber(redis.call('HGET', KEYS[1], 'mu') or ARGV[3])
    local sigma = tonumber(redis.call('HGET', KEYS[1], 'sigma') or ARGV[4])
    mu = mu + (tonumber(ARGV[5]) - tonumber(ARGV[3]))
    sigma = sigma * (tonumber(ARGV[6]) / tonumber(ARGV[4]))
    redis.call('HSET', KEYS[1], 'mu', string.format('%.17g', mu),
        'sigma', string.format('%.17g', sigma), 'name', ARGV[7])
    redis.call('HINCRBY', KEYS[1], 'matches', 1)
    redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (tonumber(ARGV[2]) - tonumber(ARGV[8])))
    redis.call('LPUSH', KEYS[3], string.format('%.17g %.17g %s', mu, sigma, ARGV[2]))
    redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[9]) - 1)
    applied = 1
end
local now = redis.call('HMGET', KEYS[1], 'mu', 'sigma', 'matches')
return {applied, now[1], now[2], now[3]}
"""

#: KEYS: shown (sorted set), players (hash). ARGV: how many, the asker's id. Returns {the
#: top [id, score, entry, ...], the asker's rank (0-based) or false, their score or false,
#: how many are ranked, how many players the ladder holds}.
_LADDER = """
local top = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #top, 2 do
    table.insert(out, top[i])
    table.insert(out, top[i + 1])
    table.insert(out, redis.call('HGET', KEYS[2], top[i]) or '')
end
local rank = redis.call('ZREVRANK', KEYS[1], ARGV[2])
local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
return {out, rank or false, score or false, redis.call('ZCARD', KEYS[1]),
    redis.call('HLEN', KEYS[2])}
"""

#: KEYS: top, players, shown. ARGV: id, score (mu - 3 sigma), entry, shown score (points).
_SET_LADDER = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 1
"""


class StoredRating(NamedTuple):
    """A player's rating as stored: skill, uncertainty, rated matches."""

    mu: float
    sigma: float
    matches: int


class LoggedRating(NamedTuple):
    """A player's rating as one rated match left it, and when."""

    mu: float
    sigma: float
    at: float


def _logged(raw: bytes | str) -> LoggedRating | None:
    text = raw.decode() if isinstance(raw, bytes) else raw
    try:
        mu, sigma, at = (float(part) for part in text.split())
    except ValueError:
        return None
    return LoggedRating(mu, sigma, at)


class Ranked(NamedTuple):
    """One line of the ladder as stored: the player, their display rating, what it shows."""

    player_id: str
    score: float
    entry: dict[str, Any]


class LadderRead(NamedTuple):
    """The ladder's top, and where the asker stands (rank from 1; None: not ranked)."""

    top: list[Ranked]
    rank: int | None
    score: float | None
    ranked: int


class RedisRatings:
    """The ratings and the ladder on the store's Redis."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.keys = store.keys
        redis = store.redis
        self._apply = redis.register_script(_APPLY)
        self._ladder = redis.register_script(_LADDER)
        self._set_ladder = redis.register_script(_SET_LADDER)

    async def rating(self, player_id: str) -> StoredRating | None:
        """The player's rating; None when never rated."""
        try:
            found: Any = await self.store.redis.hmget(
                self.keys.rating(player_id), ["mu", "sigma", "matches"]
            )
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc
        return _stored(found)

    async def apply(
        self,
        player_id: str,
        code: str,
        before: tuple[float, float],
        after: tuple[float, float],
        name: str,
        now: float,
    ) -> tuple[bool, StoredRating]:
        """Apply one match's change (mu and sigma, before and after) to the player's rating
        unless match ``code`` was applied already; whether it was now, and the rating."""
        keys = [
            self.keys.rating(player_id),
            self.keys.rated(player_id),
            self.keys.rating_log(player_id),
        ]
        args: list[str | float] = [code, now, *map(repr, before), *map(repr, after), name]
        args += [RATED_KEEP, RATING_LOG]
        try:
            reply: Any = await self._apply(keys=keys, args=args)
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self.store._unavailable(str(exc)) from exc
        stored = _stored(reply[1:])
        assert stored is not None  # (the script has just written it, or had it)
        return bool(reply[0]), stored

    async def history(self, player_id: str) -> list[LoggedRating]:
        """The player's rating after each of their last rated matches, the oldest first
        (only those since the log began: none for matches before it)."""
        try:
            found: Any = await self.store.redis.lrange(self.keys.rating_log(player_id), 0, -1)
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc
        return [logged for raw in reversed(found) if (logged := _logged(raw)) is not None]

    async def save_start(self, code: str, start: dict[str, Any]) -> None:
        """Keep the ratings a rated match starts from, as long as its room is kept."""
        try:
            await self.store.redis.set(
                self.keys.room_ratings(code), pack(start), ex=self.store.finished_ttl
            )
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc

    async def load_start(self, code: str) -> dict[str, Any] | None:
        try:
            blob: Any = await self.store.redis.get(self.keys.room_ratings(code))
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc
        return None if blob is None else dict(unpack(blob))

    async def set_ladder(
        self, player_id: str, score: float, entry: dict[str, Any], shown: float
    ) -> None:
        """Put (or move) the player on the ladder with what it shows: ranked by ``shown``
        (the rating's points), ``score`` (mu - 3 sigma) kept beside."""
        keys = [self.keys.ladder_top, self.keys.ladder_players, self.keys.ladder_shown]
        args: list[str | bytes] = [player_id, repr(score), pack(entry), repr(shown)]
        try:
            await self._set_ladder(keys=keys, args=args)
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self.store._unavailable(str(exc)) from exc

    async def ladder(
        self, n: int, player_id: str, shown: Callable[[dict[str, Any]], float]
    ) -> LadderRead:
        """The ``n`` best on the ladder by the rating shown, and the asker's place. Players
        the ladder holds without a shown score (put on it before it ranked by points) get
        one first, from what it holds of them (``shown``: an entry's points)."""
        reply = await self._read_ladder(n, player_id)
        if reply[3] < reply[4]:
            await self._score_shown(shown)
            reply = await self._read_ladder(n, player_id)
        flat, rank, score, ranked, _ = reply
        top = [
            Ranked(pid.decode(), float(s), dict(unpack(e)) if e else {})
            for pid, s, e in zip(flat[::3], flat[1::3], flat[2::3], strict=True)
        ]
        return LadderRead(
            top,
            None if rank is None else int(rank) + 1,
            None if score is None else float(score),
            int(ranked),
        )

    async def _read_ladder(self, n: int, player_id: str) -> list[Any]:
        keys = [self.keys.ladder_shown, self.keys.ladder_players]
        try:
            return _ladder_reply(await self._ladder(keys=keys, args=[n, player_id]))
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self.store._unavailable(str(exc)) from exc

    async def _score_shown(self, shown: Callable[[dict[str, Any]], float]) -> None:
        """Give every player the ladder holds without a shown score one, from their entry
        (``NX``: a score a rating has set meanwhile stays)."""
        try:
            held: Any = await self.store.redis.hgetall(self.keys.ladder_players)
            scores = {pid: shown(dict(unpack(blob))) for pid, blob in held.items() if blob}
            if scores:
                await self.store.redis.zadd(self.keys.ladder_shown, scores, nx=True)
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc


def _ladder_reply(reply: Any) -> list[Any]:
    flat, rank, score, ranked, held = reply
    return [flat, rank, score, int(ranked), int(held)]


def _stored(fields: list[Any]) -> StoredRating | None:
    mu, sigma, matches = fields
    if mu is None or sigma is None:
        return None
    return StoredRating(float(mu), float(sigma), int(matches or 0))
