"""The lasting players' records in memory (``MemoryPlayers``, a part of ``MemoryStore``),
as ``RedisPlayers``' scripts keep them: a match applied once, a key replaced only over the
one expected."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from server.store.codec import pack, unpack
from server.store.errors import StoreUnavailable
from server.store.player_records import PlayerRecord, PlayerUpdate


@dataclass
class MemoryPlayer:
    """One player's card, matches (packed, newest first), counters and applied ids."""

    key_hash: str
    since: float
    matches: list[bytes] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    applied: dict[str, float] = field(default_factory=dict)
    session: str | None = None


class PlayersData(Protocol):
    """What the player operations read of the shared memory (``MemoryRedis`` has it): this
    module stands below ``memory``, which builds the store from it."""

    down: bool
    players: dict[str, MemoryPlayer]
    pending: set[str]


class MemoryPlayers:
    """The player operations of ``MemoryStore`` (over its ``data``)."""

    data: PlayersData

    def _player_up(self) -> None:
        if self.data.down:
            raise StoreUnavailable("the memory store is down")

    async def create_player(self, player_id: str, key_hash: str, now: float) -> bool:
        self._player_up()
        player = self.data.players.get(player_id)
        if player is None:
            self.data.players[player_id] = MemoryPlayer(key_hash, now)
        elif player.key_hash:
            return False
        else:  # a record without a card yet (matches of a session from before keys)
            player.key_hash, player.since = key_hash, now
        return True

    async def player_card(self, player_id: str) -> dict[str, str] | None:
        self._player_up()
        player = self.data.players.get(player_id)
        if player is None or not player.key_hash:
            return None
        card = {"k": player.key_hash, "since": str(player.since)}
        return card if player.session is None else {**card, "t": player.session}

    async def set_player_session(self, player_id: str, token: str) -> None:
        self._player_up()
        player = self.data.players.get(player_id)
        if player is not None:
            player.session = token

    async def replace_player_key(self, player_id: str, old_hash: str, new_hash: str) -> bool:
        self._player_up()
        player = self.data.players.get(player_id)
        if player is None or player.key_hash != old_hash:
            return False
        player.key_hash = new_hash
        return True

    async def apply_match(
        self, player_id: str, update: PlayerUpdate, now: float, keep: int, forget_before: float
    ) -> bool:
        self._player_up()
        player = self.data.players.get(player_id)
        if player is None:  # (Redis makes the keys as it writes them: a card-less record)
            player = self.data.players[player_id] = MemoryPlayer("", now)
        if update.match in player.applied:
            return False
        player.applied = {m: t for m, t in player.applied.items() if t >= forget_before}
        player.applied[update.match] = now
        entry = pack(update.entry)
        player.matches.insert(0, entry)
        del player.matches[keep:]
        stats = player.stats
        if update.best is not None and ("best" not in stats or update.best > stats["best"]):
            stats["best"], stats["best_entry"] = update.best, unpack(entry)
        for name, amount in update.add.items():
            stats[name] = int(stats.get(name, 0)) + amount
        for name, value in update.put.items():
            stats[name] = value
        return True

    async def player_record(self, player_id: str, offset: int, n: int) -> PlayerRecord:
        self._player_up()
        player = self.data.players.get(player_id)
        if player is None:
            return PlayerRecord({}, [], 0)
        page = [dict(unpack(blob)) for blob in player.matches[offset : offset + n]]
        return PlayerRecord(dict(player.stats), page, len(player.matches))

    async def pending_matches(self) -> list[str]:
        self._player_up()
        return sorted(self.data.pending)

    async def settled(self, code: str) -> None:
        self._player_up()
        self.data.pending.discard(code)
