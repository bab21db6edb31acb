"""What the rooms' side of the server needs of storage: ``RoomStore``, and ``Lease``.

``RoomStore`` is the interface the runner, the lobby and the cluster part depend on;
``RedisStore`` is the one the server runs on, ``MemoryStore`` (``server/store/memory.py``)
the one unit tests run on. A room is saved in one way, new or running: ``save_room`` with
the version it was built on (-1 for a new room), a compare-and-set on it, with the writer's
fencing token: the whole room, or one step record added to the room's tail
(``server/rooms/steps.py``). ``load_room`` gives the whole room with that ``tail``.

A ``Lease`` says which process runs a room: its node (the process's listening address) and
its fencing token. In the store it is the text ``NODE:FENCE``; ``Lease.text`` and
``Lease.parse`` are the only places that build and read it (besides the store's scripts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from server.store.errors import StoreError
from server.store.keys import Keys


@dataclass(frozen=True, slots=True)
class Lease:
    """A process's hold on a room: ``node`` runs it, writing with fencing token ``fence``."""

    node: str
    fence: int

    @property
    def text(self) -> str:
        """As the store keeps it."""
        return f"{self.node}:{self.fence}"

    @classmethod
    def parse(cls, text: str) -> Lease:
        node, _, fence = text.rpartition(":")
        return cls(node, int(fence))


class RoomStore(Protocol):
    """Rooms, their leases and journals, and the lobby's records, as the server uses them.
    Every method raises ``StoreError`` (``server/store/errors.py``) when it did not happen."""

    keys: Keys

    # rooms
    async def save_room(
        self,
        code: str,
        expected_version: int,
        version: int,
        state: bytes | None,
        journal: list[dict[str, Any]],
        closed: bool = False,
        fence: int = 0,
        keep: bool = True,
        step: bytes | None = None,
    ) -> None: ...
    async def save_rooms(
        self, writes: list[tuple[str, int, int, bytes, int]]
    ) -> list[StoreError | None]: ...
    async def load_room(self, code: str) -> dict[str, Any] | None: ...
    async def load_rooms(self, codes: list[str]) -> list[dict[str, Any] | None]: ...
    async def active_rooms(self) -> list[str]: ...
    async def forget_active(self, code: str) -> None: ...
    async def read_log(self, code: str) -> list[dict[str, Any]]: ...
    async def add_watchable(self, code: str, created: float) -> None: ...

    # leases, as text (``Lease`` reads and builds it; ``server/cluster/leases.py``)
    async def acquire_leases(self, codes: list[str], node: str, ttl: float) -> list[int]: ...
    async def renew_leases(self, leases: dict[str, str], ttl: float) -> list[str]: ...
    async def lease_holder(self, code: str) -> str | None: ...
    async def free_rooms(self, codes: list[str]) -> list[str]: ...

    # sessions
    async def save_session(self, token: str, fields: Mapping[str, str]) -> None: ...
    async def load_session(self, token: str) -> dict[str, str] | None: ...

    # the quick-match queue
    async def enqueue(self, player_id: str, now: float, entry: Mapping[str, str]) -> int: ...
    async def leave_queue(self, player_id: str) -> bool: ...
    async def is_queued(self, player_id: str) -> bool: ...
    async def take_match(self, now: float, wait: float) -> list[tuple[str, dict[str, str]]]: ...

    # after a match
    async def note_watched(self, code: str, player_id: str, cap: int) -> None: ...
    async def has_watched(self, code: str, player_id: str) -> bool: ...
    async def rematch_room(self, code: str) -> str | None: ...
    async def claim_rematch(self, code: str, rematch: str, replacing: str | None) -> bool: ...
    async def push_history(self, entries: Mapping[str, dict[str, Any]], keep: int) -> None: ...
    async def history(self, player_id: str, n: int) -> list[dict[str, Any]]: ...

    # a person's lobby lock
    async def take_lock(self, key: str, holder: str, ttl: float) -> bool: ...
    async def release_lock(self, key: str, holder: str) -> None: ...


class ClusterStore(RoomStore, Protocol):
    """A ``RoomStore`` that also carries the messages between processes (pub/sub)."""

    async def publish_many(self, messages: list[tuple[str, bytes]]) -> None:
        """Publish each ``(channel, payload)``, in this order."""

    def subscriber(self) -> Any:
        """A new client to subscribe with: ``pubsub()`` and ``aclose()``, as redis-py's."""
