"""A match of deals (SPEC sections 3, 6, 7 and 8): void deals and the forced bid, first
bidders, running totals and winners, the end of a match, clocks, bot takeover and readiness."""

from __future__ import annotations

import random

import pytest

from protocol.events import (
    AwaitingReady,
    BidMade,
    CardsPlayed,
    DealEnded,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    SeatControl,
    TurnStarted,
)
from protocol.plays import Kind
from server.game.commands import (
    Bid,
    Command,
    Pass,
    PlayCards,
    Ready,
    ReadyTimeout,
    Resume,
    Timeout,
)
from server.game.errors import (
    AlreadyReady,
    ClockRunning,
    MatchOver,
    MustBid,
    NoClock,
    NotTakenOver,
    NotYourTurn,
    WrongPhase,
)
from server.game.match import EVERYONE, MATCH_LENGTHS, Match, MatchConfig, Outgoing
from tests.server.game.helpers import (
    SEATS,
    START,
    TIMED,
    StackedDecks,
    Table,
    all_pass_deck,
    assert_sent_to,
    audiences_of,
    choose_landlord,
    events_of,
    farmers,
    farmers_anti_spring,
    farmers_win_plainly,
    landlord_springs,
    landlord_wins_plainly,
    landlord_wins_with_rocket_and_bomb,
    random_match,
    ranks,
    rigged_deck,
    step,
    the_event,
)

THREE_DEALS = MatchConfig(deals=3)
TIMED_THREE = MatchConfig(deals=3, bid_timeout=15, play_timeout=20, ready_timeout=10)


def everyone_passes(t: Table) -> list[Outgoing]:
    """The three seats pass in turn order; returns the last action's messages."""
    first = t.match.deal.first_bidder
    out: list[Outgoing] = []
    for i in range(3):
        seat = (first + i) % 3
        assert t.turn == seat
        out = t.pass_(seat)
    return out


# --- void deals -------------------------------------------------------------------------------


@pytest.mark.parametrize("first", SEATS)
def test_when_all_three_pass_the_deal_is_void_and_dealt_again_with_the_same_first_bidder(
    first: int,
) -> None:
    void, again = all_pass_deck(1), rigged_deck(first)
    t = Table([void, again], first_bidder=first)
    t.pass_(first)
    t.pass_((first + 1) % 3)
    out = t.pass_((first + 2) % 3)
    assert assert_sent_to(out, EVERYONE, DealVoided).voids_in_row == 1
    started = events_of(out, DealStarted)
    assert len(started) == 4  # one to each seat and one to the watchers
    assert {(s.deal_no, s.first_bidder, s.forced_bid) for s in started} == {(1, first, False)}
    for seat in SEATS:
        assert assert_sent_to(out, seat, DealStarted).hand == sorted(
            again[17 * seat : 17 * (seat + 1)]
        )
    assert the_event(out, TurnStarted).seat == first
    assert t.turn == first
    assert t.rng.shuffles == 2


def test_nothing_carries_over_from_a_void_deal() -> None:
    t = Table([all_pass_deck(7), rigged_deck(0)], config=THREE_DEALS, first_bidder=0)
    everyone_passes(t)
    deal = t.match.deal
    assert deal.bids == []
    assert deal.landlord is None
    assert deal.base == 0
    assert deal.plays == []
    assert deal.multiplier == 1
    assert deal.card_counts == [17, 17, 17]
    assert t.match.deal_no == 1
    assert t.match.totals == [0, 0, 0]
    assert t.match.deal_scores == []
    assert t.phase == "bidding"
    # The redealt deal is an ordinary deal: the first bidder may still pass.
    assert t.match.deal.may_pass
    assert the_event(t.log[-1:], TurnStarted).may_pass


def test_void_deals_do_not_count_towards_the_match_length() -> None:
    t = Table([all_pass_deck(1), all_pass_deck(2), rigged_deck(0)], first_bidder=0)
    everyone_passes(t)
    everyone_passes(t)
    choose_landlord(t, 0, 3)
    ended = landlord_springs(t, 0)
    assert ended.deal_no == 1
    assert t.phase == "over"
    assert the_event(t.log, MatchEnded).deal_scores == [[48, -24, -24]]


def test_after_three_void_deals_in_a_row_the_first_bidder_must_bid() -> None:
    voids = [all_pass_deck(seed) for seed in range(3)]
    t = Table([*voids, rigged_deck(1)], first_bidder=1)
    for n in (1, 2, 3):
        out = everyone_passes(t)
        assert the_event(out, DealVoided).voids_in_row == n
        assert t.match.deal.forced_bid == (n == 3)
    started = events_of(t.log[-5:], DealStarted)
    assert {s.forced_bid for s in started} == {True}
    turn = the_event(t.log[-1:], TurnStarted)
    assert (turn.seat, turn.action, turn.may_pass) == (1, "bid", False)
    t.refuse(Pass(1), MustBid)
    t.refuse(Bid(1, 0), MustBid)
    out = t.bid(1, 1)
    assert the_event(out, BidMade) == BidMade(seat=1, bid=1, highest=1, version=t.match.version)
    # Only the first bidder is forced: the others may pass, and the bidder is landlord.
    assert the_event(out, TurnStarted).may_pass
    t.pass_(2)
    chosen = the_event(t.pass_(0), LandlordChosen)
    assert (chosen.seat, chosen.base) == (1, 1)
    assert t.match.voids_in_row == 0


def test_after_three_void_deals_the_forced_first_bidder_may_bid_higher_than_1() -> None:
    t = Table([*(all_pass_deck(s) for s in range(3)), rigged_deck(0)], first_bidder=0)
    for _ in range(3):
        everyone_passes(t)
    chosen = the_event(t.bid(0, 3), LandlordChosen)
    assert (chosen.seat, chosen.base) == (0, 3)


def test_void_deals_count_only_in_a_row_and_restart_after_a_deal_with_a_landlord() -> None:
    decks = [all_pass_deck(1), all_pass_deck(2), rigged_deck(0)]
    decks += [all_pass_deck(3), all_pass_deck(4), all_pass_deck(5), rigged_deck(1)]
    t = Table(decks, config=THREE_DEALS, first_bidder=0)
    everyone_passes(t)
    everyone_passes(t)
    choose_landlord(t, 0, 3)
    landlord_springs(t, 0)
    t.all_ready()
    assert t.match.deal.first_bidder == 1
    assert not t.match.deal.forced_bid
    for n in (1, 2, 3):
        assert the_event(everyone_passes(t), DealVoided).voids_in_row == n
    assert t.match.deal.forced_bid
    t.refuse(Pass(1), MustBid)


# --- first bidders ----------------------------------------------------------------------------


@pytest.mark.parametrize("first", SEATS)
def test_the_first_bidder_of_deal_1_is_the_one_given_in_practice(first: int) -> None:
    t = Table([rigged_deck(0)], first_bidder=first)
    assert {s.first_bidder for s in events_of(t.started, DealStarted)} == {first}
    assert t.turn == first


def test_without_a_given_first_bidder_deal_1_draws_a_random_seat() -> None:
    drawn = []
    for seed in range(40):
        t = Table([rigged_deck(0)], first_bidder=None, seed=seed)
        first = t.match.deal.first_bidder
        assert {s.first_bidder for s in events_of(t.started, DealStarted)} == {first}
        assert t.turn == first
        again = Table([rigged_deck(0)], first_bidder=None, seed=seed)
        assert again.match.deal.first_bidder == first
        drawn.append(first)
    assert set(drawn) == {0, 1, 2}


@pytest.mark.parametrize("first", SEATS)
def test_each_later_deal_starts_with_the_seat_after_the_previous_first_bidder(
    first: int,
) -> None:
    second, third = (first + 1) % 3, (first + 2) % 3
    decks = [rigged_deck(first), all_pass_deck(9), rigged_deck(second), rigged_deck(third)]
    t = Table(decks, config=THREE_DEALS, first_bidder=first)
    choose_landlord(t, first, 3)
    landlord_springs(t, first)
    out = t.all_ready()
    assert {s.first_bidder for s in events_of(out, DealStarted)} == {second}
    assert t.match.deal_no == 2
    everyone_passes(t)  # a void deal keeps the first bidder
    assert t.match.deal.first_bidder == second
    choose_landlord(t, second, 3)
    landlord_springs(t, second)
    out = t.all_ready()
    assert {s.first_bidder for s in events_of(out, DealStarted)} == {third}
    assert t.turn == third


# --- totals, winners and the end of a match ---------------------------------------------------


def test_a_3_deal_match_runs_the_totals_on_and_the_highest_total_wins() -> None:
    t = Table([rigged_deck(0), rigged_deck(2), rigged_deck(1)], config=THREE_DEALS)
    # Deal 1 (seat 0 bids first): seat 0 bids 3 and springs with a bomb and the rocket.
    choose_landlord(t, 0, 3)
    ended = landlord_springs(t, 0)
    assert ended.score.scores == [48, -24, -24]
    assert ended.totals == [48, -24, -24]
    awaiting = assert_sent_to(t.log[-2:], EVERYONE, AwaitingReady)
    assert awaiting.ready == [False, False, False]
    assert t.phase == "between_deals"
    t.all_ready()
    # Deal 2 (seat 1 first): 1 bids 1, 2 bids 2, 0 passes; the farmers anti-spring seat 2.
    t.bid(1, 1)
    t.bid(2, 2)
    assert the_event(t.pass_(0), LandlordChosen).seat == 2
    ended = farmers_anti_spring(t, 2)
    assert ended.score.scores == [4, 4, -8]
    assert ended.totals == [52, -20, -32]
    t.all_ready()
    # Deal 3 (seat 2 first): 2 and 0 pass, 1 bids 2 and wins with the rocket and a bomb.
    t.pass_(2)
    t.pass_(0)
    assert the_event(t.bid(1, 2), LandlordChosen).seat == 1
    ended = landlord_wins_with_rocket_and_bomb(t, 1)
    assert ended.score.scores == [-8, 16, -8]
    assert ended.totals == [44, -4, -40]
    end = assert_sent_to(t.log[-2:], EVERYONE, MatchEnded)
    assert end == MatchEnded(
        totals=[44, -4, -40],
        winners=[0],
        deal_scores=[[48, -24, -24], [4, 4, -8], [-8, 16, -8]],
    )
    assert t.phase == "over"
    assert t.match.winners == [0]
    assert t.match.view_for(None, t.now).winners == [0]
    # Each of the two gaps between deals: the deal's end, then the first two readies.
    assert audiences_of(t.log, AwaitingReady) == [EVERYONE] * 6


def test_two_seats_tied_for_the_highest_total_both_win() -> None:
    t = Table([rigged_deck(0), rigged_deck(1), rigged_deck(2)], config=THREE_DEALS)
    choose_landlord(t, 0, 1)
    assert landlord_wins_plainly(t, 0).totals == [2, -1, -1]
    t.all_ready()
    choose_landlord(t, 1, 1)
    assert landlord_wins_plainly(t, 1).totals == [1, 1, -2]
    t.all_ready()
    choose_landlord(t, 2, 1)
    assert farmers_win_plainly(t, 2).totals == [2, 2, -4]
    end = the_event(t.log, MatchEnded)
    assert (end.totals, end.winners) == ([2, 2, -4], [0, 1])
    assert t.match.view_for(2, t.now).winners == [0, 1]


def test_three_seats_tied_at_zero_all_win() -> None:
    t = Table([rigged_deck(0), rigged_deck(1), rigged_deck(2)], config=THREE_DEALS)
    for landlord in SEATS:
        choose_landlord(t, landlord, 1)
        ended = landlord_wins_plainly(t, landlord)
        if landlord < 2:
            t.all_ready()
    assert ended.totals == [0, 0, 0]
    assert the_event(t.log, MatchEnded).winners == [0, 1, 2]


def test_a_1_deal_match_ends_after_its_deal_without_waiting_for_ready() -> None:
    t = Table([rigged_deck(2)], first_bidder=2)
    choose_landlord(t, 2, 2)
    landlord_wins_plainly(t, 2)
    out = t.log[-2:]
    assert [type(m) for _, m in out] == [DealEnded, MatchEnded]
    assert the_event(out, MatchEnded).winners == [2]
    assert t.match.deadline is None
    assert t.match.turn is None


ALL_KINDS_OF_COMMAND: list[Command] = [
    Bid(0, 1),
    Pass(1),
    PlayCards(2, ranks("3")),
    Timeout(0),
    Ready(1),
    ReadyTimeout(),
    Resume(2),
]


@pytest.mark.parametrize("command", ALL_KINDS_OF_COMMAND, ids=lambda c: type(c).__name__)
def test_every_command_after_the_end_of_the_match_is_refused_with_match_over(
    command: Command,
) -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    choose_landlord(t, 0, 3)
    landlord_springs(t, 0)
    t.later(3600)
    t.refuse(command, MatchOver)


@pytest.mark.parametrize("deals", MATCH_LENGTHS)
def test_a_match_is_1_3_6_or_9_deals(deals: int) -> None:
    assert MatchConfig(deals=deals).deals == deals


@pytest.mark.parametrize("deals", [0, 2, 4, 5, 10])
def test_other_match_lengths_are_refused(deals: int) -> None:
    with pytest.raises(ValueError):
        MatchConfig(deals=deals)


@pytest.mark.parametrize("deals", [3, 6])
def test_scores_sum_to_zero_in_every_deal_of_random_matches(deals: int) -> None:
    config = MatchConfig(deals=deals)
    for seed in range(8):
        ends = []
        for match, _, out in random_match(seed, config):
            ends += events_of(out, DealEnded)
            assert sum(match.totals) == 0
        assert [e.deal_no for e in ends] == list(range(1, deals + 1))
        for ended in ends:
            assert sum(ended.score.scores) == 0
            s = ended.score.base * ended.score.multiplier
            expected = [2 * s if seat == ended.landlord else -s for seat in SEATS]
            if ended.winner == "farmers":
                expected = [-x for x in expected]
            assert ended.score.scores == expected
        assert match.phase == "over"
        assert match.totals == [sum(e.score.scores[s] for e in ends) for s in SEATS]


# --- wrong phases -----------------------------------------------------------------------------


def between_deals(config: MatchConfig = THREE_DEALS) -> Table:
    t = Table([rigged_deck(0), rigged_deck(1)], config=config, first_bidder=0)
    choose_landlord(t, 0, 3)
    landlord_springs(t, 0)
    assert t.phase == "between_deals"
    return t


@pytest.mark.parametrize(
    "command",
    [Bid(1, 1), Pass(1), PlayCards(1, ranks("4")), Timeout(1)],
    ids=lambda c: type(c).__name__,
)
def test_bids_plays_passes_and_timeouts_between_deals_are_the_wrong_phase(
    command: Command,
) -> None:
    t = between_deals(TIMED_THREE)
    t.later(60)
    t.refuse(command, WrongPhase)


# --- clocks -----------------------------------------------------------------------------------


def test_turn_deadlines_are_the_time_of_the_turn_plus_the_bid_or_play_clock() -> None:
    t = Table([rigged_deck(1)], config=TIMED, first_bidder=0)
    turn = the_event(t.started, TurnStarted)
    assert (turn.deadline, turn.server_time) == (START + 15, START)
    assert t.match.deadline == START + 15
    t.later(4)
    turn = the_event(t.bid(0, 1), TurnStarted)
    assert (turn.seat, turn.deadline, turn.server_time) == (1, START + 19, START + 4)
    t.later(2.5)
    turn = the_event(t.bid(1, 3), TurnStarted)
    assert (turn.seat, turn.action, turn.deadline) == (1, "play", START + 6.5 + 20)
    t.later(1)
    turn = the_event(t.play(1, "3"), TurnStarted)
    assert (turn.seat, turn.deadline, turn.server_time) == (2, START + 7.5 + 20, START + 7.5)
    assert t.match.view_for(None, t.now).turn == turn


@pytest.mark.parametrize(("bid", "play", "ready"), [(0.05, 0.1, 0.02), (30, 45, 60)])
def test_every_clock_is_configurable(bid: float, play: float, ready: float) -> None:
    config = MatchConfig(deals=3, bid_timeout=bid, play_timeout=play, ready_timeout=ready)
    t = Table([rigged_deck(0), rigged_deck(1)], config=config, first_bidder=0)
    assert the_event(t.started, TurnStarted).deadline == START + bid
    t.refuse(Timeout(0), ClockRunning)
    turn = the_event(t.bid(0, 3), TurnStarted)
    assert turn.deadline == START + play
    landlord_springs(t, 0)
    assert the_event(t.log[-1:], AwaitingReady).deadline == START + ready
    t.later(ready / 2)
    t.refuse(ReadyTimeout(), ClockRunning)
    t.ready_timeout()
    assert t.phase == "bidding"


def test_an_untimed_match_has_no_deadlines_and_refuses_timeouts_with_no_clock() -> None:
    t = Table([rigged_deck(0)], config=THREE_DEALS, first_bidder=0)
    assert the_event(t.started, TurnStarted).deadline is None
    t.later(3600)
    t.refuse(Timeout(0), NoClock)
    choose_landlord(t, 0, 3)
    t.refuse(Timeout(0), NoClock)
    landlord_springs(t, 0)
    assert assert_sent_to(t.log[-1:], EVERYONE, AwaitingReady).deadline is None
    t.later(3600)
    t.refuse(ReadyTimeout(), NoClock)


def test_a_timeout_before_the_deadline_is_refused_and_at_the_deadline_accepted() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    t.refuse(Timeout(0), ClockRunning)
    assert t.match.deadline == START + 15
    t.now = START + 14.99
    t.refuse(Timeout(0), ClockRunning)
    t.now = START + 15
    out = t.act(Timeout(0))
    assert the_event(out, BidMade) == BidMade(
        seat=0, bid=0, highest=0, timeout=True, version=t.match.version
    )


def test_a_timeout_for_a_seat_that_is_not_on_turn_is_refused() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    t.later(60)
    t.refuse(Timeout(1), NotYourTurn)
    t.refuse(Timeout(2), NotYourTurn)


def test_a_bid_timeout_passes() -> None:
    t = Table([rigged_deck(2)], config=TIMED, first_bidder=0)
    t.bid(0, 1)
    out = t.timeout(1)
    assert the_event(out, BidMade) == BidMade(
        seat=1, bid=0, highest=1, timeout=True, version=t.match.version
    )
    assert t.turn == 2
    assert t.match.timeouts_in_row == [0, 1, 0]


def test_a_bid_timeout_bids_1_where_the_seat_may_not_pass() -> None:
    decks = [*(all_pass_deck(s) for s in range(3)), rigged_deck(2)]
    t = Table(decks, config=TIMED, first_bidder=2)
    for _ in range(3):
        everyone_passes(t)
    assert t.match.deal.forced_bid
    out = t.timeout(2)
    assert the_event(out, BidMade) == BidMade(
        seat=2, bid=1, highest=1, timeout=True, version=t.match.version
    )
    t.pass_(0)
    chosen = the_event(t.pass_(1), LandlordChosen)
    assert (chosen.seat, chosen.base) == (2, 1)


def test_a_play_timeout_passes_when_following() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    choose_landlord(t, 0, 3)
    t.play(0, "5")
    out = t.timeout(1)
    assert the_event(out, Passed) == Passed(
        seat=1, trick_over=False, leader=None, timeout=True, version=t.match.version
    )
    assert t.counts == [19, 17, 17]
    assert t.turn == 2


def test_a_play_timeout_leads_the_lowest_card_as_a_single() -> None:
    t = Table([rigged_deck(0)], config=TIMED, first_bidder=0)
    choose_landlord(t, 0, 3)
    lowest = min(t.match.deal.hands[0])
    out = t.timeout(0)
    played = the_event(out, CardsPlayed)
    assert (played.seat, played.cards, played.kind) == (0, [lowest], Kind.SINGLE.value)
    assert played.timeout
    assert t.counts == [19, 17, 17]
    # A farmer who must lead after a trick leads its lowest card, too.
    t.play(1, "4")
    t.pass_(2)
    t.pass_(0)
    assert t.turn == 1
    lowest = min(t.match.deal.hands[1])
    played = the_event(t.timeout(1), CardsPlayed)
    assert (played.seat, played.cards) == (1, [lowest])


def test_two_timeouts_in_a_row_hand_the_seat_to_a_bot() -> None:
    t = Table([rigged_deck(1)], config=TIMED, first_bidder=0)
    out = t.timeout(0)  # seat 0 passes in the bidding
    assert events_of(out, SeatControl) == []
    assert t.match.timeouts_in_row == [1, 0, 0]
    t.bid(1, 3)
    t.play(1, "3")
    t.pass_(2)
    out = t.timeout(0)  # seat 0 passes in the trick: the second in a row
    control = assert_sent_to(out, EVERYONE, SeatControl)
    assert control == SeatControl(seat=0, bot=True, reason="timeouts", version=t.match.version)
    assert the_event(out, Passed).timeout
    assert t.match.bot_control == [True, False, False]
    assert t.match.view_for(None, t.now).bot_control == [True, False, False]
    # The bot now plays seat 0 at once; its actions do not count as the person's.
    t.play(1, "4")
    t.pass_(2)
    t.pass_(0)
    assert t.match.bot_control[0]
    assert t.match.timeouts_in_row[0] == 2
    # A third timeout does not announce the takeover again.
    t.play(1, "5")
    t.pass_(2)
    assert events_of(t.timeout(0), SeatControl) == []


def test_a_persons_own_action_resets_the_timeout_count() -> None:
    t = Table([rigged_deck(1)], config=TIMED, first_bidder=0)
    t.timeout(0)
    t.bid(1, 3)
    t.play(1, "3")
    t.pass_(2)
    t.pass_(0)  # seat 0 acts itself
    assert t.match.timeouts_in_row == [0, 0, 0]
    t.play(1, "4")
    t.pass_(2)
    out = t.timeout(0)
    assert events_of(out, SeatControl) == []
    assert t.match.bot_control == [False, False, False]
    assert t.match.timeouts_in_row == [1, 0, 0]


def test_timeouts_of_different_seats_do_not_add_up() -> None:
    t = Table([rigged_deck(2)], config=TIMED, first_bidder=0)
    t.timeout(0)
    t.timeout(1)
    assert t.match.timeouts_in_row == [1, 1, 0]
    assert t.match.bot_control == [False, False, False]


def test_resume_gives_the_seat_back_and_resume_when_not_taken_over_is_refused() -> None:
    t = Table([rigged_deck(2)], config=TIMED, first_bidder=0)
    t.refuse(Resume(0), NotTakenOver)
    t.timeout(0)
    t.refuse(Resume(0), NotTakenOver)
    t.timeout(1)
    t.bid(2, 3)
    t.play(2, "3")
    t.timeout(0)
    assert t.match.bot_control == [True, False, False]
    out = t.resume(0)
    assert out == [
        (EVERYONE, SeatControl(seat=0, bot=False, reason="resume", version=t.match.version))
    ]
    assert t.match.bot_control == [False, False, False]
    assert t.match.timeouts_in_row[0] == 0
    t.refuse(Resume(0), NotTakenOver)
    # The count starts afresh: one more timeout does not hand the seat over again.
    t.timeout(1)
    t.play(2, "5")
    assert events_of(t.timeout(0), SeatControl) == []
    assert t.match.bot_control == [False, True, False]


def test_resume_on_the_seats_own_turn_takes_effect_after_the_bots_action() -> None:
    """SPEC 8: resume "takes effect from their next turn": the bot finishes this one."""
    t = Table([rigged_deck(2)], config=TIMED, first_bidder=0)
    t.timeout(0)
    t.timeout(1)
    t.bid(2, 3)
    t.play(2, "3")
    t.timeout(0)
    t.timeout(1)
    t.play(2, "4")
    assert t.match.turn == 0 and t.match.bot_control[0]
    # pending: the bot still holds this turn, and everyone is told so
    assert t.resume(0) == [
        (EVERYONE, SeatControl(seat=0, bot=True, reason="resume_pending", version=t.match.version))
    ]
    assert t.match.bot_control[0] and t.match.resume_pending[0]
    t.refuse(Resume(0), NotTakenOver)
    out = t.pass_(0)  # the bot's action for seat 0
    assert events_of(out, SeatControl) == [
        SeatControl(seat=0, bot=False, reason="resume", version=t.match.version)
    ]
    assert t.match.bot_control == [False, True, False]  # seat 1 timed out twice as well
    assert t.match.resume_pending == [False, False, False]


def test_resume_is_allowed_between_deals() -> None:
    t = Table([rigged_deck(0), rigged_deck(1)], config=TIMED_THREE, first_bidder=0)
    t.bid(0, 3)
    t.play(0, "3-A")
    t.timeout(1)
    t.timeout(2)
    t.play(0, "2222")
    t.timeout(1)
    t.timeout(2)
    assert t.match.bot_control == [False, True, True]
    t.play(0, "SJ BJ")
    t.pass_(1)
    t.pass_(2)
    t.play(0, "33")
    assert t.phase == "between_deals"
    t.resume(2)
    assert t.match.bot_control == [False, True, False]


# --- between deals ----------------------------------------------------------------------------


def test_the_next_deal_starts_when_every_seat_has_sent_ready() -> None:
    t = between_deals(TIMED_THREE)
    awaiting = the_event(t.log[-1:], AwaitingReady)
    assert (awaiting.ready, awaiting.deadline) == ([False, False, False], t.now + 10)
    assert t.match.turn is None
    assert t.match.view_for(0, t.now).turn is None
    out = t.ready(2)
    awaiting = AwaitingReady(
        ready=[False, False, True],
        deadline=t.now + 10,
        server_time=t.now,
        version=t.match.version,
    )
    assert out == [(EVERYONE, awaiting)]
    t.refuse(Ready(2), AlreadyReady)
    t.ready(0)
    t.refuse(Ready(0), AlreadyReady)
    assert t.phase == "between_deals"
    out = t.ready(1)
    started = events_of(out, DealStarted)
    assert {(s.deal_no, s.first_bidder) for s in started} == {(2, 1)}
    assert t.phase == "bidding"
    assert t.match.ready == [False, False, False]
    assert t.match.deal.card_counts == [17, 17, 17]
    assert the_event(out, TurnStarted).deadline == t.now + 15
    t.refuse(Ready(1), WrongPhase)


def test_a_repeated_ready_is_refused_and_changes_nothing_even_for_a_seat_that_timed_out() -> None:
    t = Table([rigged_deck(0), rigged_deck(1)], config=TIMED_THREE, first_bidder=0)
    t.bid(0, 3)
    for cards in ("3-A", "2222"):
        t.play(0, cards)
        t.pass_(1)
        t.pass_(2)
    t.play(0, "SJ BJ")
    t.timeout(1)
    t.pass_(2)
    t.play(0, "33")
    assert t.phase == "between_deals"
    assert t.match.timeouts_in_row == [0, 1, 0]
    t.ready(1)
    t.refuse(Ready(1), AlreadyReady)


def test_a_ready_timeout_before_the_deadline_is_refused_and_after_it_starts_the_next_deal() -> None:
    t = between_deals(TIMED_THREE)
    t.ready(0)
    t.refuse(ReadyTimeout(), ClockRunning)
    t.later(9.5)
    t.refuse(ReadyTimeout(), ClockRunning)
    t.later(0.5)
    out = t.act(ReadyTimeout())
    assert {s.deal_no for s in events_of(out, DealStarted)} == {2}
    assert t.phase == "bidding"
    assert t.turn == 1


def test_totals_and_scores_survive_into_the_next_deal() -> None:
    t = between_deals(THREE_DEALS)
    t.all_ready()
    view = t.match.view_for(1, t.now)
    assert view.totals == [48, -24, -24]
    assert view.deal_scores == [[48, -24, -24]]
    assert view.last_deal is not None and view.last_deal.deal_no == 1
    assert (view.deal_no, view.landlord, view.base, view.multiplier) == (2, None, 0, 1)


def test_match_start_deals_once_and_addresses_the_first_deal() -> None:
    rng = StackedDecks([rigged_deck(0)], seed=3)
    match, out = Match.start(TIMED, rng, START, first_bidder=0)
    assert rng.shuffles == 1
    assert [aud for aud, _ in out] == [0, 1, 2, "watchers", EVERYONE]
    assert match.version == 0
    match.apply(Bid(0, 1), START, rng)
    assert match.version == 1


def test_the_forced_bid_rule_holds_for_random_first_bidders() -> None:
    for seed in range(6):
        rnd = random.Random(seed)
        first = rnd.randrange(3)
        decks = [all_pass_deck(seed * 10 + k) for k in range(3)] + [rigged_deck(first)]
        t = Table(decks, first_bidder=first, seed=seed)
        for _ in range(3):
            everyone_passes(t)
        t.refuse(Pass(first), MustBid)
        for farmer in farmers(first):
            t.refuse(Bid(farmer, 1), NotYourTurn)
        choose_landlord(t, first, 2)
        step(t, first, "3", (first + 1) % 3)
