"""What a closed match means for each person who played it (pure: no store).

``MatchOutcome.of(room, journal)`` reads the closed room as stored and its journal (the
replay's own reading, ``server/lobby/player_replay.py``): who sat where, the match's
result, and each finished deal's landlord, winner, score, and the bombs and rockets each
seat played. ``stats_changes`` turns that into each player's counters (``Counter``):

- ``played:MODE`` / ``won:MODE``: matches, and those won (a match that ran to its end,
  the player among the top totals);
- ``landlord`` / ``landlord_won`` and ``farmer`` / ``farmer_won``: finished deals by side;
- ``points_won`` / ``points_lost``: the deals' scores, won and lost (as positive numbers);
- ``springs``: deals the player's side won by a spring or an anti-spring;
- ``bombs`` / ``rockets``: played from the player's seat.

The match's id (``match_id``: its code and the time of its closing save, both stored)
names it in each player's applied set, so a code given again to a later room is another
match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from protocol.events import CardsPlayed
from server.lobby import history
from server.lobby.player_replay import replay_data
from server.rooms.room import Room


class Counter(StrEnum):
    """The counters a player's statistics keep (besides ``played:MODE``, ``won:MODE``)."""

    LANDLORD = "landlord"
    LANDLORD_WON = "landlord_won"
    FARMER = "farmer"
    FARMER_WON = "farmer_won"
    POINTS_WON = "points_won"
    POINTS_LOST = "points_lost"
    SPRINGS = "springs"
    BOMBS = "bombs"
    ROCKETS = "rockets"


def played(mode: str) -> str:
    return f"played:{mode}"


def won(mode: str) -> str:
    return f"won:{mode}"


@dataclass(frozen=True)
class DealResult:
    """One finished deal: its landlord's seat, whether the landlord won, each seat's
    score, whether it ended in a spring (either way), and each seat's bombs and rockets."""

    landlord: int
    landlord_won: bool
    scores: list[int]
    spring: bool
    bombs: list[int]
    rockets: list[int]


@dataclass(frozen=True)
class MatchOutcome:
    """A closed match, as its players' records take it: ``people`` maps each person's
    seat to their player id; ``bots``, each bot's seat to its level (what a rating weighs
    a bot seat by); ``entries``, each player's history entry."""

    code: str
    match_id: str
    mode: str
    ended: str
    winners: list[int]
    totals: list[int]
    people: dict[int, str]
    entries: dict[str, dict[str, Any]]
    deals: list[DealResult] = field(default_factory=list)
    bots: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, room: Room, journal: Iterable[dict[str, Any]]) -> MatchOutcome | None:
        """The outcome of a closed room's match; None when it leaves no record (closed
        before any person played, or not closed)."""
        ended_at = room.saved_at or 0.0
        entries = history.entries(room, ended_at)
        match = room.match
        if not entries or match is None or room.closed is None:
            return None
        people: dict[int, str] = {}
        for seat, entry in ((e["your_seat"], pid) for pid, e in entries.items()):
            people[int(seat)] = entry
        replay = replay_data(room, journal)
        deals: list[DealResult] = []
        for deal in replay.deals:
            end = deal.end
            if deal.void or end is None:
                continue
            bombs, rockets = [0, 0, 0], [0, 0, 0]
            for event in deal.events:
                if isinstance(event, CardsPlayed):
                    if event.kind == "bomb":
                        bombs[event.seat] += 1
                    elif event.kind == "rocket":
                        rockets[event.seat] += 1
            score = end.score
            deals.append(
                DealResult(
                    landlord=end.landlord,
                    landlord_won=end.winner == "landlord",
                    scores=list(score.scores),
                    spring=score.spring or score.anti_spring,
                    bombs=bombs,
                    rockets=rockets,
                )
            )
        return cls(
            code=room.code,
            match_id=f"{room.code}@{ended_at!r}",
            mode=room.mode,
            ended=room.closed,
            winners=list(match.winners) if room.closed == "match_over" else [],
            totals=list(match.totals),
            people=people,
            entries=entries,
            deals=deals,
            bots={
                seat: s.level or "normal" for seat, s in enumerate(room.seats) if s.kind == "bot"
            },
        )

    def best_total(self, seat: int) -> int | None:
        """The seat's total, for a match that ran to its end and that the seat won (what
        "best match" weighs: one's only match, lost, is not one's best)."""
        won_it = self.ended == "match_over" and seat in self.winners
        return self.totals[seat] if won_it else None


def stats_changes(outcome: MatchOutcome, seat: int) -> dict[str, int]:
    """The counters the match raises for the person in ``seat`` (zeros left out)."""
    out: dict[str, int] = {played(outcome.mode): 1}
    if seat in outcome.winners:
        out[won(outcome.mode)] = 1

    def add(name: str, amount: int) -> None:
        if amount:
            out[name] = out.get(name, 0) + amount

    for deal in outcome.deals:
        landlord = deal.landlord == seat
        side_won = deal.landlord_won == landlord
        add(Counter.LANDLORD if landlord else Counter.FARMER, 1)
        if side_won:
            add(Counter.LANDLORD_WON if landlord else Counter.FARMER_WON, 1)
            add(Counter.SPRINGS, int(deal.spring))
        score = deal.scores[seat]
        add(Counter.POINTS_WON if score > 0 else Counter.POINTS_LOST, abs(score))
        add(Counter.BOMBS, deal.bombs[seat])
        add(Counter.ROCKETS, deal.rockets[seat])
    return out
