"""What the rooms' side of the server needs of storage: ``RoomStore``, and ``Lease``.

``RoomStore`` is the interface the runner, the lobby and the cluster part depend on;
``RedisStore`` is the one the server runs on, ``MemoryStore`` (``server/store/memory.py``)
the one unit tests run on. A room is saved in one way, new or running: ``save_room`` with
a ``RoomWrite``, built on the version it names (-1 for a new room), a compare-and-set on
it, with the writer's fencing token: the whole room, or one step record added to the
room's tail (``server/rooms/steps.py``). ``load_room`` gives a ``StoredRoom``: the whole
room as last written whole, and the step records since.

A ``Lease`` says which process runs a room: its node (the process's listening address) and
its fencing token. In the store it is the text ``NODE:FENCE``: ``Lease.text`` builds it,
``Lease.parse`` reads it, and the store's scripts get the ``NODE:`` part from
``Lease.prefix`` (the token is counted there), so the form is written down once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.store.errors import StoreError
from server.store.keys import Keys

#: A journal record, as the game makes it (``server/game/journal.py``).
JournalRecord = dict[str, Any]
#: A step record, as the rooms make it (``server/rooms/steps.py``).
StepRecord = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Lease:
    """A process's hold on a room: ``node`` runs it, writing with fencing token ``fence``."""

    node: str
    fence: int

    @property
    def text(self) -> str:
        """As the store keeps it."""
        return f"{self.prefix(self.node)}{self.fence}"

    @staticmethod
    def prefix(node: str) -> str:
        """What a lease's text starts with when ``node`` holds it (the token follows)."""
        return f"{node}:"

    @classmethod
    def parse(cls, text: str) -> Lease:
        node, _, fence = text.rpartition(":")
        return cls(node, int(fence))


@dataclass(slots=True)  # (not frozen: one is built for every save, three times faster so)
class RoomWrite:
    """One write of a room: if the stored version is ``expected`` (-1: no room stored yet)
    and no later owner (a higher fencing token than ``fence``) wrote it, the room is at
    ``version`` now: ``state``, the whole room packed, or (``state`` None) ``step``, one
    packed step record added to its tail; and its ``journal`` records are appended to its
    log. ``closed``: the room ends with this write, its keys kept a long while when
    ``keep`` (a match worth replaying), else briefly."""

    code: str
    expected: int
    version: int
    state: bytes | None
    journal: list[JournalRecord] = field(default_factory=list)
    closed: bool = False
    fence: int = 0
    keep: bool = True
    step: bytes | None = None


@dataclass(slots=True)
class StoredRoom:
    """A room as the store holds it: ``state``, its plain data as last written whole, and
    ``tail``, the step records saved since (replayed over it to get the room as it
    stands: ``server/rooms/stored.py``)."""

    state: dict[str, Any]
    tail: list[StepRecord] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        """Whether the room had ended when last written whole (a step never ends one)."""
        return self.state.get("closed") is not None


class RoomStore(Protocol):
    """Rooms, their leases and journals, and the lobby's records, as the server uses them.
    Every method raises ``StoreError`` (``server/store/errors.py``) when it did not happen."""

    keys: Keys

    # rooms
    async def save_room(self, write: RoomWrite) -> None: ...
    async def save_rooms(self, writes: list[RoomWrite]) -> list[StoreError | None]: ...
    async def load_room(self, code: str) -> StoredRoom | None: ...
    async def load_rooms(self, codes: list[str]) -> list[StoredRoom | None]: ...
    async def active_rooms(self) -> list[str]: ...
    async def forget_active(self, code: str) -> None: ...
    async def read_log(self, code: str) -> list[dict[str, Any]]: ...
    async def add_watchable(self, code: str, created: float) -> None: ...

    # leases, as text (``Lease`` reads and builds it; ``server/cluster/leases.py``)
    async def acquire_leases(self, codes: list[str], node: str, ttl: float) -> list[int]: ...
    async def renew_leases(self, leases: dict[str, str], ttl: float) -> list[str]: ...
    async def lease_holder(self, code: str) -> str | None: ...
    async def free_rooms(self, codes: list[str]) -> list[str]: ...
    async def note_alive(self, node: str, at: float) -> None: ...
    async def alive_stamps(self) -> dict[str, float]: ...

    # sessions
    async def save_session(self, token: str, fields: Mapping[str, str]) -> None: ...
    async def load_session(self, token: str) -> dict[str, str] | None: ...

    # the quick-match queue
    async def enqueue(
        self, player_id: str, now: float, entry: Mapping[str, str], skill: float
    ) -> int: ...
    async def leave_queue(self, player_id: str) -> bool: ...
    async def is_queued(self, player_id: str) -> bool: ...
    async def waiting(self, limit: int) -> list[tuple[str, float, float | None]]: ...
    async def take_players(self, player_ids: list[str]) -> list[tuple[str, dict[str, str]]]: ...

    # after a match
    async def note_watched(self, code: str, player_id: str, cap: int) -> None: ...
    async def has_watched(self, code: str, player_id: str) -> bool: ...
    async def rematch_room(self, code: str) -> str | None: ...
    async def claim_rematch(self, code: str, rematch: str, replacing: str | None) -> bool: ...

    # a person's lobby lock
    async def take_lock(self, key: str, holder: str, ttl: float) -> bool: ...
    async def release_lock(self, key: str, holder: str) -> None: ...


class PubSub(Protocol):
    """One subscription's end, as redis-py's ``PubSub`` (as far as the relay uses it)."""

    def subscribe(self, *channels: str) -> Awaitable[Any]: ...
    def unsubscribe(self, *channels: str) -> Awaitable[Any]: ...
    def get_message(self, *, timeout: float | None = ...) -> Awaitable[dict[str, Any] | None]: ...
    def aclose(self) -> Awaitable[None]: ...


class Subscriber(Protocol):
    """A client to subscribe with, as redis-py's ``Redis`` (the caller closes it)."""

    def pubsub(self, *, ignore_subscribe_messages: bool = ...) -> PubSub: ...
    def aclose(self) -> Awaitable[None]: ...


class ClusterStore(RoomStore, Protocol):
    """A ``RoomStore`` that also carries the messages between processes (pub/sub)."""

    async def publish_many(self, messages: list[tuple[str, bytes]]) -> None:
        """Publish each ``(channel, payload)``, in this order."""

    def subscriber(self) -> Subscriber:
        """A new client to subscribe with (its caller closes it)."""
