"""The client's table reducer, fed hand-made message sequences."""

from __future__ import annotations

import pytest

from client.table import Countdown, TableState
from protocol.errors import ErrorCode
from protocol.events import (
    AwaitingReady,
    BidMade,
    CardsPlayed,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    SeatControl,
    TablePlay,
    TurnStarted,
)
from protocol.messages import (
    BotSpeedChanged,
    Error,
    Left,
    RoomClosed,
    SeatsChanged,
    Snapshot,
)
from tests.client.helpers import (
    HAND,
    KITTY,
    bidding_done,
    card,
    end_of_deal,
    room,
    run,
    seats,
    started,
    turn,
)


def test_snapshot_before_the_match_has_no_table() -> None:
    state = TableState.from_snapshot(Snapshot(room=room(mode="private")))
    assert state.table is None and state.table_view() is None
    assert state.my_seat == 0 and not state.is_watcher and not state.my_turn


def test_seats_watchers_and_bot_speed_follow_their_messages() -> None:
    state = TableState.from_room(room(mode="private"))
    new_seats = seats("me", "bot", "empty")
    state = run(state, SeatsChanged(seats=new_seats, watchers=2), BotSpeedChanged(speed="fast"))
    assert state.room.seats == new_seats
    assert state.room.watchers == 2
    assert state.room.bot_speed == "fast"
    assert state.seat_name(1) == "bot 1" and state.seat_name(2) == "seat 3"


def test_deal_started_builds_the_table_from_nothing() -> None:
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    table = state.table
    assert table is not None
    assert table.phase == "bidding" and table.deal_no == 1 and table.deals_total == 3
    assert table.hand == HAND and table.card_counts == [17, 17, 17]
    assert table.totals == [0, 0, 0] and table.multiplier == 1 and table.kitty is None
    assert state.my_turn and table.version == 0


def test_bids_accumulate_and_a_bid_clears_the_turn_until_the_next_one() -> None:
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    state = state.apply(BidMade(seat=0, bid=1, highest=1, version=1))
    assert state.table is not None
    assert state.table.bids == [[0, 1]]
    assert state.table.turn is None and not state.my_turn
    assert state.table.version == 1
    state = run(state, turn(1, 1), BidMade(seat=1, bid=0, highest=1, version=2))
    assert state.table is not None and state.table.bids == [[0, 1], [1, 0]]
    assert state.highest_bid == 1


def test_the_kitty_joins_my_hand_when_i_am_the_landlord() -> None:
    state = bidding_done(TableState.from_room(room()), landlord=0)
    table = state.table
    assert table is not None
    assert table.landlord == 0 and table.base == 3 and table.phase == "playing"
    assert table.kitty == KITTY
    assert table.hand == sorted(HAND + KITTY)
    assert table.card_counts == [20, 17, 17]


def test_the_kitty_is_shown_but_not_mine_when_another_seat_is_landlord() -> None:
    state = bidding_done(TableState.from_room(room()), landlord=1)
    table = state.table
    assert table is not None
    assert table.landlord == 1 and table.kitty == KITTY and table.hand == HAND


def test_my_play_leaves_my_hand_and_sets_the_trick() -> None:
    state = bidding_done(TableState.from_room(room()))
    threes = [card(3, 0), card(3, 1)]
    state = state.apply(
        CardsPlayed(
            seat=0,
            cards=threes,
            kind="pair",
            rank=3,
            card_counts=[18, 17, 17],
            multiplier=1,
            version=2,
        )
    )
    table = state.table
    assert table is not None
    assert table.hand is not None and not set(threes) & set(table.hand)
    assert len(table.hand) == 18
    assert table.last_play == TablePlay(seat=0, cards=threes, kind="pair")
    assert table.plays == [table.last_play]
    assert table.card_counts == [18, 17, 17] and table.version == 2
    to_beat = state.to_beat
    assert to_beat is not None and to_beat.kind == "pair"


def test_another_seats_play_changes_counts_not_my_hand() -> None:
    state = bidding_done(TableState.from_room(room()), landlord=1)
    bomb = [card(9, s) for s in range(4)]
    state = state.apply(
        CardsPlayed(
            seat=1,
            cards=bomb,
            kind="bomb",
            rank=9,
            card_counts=[17, 16, 17],
            multiplier=2,
            version=3,
        )
    )
    table = state.table
    assert table is not None and table.hand == HAND
    assert table.multiplier == 2 and table.card_counts == [17, 16, 17]


def test_two_passes_end_the_trick() -> None:
    state = bidding_done(TableState.from_room(room()))
    state = run(
        state,
        CardsPlayed(
            seat=0,
            cards=[card(3)],
            kind="single",
            rank=3,
            card_counts=[19, 17, 17],
            multiplier=1,
            version=2,
        ),
        turn(1, 2, "play"),
        Passed(seat=1, trick_over=False, leader=None, version=3),
    )
    assert state.table is not None
    assert state.table.passes_in_row == 1 and state.trick_passes == (1,)
    assert state.table.last_play is not None
    state = run(state, turn(2, 3, "play"), Passed(seat=2, trick_over=True, leader=0, version=4))
    table = state.table
    assert table is not None
    assert table.last_play is None and table.passes_in_row == 0 and state.trick_passes == ()
    assert state.to_beat is None and table.version == 4
    assert len(table.plays) == 1  # the deal's plays stay


def test_a_void_deal_is_dealt_again_from_scratch() -> None:
    state = run(
        TableState.from_room(room()),
        started(),
        turn(0, 0),
        BidMade(seat=0, bid=0, highest=0, version=1),
        turn(1, 1),
        BidMade(seat=1, bid=0, highest=0, version=2),
        turn(2, 2),
        BidMade(seat=2, bid=0, highest=0, version=3),
        DealVoided(voids_in_row=1),
    )
    assert state.voids_in_row == 1
    other = [card(r, s) for r in range(7, 11) for s in range(4)] + [53]
    state = run(state, started(hand=other), turn(0, 3))
    table = state.table
    assert table is not None
    assert table.bids == [] and table.hand == sorted(other) and table.version == 3


def test_deal_end_then_ready_then_the_next_deal_keeps_the_totals() -> None:
    state = bidding_done(TableState.from_room(room()))
    state = state.apply(end_of_deal(1, [6, -3, -3]))
    table = state.table
    assert table is not None
    assert table.phase == "between_deals" and table.turn is None
    assert table.totals == [6, -3, -3] and table.deal_scores == [[6, -3, -3]]
    assert table.last_deal is not None and table.hand == []
    assert table.winners is None
    state = state.apply(
        AwaitingReady(ready=[False, True, True], deadline=None, server_time=1.0, version=7)
    )
    assert state.table is not None and state.table.ready == [False, True, True]
    assert state.table.version == 7
    state = run(state, started(deal_no=2), turn(1, 8))
    table = state.table
    assert table is not None
    assert table.deal_no == 2 and table.phase == "bidding"
    assert table.totals == [6, -3, -3] and table.deal_scores == [[6, -3, -3]]
    assert table.last_deal is not None and table.ready == [False, False, False]
    assert table.landlord is None and table.kitty is None and table.plays == []


def test_the_last_deal_ends_the_match() -> None:
    state = bidding_done(TableState.from_room(room()))
    assert state.table is not None
    last = state.table.model_copy(update={"deal_no": 3})
    state = TableState.from_room(state.room.model_copy(update={"table": last}))
    state = state.apply(end_of_deal(3, [6, -3, -3]))
    assert state.table is not None
    assert state.table.phase == "over" and state.table.winners == [0]
    assert not state.match_over
    result = MatchEnded(totals=[6, -3, -3], winners=[0], deal_scores=[[6, -3, -3]])
    state = state.apply(result)
    assert state.match_over and state.result == result
    state = state.apply(RoomClosed(reason="match_over"))
    assert state.closed == "match_over" and state.match_over


def test_a_watcher_never_has_a_hand() -> None:
    state = TableState.from_room(room(your_seat=None))
    state = run(
        state,
        started(hand=None),
        turn(0, 0),
        BidMade(seat=0, bid=3, highest=3, version=1),
        LandlordChosen(seat=0, base=3, kitty=KITTY, card_counts=[20, 17, 17]),
    )
    table = state.table
    assert table is not None
    assert state.is_watcher and table.viewer_seat is None
    assert table.hand is None and table.kitty == KITTY and state.hand_ranks == []


def test_takeover_and_a_resume_command() -> None:
    state = bidding_done(TableState.from_room(room()))
    state = state.apply(SeatControl(seat=1, bot=True, reason="timeouts", version=1))
    assert state.table is not None and state.table.bot_control == [False, True, False]
    version = state.table.version
    state = state.apply(SeatControl(seat=1, bot=False, reason="resume", version=version + 1))
    table = state.table
    assert table is not None and table.bot_control == [False, False, False]
    assert table.version == version + 1  # a resume off-turn is a command of its own
    assert table.turn is not None and table.turn.seat == 0 and table.turn.version == version + 1


def test_a_pending_resume_takes_effect_with_the_bots_action() -> None:
    state = bidding_done(TableState.from_room(room()))
    state = state.apply(SeatControl(seat=0, bot=True, reason="timeouts", version=1))
    assert state.table is not None
    version = state.table.version
    state = state.apply(SeatControl(seat=0, bot=False, reason="resume", version=version + 1))
    table = state.table
    assert table is not None and table.bot_control == [False, False, False]
    assert table.version == version and table.turn is None  # the bot is acting on it
    assert not state.my_turn
    state = state.apply(
        CardsPlayed(
            seat=0,
            cards=[card(3)],
            kind="single",
            rank=3,
            card_counts=[19, 17, 17],
            multiplier=1,
            version=version + 1,
        )
    )
    assert state.table is not None and state.table.version == version + 1


def test_errors_and_leaving_are_remembered() -> None:
    state = TableState.from_room(room())
    error = Error(code=ErrorCode.NOT_YOUR_TURN, message="wait", request_id=3)
    state = state.apply(error)
    assert state.last_error == error
    assert state.apply(Left()).left


def test_countdown_runs_on_the_local_clock() -> None:
    state = run(TableState.from_room(room()), started())
    timed = TurnStarted(
        seat=0, action="bid", may_pass=True, deadline=115.0, server_time=100.0, version=0
    )
    state = state.apply(timed, now=50.0)
    assert state.countdown == Countdown(deadline=115.0, server_time=100.0, received=50.0)
    assert state.countdown.left(54.0) == pytest.approx(11.0)
    assert state.countdown.left(80.0) == 0.0
    state = state.apply(BidMade(seat=0, bid=1, highest=1, version=1), now=51.0)
    assert state.countdown is None


def test_a_snapshot_between_deals_counts_down_to_the_next_deal() -> None:
    state = bidding_done(TableState.from_room(room())).apply(end_of_deal(1, [6, -3, -3]))
    assert state.table is not None
    wait = AwaitingReady(ready=[False, True, True], deadline=110.0, server_time=100.0, version=7)
    view = room().model_copy(update={"table": state.table.model_copy(update={"awaiting": wait})})
    back = TableState.from_room(view, now=50.0)  # as a reconnect between deals sees it
    assert back.countdown == Countdown(deadline=110.0, server_time=100.0, received=50.0)


def test_table_view_can_restamp_the_turn() -> None:
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    view = state.table_view(now=123.0)
    assert view is not None and view.turn is not None
    assert view.turn.server_time == 123.0
    assert state.table is not None and state.table.turn is not None
    assert state.table.turn.server_time == 100.0  # the state itself is untouched


def test_a_mid_trick_snapshot_knows_who_passed() -> None:
    state = bidding_done(TableState.from_room(room()))
    state = run(
        state,
        CardsPlayed(
            seat=0,
            cards=[card(3)],
            kind="single",
            rank=3,
            card_counts=[19, 17, 17],
            multiplier=1,
            version=2,
        ),
        turn(1, 2, "play"),
        Passed(seat=1, trick_over=False, leader=None, version=3),
        turn(2, 3, "play"),
    )
    resumed = TableState.from_snapshot(Snapshot(room=state.room))
    assert resumed.trick_passes == (1,)
    assert resumed.table == state.table


# --- issue 14: each seat's last act in the trick, and the card counter ------------------------


def _single(seat: int, rank: int, counts: list[int], version: int) -> CardsPlayed:
    return CardsPlayed(
        seat=seat,
        cards=[card(rank)],
        kind="single",
        rank=rank,
        card_counts=counts,
        multiplier=1,
        version=version,
    )


def test_the_trick_holds_each_seats_last_play_or_pass_until_it_is_over() -> None:
    state = bidding_done(TableState.from_room(room()))
    assert state.trick == {}
    state = run(
        state,
        _single(0, 3, [19, 17, 17], version=2),
        turn(1, 2, "play"),
        Passed(seat=1, trick_over=False, leader=None, version=3),
        turn(2, 3, "play"),
        _single(2, 9, [19, 17, 16], version=4),
    )
    assert state.trick == {0: (card(3),), 1: None, 2: (card(9),)}
    # rebuilt the same from a snapshot (a reconnect)
    assert TableState.from_room(state.room).trick == state.trick
    state = run(
        state,
        turn(0, 4, "play"),
        Passed(seat=0, trick_over=False, leader=None, version=5),
        turn(1, 5, "play"),
        Passed(seat=1, trick_over=True, leader=2, version=6),
    )
    assert state.trick == {}
    assert TableState.from_room(state.room).trick == {}


def test_unseen_counts_are_the_deck_less_my_hand_and_every_card_played() -> None:
    state = bidding_done(TableState.from_room(room()), landlord=1)  # the kitty goes to seat 1
    unseen = state.unseen_counts()
    # my 17: 3333 4444 5555 6666 SJ; the kitty (A A BJ) is shown but not mine nor played
    assert unseen == [0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 1]
    state = state.apply(_single(1, 14, [17, 19, 17], version=3))
    assert state.unseen_counts()[14 - 3] == 3
    watcher = bidding_done(TableState.from_room(room(your_seat=None)), landlord=1)
    assert sum(watcher.unseen_counts()) == 54
