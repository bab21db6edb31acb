"""``--auto``: the bot policy answers each decision once, readies, and falls back once."""

from __future__ import annotations

from client.auto import AutoPlayer, fallback_exhausted
from client.table import TableState
from protocol.errors import ErrorCode
from protocol.events import (
    AwaitingReady,
    CardsPlayed,
    DealEnded,
    Passed,
    ScoreBreakdown,
    SeatControl,
)
from protocol.messages import (
    BidRequest,
    Error,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    SeatsChanged,
)
from tests.client.helpers import bidding_done, card, room, run, seats, started, turn


def refused(code: ErrorCode) -> Error:
    return Error(code=code, message="no", request_id=5)


def test_my_bid_turn_gets_one_answer() -> None:
    auto = AutoPlayer.for_level("easy")
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    request = auto.next_request(state)
    assert isinstance(request, BidRequest | PassRequest)
    assert request.version == 0
    assert auto.next_request(state) is None  # the same turn is answered once


def test_others_turns_and_watchers_get_nothing() -> None:
    auto = AutoPlayer.for_level("easy")
    state = run(TableState.from_room(room()), started(), turn(1, 0))
    assert auto.next_request(state) is None
    watcher = run(TableState.from_room(room(your_seat=None)), started(hand=None), turn(0, 0))
    assert auto.next_request(watcher) is None


def test_the_landlord_leads_a_play() -> None:
    auto = AutoPlayer.for_level("normal")
    state = bidding_done(TableState.from_room(room()))
    request = auto.next_request(state)
    assert isinstance(request, PlayRequest) and request.ranks
    assert request.version == 1


def test_no_action_while_a_bot_holds_my_seat() -> None:
    auto = AutoPlayer.for_level("easy")
    state = bidding_done(TableState.from_room(room()))
    state = state.apply(SeatControl(seat=0, bot=True, reason="timeouts", version=2))
    assert auto.next_request(state) is None


def deal_end() -> DealEnded:
    return DealEnded(
        deal_no=1,
        landlord=0,
        winner="landlord",
        hands=[[], [card(7)], [card(8)]],
        score=ScoreBreakdown(
            base=1,
            bombs=0,
            rockets=0,
            spring=False,
            anti_spring=False,
            multiplier=1,
            scores=[2, -1, -1],
        ),
        totals=[2, -1, -1],
    )


def test_ready_between_deals_once() -> None:
    auto = AutoPlayer.for_level("easy")
    state = bidding_done(TableState.from_room(room())).apply(deal_end())
    assert auto.next_request(state) == ReadyRequest()
    state = state.apply(
        AwaitingReady(ready=[False, True, False], deadline=None, server_time=0.0, version=9)
    )
    assert auto.next_request(state) is None  # a bot's ready is no reason to ready again


def test_ready_to_start_a_private_room_once_until_taken_back() -> None:
    auto = AutoPlayer.for_level("easy")
    state = TableState.from_room(room(mode="private"))
    assert auto.next_request(state) == ReadyRequest()
    state = state.apply(SeatsChanged(seats=seats("me", "bot", "empty"), watchers=0))
    assert auto.next_request(state) is None  # sent already, not yet confirmed
    confirmed = [seats("me", "bot", "empty")[0].model_copy(update={"ready": True})]
    state = state.apply(SeatsChanged(seats=confirmed + seats("me", "bot", "empty")[1:], watchers=0))
    assert auto.next_request(state) is None
    state = state.apply(SeatsChanged(seats=seats("me", "bot", "empty"), watchers=0))
    assert auto.next_request(state) == ReadyRequest()  # someone left: everyone un-readied


def test_a_practice_room_needs_no_ready_to_start() -> None:
    assert AutoPlayer.for_level("easy").next_request(TableState.from_room(room())) is None


def test_a_refused_play_falls_back_once() -> None:
    auto = AutoPlayer.for_level("easy")
    state = bidding_done(TableState.from_room(room()))
    auto.next_request(state)
    fallback = auto.on_refused(state, refused(ErrorCode.NOT_A_PLAY))
    assert isinstance(fallback, PlayRequest) and fallback.ranks == [3]  # the lowest card, led
    assert fallback_exhausted(auto, state)
    assert auto.on_refused(state, refused(ErrorCode.NOT_A_PLAY)) is None


def test_a_refused_follow_falls_back_to_pass() -> None:
    auto = AutoPlayer.for_level("easy")
    state = bidding_done(TableState.from_room(room()), landlord=1)
    state = run(
        state,
        CardsPlayed(
            seat=1,
            cards=[card(5)],
            kind="single",
            rank=5,
            card_counts=[17, 19, 17],
            multiplier=1,
            version=3,
        ),
        turn(2, 3, "play"),
        Passed(seat=2, trick_over=False, leader=None, version=4),
        turn(0, 4, "play"),
    )
    fallback = auto.on_refused(state, refused(ErrorCode.DOES_NOT_BEAT))
    assert fallback == PassRequest(version=4)


def test_stale_refusals_need_no_fallback() -> None:
    auto = AutoPlayer.for_level("easy")
    state = bidding_done(TableState.from_room(room()))
    assert auto.on_refused(state, refused(ErrorCode.STALE)) is None
    assert not fallback_exhausted(auto, state)
