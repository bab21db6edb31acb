"""What the store keeps of a lasting player: their key's hash, their matches and their
counters, each match counted once (``RedisPlayers``, a part of ``RedisStore``).

A player's keys share the hash tag ``{player:PID}`` (``Keys.player``), so one Lua script
checks and changes them together on one Redis Cluster slot: ``_APPLY_MATCH`` adds a match
to the player's record only if its id is not in the player's applied set yet, and adds the
id in the same script, so a match applied again after a crash changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from redis import exceptions as redis_errors

from server.store.codec import pack, unpack
from server.store.errors import StoreFailure, StoreUnavailable
from server.store.keys import Keys

#: Seconds a lasting player's keys live after their last hello or match (about 13 months).
PLAYER_TTL = 400 * 24 * 3600
#: Seconds the card of a player who has no match yet lives after their last hello: one who
#: only looked around is not kept for a year (a match makes it ``PLAYER_TTL``).
NEW_PLAYER_TTL = 7 * 24 * 3600


@dataclass(frozen=True)
class PlayerUpdate:
    """One match's change to one player's record, applied once (``match``: its id).

    ``entry``: the match as the player's list shows it (plain data of a ``HistoryEntry``);
    ``add``: counters to raise; ``put``: fields to set (what an applier computed from the
    match, a rating for one); ``best``: the player's total in a match that ran to its end
    (the best one is kept with its entry), or None."""

    match: str
    entry: dict[str, Any]
    add: Mapping[str, int] = field(default_factory=dict)
    put: Mapping[str, str] = field(default_factory=dict)
    best: int | None = None


@dataclass(frozen=True)
class PlayerRecord:
    """A player's counters (``stats``: field to value, ``best_entry`` unpacked), and a page
    of their matches (newest first) of ``total`` kept."""

    stats: dict[str, Any]
    matches: list[dict[str, Any]]
    total: int


#: KEYS: applied set, matches list, stats hash, card hash. ARGV: match id, now, TTL, how
#: many matches to keep, forget applied ids older than this, entry blob, best total ('' :
#: none), how many counters, then counter, amount pairs, then field, value pairs to set.
#: 0 when the match was applied already (nothing changes), else 1.
_APPLY_MATCH = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5])
redis.call('LPUSH', KEYS[2], ARGV[6])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
if ARGV[7] ~= '' then
    local best = redis.call('HGET', KEYS[3], 'best')
    if not best or tonumber(ARGV[7]) > tonumber(best) then
        redis.call('HSET', KEYS[3], 'best', ARGV[7], 'best_entry', ARGV[6])
    end
end
local i = 9
for _ = 1, tonumber(ARGV[8]) do
    redis.call('HINCRBY', KEYS[3], ARGV[i], ARGV[i + 1])
    i = i + 2
end
while i < #ARGV do
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
    i = i + 2
end
for k = 1, 4 do redis.call('EXPIRE', KEYS[k], ARGV[3]) end
return 1
"""

#: KEYS: card hash. ARGV: the key's hash, now, TTL. 1 if the player is new (card made),
#: 0 if the id is taken.
_CREATE_PLAYER = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'k', ARGV[1], 'since', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

#: KEYS: card hash. ARGV: the hash expected ('' : none), the new hash. 1 if replaced, 0 if
#: the stored hash is not the one expected (replaced meanwhile, or no such player).
_REPLACE_KEY = """
local current = redis.call('HGET', KEYS[1], 'k') or ''
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'k', ARGV[2])
return 1
"""

#: KEYS: card, matches, stats, applied. ARGV: TTL, TTL of a player with no match. The
#: card's fields (flat; none: no such player), the player's keys given another TTL from
#: now (a player seen lives on).
_TOUCH_PLAYER = """
local card = redis.call('HGETALL', KEYS[1])
if #card == 0 then return card end
if redis.call('EXISTS', KEYS[2]) == 1 then
    for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
else
    redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return card
"""


def update_args(update: PlayerUpdate, now: float, keep: int, forget_before: float) -> list[Any]:
    """``_APPLY_MATCH``'s ARGV for ``update``."""
    args: list[Any] = [
        update.match,
        now,
        PLAYER_TTL,
        keep,
        forget_before,
        pack(update.entry),
        "" if update.best is None else update.best,
        len(update.add),
    ]
    for name, amount in update.add.items():
        args += [name, amount]
    for name, value in update.put.items():
        args += [name, value]
    return args


def read_stats(flat: Mapping[str, bytes]) -> dict[str, Any]:
    """The stats hash as read: counters as ints, ``best_entry`` unpacked, the rest text."""
    out: dict[str, Any] = {}
    for name, value in flat.items():
        if name == "best_entry":
            out[name] = unpack(value)
            continue
        text = value.decode()
        try:
            out[name] = int(text)
        except ValueError:
            out[name] = text
    return out


class RedisPlayers:
    """The player operations of ``RedisStore`` (its ``redis``, ``keys``, ``_script``,
    ``_commands`` and ``_unavailable``)."""

    keys: Keys
    _script: Callable[[str], Callable[..., Awaitable[Any]]]
    _commands: Callable[..., Awaitable[list[Any]]]
    _unavailable: Callable[[str], Awaitable[StoreUnavailable]]

    def _init_players(self) -> None:
        self._apply_match = self._script(_APPLY_MATCH)
        self._create_player = self._script(_CREATE_PLAYER)
        self._replace_key = self._script(_REPLACE_KEY)
        self._touch_player = self._script(_TOUCH_PLAYER)

    async def create_player(self, player_id: str, key_hash: str, now: float) -> bool:
        """A new lasting player with this key's hash; False when the id is taken."""
        try:
            made: Any = await self._create_player(
                keys=[self.keys.player(player_id, "card")], args=[key_hash, now, NEW_PLAYER_TTL]
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(made)

    async def player_card(self, player_id: str) -> dict[str, str] | None:
        """The player's card (``k``: their key's hash, ``t``: their session's token, if
        any), their keys kept another ``PLAYER_TTL``; None for no such player."""
        parts = ("card", "matches", "stats", "applied")
        keys = [self.keys.player(player_id, part) for part in parts]
        try:
            found: Any = await self._touch_player(keys=keys, args=[PLAYER_TTL, NEW_PLAYER_TTL])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        if not found:
            return None
        return {k.decode(): v.decode() for k, v in zip(found[::2], found[1::2], strict=True)}

    async def set_player_session(self, player_id: str, token: str) -> None:
        """Name the player's session (a hello with their key and no token resumes it); for
        a player whose card exists (made or read just before)."""
        card = self.keys.player(player_id, "card")
        try:
            await self._commands(("HSET", card, "t", token))  # (its TTL stays)
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc

    async def replace_player_key(self, player_id: str, old_hash: str, new_hash: str) -> bool:
        """Set the player's key hash to ``new_hash`` if it is ``old_hash`` still."""
        try:
            done: Any = await self._replace_key(
                keys=[self.keys.player(player_id, "card")],
                args=[old_hash, new_hash],
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(done)

    async def apply_match(
        self, player_id: str, update: PlayerUpdate, now: float, keep: int, forget_before: float
    ) -> bool:
        """Add a match to the player's record unless it is there already (False then)."""
        keys = [
            self.keys.player(player_id, "applied"),
            self.keys.player(player_id, "matches"),
            self.keys.player(player_id, "stats"),
            self.keys.player(player_id, "card"),
        ]
        try:
            done: Any = await self._apply_match(
                keys=keys, args=update_args(update, now, keep, forget_before)
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(done)

    async def player_record(self, player_id: str, offset: int, n: int) -> PlayerRecord:
        """The player's counters and ``n`` of their matches from ``offset``."""
        matches = self.keys.player(player_id, "matches")
        try:
            blobs, total, flat = await self._commands(
                ("LRANGE", matches, offset, offset + n - 1),
                ("LLEN", matches),
                ("HGETALL", self.keys.player(player_id, "stats")),
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        if isinstance(flat, list):  # (RESP2 on the lean line: a flat list)
            flat = dict(zip(flat[::2], flat[1::2], strict=True))
        stats = read_stats({k.decode(): v for k, v in flat.items()})
        return PlayerRecord(stats, [unpack(blob) for blob in blobs], int(total))

    async def pending_matches(self) -> list[str]:
        """Codes of closed rooms whose match may not be in every player's record yet."""
        try:
            (members,) = await self._commands(("SMEMBERS", self.keys.pending_matches))
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return sorted(m.decode() for m in members)

    async def settled(self, code: str) -> None:
        """Room ``code``'s match is in every player's record: not pending any more."""
        try:
            await self._commands(("SREM", self.keys.pending_matches, code))
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
