"""What the lobby needs of storage, one small protocol per need.

``RedisStore`` (``server/store/redis_store.py``) and ``AddressStore``
(``server/store/addresses.py``) are the server's; ``MemoryStore`` and ``MemoryAddresses``
(``server/store/memory.py``, ``server/store/memory_lobby.py``) are the twins the lobby's unit
tests run on, without Redis. Every method raises ``StoreError`` when it did not happen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from server.players.rating import Rating
from server.store.addresses import Claim, Listed
from server.store.base import ClusterStore, StoredRoom
from server.store.keys import Keys
from server.store.player_records import PlayerRecord, PlayerUpdate
from server.store.puzzles import Attempt, PuzzleEntry, PuzzlePlayer, Started, StoredPuzzle


class SessionStore(Protocol):
    """Sessions by their secret token (``server/lobby/sessions.py``)."""

    async def save_session(self, token: str, fields: Mapping[str, str]) -> None: ...
    async def load_session(self, token: str) -> dict[str, str] | None: ...


class QueueStore(Protocol):
    """The quick-match queue, shared by every process."""

    async def enqueue(
        self, player_id: str, now: float, entry: Mapping[str, str], skill: float
    ) -> int:
        """0 when the player waits already, else how many wait now. ``skill``: the ``mu``
        the matcher pairs them by."""

    async def leave_queue(self, player_id: str) -> bool: ...
    async def is_queued(self, player_id: str) -> bool: ...

    async def waiting(self, limit: int) -> list[tuple[str, float, float | None]]:
        """The ``limit`` longest waiting: (player id, when they joined, their skill or
        None), longest waiting first."""

    async def take_players(self, player_ids: list[str]) -> list[tuple[str, dict[str, str]]]:
        """These players with their entries, taken off the queue at once if every one still
        waits; none otherwise."""


class LockStore(Protocol):
    """Short locks with an owner (a person's lobby lock, ``server/lobby/player_lock.py``)."""

    keys: Keys

    async def take_lock(self, key: str, holder: str, ttl: float) -> bool: ...
    async def release_lock(self, key: str, holder: str) -> None: ...


class RecordStore(Protocol):
    """Rooms as stored, and what outlives their match: who watched, the rematch."""

    async def load_room(self, code: str) -> StoredRoom | None: ...
    async def read_log(self, code: str) -> list[dict[str, Any]]: ...
    async def add_watchable(self, code: str, created: float) -> None: ...
    async def note_watched(self, code: str, player_id: str, cap: int) -> None: ...
    async def has_watched(self, code: str, player_id: str) -> bool: ...
    async def review(self, code: str) -> bytes | None: ...
    async def put_review(self, code: str, review: bytes) -> bool: ...
    async def rematch_room(self, code: str) -> str | None: ...
    async def claim_rematch(self, code: str, rematch: str, replacing: str | None) -> bool: ...


class PlayerStore(Protocol):
    """Lasting players (``server/players/``): their key's hash, and their record of
    matches and counters, each match applied once (``PlayerUpdate``)."""

    async def create_player(self, player_id: str, key_hash: str, now: float) -> bool:
        """A new player; False when the id is taken."""

    async def player_card(self, player_id: str) -> dict[str, str] | None:
        """The player's card: ``k`` their key's hash, ``t`` their session's token (if
        any); None: no such player. The player is seen (kept longer)."""

    async def set_player_session(self, player_id: str, token: str) -> None: ...

    async def replace_player_key(self, player_id: str, old_hash: str, new_hash: str) -> bool:
        """Replace the key's hash if it is ``old_hash`` still."""

    async def apply_match(
        self, player_id: str, update: PlayerUpdate, now: float, keep: int, forget_before: float
    ) -> bool:
        """Add a match to the player's record, once: False when it is there already."""

    async def player_record(self, player_id: str, offset: int, n: int) -> PlayerRecord: ...

    async def pending_matches(self) -> list[str]:
        """Codes of closed rooms whose match may not be in every player's record yet."""

    async def settled(self, code: str) -> None:
        """The match of room ``code`` is in every player's record."""


class PuzzleStore(Protocol):
    """The puzzles and the players' puzzle records (``server/store/puzzles.py``)."""

    async def add_puzzle(
        self, pid: str, entry: PuzzleEntry, rating: Rating, shown: int
    ) -> bool: ...
    async def puzzle(self, pid: str) -> StoredPuzzle | None: ...
    async def puzzle_count(self) -> int: ...
    async def puzzles_near(self, shown: int, width: int, n: int) -> list[str]: ...
    async def rate_puzzle(self, pid: str, before: Rating, after: Rating) -> None: ...
    async def daily_puzzle(self, day: str, candidate: str) -> str: ...
    async def puzzle_ids(self, low: int, high: int) -> list[str]: ...
    async def puzzle_player(self, player: str) -> PuzzlePlayer: ...
    async def tried(self, player: str, ids: Sequence[str]) -> list[bool]: ...
    async def start_attempt(self, player: str, pid: str, now: float) -> Started: ...
    async def attempt(self, player: str) -> Attempt | None: ...
    async def advance_attempt(
        self, player: str, pid: str, step: int, moves: list[Any], now: float
    ) -> bool: ...
    async def end_attempt(
        self, player: str, pid: str, step: int, rated: Rating | None, solved: bool
    ) -> bool: ...
    async def note_own(self, player: str, ids: Sequence[str]) -> None: ...
    async def is_own(self, player: str, pid: str) -> bool: ...
    async def note_turning(self, player: str, marks: Sequence[str], when: float) -> None: ...
    async def turning_since(self, player: str, since: float) -> int: ...


def puzzle_store(store: object) -> PuzzleStore:
    """The puzzle store beside a server's store: on its Redis, or (the tests' in-memory
    store) its in-memory twin."""
    from server.store.redis_store import RedisStore

    if isinstance(store, RedisStore):
        from server.store.puzzles import RedisPuzzles

        return RedisPuzzles(store)
    from server.store.memory import MemoryStore
    from server.store.memory_puzzles import MemoryPuzzles

    if isinstance(store, MemoryStore):
        return MemoryPuzzles(store)
    raise TypeError(f"no puzzle store beside {type(store).__name__}")


class LobbyStore(SessionStore, QueueStore, LockStore, RecordStore, PlayerStore, Protocol):
    """Everything the lobby's handlers keep in the store."""


class ServerStore(LobbyStore, ClusterStore, Protocol):
    """What one server process keeps in its store: the lobby's records and the rooms'."""

    async def ping(self) -> bool:
        """Whether the store answers (the health check)."""


class AddressCounts(Protocol):
    """What each client address holds, counted across processes (the caps of
    ``server/lobby/limits.py``), and where listed rooms came from."""

    async def count(self, address: str, part: str, limit: int, window: float) -> float:
        """One more in the address's window of ``part``; 0 within ``limit``, else the
        seconds until the window ends."""

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
        """Count an open room and/or strong seats under ``code``, or say which cap stops
        it (counting nothing)."""

    async def release(self, address: str, code: str, *, room: bool, strong: int = 0) -> None:
        """Give back a claim that came to nothing."""

    async def blocked(self, address: str) -> float:
        """Seconds the address must still wait before joining by code (0: none)."""

    async def missed(self, address: str, limit: int, window: float, longest: float) -> float:
        """Count a code that named no room; the seconds of the wait it starts (0: none)."""

    async def set_origin(self, code: str, address: str) -> None:
        """Note the address a listed room was created from."""

    async def listed(self, scan: int) -> list[Listed]:
        """The ``scan`` newest watchable rooms, as stored."""
