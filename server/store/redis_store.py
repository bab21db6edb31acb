"""The Redis store: rooms, their journals and sessions (redis-py asyncio, hiredis parser).

``save_room`` writes a room's new state and appends its journal records to the room's
stream in one Lua script, with a compare-and-set on the stored version: a write built on a
state that has moved on (another process, a stale owner) is refused with ``StoreConflict``.
Any failure to reach Redis is ``StoreUnavailable``, which the server turns into a retryable
error rather than acknowledge what it could not save.

Which Redis it speaks to (one, a cluster, a Sentinel-managed primary) is
``server/store/clients.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from redis import exceptions as redis_errors
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.sentinel import Sentinel

from server.store.base import Lease, RoomWrite, StoredRoom
from server.store.clients import (
    TIMEOUT,
    SentinelTarget,
    WaitingSentinelPool,
    await_primary,
    cluster_client,
    is_cluster,
    sentinel_client,
    sentinel_for,
    single_client,
    split_cluster_hint,
    split_sentinel_url,
    with_address,
)
from server.store.codec import pack, unpack
from server.store.errors import StoreConflict as StoreConflict
from server.store.errors import StoreError as StoreError
from server.store.errors import StoreFailure as StoreFailure
from server.store.errors import StoreFenced as StoreFenced
from server.store.errors import StoreUnavailable as StoreUnavailable
from server.store.group_commit import GroupCommit, ReplicaWait
from server.store.keys import DEFAULT_PREFIX, Keys
from server.store.line import LineScript, RedisLine, line_for
from server.store.player_records import RedisPlayers

#: Seconds a closed room not worth keeping (no match played, see ``Room.worth_keeping``)
#: stays: longer than a lease, so its code is not given to a new room while a process
#: that ran it may still act on it, and a late request finds it closed, not a stranger's.
CLOSED_BRIEFLY = 60

#: KEYS: state hash, log stream, fence counter, tail list. ARGV: expected version (-1: none
#: yet), new version, the whole room ('' for a step), TTL seconds (0: none; the room closes),
#: the writer's fencing token (0: none), one step record ('' for a whole room), then one
#: blob per journal record. A whole room replaces the state and drops the tail; a step is
#: appended to the tail (``server/rooms/steps.py``). A writer whose token is below the one
#: that last wrote is a stale owner. A new room's keys lose any TTL left by an earlier room
#: of the same code; a closing room's keys, the fence too, all get the TTL (while the room
#: lives its fence never expires: a token must not go back for a live room).
_SAVE_ROOM = """
local stored = redis.call('HMGET', KEYS[1], 'f', 'v')
local fence, current = stored[1], stored[2]
if fence and tonumber(fence) > tonumber(ARGV[5]) then
    return redis.error_reply('FENCED by token ' .. fence)
end
if not current then current = '-1' end
if current ~= ARGV[1] then
    return redis.error_reply('CONFLICT stored version ' .. current)
end
if ARGV[3] ~= '' then
    redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'f', ARGV[5])
    redis.call('DEL', KEYS[4])
else
    redis.call('HSET', KEYS[1], 'v', ARGV[2], 'f', ARGV[5])
    redis.call('RPUSH', KEYS[4], ARGV[6])
end
for i = 7, #ARGV do
    redis.call('XADD', KEYS[2], '*', 'e', ARGV[i])
end
local ttl = tonumber(ARGV[4])
if ttl > 0 then
    for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
elseif ARGV[1] == '-1' then
    for i = 2, 3 do redis.call('PERSIST', KEYS[i]) end
end
return 1
"""

#: KEYS: state hash, tail list. The whole room as last written and the step records since,
#: read at one moment; nil when there is no room.
_LOAD_ROOM = """
local whole = redis.call('HGET', KEYS[1], 's')
if not whole then return false end
return {whole, redis.call('LRANGE', KEYS[2], 0, -1)}
"""

#: KEYS: queue, entries, skill. ARGV: player id, now, entry blob, skill. 0 if already
#: queued, else the number now waiting.
_ENQUEUE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return redis.call('ZCARD', KEYS[1])
"""

#: KEYS: queue, skill. ARGV: how many. The longest waiting: [id, joined, skill, ...].
_WAITING = """
local found = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #found, 2 do
    table.insert(out, found[i])
    table.insert(out, found[i + 1])
    table.insert(out, redis.call('HGET', KEYS[2], found[i]) or '')
end
return out
"""

#: KEYS: queue, entries, skill. ARGV: player ids. Takes them all off the queue if every one
#: still waits, else none; returns [id, entry, id, entry, ...] in the order given, or nothing.
_TAKE_PLAYERS = """
for _, id in ipairs(ARGV) do
    if not redis.call('ZSCORE', KEYS[1], id) then return {} end
end
local out = {}
for _, id in ipairs(ARGV) do
    table.insert(out, id)
    table.insert(out, redis.call('HGET', KEYS[2], id) or '')
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
end
return out
"""

#: KEYS: lease, fence counter, state hash. ARGV: the node's lease prefix (``Lease.prefix``:
#: its text before the token), TTL ms. The fencing token of this node's lease (a new one,
#: raised, when the room had no owner), or 0 when another node holds it. A new token is
#: above the last writer's (``f`` in the state) even if the counter was lost, so it never
#: goes back for a stored room.
_ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held then
    local token = string.sub(held, #ARGV[1] + 1)
    if string.sub(held, 1, #ARGV[1]) == ARGV[1] and string.match(token, '^%d+$') then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return tonumber(token)
    end
    return 0
end
local token = redis.call('INCR', KEYS[2])
local last = tonumber(redis.call('HGET', KEYS[3], 'f') or '0')
if token <= last then
    token = last + 1
    redis.call('SET', KEYS[2], token, 'KEEPTTL')
end
redis.call('SET', KEYS[1], ARGV[1] .. token, 'PX', ARGV[2])
return token
"""

#: KEYS: lease. ARGV: NODE:FENCE, TTL ms (0: release). 1 while the lease is still ours.
_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) == 0 then redis.call('DEL', KEYS[1]) else
    redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""

#: KEYS: queue, entries, skill. ARGV: player id. 1 if the player was queued (and is no
#: more).
_LEAVE_QUEUE = """
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return removed
"""

#: KEYS: a lock. ARGV: the holder's random value. Deletes the lock only if it is still
#: that holder's (it may have expired and been taken by another meanwhile).
_RELEASE_LOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: KEYS: session. ARGV: TTL seconds, then field, value, field, value...
_SAVE_SESSION = """
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""

#: KEYS: session. ARGV: TTL seconds. The session's fields (flat), its TTL refreshed.
_LOAD_SESSION = """
local found = redis.call('HGETALL', KEYS[1])
if #found > 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return found
"""


#: KEYS: a room's watched set. ARGV: player id, cap, TTL seconds. Adds the player unless the
#: set holds ``cap`` already; the set lives TTL seconds from now.
_NOTE_WATCHED = """
if redis.call('SCARD', KEYS[1]) < tonumber(ARGV[2]) then redis.call('SADD', KEYS[1], ARGV[1]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

#: KEYS: a finished room's rematch pointer. ARGV: the new code, the code it may replace
#: ('' : none), TTL seconds. 1 if set, 0 if it names another rematch room.
_CLAIM_REMATCH = """
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return 1
"""

#: Keep a finished room's review for as long as the room's state is kept: its TTL copied
#: (a room still open, or gone, keeps none).
_PUT_REVIEW = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
return 1
"""


def stored_room(reply: Any) -> StoredRoom | None:
    """A room as ``_LOAD_ROOM`` read it: its whole state and the step records saved since;
    None when there is no room."""
    if reply is None:
        return None
    whole, tail = reply
    return StoredRoom(unpack(whole), [unpack(record) for record in tail])


class RedisStore(RedisPlayers):
    def __init__(
        self,
        redis: Redis | RedisCluster,
        finished_ttl: float,
        session_ttl: float,
        prefix: str = DEFAULT_PREFIX,
        line: RedisLine | None = None,
        replica_wait: ReplicaWait | None = None,
        once: Redis | None = None,
    ) -> None:
        self.redis = redis
        #: The lean connection of the hot path's commands (a single Redis; else None).
        self.line = line
        #: Without a line, the client of the writes that must not reach Redis twice: the
        #: room saves (a second run of one is refused as a conflict, though the first was
        #: stored) and the relay's publishes (a player would get a frame twice). It never
        #: sends a request again: ``redis``'s retries do, whole, when an answer is late.
        self.once = once
        #: The URL the store was opened with (``subscriber`` connects alongside it).
        self.url: str | None = None
        #: The Sentinels and the service, for a store on a Sentinel-managed primary.
        self.sentinel_target: SentinelTarget | None = None
        self._sentinel: Sentinel | None = None
        #: Subscribers given out on Sentinel, cut off when the primary moves.
        self._subscribers: weakref.WeakSet[Redis] = weakref.WeakSet()
        self.keys = Keys(prefix)
        self.finished_ttl = max(1, int(finished_ttl))
        self.session_ttl = max(1, int(session_ttl))
        #: Every room save, batched per loop turn (``server.store.group_commit``), each
        #: batch acknowledged by ``replica_wait``'s replicas when given.
        self.room_saves = GroupCommit(
            once or redis, _SAVE_ROOM, line=line, replica_wait=replica_wait
        )
        self._enqueue = self._script(_ENQUEUE)
        self._acquire = self._script(_ACQUIRE)
        self._waiting = self._script(_WAITING)
        self._take_players = self._script(_TAKE_PLAYERS)
        self._leave_queue = self._script(_LEAVE_QUEUE)
        self._save_session = self._script(_SAVE_SESSION)
        self._load_session = self._script(_LOAD_SESSION)
        self._release_lock = self._script(_RELEASE_LOCK)
        self._note_watched = self._script(_NOTE_WATCHED)
        self._claim_rematch = self._script(_CLAIM_REMATCH)
        self._put_review = self._script(_PUT_REVIEW)
        #: The lease renewal of every room run here (in batches: ``LineScript.many``).
        self._renew = self._script(_RENEW)
        self._init_players()

    def _script(self, text: str) -> Callable[..., Awaitable[Any]]:
        """A Lua script to call: on the lean line when there is one, else redis-py's."""
        script = self.redis.register_script(text)
        return script if self.line is None else LineScript(self.line, text, script.sha)

    async def _commands(self, *commands: tuple[Any, ...]) -> list[Any]:
        """Plain commands in one round trip, their replies as Redis gave them (on the
        lean line when there is one); an error reply is raised."""
        if self.line is not None:
            replies = await self.line.execute(commands)
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                replies = await pipe.execute(raise_on_error=False)
        for reply in replies:
            if isinstance(reply, redis_errors.ResponseError):
                raise reply
        return replies

    @classmethod
    def from_url(
        cls,
        url: str,
        finished_ttl: float,
        session_ttl: float,
        prefix: str = DEFAULT_PREFIX,
        replica_wait: ReplicaWait | None = None,
    ) -> RedisStore:
        """A store on the Redis at ``url``, without connecting yet: a single Redis, or a
        Redis Cluster when the URL says so (``redis+cluster://`` or ``rediss+cluster://``,
        any one node's address), or the primary that Redis Sentinel names
        (``redis+sentinel://``, see ``split_sentinel_url``). ``connect`` finds out whether
        it is a cluster by asking instead. ``replica_wait``: see ``GroupCommit`` (not on a
        cluster: ValueError)."""
        target = split_sentinel_url(url)
        if target is not None:
            return cls._on_sentinel(url, target, finished_ttl, session_ttl, prefix, replica_wait)
        base, cluster = split_cluster_hint(url)
        return cls._on_one(base, cluster, finished_ttl, session_ttl, prefix, replica_wait)

    @classmethod
    async def connect(
        cls,
        url: str,
        finished_ttl: float,
        session_ttl: float,
        prefix: str = DEFAULT_PREFIX,
        wait: float | None = None,
        replica_wait: ReplicaWait | None = None,
    ) -> RedisStore:
        """A store on the Redis at ``url``, a Redis Cluster if that server says it is a
        cluster node (``INFO cluster``: ``cluster_enabled:1``; any node's address will do),
        the primary that Redis Sentinel names for a ``redis+sentinel://`` URL. Waits for
        Redis (on Sentinel: the primary the Sentinels name) to answer, up to ``wait``
        seconds (None: as long as it takes), then raises ``StoreUnavailable``.
        ``replica_wait``: see ``GroupCommit`` (not on a cluster: ValueError)."""
        target = split_sentinel_url(url)
        if target is not None:
            store = cls._on_sentinel(url, target, finished_ttl, session_ttl, prefix, replica_wait)
            try:
                await await_primary(cast(Redis, store.redis), target, wait)
            except BaseException:
                await store.close()
                raise
            return store
        base, cluster = split_cluster_hint(url)
        if not cluster:
            cluster = await is_cluster(base, wait)
        if cluster and replica_wait is not None:
            raise ValueError("waiting for replicas is not supported on a Redis Cluster")
        return cls._on_one(base, cluster, finished_ttl, session_ttl, prefix, replica_wait)

    @classmethod
    def _on_one(
        cls,
        base: str,
        cluster: bool,
        finished_ttl: float,
        session_ttl: float,
        prefix: str,
        replica_wait: ReplicaWait | None,
    ) -> RedisStore:
        """A store on the Redis (or the cluster) at ``base``."""
        redis = cluster_client(base) if cluster else single_client(base)
        line = None if cluster else line_for(base, TIMEOUT)
        once = None if cluster or line is not None else single_client(base, tries=0)
        store = cls(redis, finished_ttl, session_ttl, prefix, line, replica_wait, once)
        store.url = base
        return store

    @classmethod
    def _on_sentinel(
        cls,
        url: str,
        target: SentinelTarget,
        finished_ttl: float,
        session_ttl: float,
        prefix: str,
        replica_wait: ReplicaWait | None = None,
    ) -> RedisStore:
        sentinel = sentinel_for(target)
        client = sentinel_client(sentinel, target)
        once = sentinel_client(sentinel, target, tries=0)
        if isinstance(once.connection_pool, WaitingSentinelPool):
            once.connection_pool.log_moves = False  # (the client's pool says it)
        store = cls(client, finished_ttl, session_ttl, prefix, replica_wait=replica_wait, once=once)
        store.url = url
        store.sentinel_target = target
        store._sentinel = sentinel
        pool = client.connection_pool
        if isinstance(pool, WaitingSentinelPool):
            pool.on_moved = store._primary_moved
        return store

    async def _primary_moved(self, primary: tuple[str, int]) -> None:
        """The Sentinels name a new primary: drop the links of the subscribers still on the
        old one, which may be up and a primary yet (a manual failover) but no longer hears
        what is published. Their owners see the link drop and subscribe again, there."""
        for client in list(self._subscribers):
            pool = client.connection_pool
            address = getattr(pool, "master_address", None)
            if address is not None and (address[0], int(address[1])) == primary:
                continue  # subscribed on the new primary already
            with contextlib.suppress(Exception):
                await pool.disconnect()

    @property
    def cluster(self) -> bool:
        """Whether this store speaks to a Redis Cluster."""
        return isinstance(self.redis, RedisCluster)

    @property
    def sentinel(self) -> bool:
        """Whether this store speaks to the primary that Redis Sentinel names."""
        return self._sentinel is not None

    async def close(self) -> None:
        await self.room_saves.close()
        if self.line is not None:
            await self.line.close()
        await self.redis.aclose()
        if self.once is not None:
            await self.once.aclose()
        if self._sentinel is not None:
            await self._sentinel.aclose()

    async def _unavailable(self, message: str) -> StoreUnavailable:
        """The error to raise when Redis failed us. Idle pooled connections are dropped
        too: after a Redis restart they are all dead, and each would fail a later call.
        (A cluster client also drops a failed node's connections and reads the slot map
        again on its own; this drops every node's idle ones.)"""
        with contextlib.suppress(Exception):
            if isinstance(self.redis, RedisCluster):
                for node in self.redis.get_nodes():
                    await node.disconnect_free_connections()
            else:
                await self.redis.connection_pool.disconnect(inuse_connections=False)
            if self.once is not None:
                await self.once.connection_pool.disconnect(inuse_connections=False)
        return StoreUnavailable(message)

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except StoreFailure:
            return False

    # --- rooms ------------------------------------------------------------------------

    async def save_room(self, write: RoomWrite) -> None:
        """Write the packed state (or append one packed step record to the room's tail,
        ``state`` None) and append the journal atomically, if the stored version is the
        one the write expects (-1 for a room not yet stored) and no later owner (a higher
        fencing token) has written the room. A closing room's keys expire after
        ``finished_ttl`` (``keep``: a match for replay) or ``CLOSED_BRIEFLY``, and it
        leaves the active and watchable sets; a kept match is pending for its players'
        records (``pending_matches``) from before its closing save."""
        code, closed = write.code, write.closed
        ttl = 0
        if closed:
            ttl = self.finished_ttl if write.keep else min(self.finished_ttl, CLOSED_BRIEFLY)
        args: list[Any] = [
            write.expected,
            write.version,
            write.state or b"",
            ttl,
            write.fence,
            write.step or b"",
            *(pack(record) for record in write.journal),
        ]
        try:
            # A new room joins the active set before its state exists, and leaves it after
            # its closing state is written: a crash in between leaves a code that recovery
            # reads and drops, never a room that recovery would miss.
            if write.expected < 0 and not closed:
                await self._commands(("SADD", self.keys.active_rooms, code))
            if closed and write.keep:
                # Its match goes into its players' records after this save: pending from
                # before it, so a crash in between leaves it to recovery, never lost.
                await self._commands(("SADD", self.keys.pending_matches, code))
            await self.room_saves.call(self._room_keys(code), args)
            if closed:
                await self._commands(
                    ("SREM", self.keys.active_rooms, code), ("ZREM", self.keys.watchable, code)
                )
        except redis_errors.ResponseError as exc:
            if str(exc).startswith("FENCED"):
                raise StoreFenced(f"room {code}: {exc}") from exc
            if str(exc).startswith("CONFLICT"):
                raise StoreConflict(f"room {code}: {exc}") from exc
            raise await self._unavailable(f"room {code}: {exc}") from exc
        except StoreFailure as exc:
            raise await self._unavailable(f"room {code}: {exc}") from exc

    async def save_rooms(self, writes: list[RoomWrite]) -> list[StoreError | None]:
        """``save_room`` for many whole rooms that stay open and add no journal record (a
        takeover's change), in one round trip (per node, on a cluster): for each write,
        None when written, else why not (``StoreConflict``, ``StoreFenced``,
        ``StoreUnavailable``)."""
        if not writes:
            return []
        # Through the room saves' batches, as every save (queued in one turn: one round
        # trip), which never send a save again: redis-py's retries would, past a late
        # answer, and the second run would be refused as a conflict though the first was
        # stored.
        results = await asyncio.gather(
            *(
                self.room_saves.call(
                    self._room_keys(w.code),
                    (w.expected, w.version, w.state or b"", 0, w.fence, b""),
                )
                for w in writes
            ),
            return_exceptions=True,
        )
        out: list[StoreError | None] = []
        for write, result in zip(writes, results, strict=True):
            code = write.code
            if isinstance(result, StoreFailure):
                raise await self._unavailable(str(result)) from result
            if not isinstance(result, BaseException):
                out.append(None)
            elif str(result).startswith("FENCED"):
                out.append(StoreFenced(f"room {code}: {result}"))
            elif str(result).startswith("CONFLICT"):
                out.append(StoreConflict(f"room {code}: {result}"))
            else:
                out.append(StoreUnavailable(f"room {code}: {result}"))
        return out

    # --- leases -----------------------------------------------------------------------

    async def acquire_lease(self, code: str, node: str, ttl: float) -> int:
        """This node's fencing token for running the room, or 0 when another holds it."""
        keys = [
            self.keys.room_lease(code),
            self.keys.room_fence(code),
            self.keys.room_state(code),
        ]
        try:
            token: Any = await self._acquire(keys=keys, args=[Lease.prefix(node), int(ttl * 1000)])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return int(token)

    async def acquire_leases(self, codes: list[str], node: str, ttl: float) -> list[int]:
        """``acquire_lease`` for many rooms in one round trip (per node, on a cluster): the
        fencing token of each, 0 where another node holds it."""
        if not codes:
            return []
        ms, prefix = int(ttl * 1000), Lease.prefix(node)
        try:
            # EVAL in a non-transactional pipeline, as in renew_leases
            async with self.redis.pipeline(transaction=False) as pipe:
                for code in codes:
                    keys = (
                        self.keys.room_lease(code),
                        self.keys.room_fence(code),
                        self.keys.room_state(code),
                    )
                    pipe.eval(_ACQUIRE, len(keys), *keys, prefix, ms)
                tokens: Any = await pipe.execute()
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return [int(token) for token in tokens]

    async def renew_leases(self, leases: dict[str, str], ttl: float) -> list[str]:
        """Renew (``ttl`` 0: release) the leases ``{code: "NODE:FENCE"}``; return the codes
        whose lease is no longer this node's."""
        ms = int(ttl * 1000)
        if not leases:
            return []
        try:
            if isinstance(self._renew, LineScript):
                # on the line: redis-py's pipeline spent tens of milliseconds of one loop
                # turn on thousands of leases, every third of a lease's time
                results: Any = await self._renew.many(
                    [((self.keys.room_lease(code),), (value, ms)) for code, value in leases.items()]
                )
                for reply in results:
                    if isinstance(reply, redis_errors.ResponseError):
                        raise reply
            else:
                # EVAL, not EVALSHA: a cluster pipeline refuses EVALSHA and would not load
                # the script on each node first; the script is short. One round trip per node.
                async with self.redis.pipeline(transaction=False) as pipe:
                    for code, value in leases.items():
                        pipe.eval(_RENEW, 1, self.keys.room_lease(code), value, ms)
                    results = await pipe.execute()
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

    async def note_alive(self, node: str, at: float) -> None:
        """``node`` is alive at ``at`` (wall time): what a process taking its rooms over
        after it died reads as when it died (``alive_stamps``)."""
        try:
            await self.redis.hset(self.keys.nodes_alive, node, repr(at))
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc

    async def alive_stamps(self) -> dict[str, float]:
        """Every process's last sign of life, by node."""
        try:
            found: Any = await self.redis.hgetall(self.keys.nodes_alive)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return {k.decode(): float(v) for k, v in found.items()}

    async def free_rooms(self, codes: list[str]) -> list[str]:
        """The codes among ``codes`` whose lease nobody holds, asked in one pipeline."""
        if not codes:
            return []
        try:
            # (thousands of codes: on the line, see renew_leases)
            held = await self._commands(*(("EXISTS", self.keys.room_lease(code)) for code in codes))
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return [code for code, n in zip(codes, held, strict=True) if not n]

    def _room_keys(self, code: str) -> list[str]:
        """The keys ``_SAVE_ROOM`` writes."""
        keys = self.keys
        return [
            keys.room_state(code),
            keys.room_log(code),
            keys.room_fence(code),
            keys.room_tail(code),
        ]

    async def load_room(self, code: str) -> StoredRoom | None:
        """The room as last saved: its whole state and the step records saved since."""
        return (await self.load_rooms([code]))[0]

    async def load_rooms(self, codes: list[str]) -> list[StoredRoom | None]:
        """``load_room`` for many rooms in one round trip (per node, on a cluster)."""
        if not codes:
            return []
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for code in codes:
                    self.load_in(pipe, code)
                found: Any = await pipe.execute()
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return [stored_room(reply) for reply in found]

    def load_in(self, pipe: Any, code: str) -> None:
        """Queue the read of one room in a pipeline (its reply: see ``stored_room``)."""
        keys = (self.keys.room_state(code), self.keys.room_tail(code))
        pipe.eval(_LOAD_ROOM, len(keys), *keys)

    async def active_rooms(self) -> list[str]:
        try:
            members: Any = await self.redis.smembers(self.keys.active_rooms)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return sorted(m.decode() for m in members)

    async def forget_active(self, code: str) -> None:
        """Drop a code from the active and watchable sets (its state is gone or closed)."""
        try:
            await self.redis.srem(self.keys.active_rooms, code)
            await self.redis.zrem(self.keys.watchable, code)
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
        """List a room for watching (a room listed already keeps its place)."""
        try:
            await self.redis.zadd(self.keys.watchable, {code: created}, nx=True)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc

    async def watchable(self, limit: int) -> list[str]:
        """Codes of live watchable rooms, the newest first."""
        try:
            codes: Any = await self.redis.zrevrange(self.keys.watchable, 0, limit - 1)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return [c.decode() for c in codes]

    # --- after a match: who watched, rematches ---------------------

    async def note_watched(self, code: str, player_id: str, cap: int) -> None:
        """Remember that ``player_id`` watched room ``code`` (for its replay; at most
        ``cap`` watchers are remembered)."""
        keys = [self.keys.room_watched(code)]
        try:
            await self._note_watched(keys=keys, args=[player_id, cap, self.finished_ttl])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc

    async def has_watched(self, code: str, player_id: str) -> bool:
        try:
            found: Any = await self.redis.sismember(self.keys.room_watched(code), player_id)
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(found)

    async def rematch_room(self, code: str) -> str | None:
        """The code of finished room ``code``'s rematch, if someone asked for one."""
        try:
            found: Any = await self.redis.get(self.keys.room_again(code))
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return None if found is None else str(found.decode())

    async def claim_rematch(self, code: str, rematch: str, replacing: str | None) -> bool:
        """Name ``rematch`` finished room ``code``'s rematch, if none is named yet (or the
        one named is ``replacing``); False when another asker named theirs first."""
        keys = [self.keys.room_again(code)]
        try:
            done: Any = await self._claim_rematch(
                keys=keys, args=[rematch, replacing or "", self.finished_ttl]
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(done)

    async def review(self, code: str) -> bytes | None:
        """Finished room ``code``'s review as kept (``put_review``), if it is."""
        try:
            found: Any = await self.redis.get(self.keys.room_review(code))
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc
        return None if found is None else bytes(found)

    async def put_review(self, code: str, review: bytes) -> bool:
        """Keep finished room ``code``'s review as long as the room (False: no room kept
        to expire with)."""
        keys = [self.keys.room_state(code), self.keys.room_review(code)]
        try:
            done: Any = await self._put_review(keys=keys, args=[review])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(done)

    # --- the quick-match queue --------------------------------------------------------

    def _queue_keys(self) -> list[str]:
        return [self.keys.quick_queue, self.keys.quick_entries, self.keys.quick_skill]

    async def enqueue(
        self, player_id: str, now: float, entry: Mapping[str, str], skill: float
    ) -> int:
        """Put a player in the queue, with the skill the matcher pairs them by; 0 when
        already there, else how many now wait."""
        try:
            args: list[Any] = [player_id, now, pack(dict(entry)), repr(float(skill))]
            waiting: Any = await self._enqueue(keys=self._queue_keys(), args=args)
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return int(waiting)

    async def leave_queue(self, player_id: str) -> bool:
        """Take a player out of the queue; False when not in it."""
        try:
            removed: Any = await self._leave_queue(keys=self._queue_keys(), args=[player_id])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(removed)

    async def is_queued(self, player_id: str) -> bool:
        try:
            (score,) = await self._commands(("ZSCORE", self.keys.quick_queue, player_id))
            return score is not None
        except StoreFailure as exc:
            raise await self._unavailable(str(exc)) from exc

    async def waiting(self, limit: int) -> list[tuple[str, float, float | None]]:
        """The ``limit`` longest waiting: (player id, when they joined, their skill or None
        when none was given), longest waiting first."""
        try:
            keys = [self.keys.quick_queue, self.keys.quick_skill]
            flat: Any = await self._waiting(keys=keys, args=[limit])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return [
            (pid.decode(), float(joined), float(skill) if skill else None)
            for pid, joined, skill in zip(flat[::3], flat[1::3], flat[2::3], strict=True)
        ]

    async def take_players(self, player_ids: list[str]) -> list[tuple[str, dict[str, str]]]:
        """Atomically take these players off the queue, with their entries: all of them if
        every one still waits, else none (another process took one first)."""
        try:
            flat: Any = await self._take_players(keys=self._queue_keys(), args=player_ids)
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        pairs = zip(flat[::2], flat[1::2], strict=True)
        return [(pid.decode(), unpack(entry) if entry else {}) for pid, entry in pairs]

    # --- sessions ---------------------------------------------------------------------

    async def save_session(self, token: str, fields: Mapping[str, str]) -> None:
        pairs = [item for field, value in fields.items() for item in (field, value)]
        if not pairs:
            raise ValueError("a session has at least one field")
        try:
            await self._save_session(
                keys=[self.keys.session(token)], args=[self.session_ttl, *pairs]
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc

    async def load_session(self, token: str) -> dict[str, str] | None:
        """The session's fields, refreshing its TTL; None when unknown or expired."""
        try:
            found: Any = await self._load_session(
                keys=[self.keys.session(token)], args=[self.session_ttl]
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        if not found:
            return None
        return {k.decode(): v.decode() for k, v in zip(found[::2], found[1::2], strict=True)}

    # --- a person's lobby lock --------------------------------------------------------

    async def take_lock(self, key: str, holder: str, ttl: float) -> bool:
        """Take the lock ``key`` for ``holder`` (a random value) for ``ttl`` seconds; False
        when another holds it."""
        try:
            (taken,) = await self._commands(
                ("SET", key, holder, "NX", "PX", max(1, int(ttl * 1000)))
            )
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc
        return bool(taken)

    async def release_lock(self, key: str, holder: str) -> None:
        """Give the lock up, if ``holder`` still holds it."""
        try:
            await self._release_lock(keys=[key], args=[holder])
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc

    # --- pub/sub ----------------------------------------------------------------------

    async def publish_many(self, messages: list[tuple[str, bytes]]) -> None:
        """PUBLISH each ``(channel, payload)``, in this order, in one round trip. On a
        cluster they all go to one node (the client's default), which passes every message
        on to all the others, in the order it got them."""
        if not messages:
            return
        try:
            if isinstance(self.redis, RedisCluster):
                await self.redis.initialize()
                node = self.redis.get_default_node()
                async with self.redis.pipeline() as cpipe:
                    for channel, payload in messages:
                        # (pipe.publish is refused by a cluster pipeline: one node is named)
                        cpipe.execute_command("PUBLISH", channel, payload, target_nodes=node)
                    await cpipe.execute()
            elif self.line is not None:
                replies = await self.line.execute([("PUBLISH", c, p) for c, p in messages])
                for reply in replies:
                    if isinstance(reply, redis_errors.ResponseError):
                        raise reply
            else:
                async with (self.once or self.redis).pipeline(transaction=False) as pipe:
                    for channel, payload in messages:
                        pipe.publish(channel, payload)
                    await pipe.execute()
        except (*StoreFailure, redis_errors.ResponseError) as exc:
            raise await self._unavailable(str(exc)) from exc

    def subscriber(self) -> Redis:
        """A new plain client to SUBSCRIBE with (the caller closes it: ``aclose``): no read
        timeout, as a subscriber waits for messages. On a single Redis it connects where
        the store does; on a cluster to one primary node (chosen at random, so processes
        spread over the nodes), since a PUBLISH on any node reaches every node's
        subscribers; on Sentinel to the node the Sentinels name as the primary when it
        connects. After a failover, its link is dropped once the store sees that the
        Sentinels name another primary (within about ``SENTINEL_CHECK`` of its next
        request), as it would be when the Sentinel demotes the old primary (about ten
        seconds on), or at once when the old primary died: a new subscriber then finds the
        new primary."""
        if self.url is None:
            raise RuntimeError("subscriber() needs a store opened by from_url or connect")
        if self._sentinel is not None and self.sentinel_target is not None:
            target = self.sentinel_target
            options = {
                k: v for k, v in target.options.items() if k not in ("max_connections", "timeout")
            }
            # redis-py's own pool (one connection is all a subscriber takes); no retries,
            # so a dropped link is the caller's to see, not silently subscribed again
            subscriber: Redis = self._sentinel.master_for(
                target.service,
                redis_class=Redis,
                **{
                    **options,
                    "socket_timeout": None,
                    "socket_connect_timeout": TIMEOUT,
                    "socket_keepalive": True,
                    "health_check_interval": 30,
                },
            )
            self._subscribers.add(subscriber)
            return subscriber
        url = self.url
        if isinstance(self.redis, RedisCluster):
            nodes = self.redis.get_primaries() or list(
                self.redis.nodes_manager.startup_nodes.values()
            )
            if nodes:
                node = random.choice(nodes)
                url = with_address(url, node.host, int(node.port))
        tcp: dict[str, Any] = {} if url.startswith("unix:") else {"socket_keepalive": True}
        return Redis.from_url(
            url,
            socket_timeout=None,
            socket_connect_timeout=TIMEOUT,
            health_check_interval=30,
            **tcp,
        )
