"""Who a hello speaks for: a lasting player, proved by their key (``server/players/keys``).

A new person gets a new player and its key (returned once, in the welcome, to them only);
a key names its player's record, wherever and whenever it is used; a session from before
keys gets a key for its player id on its next hello. ``replace`` gives a player a new key,
and the old one stops working at once: the store keeps one hash per player.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol.errors import ErrorCode
from server.lobby.stores import PlayerStore
from server.players import keys
from server.rooms.room import RoomError

#: Tries at a fresh player id before giving up (two alike in 64 bits: never, in practice).
ID_TRIES = 3


@dataclass(frozen=True)
class Known:
    """A key proved: its player, and the token of their last session (if any)."""

    player_id: str
    session: str | None


def bad_key() -> RoomError:
    return RoomError(ErrorCode.BAD_KEY, "unknown or replaced player key")


class Identities:
    """Issuing, proving and replacing player keys, over the store's player cards."""

    def __init__(self, store: PlayerStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    async def prove(self, key: str) -> Known:
        """The player whose key this is; ``bad_key`` when it is no player's (now)."""
        player_id = keys.player_of(key)
        if player_id is None:
            raise bad_key()
        card = await self.store.player_card(player_id)
        if card is None or not keys.matches(key, card.get("k", "")):
            raise bad_key()
        return Known(player_id, card.get("t") or None)

    async def new_player(self) -> tuple[str, str]:
        """A new player: their id and key (the key is not kept here, only its hash)."""
        for _ in range(ID_TRIES):
            player_id = keys.new_player_id()
            key = keys.new_key(player_id)
            if await self.store.create_player(player_id, keys.key_hash(key), self.clock()):
                return player_id, key
        raise RoomError(ErrorCode.UNAVAILABLE, "could not make a new player: retry")

    async def key_for(self, player_id: str) -> str | None:
        """A first key for a player who has none (a session from before keys); None when
        they have one (only its holder has it)."""
        if await self.store.player_card(player_id) is not None:
            return None
        key = keys.new_key(player_id)
        if await self.store.create_player(player_id, keys.key_hash(key), self.clock()):
            return key
        return None

    async def replace(self, player_id: str) -> str:
        """A new key for the player; the old one works no more."""
        card = await self.store.player_card(player_id)
        old = "" if card is None else card.get("k", "")
        key = keys.new_key(player_id)
        if not old:
            made = await self.store.create_player(player_id, keys.key_hash(key), self.clock())
        else:
            made = await self.store.replace_player_key(player_id, old, keys.key_hash(key))
        if not made:
            raise RoomError(ErrorCode.UNAVAILABLE, "the key changed meanwhile: retry")
        return key

    async def note_session(self, player_id: str, token: str) -> None:
        """The player's session is ``token`` now (their key resumes it)."""
        await self.store.set_player_session(player_id, token)
