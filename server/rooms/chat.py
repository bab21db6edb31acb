"""The quick-chat limit: a seated person may say at most ``CHAT_PER_MINUTE`` phrases in
``CHAT_WINDOW`` seconds. Each seat's recent times are kept with the room (so a restart does
not reset them); a phrase over the limit is refused and nothing is sent."""

from __future__ import annotations

from protocol.errors import ErrorCode
from server.rooms.change import RoomError

#: Quick-chat phrases one seat may say in ``CHAT_WINDOW`` seconds.
CHAT_PER_MINUTE = 5
CHAT_WINDOW = 60.0


def said_at(times: list[float], now: float) -> list[float]:
    """A seat's chat times once it says a phrase at ``now`` (those older than the window
    dropped); RoomError (``RATE_LIMITED``, with the wait) past the limit."""
    recent = [t for t in times if now - t < CHAT_WINDOW]
    if len(recent) >= CHAT_PER_MINUTE:
        wait = max(1, int(recent[0] + CHAT_WINDOW - now + 0.999))
        raise RoomError(
            ErrorCode.RATE_LIMITED,
            f"quick chat: at most {CHAT_PER_MINUTE} phrases a minute; the next in {wait} s",
        )
    return [*recent, now]
