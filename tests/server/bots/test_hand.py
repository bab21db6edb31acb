"""The hand split: the fewest groups, every card used once, bombs and the rocket kept."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from protocol.cards import card_rank, full_deck, parse_cards
from protocol.plays import Kind, classify
from server.bots.hand import counts_of, decompose, group_cost, hand_cost, minus


def split(text: str) -> list[str]:
    return sorted(str(g) for g in decompose(counts_of(parse_cards(text))))


@pytest.mark.parametrize(
    ("hand", "groups"),
    [
        # An airplane with two kickers and a straight: two groups, not five.
        ("33344455 6789 10 J", ["5 6 7 8 9 10", "333 444 5 J"]),
        ("3456789 10 JQKA 22 SJ BJ", ["22", "3 4 5 6 7 8 9 10 J Q K A", "SJ BJ"]),
        ("334455 7777 K", ["33 44 55", "7777", "K"]),
        ("QQQ 3 KKK 4", ["QQQ KKK 3 4"]),
        ("555 99", ["555 99"]),
        ("34567 34567", ["33 44 55 66 77"]),
        ("33 44 55 66 77 8", ["3 4 5 6 7", "3 4 5 6 7 8"]),
    ],
)
def test_fewest_groups(hand: str, groups: list[str]) -> None:
    got = split(hand)
    assert len(got) == len(groups), got
    assert got == sorted(str(classify(parse_cards(g))) for g in groups)


def test_a_split_uses_every_card_once_in_legal_plays() -> None:
    rng = random.Random(5)
    for _ in range(300):
        deck = full_deck()
        rng.shuffle(deck)
        hand = [card_rank(c) for c in deck[: rng.choice((5, 12, 17, 20))]]
        groups = decompose(counts_of(hand))
        used: Counter[object] = Counter()
        for g in groups:
            assert classify(g.cards) == g
            used.update(g.cards)
        assert used == Counter(hand)


def test_bombs_and_rocket_stay_whole() -> None:
    kinds = {g.kind for g in decompose(counts_of(parse_cards("3 5 7 9 JJJJ SJ BJ")))}
    assert {Kind.BOMB, Kind.ROCKET} <= kinds


def test_playing_a_group_of_the_split_lowers_the_cost() -> None:
    counts = counts_of(parse_cards("3 4 5 6 7 99 KKK 2"))
    before = hand_cost(counts)
    for g in decompose(counts):
        assert hand_cost(minus(counts, g.cards)) < before
    # Breaking the straight for a single costs more than leading the straight.
    assert hand_cost(minus(counts, parse_cards("5"))) > hand_cost(minus(counts, parse_cards("3-7")))


def test_the_cost_is_the_cost_of_the_split_it_finds() -> None:
    # hand_cost works the cost out without building plays; decompose builds them.
    rng = random.Random(3)
    for _ in range(500):
        deck = full_deck()
        rng.shuffle(deck)
        counts = counts_of(card_rank(c) for c in deck[: rng.randint(1, 20)])
        groups = decompose(counts)
        assert hand_cost(counts) == pytest.approx(sum(group_cost(g) for g in groups))
