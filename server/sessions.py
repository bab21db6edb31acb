"""Sessions: a secret token stands for a player, so a person comes back to the same seat.

A token is 32 random bytes from ``secrets``; the player id is public (others never see the
token). The registry also remembers, per player, the last request id it applied and the
answer it gave, so a request the client resends after a drop is recognised, not applied twice.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass


@dataclass
class Session:
    token: str
    player_id: str
    name: str
    room: str | None = None
    last_request_id: int = 0


class SessionRegistry:
    """Sessions of this process, by token and by player id."""

    def __init__(self) -> None:
        self._by_token: dict[str, Session] = {}
        self._by_player: dict[str, Session] = {}

    def open(self, name: str) -> Session:
        """A new session with a fresh secret token and player id."""
        session = Session(
            token=secrets.token_urlsafe(32), player_id="p" + secrets.token_hex(6), name=name
        )
        self._by_token[session.token] = session
        self._by_player[session.player_id] = session
        return session

    def resume(self, token: str) -> Session | None:
        return self._by_token.get(token)

    def of_player(self, player_id: str) -> Session | None:
        return self._by_player.get(player_id)

    def __len__(self) -> int:
        return len(self._by_token)
