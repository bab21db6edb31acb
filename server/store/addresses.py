"""What one client address holds in Redis, counted there so that the caps hold across every
server process sharing the Redis: its open rooms and their strong-bot seats, its new
sessions and rooms per window, its failed joins and how long it must wait.

Every key of one address shares the hash tag ``{ADDRESS}`` (``Keys.address``), so each
check-and-count is one Lua script, atomic even on a Redis Cluster. Each key expires: the
window counters with their window, the open rooms ``ttl`` after the last room was created,
the waits with themselves. What an address can make Redis hold is therefore bounded by its
caps (see README, "Limits").

An open room leaves its address's set lazily: at the next claim, codes no longer in the
active set are dropped (a room's code joins the active set before its state is written and
leaves it after its closing state is, so a code out of the set whose state exists, or that
was claimed over ``grace`` seconds ago, is a closed room, or one never stored).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NamedTuple

from redis import exceptions as redis_errors

from server.store.base import StoredRoom
from server.store.errors import StoreFailure
from server.store.redis_store import RedisStore, stored_room

#: KEYS: counter. ARGV: limit, window ms. Counts one more in the window (the window starts
#: at its first count); returns {count, ms left in the window}.
_COUNT = """
local n = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    left = tonumber(ARGV[2])
end
return {n, left}
"""

#: KEYS: rooms (sorted set), strong (hash). ARGV: now, TTL s, room cap (0: none), strong cap
#: (0: none), strong seats wanted, code, new room (1/0), then the dead codes to drop.
#: Returns 0 (claimed), 1 (the room cap is reached), 2 (the strong cap would be passed).
_CLAIM = """
for i = 8, #ARGV do
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('HDEL', KEYS[2], ARGV[i])
end
local seats, room_cap = tonumber(ARGV[5]), tonumber(ARGV[3])
if ARGV[7] == '1' and room_cap > 0 and redis.call('ZCARD', KEYS[1]) >= room_cap then
    return 1
end
if seats > 0 and tonumber(ARGV[4]) > 0 then
    local total = 0
    for _, v in ipairs(redis.call('HVALS', KEYS[2])) do total = total + tonumber(v) end
    if total + seats > tonumber(ARGV[4]) then return 2 end
end
if ARGV[7] == '1' then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[6])
    redis.call('EXPIRE', KEYS[1], ARGV[2])
end
if seats > 0 then
    redis.call('HINCRBY', KEYS[2], ARGV[6], seats)
    redis.call('EXPIRE', KEYS[2], ARGV[2])
end
return 0
"""

#: KEYS: rooms, strong. ARGV: code, the whole room (1/0), strong seats to give back.
_RELEASE = """
if ARGV[2] == '1' then
    redis.call('ZREM', KEYS[1], ARGV[1])
    redis.call('HDEL', KEYS[2], ARGV[1])
elseif redis.call('HINCRBY', KEYS[2], ARGV[1], -tonumber(ARGV[3])) <= 0 then
    redis.call('HDEL', KEYS[2], ARGV[1])
end
return 1
"""

#: KEYS: misses, strikes, blocked. ARGV: limit, window ms, longest wait ms. Counts a failed
#: join; at the limit the address must wait: the window, doubled for each wait in a row
#: (a wait follows another while ``strikes`` lives: twice the last wait). Returns the wait
#: in ms it starts, or 0.
_MISS = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n < tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
local strikes = redis.call('INCR', KEYS[2])
local wait = math.min(tonumber(ARGV[2]) * 2 ^ (strikes - 1), tonumber(ARGV[3]))
redis.call('SET', KEYS[3], strikes, 'PX', math.floor(wait))
redis.call('PEXPIRE', KEYS[2], math.floor(2 * wait))
return math.floor(wait)
"""


class Listed(NamedTuple):
    """A watchable room as stored."""

    code: str
    created: float
    data: StoredRoom | None
    origin: str


class Claim(IntEnum):
    """What a claim on an address's open rooms and strong seats came to."""

    OK = 0
    ROOMS = 1  # the address has its cap of open rooms
    STRONG = 2  # the strong seats would pass the address's cap


class AddressStore:
    """Per-address counts, on the store's Redis and under its key prefix."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.keys = store.keys
        redis = store.redis
        self._count = redis.register_script(_COUNT)
        self._claim = redis.register_script(_CLAIM)
        self._release = redis.register_script(_RELEASE)
        self._miss = redis.register_script(_MISS)

    async def _run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        try:
            return await script(keys=keys, args=args)
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self.store._unavailable(str(exc)) from exc

    async def count(self, address: str, part: str, limit: int, window: float) -> float:
        """Count one more (a new session, a new room) in the address's window; 0 when it
        is within ``limit``, else the seconds until the window ends."""
        n, left = await self._run(
            self._count, [self.keys.address(address, part)], [limit, int(window * 1000)]
        )
        return 0.0 if int(n) <= limit else int(left) / 1000

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
        """Count a new open room (``new_room``) and/or ``strong`` strong-bot seats under
        ``code`` against the address's caps, dropping its rooms that have closed first."""
        rooms, strong_key = (
            self.keys.address(address, "rooms"),
            self.keys.address(address, "strong"),
        )
        dead = await self._closed(rooms, strong_key, now - grace)
        args: list[Any] = [now, max(1, int(ttl)), room_cap, strong_cap, strong, code]
        result = await self._run(self._claim, [rooms, strong_key], [*args, int(new_room), *dead])
        return Claim(int(result))

    async def release(self, address: str, code: str, *, room: bool, strong: int = 0) -> None:
        """Give back a claim that came to nothing: the whole room, or ``strong`` seats."""
        keys = [self.keys.address(address, "rooms"), self.keys.address(address, "strong")]
        await self._run(self._release, keys, [code, int(room), strong])

    async def _closed(self, rooms: str, strong: str, before: float) -> list[str]:
        """The address's codes whose rooms are closed (see the module's docstring)."""
        redis = self.store.redis
        try:
            listed: Any = await redis.zrange(rooms, 0, -1, withscores=True)
            seated: Any = await redis.hkeys(strong)
            created = {c.decode(): float(t) for c, t in listed}
            codes = sorted(set(created) | {c.decode() for c in seated})
            if not codes:
                return []
            async with redis.pipeline(transaction=False) as pipe:
                for code in codes:
                    pipe.sismember(self.keys.active_rooms, code)
                    pipe.exists(self.keys.room_state(code))
                found: Any = await pipe.execute()
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc
        dead = []
        for i, code in enumerate(codes):
            active, stored = found[2 * i], found[2 * i + 1]
            if not active and (stored or created.get(code, before) <= before):
                dead.append(code)
        return dead

    async def blocked(self, address: str) -> float:
        """Seconds the address must still wait before joining by code (0: none)."""
        try:
            left: Any = await self.store.redis.pttl(self.keys.address(address, "blocked"))
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc
        return max(0, int(left)) / 1000

    async def missed(self, address: str, limit: int, window: float, longest: float) -> float:
        """Count a failed join; the seconds of the wait it starts (0: none)."""
        keys = [self.keys.address(address, p) for p in ("misses", "strikes", "blocked")]
        wait = await self._run(self._miss, keys, [limit, int(window * 1000), int(longest * 1000)])
        return int(wait) / 1000

    # --- where public rooms came from, for the list ---------------------------------------

    async def set_origin(self, code: str, address: str) -> None:
        """Note the address a listed room was created from, in the room's state hash (field
        ``a``; it lives and expires with the room's state)."""
        try:
            await self.store.redis.hset(self.keys.room_state(code), "a", address)
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc

    async def listed(self, scan: int) -> list[Listed]:
        """The ``scan`` newest watchable rooms: code, creation time, stored data (None:
        gone) and origin address ("": none), in two round trips."""
        redis = self.store.redis
        try:
            newest: Any = await redis.zrevrange(self.keys.watchable, 0, scan - 1, withscores=True)
            if not newest:
                return []
            async with redis.pipeline(transaction=False) as pipe:
                for code, _ in newest:
                    self.store.load_in(pipe, code.decode())
                    pipe.hget(self.keys.room_state(code.decode()), "a")
                found: Any = await pipe.execute()
        except StoreFailure as exc:
            raise await self.store._unavailable(str(exc)) from exc
        return [
            Listed(
                code.decode(),
                float(created),
                stored_room(reply),
                "" if origin is None else origin.decode(),
            )
            for (code, created), reply, origin in zip(newest, found[::2], found[1::2], strict=True)
        ]
