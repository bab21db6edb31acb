"""Match history: one entry per person seated in a closed room (``GetHistory``, the
profile's match list).

An entry says when the match ended (its closing save), its mode, how many deals were
played of how many, the names at the table, the totals, and the person's result, with the
room code that ``GetReplay`` takes while the match is kept (``--finished-ttl``). It goes
into the lasting player's record with the match's other changes, once
(``server/players/bookkeeping.py``): the player's, whatever session they had.
"""

from __future__ import annotations

from typing import Any, Literal

from protocol.messages import HistoryEntry
from server.rooms.room import Room

#: Matches ``GetHistory`` answers with, the newest first (the profile pages past them).
HISTORY_LENGTH = 20


def entries(room: Room, ended_at: float) -> dict[str, dict[str, Any]]:
    """Player id to their history entry (as plain data) for a closed room worth keeping;
    none for a room closed before any person played in its match."""
    match = room.match
    if match is None or room.closed is None or not room.worth_keeping:
        return {}
    ended: Literal["match_over", "everyone_left", "abandoned"] = "abandoned"
    if room.closed == "match_over":
        ended = "match_over"
    elif room.closed == "everyone_left":
        ended = "everyone_left"
    out: dict[str, dict[str, Any]] = {}
    for seat, s in enumerate(room.seats):
        if s.kind != "person" or not s.player_id or s.held:
            continue
        result: Literal["won", "lost", "unfinished"] = "unfinished"
        if ended == "match_over":
            result = "won" if seat in match.winners else "lost"
        entry = HistoryEntry(
            code=room.code,
            mode=room.mode,
            ended_at=ended_at,
            deals=len(match.deal_scores),
            deals_total=room.deals,
            seats=[x.name or "" for x in room.seats],
            your_seat=seat,
            totals=list(match.totals),
            result=result,
            ended=ended,
        )
        out[s.player_id] = entry.model_dump(mode="json")
    return out
