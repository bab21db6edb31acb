"""A player's profile from their record (pure): what ``Profile`` shows of them.

Only the name, the statistics, the rating and the matches (with their replay codes): no
key, no token, nothing of another player but the names at their tables.
"""

from __future__ import annotations

import logging
from typing import Any, get_args

from protocol.messages import (
    HistoryEntry,
    ModeRecord,
    Profile,
    PublicProfile,
    RatingView,
    RoomMode,
)
from server.players.outcome import Counter, played, won
from server.store.player_records import PlayerRecord

log = logging.getLogger(__name__)


def entries_of(player_id: str, found: list[dict[str, Any]]) -> list[HistoryEntry]:
    """The entries that read (one that does not is skipped)."""
    out: list[HistoryEntry] = []
    for data in found:
        try:
            out.append(HistoryEntry.model_validate(data))
        except ValueError:
            log.info("a match in the record of %s does not read: skipped", player_id)
    return out


def profile(
    player_id: str, name: str, record: PlayerRecord, offset: int, rating: RatingView | None
) -> Profile:
    """``rating``: the player's as the ladder shows it (None: never rated)."""
    stats = record.stats

    def count(name: str) -> int:
        value = stats.get(name, 0)
        return value if isinstance(value, int) else 0

    best = None
    if isinstance(stats.get("best_entry"), dict):
        kept = entries_of(player_id, [stats["best_entry"]])
        best = kept[0] if kept else None
    return Profile(
        player_id=player_id,
        name=name,
        modes=[
            ModeRecord(mode=mode, played=count(played(mode)), won=count(won(mode)))
            for mode in get_args(RoomMode)
        ],
        landlord_deals=count(Counter.LANDLORD),
        landlord_won=count(Counter.LANDLORD_WON),
        farmer_deals=count(Counter.FARMER),
        farmer_won=count(Counter.FARMER_WON),
        points_won=count(Counter.POINTS_WON),
        points_lost=count(Counter.POINTS_LOST),
        springs=count(Counter.SPRINGS),
        bombs=count(Counter.BOMBS),
        rockets=count(Counter.ROCKETS),
        best=best,
        matches=entries_of(player_id, record.matches),
        offset=offset,
        total=record.total,
        rating=rating,
    )


def public_profile(
    tag: str, name: str, record: PlayerRecord, rating: RatingView | None, history: list[int]
) -> PublicProfile:
    """What anyone may see of a player: no match, so no code, id, key or token."""
    mine = profile("", name, record, 0, rating)
    return PublicProfile(
        tag=tag,
        name=name,
        rating=rating,
        rating_history=history,
        modes=mine.modes,
        landlord_deals=mine.landlord_deals,
        landlord_won=mine.landlord_won,
        farmer_deals=mine.farmer_deals,
        farmer_won=mine.farmer_won,
    )
