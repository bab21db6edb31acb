"""The normal bot's club play: team play as a farmer, blocking a landlord near out, bombs kept
for when they matter, and a lead order that sheds the hand."""

from __future__ import annotations

from protocol.cards import parse_cards
from protocol.plays import Kind, classify
from server.bots.normal import NormalBot
from tests.server.bots.helpers import play_view

# Seats: the landlord is seat 0; seat 1 plays after him, seat 2 before him.


def play(view_args: dict[str, object]) -> str | None:
    ranks = NormalBot().play(play_view(**view_args))  # type: ignore[arg-type]
    return None if ranks is None else str(classify(ranks))


def test_a_farmer_does_not_beat_his_partner_without_need() -> None:
    # Seat 2's partner (seat 1) leads a 10; seat 2 could top it with its ace or by breaking
    # its jacks, but lets it run.
    assert (
        play(dict(seat=2, hand="4 JJ QQQ A", landlord=0, card_counts=[15, 12, 7], table=(1, "10")))
        is None
    )


def test_a_farmer_answers_the_landlord() -> None:
    assert (
        play(dict(seat=1, hand="4 9 JJ QQQ K", landlord=0, card_counts=[15, 9, 12], table=(0, "6")))
        == "9"
    )


def test_a_farmer_tops_his_partner_when_the_landlord_next_has_one_card() -> None:
    # The partner's 8 would let the landlord (next, one card) go out with anything higher.
    assert (
        play(dict(seat=2, hand="4 9 JJ QQQ A", landlord=0, card_counts=[1, 12, 9], table=(1, "8")))
        == "A"
    )


def test_a_farmer_stops_a_landlord_with_one_card_with_his_highest_single() -> None:
    assert (
        play(
            dict(seat=1, hand="4 9 JJ QQQ K 2", landlord=0, card_counts=[1, 9, 12], table=(0, "8"))
        )
        == "2"
    )


def test_no_single_is_led_to_a_landlord_with_one_card() -> None:
    led = play(dict(seat=2, hand="4 9 JJ K", landlord=0, card_counts=[1, 12, 5]))
    assert led == "JJ"


def test_no_pair_is_led_to_a_landlord_with_two_cards() -> None:
    led = play(dict(seat=2, hand="44 9 JJ K", landlord=0, card_counts=[2, 12, 5]))
    assert led is not None and classify(parse_cards(led)).kind is not Kind.PAIR  # type: ignore[union-attr]


def test_a_farmer_leads_low_to_a_partner_with_one_card() -> None:
    assert play(dict(seat=1, hand="4 9 JJ QQQ K", landlord=0, card_counts=[12, 9, 1])) == "4"


def test_the_landlord_leads_its_low_groups_first_and_cashes_winners_at_the_end() -> None:
    assert play(dict(seat=0, hand="3 4 5 6 7 99 2", landlord=0, card_counts=[8, 17, 17])) == (
        "3 4 5 6 7"
    )
    # Only one loose group left: the sure winner (the 2 when the jokers are gone) first.
    history = [(1, "SJ"), (2, "BJ")]
    assert (
        play(dict(seat=0, hand="99 2", landlord=0, card_counts=[3, 16, 16], history=history)) == "2"
    )


def test_bombs_are_kept_while_nobody_is_near_out() -> None:
    assert (
        play(dict(seat=0, hand="3 5 7777 9 J", landlord=0, card_counts=[8, 15, 15], table=(1, "A")))
        is None
    )
    # ... and used to stop a farmer with two cards.
    assert (
        play(dict(seat=0, hand="3 5 7777 9 J", landlord=0, card_counts=[8, 2, 15], table=(1, "A")))
        == "7777"
    )


def test_the_bot_goes_out_when_it_can() -> None:
    assert (
        play(dict(seat=2, hand="88", landlord=0, card_counts=[10, 12, 2], table=(1, "55"))) == "88"
    )
