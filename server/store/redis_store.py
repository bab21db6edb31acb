"""The Redis store: rooms, their journals and sessions (redis-py asyncio, hiredis parser).

``save_room`` writes a room's new state and appends its journal records to the room's
stream in one Lua script, with a compare-and-set on the stored version: a write built on a
state that has moved on (another process, a stale owner) is refused with ``StoreConflict``.
Any failure to reach Redis is ``StoreUnavailable``, which the server turns into a retryable
error rather than acknowledge what it could not save.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, cast

import msgpack
from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from server.store.keys import DEFAULT_PREFIX, Keys

#: KEYS: state hash, log stream. ARGV: expected version (-1: none yet), new version, state
#: blob, TTL seconds (0: none), the writer's fencing token (0: none), then one blob per
#: journal record. A writer whose token is below the one that last wrote is a stale owner.
_SAVE_ROOM = """
local fence = redis.call('HGET', KEYS[1], 'f')
if fence and tonumber(fence) > tonumber(ARGV[5]) then
    return redis.error_reply('FENCED by token ' .. fence)
end
local current = redis.call('HGET', KEYS[1], 'v')
if not current then current = '-1' end
if current ~= ARGV[1] then
    return redis.error_reply('CONFLICT stored version ' .. current)
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'f', ARGV[5])
for i = 6, #ARGV do
    redis.call('XADD', KEYS[2], '*', 'e', ARGV[i])
end
local ttl = tonumber(ARGV[4])
if ttl > 0 then
    redis.call('EXPIRE', KEYS[1], ttl)
    redis.call('EXPIRE', KEYS[2], ttl)
end
return 1
"""

#: KEYS: queue, entries. ARGV: player id, now, entry blob. 0 if already queued, else the
#: number now waiting.
_ENQUEUE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return redis.call('ZCARD', KEYS[1])
"""

#: KEYS: queue, entries. ARGV: now, wait. Takes the three who waited longest, or everyone
#: waiting (one or two) once the longest has waited ``wait`` seconds; returns
#: [id, entry, id, entry, ...] in queue order, or nothing.
_TAKE_MATCH = """
local n = redis.call('ZCARD', KEYS[1])
if n == 0 then return {} end
local take = 0
if n >= 3 then
    take = 3
else
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    if tonumber(ARGV[1]) - tonumber(oldest[2]) >= tonumber(ARGV[2]) then take = n end
end
if take == 0 then return {} end
local ids = redis.call('ZRANGE', KEYS[1], 0, take - 1)
local out = {}
for _, id in ipairs(ids) do
    table.insert(out, id)
    table.insert(out, redis.call('HGET', KEYS[2], id) or '')
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
end
return out
"""

#: KEYS: lease, fence counter. ARGV: node id, TTL ms. The fencing token of this node's
#: lease (a new one, raised, when the room had no owner), or 0 when another node holds it.
_ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held then
    local node, token = string.match(held, '^(.*):(%d+)$')
    if node == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return tonumber(token)
    end
    return 0
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return token
"""

#: KEYS: lease. ARGV: NODE:FENCE, TTL ms (0: release). 1 while the lease is still ours.
_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) == 0 then redis.call('DEL', KEYS[1]) else
    redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""

#: Redis connections one process keeps at most; more requests than this at once queue.
POOL_SIZE = 256

StoreFailure = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.BusyLoadingError,
    OSError,
)


class StoreError(Exception):
    """Base of the store's errors."""


class StoreUnavailable(StoreError):
    """Redis could not be reached or answered with an error: nothing was saved."""


class StoreConflict(StoreError):
    """The stored version is not the one this write was built on."""


class StoreFenced(StoreConflict):
    """A later owner of the room has written it: this process runs it no more."""


def pack(data: Any) -> bytes:
    return cast(bytes, msgpack.packb(data, use_bin_type=True))


def unpack(blob: bytes) -> Any:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)


class RedisStore:
    def __init__(
        self,
        redis: Redis,
        finished_ttl: float,
        session_ttl: float,
        prefix: str = DEFAULT_PREFIX,
    ) -> None:
        self.redis = redis
        self.keys = Keys(prefix)
        self.finished_ttl = max(1, int(finished_ttl))
        self.session_ttl = max(1, int(session_ttl))
        self._save_room = redis.register_script(_SAVE_ROOM)
        self._enqueue = redis.register_script(_ENQUEUE)
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._take_match = redis.register_script(_TAKE_MATCH)

    @classmethod
    def from_url(
        cls, url: str, finished_ttl: float, session_ttl: float, prefix: str = DEFAULT_PREFIX
    ) -> RedisStore:
        # A burst past the pool's size waits for a connection instead of failing (redis-py's
        # plain pool refuses with "Too many connections", which the load test hit).
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=POOL_SIZE,
            timeout=2,
            socket_timeout=2,
            socket_connect_timeout=2,
            # a pooled connection that Redis dropped (a restart) is retried, reconnected
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.01), 3),
            retry_on_error=[redis_errors.ConnectionError, redis_errors.TimeoutError],
        )
        redis = Redis(connection_pool=pool)
        return cls(redis, finished_ttl, session_ttl, prefix)

    async def close(self) -> None:
        await self.redis.aclose()

    async def _unavailable(self, message: str) -> StoreUnavailable:
        """The error to raise when Redis failed us. Idle pooled connections are dropped
        too: after a Redis restart they are all dead, and each would fail a later call."""
        with contextlib.suppress(Exception):
            await self.redis.connection_pool.disconnect(inuse_connections=False)
        return StoreUnavailable(message)

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except StoreFailure:
            return False

    # --- rooms ------------------------------------------------------------------------

    async def save_room(
        self,
        code: str,
        expected_version: int,
        version: int,
        state: bytes,
        journal: list[dict[str, Any]],
        closed: bool = False,
        fence: int = 0,
    ) -> None:
        """Write the packed state and append the journal atomically, if the stored version
        is ``expected_version`` (-1 for a room not yet stored) and no later owner (a higher
        fencing token) has written the room."""
        args: list[Any] = [
            expected_version,
            version,
            state,
            self.finished_ttl if closed else 0,
            fence,
            *(pack(record) for record in journal),
        ]
        try:
            # A new room joins the active set before its state exists, and leaves it after
            # its closing state is written: a crash in between leaves a code that recovery
            # reads and drops, never a room that recovery would miss.
            if expected_version < 0 and not closed:
                await self.redis.sadd(self.keys.active_rooms, code)
            await self._save_room(
                keys=[self.keys.room_state(code), self.keys.room_log(code)], args=args
            )
            if closed:
                await self.redis.srem(self.keys.active_rooms, code)
                await self.redis.zrem(self.keys.watchable, code)
        except redis_errors.ResponseError as exc:
            if str(exc).startswith("FENCED"):
                raise StoreFenced(f"room {code}: {exc}") from exc
            if str(exc).startswith("CONFLICT"):
                raise StoreConflict(f"room {code}: {exc}") from exc
            raise await self._unavailable(f"room {code}: {exc}") from exc
        except StoreFailure as exc:
            raise await self._unavailable(f"room {code}: {exc}") from exc

    # --- leases -----------------------------------------------------------------------

    async def acquire_lease(self, code: str, node: str, ttl: float) -> int:
        """This node's fencing token for running the room, or 0 when another holds it."""
        keys = [self.keys.room_lease(code), self.keys.room_fence(code)]
        try:
            token: Any = await self._acquire(keys=keys, args=[node, int(ttl * 1000)])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return int(token)

    async def renew_leases(self, leases: dict[str, str], ttl: float) -> list[str]:
        """Renew (``ttl`` 0: release) the leases ``{code: "NODE:FENCE"}``; return the codes
        whose lease is no longer this node's."""
        ms = int(ttl * 1000)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for code, value in leases.items():
                    await self._renew(
                        keys=[self.keys.room_lease(code)], args=[value, ms], client=pipe
                    )
                results: Any = await pipe.execute()
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return [code for code, ok in zip(leases, results, strict=True) if not ok]

    async def lease_holder(self, code: str) -> str | None:
        """``NODE:FENCE`` of the room's lease, or None when nobody runs it."""
        try:
            held: Any = await self.redis.get(self.keys.room_lease(code))
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return None if held is None else str(held.decode())

    async def load_room(self, code: str) -> dict[str, Any] | None:
        try:
            blob: Any = await self.redis.hget(self.keys.room_state(code), "s")
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return None if blob is None else cast(dict[str, Any], unpack(blob))

    async def active_rooms(self) -> list[str]:
        try:
            members: Any = await self.redis.smembers(self.keys.active_rooms)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return sorted(m.decode() for m in members)

    async def forget_active(self, code: str) -> None:
        """Drop a code from the active set (its state is gone or closed)."""
        try:
            await self.redis.srem(self.keys.active_rooms, code)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc

    async def read_log(self, code: str) -> list[dict[str, Any]]:
        """Every journal record of a room, oldest first."""
        try:
            entries: Any = await self.redis.xrange(self.keys.room_log(code))
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return [cast(dict[str, Any], unpack(fields[b"e"])) for _, fields in entries]

    async def add_watchable(self, code: str, created: float) -> None:
        try:
            await self.redis.zadd(self.keys.watchable, {code: created})
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc

    async def watchable(self, limit: int) -> list[str]:
        """Codes of live watchable rooms, the newest first."""
        try:
            codes: Any = await self.redis.zrevrange(self.keys.watchable, 0, limit - 1)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return [c.decode() for c in codes]

    # --- the quick-match queue --------------------------------------------------------

    def _queue_keys(self) -> list[str]:
        return [self.keys.quick_queue, self.keys.quick_entries]

    async def enqueue(self, player_id: str, now: float, entry: Mapping[str, str]) -> int:
        """Put a player in the queue; 0 when already there, else how many now wait."""
        try:
            args: list[Any] = [player_id, now, pack(dict(entry))]
            waiting: Any = await self._enqueue(keys=self._queue_keys(), args=args)
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return int(waiting)

    async def leave_queue(self, player_id: str) -> bool:
        """Take a player out of the queue; False when not in it."""
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zrem(self.keys.quick_queue, player_id)
                pipe.hdel(self.keys.quick_entries, player_id)
                removed, _ = await pipe.execute()
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(removed)

    async def is_queued(self, player_id: str) -> bool:
        try:
            return await self.redis.zscore(self.keys.quick_queue, player_id) is not None
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc

    async def take_match(self, now: float, wait: float) -> list[tuple[str, dict[str, str]]]:
        """Atomically take the players of one quick match off the queue (see _TAKE_MATCH)."""
        try:
            flat: Any = await self._take_match(keys=self._queue_keys(), args=[now, wait])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        pairs = zip(flat[::2], flat[1::2], strict=True)
        return [(pid.decode(), unpack(entry) if entry else {}) for pid, entry in pairs]

    # --- sessions ---------------------------------------------------------------------

    async def save_session(self, token: str, fields: Mapping[str, str]) -> None:
        key = self.keys.session(token)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                mapping: Any = dict(fields)
                pipe.hset(key, mapping=mapping)
                pipe.expire(key, self.session_ttl)
                await pipe.execute()
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc

    async def load_session(self, token: str) -> dict[str, str] | None:
        """The session's fields, refreshing its TTL; None when unknown or expired."""
        key = self.keys.session(token)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hgetall(key)
                pipe.expire(key, self.session_ttl)
                found, _ = await pipe.execute()
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        if not found:
            return None
        return {k.decode(): v.decode() for k, v in found.items()}
