"""What a closed match means for each person (pure): the counters agree with the match's
own totals, deals and plays, and a room with no record gives none."""

from __future__ import annotations

import random

from protocol.events import CardsPlayed
from server.lobby.player_replay import replay_data
from server.players.outcome import Counter, MatchOutcome, played, stats_changes, won
from tests.server.lobby.test_after_match import played_with_journal
from tests.server.rooms.test_room import private_room


def test_each_persons_counters_agree_with_the_match() -> None:
    for seed in range(6):
        room, journal = played_with_journal(random.Random(seed))
        room.saved(5000.25)
        outcome = MatchOutcome.of(room, journal)
        assert outcome is not None
        assert outcome.match_id == f"{room.code}@5000.25" and outcome.bots == {}
        assert sorted(outcome.people) == [0, 1, 2]
        plays = [
            e
            for d in replay_data(room, journal).deals
            for e in d.events
            if isinstance(e, CardsPlayed)
        ]
        for seat, player in outcome.people.items():
            got = stats_changes(outcome, seat)
            assert got[played("private")] == 1
            assert got.get(won("private"), 0) == int(seat in room.match.winners)  # type: ignore[union-attr]
            sides = got.get(Counter.LANDLORD, 0) + got.get(Counter.FARMER, 0)
            assert sides == len(outcome.deals)
            net = got.get(Counter.POINTS_WON, 0) - got.get(Counter.POINTS_LOST, 0)
            assert net == room.match.totals[seat]  # type: ignore[union-attr]
            bombs = sum(1 for p in plays if p.seat == seat and p.kind == "bomb")
            assert got.get(Counter.BOMBS, 0) == bombs
            assert outcome.entries[player]["your_seat"] == seat


def test_a_room_closed_before_anyone_played_leaves_no_record() -> None:
    room = private_room()
    room.leave("alice")
    assert room.closed is not None
    assert MatchOutcome.of(room, []) is None


def test_only_a_won_match_can_be_ones_best() -> None:
    for seed in range(6):
        room, journal = played_with_journal(random.Random(seed))
        outcome = MatchOutcome.of(room, journal)
        assert outcome is not None and outcome.winners
        for seat in range(3):
            won_it = seat in outcome.winners
            best = outcome.best_total(seat)
            assert best == (outcome.totals[seat] if won_it else None), (seed, seat)
