"""A room's watchers: people who see the table as a spectator does (no hand), hear the
quick chat, and leave when their connection ends (they have no seat to come back to). A
room may cap how many it takes."""

from __future__ import annotations

from protocol.errors import ErrorCode
from server.rooms.change import RoomError


def add_watcher(watchers: list[str], player_id: str, cap: int = 0) -> bool:
    """Add ``player_id`` (False: watching already); past ``cap`` (0: none) RoomError
    ``ROOM_FULL``, nothing added."""
    if player_id in watchers:
        return False
    if 0 < cap <= len(watchers):
        raise RoomError(ErrorCode.ROOM_FULL, f"this room has {len(watchers)} watchers")
    watchers.append(player_id)
    return True


def drop_watcher(watchers: list[str], player_id: str) -> bool:
    """Take ``player_id`` out (they stop watching, or take a seat); False if not there."""
    if player_id not in watchers:
        return False
    watchers.remove(player_id)
    return True
