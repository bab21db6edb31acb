"""A clock given back after a restart is held (SPEC section 8: time spent down never costs a
seat its turn): it counts from when the table's people are back or from the end of a grace,
whichever comes first, and the hold survives another restart during the grace."""

from __future__ import annotations

from protocol.events import AwaitingReady, TurnStarted
from server.game.match import EVERYONE, Match, MatchConfig
from tests.server.game.helpers import (
    START,
    TIMED,
    Table,
    check_match,
    choose_landlord,
    landlord_springs,
    rigged_deck,
    the_event,
)

TIMED_THREE = MatchConfig(deals=3, bid_timeout=15, play_timeout=20, ready_timeout=10)
FLOOR = 5.0
GRACE = 4.0


def restarted(match: Match) -> Match:
    """The match as a new process loads it from its saved data."""
    data = match.to_data()
    again = Match.from_data(data)
    check_match(again)
    return again


def test_a_held_clock_waits_for_the_grace_and_runs_from_the_return() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)  # seat 0 bids: 15 s
    saved = START + 3  # saved with 12 s left, then down for 30 s
    back = saved + 30
    match = restarted(t.match)
    out = match.resume_clock(back, saved, FLOOR, GRACE)
    assert match.held == 12
    assert match.deadline == back + GRACE + 12  # nobody back: it runs once the grace is over
    turn = the_event(out, TurnStarted)
    assert out == [(EVERYONE, turn)]
    assert (turn.seat, turn.deadline, turn.server_time) == (0, back + GRACE + 12, back)
    # the person is back 1.5 s later: their 12 s count from now
    out = match.start_held_clock(back + 1.5)
    assert match.held is None and match.deadline == back + 1.5 + 12
    turn = the_event(out, TurnStarted)
    assert (turn.seat, turn.deadline, turn.server_time) == (0, back + 13.5, back + 1.5)
    assert turn.version == match.version  # a repeated prompt: the table has not moved
    assert match.start_held_clock(back + 2) == []  # nothing held any more
    assert match.deadline == back + 13.5


def test_when_the_grace_ends_first_the_clock_runs_as_it_showed() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    match = t.match
    match.resume_clock(START + 40, START + 3, FLOOR, GRACE)
    deadline = START + 40 + GRACE + 12
    assert match.deadline == deadline
    # back after the grace: the clock has been running; nothing moves
    assert match.start_held_clock(START + 40 + GRACE + 1) == []
    assert match.held is None and match.deadline == deadline


def test_no_grace_runs_the_clock_at_once_as_before() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    match = t.match
    match.resume_clock(START + 40, START + 3, FLOOR)
    assert match.held is None and match.deadline == START + 40 + 12
    # nearly run out when saved: the floor
    match.resume_clock(START + 100, START + 40 + 11.5, FLOOR, GRACE)
    assert match.held == FLOOR and match.deadline == START + 100 + GRACE + FLOOR


def test_a_restart_during_the_grace_keeps_the_held_time() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    first = START + 30
    match = t.match
    match.resume_clock(first, START + 3, FLOOR, GRACE)
    assert match.held == 12
    # saved at ``first`` with the held clock, and down again for 20 s before anyone is back:
    # the 12 s held are still the seat's, not the grace's end minus the save
    again = restarted(match)
    assert again.held == 12
    second = first + 20
    again.resume_clock(second, first, FLOOR, GRACE)
    assert again.held == 12 and again.deadline == second + GRACE + 12
    again.start_held_clock(second + 1)
    assert again.deadline == second + 13
    # and when the new process gives no grace, the held time runs at once
    third = restarted(match)
    third.resume_clock(second, first, FLOOR)
    assert third.held is None and third.deadline == second + 12
    # saved after the grace's end, when the clock had run 5 s: it had 7 s left then
    fourth = restarted(match)
    fourth.resume_clock(second, first + GRACE + 5, FLOOR, GRACE)
    assert fourth.held == 7 and fourth.deadline == second + GRACE + 7


def test_the_next_turn_drops_the_hold() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    back = START + 30
    t.match.resume_clock(back, START + 3, FLOOR, GRACE)
    t.now = back + 1
    turn = the_event(t.bid(0, 1), TurnStarted)  # seat 0 acts before anyone starts the clock
    assert t.match.held is None
    assert (turn.seat, turn.deadline) == (1, back + 1 + 15)
    assert t.match.start_held_clock(back + 2) == []
    assert t.match.deadline == back + 1 + 15
    # a held clock that runs out times the seat out as any clock does, and is gone after
    t.match.resume_clock(back + 5, back + 1, FLOOR, GRACE)
    assert t.match.held == 15
    out = t.timeout(1)
    assert t.match.held is None
    assert the_event(out, TurnStarted).deadline == t.now + 15


def test_between_deals_the_pause_is_held_too() -> None:
    t = Table([rigged_deck(0), rigged_deck(1)], config=TIMED_THREE, first_bidder=0)
    choose_landlord(t, 0, 3)
    t.match.resume_clock(t.now + 30, t.now, FLOOR, GRACE)  # held on the landlord's lead
    t.later(31)
    landlord_springs(t, 0)  # the deal's end drops it
    assert t.phase == "between_deals" and t.match.deadline == t.now + 10
    assert t.match.held is None
    ended = t.now
    back = ended + 60
    out = t.match.resume_clock(back, ended + 2, FLOOR, GRACE)  # saved with 8 s left
    awaiting = the_event(out, AwaitingReady)
    assert awaiting.deadline == back + GRACE + 8 and t.match.held == 8
    out = t.match.start_held_clock(back + 1)
    assert the_event(out, AwaitingReady).deadline == back + 9
    # held again, then everyone is ready: the next deal's first turn has a clock of its own
    t.match.resume_clock(back + 30, back + 1, FLOOR, GRACE)
    assert t.match.held == 8
    t.now = back + 31
    out = t.all_ready()
    assert t.match.held is None and t.phase == "bidding"
    assert the_event(out, TurnStarted).deadline == back + 31 + 15


def test_an_untimed_or_finished_match_has_nothing_to_hold() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    assert t.match.resume_clock(START + 30, START, FLOOR, GRACE) == []
    assert t.match.held is None and t.match.deadline is None


def test_a_storage_pause_gives_the_clock_its_time_back_and_never_more_than_all_of_it() -> None:
    """Issue 35: an outage counts from Redis's last answer, which may come a moment before a
    clock that started just then: that clock gets its whole length back, not more."""
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)  # seat 0 bids: 15 s from START
    match = t.match
    # paused from START + 4 (11 s left) to START + 40: 11 s left at the return
    out = match.pause_over(36, START + 40)
    assert match.deadline == START + 40 + 11
    assert the_event(out, TurnStarted).deadline == START + 51
    # a pause counted from 0.2 s before this clock began: 15 s left, not 15.2
    again = Table([rigged_deck(0)], config=TIMED, first_bidder=0).match
    again.pause_over(10.2, START + 10)
    assert again.deadline == START + 10 + 15
    # a held clock (after a restart) keeps its grace through a pause
    held = restarted(Table([rigged_deck(0)], config=TIMED, first_bidder=0).match)
    held.resume_clock(START + 30, START + 3, FLOOR, GRACE)
    assert held.deadline == START + 30 + GRACE + 12
    held.pause_over(5, START + 31)
    assert held.deadline == START + 35 + GRACE + 12
