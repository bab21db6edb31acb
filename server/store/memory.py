"""``MemoryStore``: the ``RoomStore`` in this process's memory, with pub/sub between the
stores of one ``MemoryRedis`` (several "processes" of one test), for fast tests without
Redis. It keeps the rules the Redis scripts keep: a room's write is a compare-and-set on
its version refused to a lower fencing token than the last writer's, a lease is one node's
at a time and a new one raises the token, leases run out on the store's clock.

``MemoryRedis.drop`` loses published messages that match (pub/sub is at most once).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.store.base import Lease, RoomWrite, StoredRoom, Subscriber
from server.store.codec import pack, unpack
from server.store.errors import StoreConflict, StoreError, StoreFenced, StoreUnavailable
from server.store.keys import DEFAULT_PREFIX, Keys
from server.store.memory_players import MemoryPlayer, MemoryPlayers


@dataclass
class _Room:
    version: int = -1
    state: bytes = b""
    fence: int = 0
    log: list[bytes] = field(default_factory=list)
    tail: list[bytes] = field(default_factory=list)


class MemoryRedis:
    """What the stores of one test share: rooms, leases, sessions, the queue, channels."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.rooms: dict[str, _Room] = {}
        self.active: set[str] = set()
        self.watchable: dict[str, float] = {}
        self.leases: dict[str, tuple[str, float]] = {}  # code: (NODE:FENCE, expiry)
        self.fences: dict[str, int] = {}
        #: Each node's last sign of life (``note_alive``).
        self.alive: dict[str, float] = {}
        self.sessions: dict[str, dict[str, str]] = {}
        self.queue: dict[str, tuple[float, bytes]] = {}
        self.queue_skill: dict[str, float] = {}
        self.watched: dict[str, set[str]] = {}
        self.again: dict[str, str] = {}
        self.reviews: dict[str, bytes] = {}
        #: Lasting players by id, and the codes of matches pending for their records.
        self.players: dict[str, MemoryPlayer] = {}
        self.pending: set[str] = set()
        self.locks: dict[str, tuple[str, float]] = {}  # key: (holder, expiry)
        self.subscribers: list[MemoryPubSub] = []
        #: Published messages for which this says True are lost.
        self.drop: Callable[[str, bytes], bool] = lambda channel, data: False
        #: Set to fail every call with StoreUnavailable-like errors (Redis away).
        self.down = False
        #: Set to store a room's write and then fail it as if its answer was lost (Redis
        #: stopped answering after it took the write); the store is down from then on.
        self.lose_answers = False
        #: ``lose_answers`` for taking a lock (a person's lobby lock) instead.
        self.lose_lock_answers = False

    def keep(self) -> Callable[[], None]:
        """Note the rooms, leases and fences as they are now; the function returned puts
        them back so, losing every write since: a Redis started again from an older file,
        or a replica promoted that had not had the last writes."""
        rooms = {
            c: _Room(r.version, r.state, r.fence, list(r.log), list(r.tail))
            for c, r in self.rooms.items()
        }
        active, leases, fences = set(self.active), dict(self.leases), dict(self.fences)
        watchable = dict(self.watchable)

        def lose() -> None:
            self.rooms, self.active, self.watchable = rooms, active, watchable
            self.leases, self.fences = leases, fences

        return lose

    def lease(self, code: str) -> str | None:
        held = self.leases.get(code)
        if held is None or held[1] <= self.clock():
            self.leases.pop(code, None)
            return None
        return held[0]

    def publish(self, channel: str, data: bytes) -> None:
        if self.drop(channel, data):
            return
        for sub in self.subscribers:
            if channel in sub.channels:
                sub.queue.put_nowait({"type": "message", "channel": channel, "data": data})


class MemoryPubSub:
    """A subscriber's end (``PubSub``: as redis-py's, as far as the relay uses it)."""

    def __init__(self, redis: MemoryRedis) -> None:
        self.redis = redis
        self.channels: set[str] = set()
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        redis.subscribers.append(self)

    async def subscribe(self, *channels: str) -> None:
        self.channels.update(channels)

    async def unsubscribe(self, *channels: str) -> None:
        self.channels.difference_update(channels)

    async def get_message(self, *, timeout: float | None = None) -> dict[str, Any] | None:
        return await self.queue.get()

    async def aclose(self) -> None:
        if self in self.redis.subscribers:
            self.redis.subscribers.remove(self)


class _Subscriber:
    """A client to subscribe with (``Subscriber``), over the stores' shared memory."""

    def __init__(self, redis: MemoryRedis) -> None:
        self.redis = redis

    def pubsub(self, *, ignore_subscribe_messages: bool = True) -> MemoryPubSub:
        return MemoryPubSub(self.redis)

    async def aclose(self) -> None:
        return None


class _NoScripts:
    """Stands for redis-py's client where a part registers its scripts at construction (the
    caps per client address, ``server/store/addresses.py``): with every cap off, as in the
    lobby's unit tests, none of them runs; one that does is refused."""

    def register_script(self, script: str) -> Callable[..., Any]:
        def refused(*args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the caps per client address need Redis")

        return refused


class MemoryStore(MemoryPlayers):
    """A ``RoomStore`` (and the relay's publishing and subscribing) over ``MemoryRedis``."""

    data: MemoryRedis

    def __init__(self, redis: MemoryRedis | None = None, prefix: str = DEFAULT_PREFIX) -> None:
        self.data = redis if redis is not None else MemoryRedis()
        self.keys = Keys(prefix)
        self.redis = _NoScripts()
        #: Every room write, in order: (code, expected version, version, fence).
        self.writes: list[tuple[str, int, int, int]] = []

    def _up(self) -> None:
        if self.data.down:
            raise StoreUnavailable("the memory store is down")

    # --- rooms ------------------------------------------------------------------------

    def _save(self, write: RoomWrite) -> None:
        code, fence = write.code, write.fence
        room = self.data.rooms.get(code) or _Room()
        if room.fence > fence:
            raise StoreFenced(f"room {code}: FENCED by token {room.fence}")
        if room.version != write.expected:
            raise StoreConflict(f"room {code}: CONFLICT stored version {room.version}")
        room.version, room.fence = write.version, fence
        if write.state:
            room.state, room.tail = write.state, []
        else:
            room.tail.append(write.step or b"")
        self.data.rooms[code] = room
        self.writes.append((code, write.expected, write.version, fence))

    async def save_room(self, write: RoomWrite) -> None:
        self._up()
        code = write.code
        if write.expected < 0 and not write.closed:
            self.data.active.add(code)
        if write.closed and write.keep:
            self.data.pending.add(code)
        self._save(write)
        self.data.rooms[code].log.extend(pack(record) for record in write.journal)
        if write.closed:
            self.data.active.discard(code)
            self.data.watchable.pop(code, None)
        if self.data.lose_answers:
            self.data.down = True
            raise StoreUnavailable("the memory store took the write, its answer was lost")

    async def save_rooms(self, writes: list[RoomWrite]) -> list[StoreError | None]:
        self._up()
        out: list[StoreError | None] = []
        for write in writes:
            try:
                self._save(write)
                out.append(None)
            except StoreError as exc:
                out.append(exc)
        return out

    async def load_room(self, code: str) -> StoredRoom | None:
        self._up()
        room = self.data.rooms.get(code)
        if room is None or not room.state:
            return None
        return StoredRoom(unpack(room.state), [unpack(record) for record in room.tail])

    async def load_rooms(self, codes: list[str]) -> list[StoredRoom | None]:
        return [await self.load_room(code) for code in codes]

    async def active_rooms(self) -> list[str]:
        self._up()
        return sorted(self.data.active)

    async def forget_active(self, code: str) -> None:
        self.data.active.discard(code)
        self.data.watchable.pop(code, None)

    async def read_log(self, code: str) -> list[dict[str, Any]]:
        room = self.data.rooms.get(code)
        return [] if room is None else [dict(unpack(blob)) for blob in room.log]

    async def add_watchable(self, code: str, created: float) -> None:
        self.data.watchable.setdefault(code, created)

    # --- leases -----------------------------------------------------------------------

    async def acquire_leases(self, codes: list[str], node: str, ttl: float) -> list[int]:
        self._up()
        out = []
        for code in codes:
            held = self.data.lease(code)
            if held is not None:
                lease = Lease.parse(held)
                if lease.node != node:
                    out.append(0)
                    continue
                fence = lease.fence
            else:
                last = self.data.rooms[code].fence if code in self.data.rooms else 0
                fence = max(self.data.fences.get(code, 0) + 1, last + 1)
                self.data.fences[code] = fence
            self.data.leases[code] = (Lease(node, fence).text, self.data.clock() + ttl)
            out.append(fence)
        return out

    async def renew_leases(self, leases: dict[str, str], ttl: float) -> list[str]:
        self._up()
        lost = []
        for code, text in leases.items():
            if self.data.lease(code) != text:
                lost.append(code)
            elif ttl == 0:
                del self.data.leases[code]
            else:
                self.data.leases[code] = (text, self.data.clock() + ttl)
        return lost

    async def lease_holder(self, code: str) -> str | None:
        self._up()
        return self.data.lease(code)

    async def free_rooms(self, codes: list[str]) -> list[str]:
        self._up()
        return [code for code in codes if self.data.lease(code) is None]

    async def note_alive(self, node: str, at: float) -> None:
        self._up()
        self.data.alive[node] = at

    async def alive_stamps(self) -> dict[str, float]:
        self._up()
        return dict(self.data.alive)

    # --- sessions ---------------------------------------------------------------------

    async def save_session(self, token: str, fields: Mapping[str, str]) -> None:
        self._up()
        self.data.sessions.setdefault(token, {}).update(fields)

    async def load_session(self, token: str) -> dict[str, str] | None:
        self._up()
        found = self.data.sessions.get(token)
        return None if found is None else dict(found)

    # --- the quick-match queue --------------------------------------------------------

    async def enqueue(
        self, player_id: str, now: float, entry: Mapping[str, str], skill: float
    ) -> int:
        if player_id in self.data.queue:
            return 0
        self.data.queue[player_id] = (now, pack(dict(entry)))
        self.data.queue_skill[player_id] = float(skill)
        return len(self.data.queue)

    async def leave_queue(self, player_id: str) -> bool:
        self.data.queue_skill.pop(player_id, None)
        return self.data.queue.pop(player_id, None) is not None

    async def is_queued(self, player_id: str) -> bool:
        return player_id in self.data.queue

    async def waiting(self, limit: int) -> list[tuple[str, float, float | None]]:
        longest = sorted(self.data.queue.items(), key=lambda item: (item[1][0], item[0]))
        skill = self.data.queue_skill
        return [(pid, joined, skill.get(pid)) for pid, (joined, _) in longest[:limit]]

    async def take_players(self, player_ids: list[str]) -> list[tuple[str, dict[str, str]]]:
        queue = self.data.queue
        if not all(pid in queue for pid in player_ids):
            return []
        taken = [(pid, dict(unpack(queue.pop(pid)[1]))) for pid in player_ids]
        for pid in player_ids:
            self.data.queue_skill.pop(pid, None)
        return taken

    # --- after a match ----------------------------------------------------------------

    async def note_watched(self, code: str, player_id: str, cap: int) -> None:
        watched = self.data.watched.setdefault(code, set())
        if len(watched) < cap:
            watched.add(player_id)

    async def has_watched(self, code: str, player_id: str) -> bool:
        return player_id in self.data.watched.get(code, set())

    async def review(self, code: str) -> bytes | None:
        return self.data.reviews.get(code)

    async def put_review(self, code: str, review: bytes) -> bool:
        if code not in self.data.rooms:
            return False
        self.data.reviews[code] = review
        return True

    async def rematch_room(self, code: str) -> str | None:
        return self.data.again.get(code)

    async def claim_rematch(self, code: str, rematch: str, replacing: str | None) -> bool:
        current = self.data.again.get(code)
        if current is not None and current != replacing:
            return False
        self.data.again[code] = rematch
        return True

    # --- a person's lobby lock --------------------------------------------------------

    async def take_lock(self, key: str, holder: str, ttl: float) -> bool:
        self._up()
        held = self.data.locks.get(key)
        if held is not None and held[1] > self.data.clock():
            return False
        self.data.locks[key] = (holder, self.data.clock() + ttl)
        if self.data.lose_lock_answers:
            self.data.down = True
            raise StoreUnavailable("the memory store took the lock, its answer was lost")
        return True

    async def release_lock(self, key: str, holder: str) -> None:
        self._up()
        held = self.data.locks.get(key)
        if held is not None and held[0] == holder:
            del self.data.locks[key]

    # --- pub/sub ----------------------------------------------------------------------

    async def publish_many(self, messages: list[tuple[str, bytes]]) -> None:
        self._up()
        for channel, data in messages:
            self.data.publish(channel, data)

    def subscriber(self) -> Subscriber:
        """A subscriber's client (``pubsub()``, ``aclose()``), as ``RedisStore``'s."""
        return _Subscriber(self.data)
