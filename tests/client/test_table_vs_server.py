"""The reducer against the server's own state machine: after every request, each player's
``TableState`` built from the messages it was sent must give the very ``TableView`` (and the
seats) that the room's ``view_for`` gives that player.

Whole matches are played in a sans-I/O ``Room`` with random legal moves, clock timeouts (so
bots take seats over), resumes, void deals and ready timeouts, for three seated persons and a
watcher.
"""

from __future__ import annotations

import random

import pytest

from client.table import TableState
from protocol.cards import card_rank
from protocol.events import AwaitingReady, Message, TurnStarted
from protocol.legal import legal_plays
from protocol.messages import (
    BidRequest,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    Request,
    ResumeRequest,
)
from server.rooms.room import BotActor, Clocks, Room

PLAYERS = ["p0", "p1", "p2"]
WATCHER = "w"


def deliver(
    states: dict[str, TableState], deliveries: list[tuple[str, Message]], seen: set[str]
) -> None:
    for player, message in deliveries:
        seen.add(type(message).__name__)
        if player in states:
            states[player] = states[player].apply(message)  # type: ignore[arg-type]


def check(room: Room, states: dict[str, TableState], now: float, lag: bool = False) -> None:
    """Every player's state shows what the room shows it. ``lag``: a resume on the seat's own
    turn moved the version without a message, so the clients are one version behind."""
    for player, state in states.items():
        expected = room.view_for(player, now)
        assert state.room.seats == expected.seats
        assert state.room.watchers == expected.watchers
        table = expected.table
        if lag and table is not None:
            version = table.version - 1
            turn = table.turn.model_copy(update={"version": version}) if table.turn else None
            table = table.model_copy(update={"version": version, "turn": turn})
        assert state.table_view(now) == table, player


def random_request(room: Room, rng: random.Random) -> Request:
    """A legal (or at least well-formed) move for the seat on turn."""
    match = room.match
    assert match is not None
    deal = match.deal
    seat = deal.turn
    version = match.version if rng.random() < 0.5 else None
    if match.phase == "bidding":
        highest = deal.highest_bid
        choices: list[Request] = [
            BidRequest(value=v, version=version) for v in range(highest + 1, 4)
        ]
        if deal.may_pass:
            choices += [PassRequest(version=version)] * 4  # void deals now and then
        return rng.choice(choices)
    hand = [card_rank(c) for c in deal.hands[seat]]
    plays = legal_plays(hand, deal.table_play)
    if deal.may_pass and (not plays or rng.random() < 0.3):
        return PassRequest(version=version)
    play = rng.choice(plays[:6]) if rng.random() < 0.8 else rng.choice(plays)
    return PlayRequest(ranks=[int(r) for r in play.cards], version=version)


def play_match(seed: int, deals: int) -> set[str]:
    """Play a whole match, checking every player's state after every change; returns the
    names of the message types sent."""
    rng = random.Random(seed)
    seen: set[str] = set()
    now = 1000.0
    room = Room.create("ROOM1", "private", deals, "p0", "alice", clocks=Clocks(15, 20, 10))
    states = {"p0": TableState.from_room(room.view_for("p0", now))}
    for pid, name in (("p1", "bob"), ("p2", "carol")):
        out = room.join(pid, name, now)
        deliver(states, out, seen)
        states[pid] = TableState.from_room(room.view_for(pid, now))
    deliver(states, room.watch(WATCHER), seen)
    states[WATCHER] = TableState.from_room(room.view_for(WATCHER, now))
    check(room, states, now)
    for pid in PLAYERS:
        deliver(states, room.handle(pid, ReadyRequest(), now, rng).deliveries, seen)
        check(room, states, now)
    steps = 0
    lag = False
    while room.match is not None and room.match.phase != "over":
        steps += 1
        assert steps < 5000
        now += 1.0
        match = room.match
        roll = rng.random()
        if match.phase == "between_deals":
            waiting = [s for s in range(3) if not match.ready[s]]
            if roll < 0.2 and match.deadline is not None:
                now = max(now, match.deadline)
                deliveries = room.clock_ran_out(now, rng).deliveries
            else:
                deliveries = room.handle(PLAYERS[waiting[0]], ReadyRequest(), now, rng).deliveries
        else:
            seat = match.deal.turn
            taken = seat in room.bot_seats()
            idle = [s for s in room.bot_seats() if s != seat]
            if idle and roll < 0.15:
                # A resume off-turn gives the seat back at once.
                deliveries = room.handle(PLAYERS[idle[0]], ResumeRequest(), now, rng).deliveries
            elif taken and roll < 0.3 and not match.resume_pending[seat]:
                # A resume on-turn waits for the bot's action, and says nothing yet.
                deliveries = room.handle(PLAYERS[seat], ResumeRequest(), now, rng).deliveries
                lag = lag or not deliveries
            elif roll < 0.12 and match.deadline is not None and not taken:
                now = max(now, match.deadline)
                deliveries = room.clock_ran_out(now, rng).deliveries
            else:
                actor = BotActor(seat) if taken else PLAYERS[seat]
                try:
                    deliveries = room.handle(actor, random_request(room, rng), now, rng).deliveries
                except ValueError:
                    continue  # refused: nothing changed, nothing was sent
        deliver(states, deliveries, seen)
        if any(isinstance(m, TurnStarted | AwaitingReady) for _, m in deliveries):
            lag = False
        check(room, states, now, lag)
    for state in states.values():
        assert state.match_over and state.closed == "match_over"
    return seen


@pytest.mark.parametrize("seed", range(12))
def test_reducer_tracks_the_server_through_a_whole_match(seed: int) -> None:
    play_match(seed, deals=3 if seed % 3 else 6)


def test_the_matches_cover_every_game_event() -> None:
    """The random matches above do reach voids, takeovers, resumes and ready timeouts."""
    seen: set[str] = set()
    for seed in range(12):
        seen |= play_match(seed, deals=3 if seed % 3 else 6)
    assert seen >= {
        "SeatsChanged",
        "DealStarted",
        "BidMade",
        "DealVoided",
        "LandlordChosen",
        "CardsPlayed",
        "Passed",
        "TurnStarted",
        "DealEnded",
        "AwaitingReady",
        "MatchEnded",
        "SeatControl",
        "RoomClosed",
    }
