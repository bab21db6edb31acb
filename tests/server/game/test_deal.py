"""One deal, played whole from fixed shuffles (SPEC sections 2, 3, 5 and 6): the deal, the
bidding, the kitty, tricks, and the score."""

from __future__ import annotations

import secrets

import pytest

from protocol.cards import DECK_SIZE, format_cards, parse_cards
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealEnded,
    DealStarted,
    LandlordChosen,
    Passed,
    TurnStarted,
)
from server.game.commands import Bid, Pass, PlayCards, Ready, ReadyTimeout
from server.game.errors import (
    BidNotHigher,
    BidOutOfRange,
    CardsNotHeld,
    DoesNotBeat,
    LeaderMustPlay,
    NotAPlay,
    NotYourTurn,
    WrongPhase,
)
from server.game.match import EVERYONE, Match, MatchConfig
from tests.server.game.helpers import (
    HIGH_TRIPLES,
    KITTY,
    LOW_TRIPLES,
    SEATS,
    STRONG,
    STRONG_WITH_KITTY,
    UNTIMED,
    Table,
    all_pass_deck,
    assert_sent_to,
    audiences_of,
    choose_landlord,
    deck_from,
    events_of,
    farmers,
    farmers_anti_spring,
    farmers_win_plainly,
    landlord_springs,
    landlord_wins_plainly,
    landlord_wins_with_rocket_and_bomb,
    ranks,
    rigged_deck,
    step,
    text_of,
    the_event,
)

# --- the deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_each_seat_gets_its_17_card_slice_of_the_shuffled_deck_and_the_last_3_are_the_kitty(
    seed: int,
) -> None:
    deck = all_pass_deck(seed)
    t = Table([deck])
    deal = t.match.deal
    for seat in SEATS:
        assert sorted(deal.hands[seat]) == sorted(deck[17 * seat : 17 * (seat + 1)])
        assert len(deal.hands[seat]) == 17
    assert sorted(deal.kitty) == sorted(deck[51:54])
    assert sorted([*deal.kitty, *(c for h in deal.hands for c in h)]) == list(range(DECK_SIZE))


def test_a_match_deals_from_a_cryptographically_secure_source() -> None:
    match, _ = Match.start(MatchConfig(deals=1), secrets.SystemRandom(), 0.0)
    hands = [sorted(h) for h in match.deal.hands]
    assert sorted([*match.deal.kitty, *(c for h in hands for c in h)]) == list(range(DECK_SIZE))
    assert [len(h) for h in hands] == [17, 17, 17]
    assert match.deal.first_bidder in SEATS


def test_the_deck_layout_helper_deals_the_hands_it_is_given() -> None:
    t = Table([rigged_deck(1)])
    assert t.hand(1) == format_cards(parse_cards(STRONG))
    assert t.hand(2) == format_cards(parse_cards(LOW_TRIPLES))
    assert t.hand(0) == format_cards(parse_cards(HIGH_TRIPLES))
    assert text_of(t.match.deal.kitty) == format_cards(parse_cards(KITTY))


def test_a_deal_starts_with_17_cards_a_seat_and_the_first_bidder_on_turn() -> None:
    t = Table([rigged_deck(0)], first_bidder=2)
    started = events_of(t.started, DealStarted)
    assert {(s.deal_no, s.first_bidder, s.forced_bid) for s in started} == {(1, 2, False)}
    assert all(s.card_counts == [17, 17, 17] for s in started)
    turn = the_event(t.started, TurnStarted)
    assert (turn.seat, turn.action, turn.may_pass) == (2, "bid", True)
    assert t.turn == 2


# --- bidding ----------------------------------------------------------------------------------


def test_seats_bid_in_turn_order_starting_with_the_first_bidder() -> None:
    t = Table([rigged_deck(0)], first_bidder=1)
    assert t.turn == 1
    out = t.pass_(1)
    assert the_event(out, BidMade) == BidMade(seat=1, bid=0, highest=0, version=t.match.version)
    assert t.turn == 2
    out = t.bid(2, 1)
    assert the_event(out, BidMade) == BidMade(seat=2, bid=1, highest=1, version=t.match.version)
    assert the_event(out, TurnStarted).seat == 0
    assert t.turn == 0
    assert t.match.deal.bids == [[1, 0], [2, 1]]


def test_each_seat_acts_once_and_the_highest_bidder_is_landlord_at_that_base() -> None:
    t = Table([rigged_deck(1)], first_bidder=0)
    t.bid(0, 1)
    assert t.phase == "bidding"
    t.bid(1, 2)
    assert t.phase == "bidding"
    out = t.pass_(2)
    chosen = the_event(out, LandlordChosen)
    assert (chosen.seat, chosen.base) == (1, 2)
    assert t.match.deal.landlord == 1
    assert t.match.deal.base == 2
    assert t.phase == "playing"


def test_the_first_bidder_can_become_landlord_when_the_others_pass() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.bid(0, 1)
    t.pass_(1)
    chosen = the_event(t.pass_(2), LandlordChosen)
    assert (chosen.seat, chosen.base) == (0, 1)


def test_a_bid_of_3_by_the_first_bidder_ends_the_bidding_at_once() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    out = t.bid(0, 3)
    chosen = assert_sent_to(out, EVERYONE, LandlordChosen)
    assert (chosen.seat, chosen.base) == (0, 3)
    assert t.match.deal.bids == [[0, 3]]
    assert t.phase == "playing"
    t.refuse(Bid(1, 1), WrongPhase)
    t.refuse(Pass(1), NotYourTurn)


def test_a_bid_of_3_after_a_lower_bid_ends_the_bidding_at_once() -> None:
    t = Table([rigged_deck(1)], first_bidder=0)
    t.bid(0, 2)
    chosen = the_event(t.bid(1, 3), LandlordChosen)
    assert (chosen.seat, chosen.base) == (1, 3)
    assert len(t.match.deal.bids) == 2
    assert t.turn == 1


@pytest.mark.parametrize(("highest", "attempt"), [(1, 1), (2, 1), (2, 2)])
def test_a_bid_must_be_strictly_higher_than_the_highest_bid_so_far(
    highest: int, attempt: int
) -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.bid(0, highest)
    t.refuse(Bid(1, attempt), BidNotHigher)
    assert t.turn == 1
    t.bid(1, highest + 1)


def test_a_lower_bid_is_refused_even_after_a_pass() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.bid(0, 2)
    t.pass_(1)
    t.refuse(Bid(2, 2), BidNotHigher)
    t.refuse(Bid(2, 1), BidNotHigher)


@pytest.mark.parametrize("value", [4, 5, -1, 100])
def test_a_bid_is_1_2_or_3(value: int) -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.refuse(Bid(0, value), BidOutOfRange)
    t.bid(0, 1)
    t.refuse(Bid(1, value), BidOutOfRange)


def test_bidding_out_of_turn_is_refused() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.refuse(Bid(1, 1), NotYourTurn)
    t.refuse(Pass(2), NotYourTurn)
    t.bid(0, 1)
    t.refuse(Bid(0, 2), NotYourTurn)


def test_playing_cards_during_the_bidding_is_the_wrong_phase() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.refuse(PlayCards(0, ranks("3")), WrongPhase)
    t.refuse(PlayCards(1, ranks("4")), WrongPhase)


# --- the kitty and the lead -------------------------------------------------------------------


@pytest.mark.parametrize("landlord", SEATS)
def test_the_kitty_is_shown_to_everyone_and_joins_the_landlords_hand(landlord: int) -> None:
    deck = rigged_deck(landlord)
    t = Table([deck], first_bidder=landlord)
    assert t.match.view_for(None, t.now).kitty is None
    out = t.bid(landlord, 3)
    assert audiences_of(out, LandlordChosen) == [EVERYONE]
    chosen = the_event(out, LandlordChosen)
    assert chosen.kitty == sorted(deck[51:54])
    assert chosen.card_counts == [20 if s == landlord else 17 for s in SEATS]
    assert t.hand(landlord) == format_cards(parse_cards(STRONG_WITH_KITTY))
    assert set(chosen.kitty) <= set(t.match.deal.hands[landlord])
    assert len(t.match.deal.hands[landlord]) == 20
    assert t.match.view_for(None, t.now).kitty == chosen.kitty


@pytest.mark.parametrize("landlord", SEATS)
def test_the_landlord_leads_the_first_trick_and_may_not_pass(landlord: int) -> None:
    t = Table([rigged_deck(landlord)], first_bidder=(landlord + 1) % 3)
    chosen = choose_landlord(t, landlord, 2)
    assert chosen.seat == landlord
    turn = the_event(t.log[-1:], TurnStarted)
    assert (turn.seat, turn.action, turn.may_pass) == (landlord, "play", False)
    t.refuse(Pass(landlord), LeaderMustPlay)
    for farmer in farmers(landlord):
        t.refuse(PlayCards(farmer, ranks("4")), NotYourTurn)
    step(t, landlord, "3", (landlord + 1) % 3)


def test_bidding_after_the_landlord_is_chosen_is_the_wrong_phase() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.bid(0, 3)
    t.refuse(Bid(0, 3), WrongPhase)


def test_ready_during_a_deal_is_the_wrong_phase() -> None:
    t = Table([rigged_deck(0)], first_bidder=0)
    t.refuse(Ready(0), WrongPhase)
    t.refuse(ReadyTimeout(), WrongPhase)
    t.bid(0, 3)
    t.refuse(Ready(1), WrongPhase)
    t.refuse(ReadyTimeout(), WrongPhase)


# --- tricks -----------------------------------------------------------------------------------


def started_with_landlord(landlord: int = 0, base: int = 1, config: MatchConfig = UNTIMED) -> Table:
    t = Table([rigged_deck(landlord)], config=config, first_bidder=landlord)
    choose_landlord(t, landlord, base)
    return t


def test_two_passes_in_a_row_end_the_trick_and_the_last_player_leads() -> None:
    t = started_with_landlord(0)
    step(t, 0, "3", 1)
    step(t, 1, "4", 2)
    out = step(t, 2, "pass", 0)
    assert the_event(out, Passed) == Passed(
        seat=2, trick_over=False, leader=None, version=t.match.version
    )
    assert t.match.deal.passes_in_row == 1
    out = step(t, 0, "pass", 1)
    assert the_event(out, Passed) == Passed(
        seat=0, trick_over=True, leader=1, version=t.match.version
    )
    turn = the_event(out, TurnStarted)
    assert (turn.seat, turn.may_pass) == (1, False)
    assert t.match.deal.last_play is None
    assert t.match.deal.passes_in_row == 0
    t.refuse(Pass(1), LeaderMustPlay)
    # A new trick takes any play: a pair after a trick of singles.
    step(t, 1, "44", 2)


def test_the_trick_winner_leads_even_when_the_landlord_led_it() -> None:
    t = started_with_landlord(2)
    step(t, 2, "3", 0)
    step(t, 0, "pass", 1)
    out = step(t, 1, "9", 2)
    assert the_event(out, CardsPlayed).seat == 1
    step(t, 2, "pass", 0)
    out = step(t, 0, "pass", 1)
    assert the_event(out, Passed).leader == 1


def test_a_pass_does_not_stop_a_seat_from_playing_later_in_the_same_trick() -> None:
    t = started_with_landlord(0)
    step(t, 0, "3", 1)
    step(t, 1, "4", 2)
    step(t, 2, "pass", 0)
    step(t, 0, "5", 1)
    step(t, 1, "6", 2)
    step(t, 2, "9", 0)  # seat 2 passed earlier in this trick
    assert t.match.deal.passes_in_row == 0
    step(t, 0, "pass", 1)
    out = step(t, 1, "pass", 2)
    assert the_event(out, Passed).leader == 2


def test_playing_cards_the_seat_does_not_hold_is_refused() -> None:
    t = started_with_landlord(0)
    t.refuse(PlayCards(0, ranks("444")), CardsNotHeld)  # the landlord holds one 4
    t.refuse(PlayCards(0, ranks("3333")), CardsNotHeld)  # ... and three 3s
    step(t, 0, "3", 1)
    t.refuse(PlayCards(1, ranks("2")), CardsNotHeld)
    t.refuse(PlayCards(1, ranks("BJ")), CardsNotHeld)


def test_cards_that_are_none_of_the_14_kinds_are_refused() -> None:
    t = started_with_landlord(0)
    t.refuse(PlayCards(0, ranks("3 4")), NotAPlay)
    t.refuse(PlayCards(0, ranks("3 4 5 6")), NotAPlay)  # a straight is at least 5
    t.refuse(PlayCards(0, ranks("Q K A 2 SJ")), NotAPlay)  # 2 and jokers are no chain
    t.refuse(PlayCards(0, ()), NotAPlay)


def test_a_play_that_does_not_beat_the_table_is_refused() -> None:
    t = started_with_landlord(0)
    step(t, 0, "5", 1)
    t.refuse(PlayCards(1, ranks("4")), DoesNotBeat)  # lower
    t.refuse(PlayCards(1, ranks("5")), DoesNotBeat)  # equal
    t.refuse(PlayCards(1, ranks("44")), DoesNotBeat)  # another kind
    t.refuse(PlayCards(1, ranks("444")), DoesNotBeat)
    step(t, 1, "6", 2)


def test_a_straight_is_beaten_only_by_a_higher_straight_of_the_same_length_or_a_bomb() -> None:
    t = started_with_landlord(0)
    step(t, 0, "3-7", 1)
    step(t, 1, "4-8", 2)
    t.refuse(PlayCards(2, ranks("9-A")), DoesNotBeat)  # a longer straight
    step(t, 2, "pass", 0)
    step(t, 0, "8-Q", 1)
    step(t, 1, "pass", 2)
    step(t, 2, "9-K", 0)
    played = the_event(step(t, 0, "2222", 1), CardsPlayed)
    assert (played.kind, played.multiplier) == ("bomb", 2)
    t.refuse(PlayCards(1, ranks("44")), DoesNotBeat)
    step(t, 1, "pass", 2)
    t.refuse(PlayCards(2, ranks("QQ")), DoesNotBeat)
    step(t, 2, "pass", 0)
    step(t, 0, "SJ BJ", 1)  # the rocket beats anything and is beaten by nothing
    t.refuse(PlayCards(1, ranks("44")), DoesNotBeat)


def test_playing_out_of_turn_is_refused() -> None:
    t = started_with_landlord(0)
    t.refuse(PlayCards(1, ranks("4")), NotYourTurn)
    step(t, 0, "3", 1)
    t.refuse(PlayCards(2, ranks("9")), NotYourTurn)
    t.refuse(Pass(0), NotYourTurn)
    t.refuse(PlayCards(0, ranks("4")), NotYourTurn)


def test_the_deal_ends_the_moment_a_seat_has_no_cards() -> None:
    t = started_with_landlord(0, base=3, config=MatchConfig(deals=3))
    ended = landlord_springs(t, 0)
    assert t.counts == [0, 17, 17]
    assert t.match.deal.phase == "over"
    assert ended.hands == [[], t.match.deal.hands[1], t.match.deal.hands[2]]
    assert [len(h) for h in ended.hands] == [0, 17, 17]
    t.refuse(PlayCards(1, ranks("4")), WrongPhase)
    t.refuse(Pass(1), WrongPhase)


# --- the score --------------------------------------------------------------------------------


@pytest.mark.parametrize("landlord", SEATS)
def test_a_spring_doubles_once_more_when_the_landlord_wins_and_no_farmer_played(
    landlord: int,
) -> None:
    t = started_with_landlord(landlord, base=3)
    ended = landlord_springs(t, landlord)
    assert ended.winner == "landlord"
    assert ended.landlord == landlord
    score = ended.score
    assert (score.base, score.bombs, score.rockets) == (3, 1, 1)
    assert (score.spring, score.anti_spring) == (True, False)
    assert score.multiplier == 8  # bomb x2, rocket x2, spring x2
    f1, f2 = farmers(landlord)
    assert score.scores[landlord] == 48
    assert score.scores[f1] == score.scores[f2] == -24


@pytest.mark.parametrize("landlord", SEATS)
def test_an_anti_spring_doubles_when_the_farmers_win_and_the_landlord_only_led_once(
    landlord: int,
) -> None:
    t = started_with_landlord(landlord, base=1)
    ended = farmers_anti_spring(t, landlord)
    assert ended.winner == "farmers"
    assert t.match.deal.plays_made[landlord] == 1
    score = ended.score
    assert (score.spring, score.anti_spring, score.bombs, score.rockets) == (
        False,
        True,
        0,
        0,
    )
    assert score.multiplier == 2
    f1, f2 = farmers(landlord)
    assert score.scores[landlord] == -4
    assert score.scores[f1] == score.scores[f2] == 2


def test_a_landlord_win_after_a_farmer_played_is_no_spring() -> None:
    t = started_with_landlord(1, base=2)
    ended = landlord_wins_plainly(t, 1)
    score = ended.score
    assert (score.spring, score.anti_spring, score.multiplier) == (False, False, 1)
    assert score.scores == [-2, 4, -2]


def test_a_farmers_win_after_the_landlord_played_twice_is_no_anti_spring() -> None:
    t = started_with_landlord(2, base=3)
    ended = farmers_win_plainly(t, 2)
    assert ended.winner == "farmers"
    score = ended.score
    assert (score.spring, score.anti_spring, score.multiplier) == (False, False, 1)
    assert score.scores == [3, 3, -6]


def test_a_bomb_and_the_rocket_each_double_the_stake() -> None:
    t = started_with_landlord(1, base=2)
    multipliers = []
    ended: DealEnded | None = None
    f1, f2 = farmers(1)
    step(t, 1, "3", f1)
    step(t, f1, "4", f2)
    step(t, f2, "pass", 1)
    for cards in ("SJ BJ", "2222", "3-A"):
        multipliers.append(the_event(step(t, 1, cards, f1), CardsPlayed).multiplier)
        assert t.match.view_for(None, t.now).multiplier == multipliers[-1]
        step(t, f1, "pass", f2)
        step(t, f2, "pass", 1)
    ended = the_event(step(t, 1, "3", None), DealEnded)
    assert multipliers == [2, 4, 4]
    score = ended.score
    assert (score.base, score.bombs, score.rockets, score.spring) == (2, 1, 1, False)
    assert score.multiplier == 4
    assert score.scores == [-8, 16, -8]  # S = 2 x 4


def test_the_rocket_and_bomb_script_scores_the_same_for_every_landlord_seat() -> None:
    for landlord in SEATS:
        t = started_with_landlord(landlord, base=2)
        ended = landlord_wins_with_rocket_and_bomb(t, landlord)
        assert ended.score.scores[landlord] == 16
        assert sorted(ended.score.scores) == [-8, -8, 16]


# A layout where a farmer holds a bomb: the landlord holds 33 555 6..A 2222 SJ BJ after the
# kitty, the next seat 33 4444 5 666 777 888 9.
BOMB_FARMER_HANDS = ["33 555 6-A 222", "33 4444 5 666 777 888 9", HIGH_TRIPLES]


def test_a_farmers_bomb_doubles_too_and_a_higher_bomb_beats_it() -> None:
    t = Table([deck_from(BOMB_FARMER_HANDS, KITTY)], first_bidder=0)
    choose_landlord(t, 0, 1)
    assert t.hand(0) == "33 555 6 7 8 9 10 J Q K A 2222 SJ BJ"
    step(t, 0, "5", 1)
    played = the_event(step(t, 1, "4444", 2), CardsPlayed)
    assert (played.kind, played.multiplier) == ("bomb", 2)
    t.refuse(PlayCards(2, ranks("AAA")), DoesNotBeat)
    step(t, 2, "pass", 0)
    t.refuse(PlayCards(0, ranks("6-A")), DoesNotBeat)
    played = the_event(step(t, 0, "2222", 1), CardsPlayed)
    assert (played.kind, played.multiplier) == ("bomb", 4)
    step(t, 1, "pass", 2)
    step(t, 2, "pass", 0)
    for cards in ("SJ BJ", "6-A", "33"):
        step(t, 0, cards, 1)
        step(t, 1, "pass", 2)
        step(t, 2, "pass", 0)
    ended = the_event(step(t, 0, "55", None), DealEnded)
    score = ended.score
    assert (score.bombs, score.rockets, score.spring, score.multiplier) == (2, 1, False, 8)
    assert score.scores == [16, -8, -8]


def test_the_end_of_deal_summary_goes_to_everyone_with_every_seats_remaining_cards() -> None:
    t = started_with_landlord(0, base=1)
    ended = landlord_wins_plainly(t, 0)
    out = t.log[-3:]
    assert assert_sent_to(out, EVERYONE, DealEnded) == ended
    assert audiences_of(t.log, DealEnded) == [EVERYONE]
    assert text_of(ended.hands[1]) == "3 44 555 666 777 888 9"
    assert text_of(ended.hands[2]) == format_cards(parse_cards(HIGH_TRIPLES))
    assert ended.totals == [2, -1, -1]
